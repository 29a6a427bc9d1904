//! Errors of the store.

use std::path::PathBuf;

/// What went wrong in the store. Messages fit after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("open the store at {path}: {source} (is another frugald using this state_dir?)")]
    Open {
        path: PathBuf,
        #[source]
        source: sled::Error,
    },
    #[error(
        "open the store at {path}: its schema version is {found}, newer than the {supported} this \
         frugal understands; run a newer frugal or point state_dir at another directory"
    )]
    NewerSchema {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error(
        "open the store at {path}: schema version {found} has no migration towards {target}; \
         export it with the frugal that wrote it and import it here"
    )]
    NoMigration {
        path: PathBuf,
        found: u32,
        target: u32,
    },
    #[error("migrate the store from schema {from} to {to} ({description}): {message}")]
    Migration {
        from: u32,
        to: u32,
        description: &'static str,
        message: String,
    },
    #[error("read or write the store: {0}")]
    Sled(#[from] sled::Error),
    #[error(
        "decode record {key} of tree `{tree}` (corrupt or written by another schema): {source}"
    )]
    Corrupt {
        tree: &'static str,
        key: String,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "decode record {key} of tree `{tree}` (corrupt): {found} bytes where {expected} were \
         expected"
    )]
    BadValue {
        tree: &'static str,
        key: String,
        expected: usize,
        found: usize,
    },
    #[error("find {what} {id}: not in the store")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    Invalid(String),
    #[error("import line {line}: {message}")]
    Import { line: usize, message: String },
    #[error("export or import: {0}")]
    Io(#[from] std::io::Error),
}
