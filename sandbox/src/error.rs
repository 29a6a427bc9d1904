use std::path::PathBuf;

/// Everything that can go wrong while preparing or supervising a confined process.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A directory the policy needs could not be created.
    #[error("cannot create {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A writable directory could not be handed to the job's own uid.
    #[error("cannot hand {path} to the job's uid: {source}")]
    HandOver {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The Landlock ruleset could not be built (the kernel refused a rule).
    #[error("Landlock ruleset: {0}")]
    Landlock(#[from] landlock::RulesetError),
    /// A path given to the policy could not be opened to become a Landlock rule.
    #[error("Landlock rule for {path}: {source}")]
    LandlockPath {
        path: PathBuf,
        source: landlock::PathFdError,
    },
    /// The seccomp filter could not be compiled.
    #[error("seccomp filter: {0}")]
    Seccomp(#[from] seccompiler::BackendError),
    /// The policy demands filesystem confinement and this kernel cannot give it.
    #[error("filesystem confinement required but unavailable: {0}")]
    Unconfinable(String),
    /// The job cgroup could not be set up although a cgroup hierarchy is writable.
    #[error("job cgroup {path}: {source}")]
    Cgroup {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Spawning or waiting for the child failed.
    #[error("process: {0}")]
    Io(#[from] std::io::Error),
}
