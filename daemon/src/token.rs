//! The admin token of the token file (`daemon.token_file`): generated at the daemon's first
//! start when missing (32 random bytes, hex, mode 0600), and read by the CLI. Scoped tokens
//! (read, trigger) are made through the API and kept hashed (`auth.rs`).
//!
//! Decision: the daemon never rewrites an existing token file, so an administrator can manage
//! it without the daemon undoing it. It stays private to the daemon's user and the
//! administrators: hooks get a trigger-scoped token (`frugal token create --scope trigger`),
//! never this one, which may register any path and remove repositories.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{Context, bail};

/// Environment variable the CLI reads the token from before trying the token file.
pub const TOKEN_ENV: &str = "FRUGAL_TOKEN";

/// Fewest characters an admin-written token may have: 32 hex digits are 128 bits.
pub const MIN_LEN: usize = 32;
/// Fewest distinct characters in it, so `aaaa…` or `abab…` of any length is refused.
pub const MIN_DISTINCT: usize = 10;

/// Reads the token file, or creates it with a fresh token when it does not exist. A token the
/// administrator wrote must be as hard to guess as [`strength`] asks: it is the admin token,
/// and every request and login may try one.
pub fn load_or_create(path: &Path) -> anyhow::Result<String> {
    if path.exists() {
        let token = read(path)?;
        if let Err(why) = strength(&token) {
            bail!(
                "the token file {} holds a weak token ({why}): put a random one there (e.g. \
                 `head -c 32 /dev/urandom | xxd -p -c 64`), or delete it to have frugald \
                 generate one",
                path.display()
            );
        }
        return Ok(token);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("create the directory of the token file {}", dir.display()))?;
    }
    let token = fresh()?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("create the token file {}", path.display()))?;
    f.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| f.sync_all())
        .with_context(|| format!("write the token file {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated a new API token");
    Ok(token)
}

/// Reads a token file (surrounding whitespace ignored); an empty one is an error.
pub fn read(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("read the token file {}", path.display()))?;
    let token = text.trim();
    if token.is_empty() {
        bail!(
            "the token file {} is empty: delete it to have frugald generate one",
            path.display()
        );
    }
    Ok(token.to_string())
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
    let distinct = token
        .bytes()
        .collect::<std::collections::BTreeSet<u8>>()
        .len();
    if distinct < MIN_DISTINCT {
        return Err(format!(
            "{distinct} distinct characters; at least {MIN_DISTINCT} are needed"
        ));
    }
    Ok(())
}

/// A new secret: 32 random bytes as hex.
pub fn fresh() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("read /dev/urandom for a new token")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares without an early exit, so response times do not leak how much of a guess matched.
pub fn matches(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_token_file_is_private_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/token");
        let t1 = load_or_create(&path).unwrap();
        assert_eq!(t1.len(), 64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(load_or_create(&path).unwrap(), t1);
    }

    #[test]
    fn weak_token_files_are_refused_without_quoting_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        for weak in [
            "letmein",
            "abababababababababababababababababab",
            "0123456789abcdef 0123456789abcdef",
        ] {
            std::fs::write(&path, format!("{weak}\n")).unwrap();
            let e = format!("{:#}", load_or_create(&path).unwrap_err());
            assert!(e.contains("weak token"), "{e}");
            assert!(!e.contains(weak), "the error quotes the token: {e}");
        }
        let generated = fresh().unwrap();
        assert_eq!(strength(&generated), Ok(()));
        std::fs::write(&path, format!("{generated}\n")).unwrap();
        assert_eq!(load_or_create(&path).unwrap(), generated);
    }

    #[test]
    fn matches_needs_the_whole_token() {
        assert!(matches("abc", "abc"));
        assert!(!matches("abc", "ab"));
        assert!(!matches("abc", "abcd"));
        assert!(!matches("abc", "abd"));
        assert!(!matches("abc", ""));
    }
}
