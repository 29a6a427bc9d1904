//! The token file (`daemon.token_file`): the admin token, one line of printable ASCII, private
//! to the daemon's user (mode 0600). frugald creates it at its first start when it is missing
//! and never rewrites it; the CLI reads it when `$FRUGAL_TOKEN` is not set.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Environment variable the CLI reads the token from before trying the token file.
pub const TOKEN_ENV: &str = "FRUGAL_TOKEN";

/// Fewest characters an admin-written token may have: 32 hex digits are 128 bits.
pub const MIN_LEN: usize = 32;
/// Fewest distinct characters in it, so `aaaa…` or `abab…` of any length is refused.
pub const MIN_DISTINCT: usize = 10;

/// Why a token file gave no token. The messages never quote the token.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The file could not be read.
    #[error("read the token file {}: {source}", path.display())]
    Read {
        /// The token file.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The file holds nothing but whitespace.
    #[error("the token file {} is empty: delete it to have frugald generate one", path.display())]
    Empty {
        /// The token file.
        path: PathBuf,
    },
}

/// Reads a token file (surrounding whitespace ignored); an empty one is an error.
pub fn read(path: &Path) -> Result<String, TokenError> {
    let text = std::fs::read_to_string(path).map_err(|source| TokenError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(TokenError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(token.to_string())
}

/// The file's contents for `token`.
pub fn format(token: &str) -> String {
    format!("{token}\n")
}

/// Whether a token is strong enough for the token file: at least [`MIN_LEN`] characters, at
/// least [`MIN_DISTINCT`] of them distinct, all printable ASCII (it travels in a header).
/// The reason names the rule, never the token.
pub fn strength(token: &str) -> Result<(), String> {
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("it holds spaces, control or non-ASCII characters".into());
    }
    let len = token.chars().count();
    if len < MIN_LEN {
        return Err(format!("{len} characters; at least {MIN_LEN} are needed"));
    }
    let distinct = token.bytes().collect::<BTreeSet<u8>>().len();
    if distinct < MIN_DISTINCT {
        return Err(format!(
            "{distinct} distinct characters; at least {MIN_DISTINCT} are needed"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_reads_trimmed_and_an_empty_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format("abc")).unwrap();
        assert_eq!(read(&path).unwrap(), "abc");
        std::fs::write(&path, "  \n").unwrap();
        assert!(matches!(read(&path), Err(TokenError::Empty { .. })));
        assert!(matches!(
            read(&dir.path().join("missing")),
            Err(TokenError::Read { .. })
        ));
    }

    #[test]
    fn weak_tokens_are_refused_by_rule() {
        assert!(strength("letmein").is_err());
        assert!(strength(&"ab".repeat(20)).is_err());
        assert!(strength("0123456789abcdef 0123456789abcdef").is_err());
        assert_eq!(strength("0123456789abcdef0123456789abcdef"), Ok(()));
    }
}
