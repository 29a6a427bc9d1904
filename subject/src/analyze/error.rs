//! What can stop an analysis, and what it reports while carrying on.
//!
//! Only a crate we cannot find or whose root does not parse stops the analysis: a bad module
//! file costs the items in it, not the whole API, so it becomes an [`AnalyzeWarning`].

use std::path::PathBuf;

/// Why a crate could not be analysed at all.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("failed to read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to parse manifest {path}: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("failed to find a library target in {path}: no [lib] path and no src/lib.rs")]
    NoLibrary { path: PathBuf },
    #[error("failed to parse the library root {path}: {message}")]
    RootParse { path: PathBuf, message: String },
}

/// A problem that cost part of the model: a module file missing or failing to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyzeWarning {
    /// File relative to the crate directory (the module file, or the file declaring it).
    pub file: String,
    pub message: String,
}

impl std::fmt::Display for AnalyzeWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}
