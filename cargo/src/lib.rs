//! frugal-cargo: the one place that drives cargo. It builds cargo commands with the
//! environment frugal always sets (explicit target dir, `--cap-lints=warn` appended to the
//! caller's rustflags so a crate's `deny(warnings)` cannot reject probes, no progress bars or
//! colour, stdin closed, an own process group), runs them under a wall-clock timeout that kills
//! the whole process group, reads `cargo metadata`, and parses cargo's JSON messages into
//! compiler errors (with the macro call sites they expand from) and built artifacts.
//!
//! Knows nothing of what is built or why: no probes, no harness, no tests, no HTTP. Confinement
//! (what a build may read, write and connect to) is the caller's policy: with
//! [`Cargo::sandbox`] every command is spawned through `frugal-sandbox`, whose job is killed
//! whole at the end or the timeout.

mod messages;
mod metadata;
mod run;

pub use messages::{Artifact, CompilerError, Location, Messages};
pub use metadata::{Metadata, Package, Target};
pub use run::{BUILD_TIMEOUT, BUILD_TIMEOUT_ENV, Cargo, Output, build_timeout, confine};

/// What went wrong driving cargo (not a failed build: that is an [`Output`] with errors).
#[derive(Debug, thiserror::Error)]
pub enum CargoError {
    /// The command could not be started or waited for, or the sandbox could not confine it.
    #[error("could not run `{command}`: {source}")]
    Spawn {
        /// `cargo` and its first three arguments, enough to tell which run it was.
        command: String,
        /// The I/O error; a sandbox failure is carried as its message.
        source: std::io::Error,
    },
    /// The command ran past its timeout; its whole process tree was killed.
    #[error("`{command}` did not finish within {seconds} s and was killed")]
    Timeout {
        /// `cargo` and its first three arguments.
        command: String,
        /// The timeout that expired, in whole seconds.
        seconds: u64,
    },
    /// `cargo metadata` exited with an error or printed JSON we could not read.
    #[error("`cargo metadata` on {manifest} failed: {stderr}")]
    Metadata {
        /// The `Cargo.toml` it was run on.
        manifest: String,
        /// Cargo's stderr, trimmed, or why its output was unreadable.
        stderr: String,
    },
}
