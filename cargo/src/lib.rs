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
    #[error("could not run `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("`{command}` did not finish within {seconds} s and was killed")]
    Timeout { command: String, seconds: u64 },
    #[error("`cargo metadata` on {manifest} failed: {stderr}")]
    Metadata { manifest: String, stderr: String },
}
