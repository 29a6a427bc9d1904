//! Errors of the store.

use std::path::PathBuf;

/// What went wrong in the store. Messages fit after "failed to ...".
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled could not open the database (often because another process holds its lock).
    #[error("open the store at {path}: {source} (is another frugald using this state_dir?)")]
    Open {
        /// The store's directory.
        path: PathBuf,
        /// sled's error.
        #[source]
        source: sled::Error,
    },
    /// The store was written by a newer frugal, with a schema this build does not know.
    #[error(
        "open the store at {path}: its schema version is {found}, newer than the {supported} this \
         frugal understands; run a newer frugal or point state_dir at another directory"
    )]
    NewerSchema {
        /// The store's directory.
        path: PathBuf,
        /// The schema version recorded in the store.
        found: u32,
        /// The newest schema version this build reads ([`crate::SCHEMA_VERSION`]).
        supported: u32,
    },
    /// The store's schema is older, but no chain of migrations leads from it to this build's.
    #[error(
        "open the store at {path}: schema version {found} has no migration towards {target}; \
         export it with the frugal that wrote it and import it here"
    )]
    NoMigration {
        /// The store's directory.
        path: PathBuf,
        /// The schema version recorded in the store.
        found: u32,
        /// The schema version this build reads and writes.
        target: u32,
    },
    /// A migration step failed.
    #[error("migrate the store from schema {from} to {to} ({description}): {message}")]
    Migration {
        /// The schema version the step starts from.
        from: u32,
        /// The schema version the step leads to.
        to: u32,
        /// What the step does, as its [`Migration`](crate::Migration) describes it.
        description: &'static str,
        /// What went wrong.
        message: String,
    },
    /// sled failed to read or write.
    #[error("read or write the store: {0}")]
    Sled(#[from] sled::Error),
    /// PostgreSQL cannot be reached (down, refusing connections, the pool's wait ran out): the
    /// caller may retry later; the HTTP API answers 503.
    #[error("reach PostgreSQL at {url}: {message}")]
    Unavailable {
        /// The database URL without its password.
        url: String,
        /// What failed.
        message: String,
    },
    /// PostgreSQL refused a statement.
    #[error("{doing} (PostgreSQL): {message}")]
    Postgres {
        /// What the store was doing.
        doing: String,
        /// PostgreSQL's message, with the constraint or detail it names.
        message: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// A stored record is not valid JSON for its type.
    #[error(
        "decode record {key} of tree `{tree}` (corrupt or written by another schema): {source}"
    )]
    Corrupt {
        /// The sled tree holding the record.
        tree: &'static str,
        /// The record's key, for people.
        key: String,
        /// The decoding error.
        #[source]
        source: serde_json::Error,
    },
    /// A stored binary value or key has the wrong length.
    #[error(
        "decode record {key} of tree `{tree}` (corrupt): {found} bytes where {expected} were \
         expected"
    )]
    BadValue {
        /// The sled tree holding the value.
        tree: &'static str,
        /// The record's key, for people.
        key: String,
        /// The length in bytes the value should have.
        expected: usize,
        /// The length in bytes it has.
        found: usize,
    },
    /// A record the operation needs does not exist.
    #[error("find {what} {id}: not in the store")]
    NotFound {
        /// What kind of record (`run`, `suite`, ...).
        what: &'static str,
        /// Its id.
        id: String,
    },
    /// The operation is not allowed on the store's current contents (a repository registered
    /// twice, a test name repeated in a suite, an import into a non-empty store, ...); the message
    /// says which.
    #[error("{0}")]
    Invalid(String),
    /// A line of an import could not be read or applied.
    #[error("import line {line}: {message}")]
    Import {
        /// The line's number, from 1.
        line: usize,
        /// What was wrong with it.
        message: String,
    },
    /// Reading an import or writing an export failed.
    #[error("export or import: {0}")]
    Io(#[from] std::io::Error),
}

impl StoreError {
    /// Whether the database could not be reached: nothing was done, and trying again later may
    /// succeed.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable { .. })
    }

    /// Whether a concurrent transaction won: the whole transaction may run again.
    pub(crate) fn is_conflict(&self) -> bool {
        matches!(self, StoreError::Postgres { source, .. } if crate::pg::retriable(source))
    }
}
