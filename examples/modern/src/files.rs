//! Paths as `impl AsRef<Path>`: code under test that writes and removes what it is given.
//! frugal must hand it paths inside a scratch directory, whatever string the search chose.

use std::fs;
use std::path::Path;

/// Writes `text` to `path`, creating its parent directories: the bytes written, or `None`.
pub fn save<P: AsRef<Path>>(path: P, text: &str) -> Option<usize> {
    let path = path.as_ref();
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).ok()?;
    }
    fs::write(path, text).ok()?;
    Some(text.len())
}

/// Removes `path` (a file or a whole directory tree): `true` when something was removed.
pub fn purge(path: impl AsRef<Path>) -> bool {
    let path = path.as_ref();
    if path.is_dir() {
        fs::remove_dir_all(path).is_ok()
    } else {
        fs::remove_file(path).is_ok()
    }
}

/// The extension of `path`, lower-cased, or `"none"`.
pub fn kind<P: AsRef<Path>>(path: P) -> String {
    match path.as_ref().extension().and_then(|e| e.to_str()) {
        Some(ext) => ext.to_ascii_lowercase(),
        None => "none".to_string(),
    }
}

/// What is at `path`: a directory and how many entries it has, or a file and its size.
pub fn describe(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    if meta.is_dir() {
        let entries = fs::read_dir(path).ok()?.count();
        Some(format!("dir of {entries}"))
    } else {
        Some(format!("file of {} bytes", meta.len()))
    }
}
