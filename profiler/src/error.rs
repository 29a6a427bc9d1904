//! Errors of the profiler: what failed, on which input, what to do.

use std::path::PathBuf;

/// Why a profile could not be made. A test that fails, crashes or hangs is not an error: it is an
/// [`Outcome`](crate::report::Outcome) in the report.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The directory given as the crate to profile holds no `Cargo.toml`.
    #[error("no Cargo.toml in `{}`: give the directory of the crate to profile", .0.display())]
    NotACrate(PathBuf),

    /// The [`ProfileConfig`](crate::ProfileConfig) is unusable (e.g. `repeat` is 0); says why.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// A process could not be started.
    #[error("failed to run `{command}`: {source}")]
    Spawn {
        /// The program that failed to start.
        command: String,
        /// Why the operating system refused.
        #[source]
        source: std::io::Error,
    },

    /// Cargo itself could not be run to build the tests (not a compile error: that is
    /// [`ProfileError::Build`]); the message says why.
    #[error("{0}")]
    Cargo(String),

    /// `cargo metadata` failed on the crate, or lists no package for its manifest.
    #[error("failed to read the metadata of the crate in `{}`: {stderr}", dir.display())]
    Metadata {
        /// The crate's directory.
        dir: PathBuf,
        /// What cargo printed on stderr, or what was wrong with its answer.
        stderr: String,
    },

    /// The crate's tests did not compile.
    #[error(
        "failed to build the tests of crate `{krate}` (in `{}`); the compiler said first:\n{first_errors}",
        dir.display()
    )]
    Build {
        /// The crate's package name.
        krate: String,
        /// The crate's directory.
        dir: PathBuf,
        /// The first errors the compiler reported.
        first_errors: String,
    },

    /// [`Suite::Generated`](crate::report::Suite::Generated) was asked for, but the crate has no `frugal_generated` test target.
    #[error("crate `{krate}` has no generated suite: expected `tests/frugal_generated.rs`")]
    NoGeneratedSuite {
        /// The crate's package name.
        krate: String,
    },

    /// No launcher: the path given explicitly or in `$FRUGAL_LAUNCH` is not a file, or, when
    /// neither is set, no `frugal-launch` lies next to the running executable (or one directory
    /// up) and the executable cannot serve as the launcher itself.
    #[error(
        "failed to find the launcher `frugal-launch` (looked at: {}); build it with \
         `cargo build -p frugal-profiler --bin frugal-launch` and put it next to `frugal`, or set \
         FRUGAL_LAUNCH to its path",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    LauncherNotFound {
        /// Every path looked at, in order.
        searched: Vec<PathBuf>,
    },

    /// The launcher broke its protocol with the profiler: no pid, a bad pid line, no report, a
    /// broken pipe.
    #[error("the launcher `{}` misbehaved: {message}", launcher.display())]
    Launcher {
        /// The launcher program.
        launcher: PathBuf,
        /// What went wrong.
        message: String,
    },

    /// The valgrind binary could not be run.
    #[error(
        "valgrind not found at `{}` ({source}): install the Debian package `valgrind` \
         (`apt-get install valgrind`) or point FRUGAL_VALGRIND at the binary",
        path.display()
    )]
    ValgrindMissing {
        /// The valgrind binary that was tried.
        path: PathBuf,
        /// Why running it failed.
        #[source]
        source: std::io::Error,
    },

    /// Valgrind's output file could not be read or parsed.
    #[error("failed to read valgrind's output `{}`: {message}", path.display())]
    ValgrindOutput {
        /// The output file valgrind was to write.
        path: PathBuf,
        /// Why it could not be read or parsed.
        message: String,
    },

    /// An I/O operation of the profiler's own failed.
    #[error("failed to {context}: {source}")]
    Io {
        /// What was being done, worded to follow "failed to".
        context: String,
        /// The underlying error.
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
