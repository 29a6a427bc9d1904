//! Configuration errors: where a setting came from ([`Origin`]) and what was wrong with it
//! ([`ConfigError`]), named by file, line and key or by environment variable.

use std::fmt;
use std::path::PathBuf;

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built-in default.
    Default,
    /// A config file; line and column are 1-based.
    File {
        /// The config file; `<config>` for text that came from no file.
        path: PathBuf,
        /// Line of the value, or of the syntax error.
        line: usize,
        /// Column where the value, or the syntax error, starts.
        column: usize,
    },
    /// An environment variable.
    Env {
        /// Its name, `FRUGAL_<SECTION>_<KEY>` (see [`crate::env_var`]).
        var: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => write!(f, "built-in default"),
            Origin::File { path, line, column } => {
                write!(f, "{}:{line}:{column}", path.display())
            }
            Origin::Env { var } => write!(f, "environment variable {var}"),
        }
    }
}

/// A configuration error. Messages fit after "failed to load the configuration: ".
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("read {}: {source}", path.display())]
    Read {
        /// The file, as given.
        path: PathBuf,
        /// Why reading it failed.
        #[source]
        source: std::io::Error,
    },
    /// A value, or the file's TOML, is wrong: bad syntax, an unknown key, a value out of range.
    #[error("{origin}: {}{message}", key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Invalid {
        /// Where the bad value came from.
        origin: Origin,
        /// Dotted key (`daemon.listen`, `repo[1].schedule`), when known.
        key: Option<String>,
        /// What is wrong with it, without a position (`origin` gives that).
        message: String,
    },
}

impl ConfigError {
    /// The line in the config file, if the error is in one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Invalid {
                origin: Origin::File { line, .. },
                ..
            } => Some(*line),
            _ => None,
        }
    }

    /// The dotted key, if known.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { key, .. } => key.as_deref(),
            ConfigError::Read { .. } => None,
        }
    }
}
