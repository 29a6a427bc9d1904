use std::path::PathBuf;

/// Everything that can go wrong while preparing or supervising a confined process.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A directory the policy needs could not be created.
    #[error("cannot create {path}: {source}")]
    CreateDir {
        /// The directory (a job's `home` or `tmp` under its scratch dir).
        path: PathBuf,
        /// Why `create_dir_all` failed.
        source: std::io::Error,
    },
    /// A writable directory could not be handed to the job's own uid.
    #[error("cannot hand {path} to the job's uid: {source}")]
    HandOver {
        /// The writable directory being handed over (the failure may be on an entry under it).
        path: PathBuf,
        /// Why opening, checking or `fchown` failed.
        source: std::io::Error,
    },
    /// The Landlock ruleset could not be built (the kernel refused a rule).
    #[error("Landlock ruleset: {0}")]
    Landlock(#[from] landlock::RulesetError),
    /// A path given to the policy could not be opened to become a Landlock rule.
    #[error("Landlock rule for {path}: {source}")]
    LandlockPath {
        /// The readable or writable path the rule was for.
        path: PathBuf,
        /// Why Landlock could not open it.
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
        /// The cgroup directory or control file.
        path: PathBuf,
        /// Why creating or writing it failed.
        source: std::io::Error,
    },
    /// Spawning or waiting for the child failed.
    #[error("process: {0}")]
    Io(#[from] std::io::Error),
}
