//! The admin token of the token file (`daemon.token_file`, its format in `frugal_api::token`):
//! generated at the daemon's first start when missing (32 random bytes, hex, mode 0600), and
//! read by the CLI. Scoped tokens
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
use frugal_api::token::{read, strength};

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
    f.write_all(frugal_api::token::format(&token).as_bytes())
        .and_then(|()| f.sync_all())
        .with_context(|| format!("write the token file {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated a new API token");
    Ok(token)
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
