//! What can stop an analysis, and what it reports while carrying on.
//!
//! Only a crate we cannot find or whose root does not parse stops the analysis: a bad module
//! file costs the items in it, not the whole API, so it becomes an [`AnalyzeWarning`].

use std::path::PathBuf;

/// Why a crate could not be analysed at all.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The crate's `Cargo.toml` could not be read.
    #[error("failed to read {path}: {source}")]
    Read {
        /// The manifest's path.
        path: PathBuf,
        /// The I/O error reading it.
        #[source]
        source: std::io::Error,
    },
    /// The crate's `Cargo.toml` is not valid TOML, or names neither a package nor a library.
    #[error("failed to parse manifest {path}: {message}")]
    Manifest {
        /// The manifest's path.
        path: PathBuf,
        /// What is wrong with it, for the user.
        message: String,
    },
    /// The manifest names no `[lib] path`, there is no `src/lib.rs`, and no binary root stands in.
    #[error("failed to find a library target in {path}: no [lib] path and no src/lib.rs")]
    NoLibrary {
        /// The manifest's path.
        path: PathBuf,
    },
    /// The library root file is missing or does not parse as Rust.
    #[error("failed to parse the library root {path}: {message}")]
    RootParse {
        /// The root file's path.
        path: PathBuf,
        /// Why it could not be read or parsed.
        message: String,
    },
}

/// A problem that cost part of the model: a module file missing or failing to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzeWarning {
    /// File relative to the crate directory (the module file, or the file declaring it).
    pub file: String,
    /// What went wrong with that file (read or parse error).
    pub message: String,
}

impl std::fmt::Display for AnalyzeWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}
