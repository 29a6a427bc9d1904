//! Errors of the profiler: what failed, on which input, what to do.

use std::path::PathBuf;

/// Why a profile could not be made. A test that fails, crashes or hangs is not an error: it is an
/// [`Outcome`](crate::report::Outcome) in the report.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("no Cargo.toml in `{}`: give the directory of the crate to profile", .0.display())]
    NotACrate(PathBuf),

    #[error("invalid configuration: {0}")]
    Config(String),

    #[error("failed to run `{command}`: {source}")]
    Spawn {
        command: String,
        #[source]
        source: std::io::Error,
    },

    #[error("{0}")]
    Cargo(String),

    #[error("failed to read the metadata of the crate in `{}`: {stderr}", dir.display())]
    Metadata { dir: PathBuf, stderr: String },

    #[error(
        "failed to build the tests of crate `{krate}` (in `{}`); the compiler said first:\n{first_errors}",
        dir.display()
    )]
    Build {
        krate: String,
        dir: PathBuf,
        first_errors: String,
    },

    #[error("crate `{krate}` has no generated suite: expected `tests/frugal_generated.rs`")]
    NoGeneratedSuite { krate: String },

    #[error(
        "failed to find the launcher `frugal-launch` (looked at: {}); build it with \
         `cargo build -p frugal-profiler --bin frugal-launch` and put it next to `frugal`, or set \
         FRUGAL_LAUNCH to its path",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    LauncherNotFound { searched: Vec<PathBuf> },

    #[error("the launcher `{}` misbehaved: {message}", launcher.display())]
    Launcher { launcher: PathBuf, message: String },

    #[error(
        "valgrind not found at `{}` ({source}): install the Debian package `valgrind` \
         (`apt-get install valgrind`) or point FRUGAL_VALGRIND at the binary",
        path.display()
    )]
    ValgrindMissing {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("failed to read valgrind's output `{}`: {message}", path.display())]
    ValgrindOutput { path: PathBuf, message: String },

    #[error("failed to {context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl ProfileError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> ProfileError {
        ProfileError::Io {
            context: context.into(),
            source,
        }
    }
}
