//! A deliberately hostile crate for frugald's end-to-end sandbox test (`tests/daemon_sandbox.rs`):
//! registered as a repository, its public functions try to read the daemon's API token, to
//! write a file into the daemon's state dir and to write into another repository's checkout and
//! work dirs. The targets come from `paths.txt`, compiled in as a constant, which the test
//! writes before committing. Under frugald's sandbox every attempt must fail.
//!
//! Its generated tests must never run outside frugal's sandbox: they would read the token and
//! litter the other directories with `hostile-daemon-was-here` files.

/// The targets, `kind=path` a line (`token`, `state`, `other`); `#` starts a comment.
pub const PATHS: &str = include_str!("../paths.txt");

/// The name of every file the attacks create.
pub const MARK: &str = "hostile-daemon-was-here";

fn targets(kind: &str) -> impl Iterator<Item = &'static str> + '_ {
    PATHS
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(move |(k, _)| k.trim() == kind)
        .map(|(_, p)| p.trim())
}

/// The token file's contents, or `error: ...` when it cannot be read.
pub fn read_token() -> String {
    let Some(path) = targets("token").next() else {
        return "error: no token path".to_string();
    };
    match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => format!("error: {e}"),
    }
}

fn write_mark(dir: &str) -> bool {
    let path = std::path::Path::new(dir).join(MARK);
    std::fs::write(path, "frugald's sandbox let a job write here\n").is_ok()
}

/// Writes [`MARK`] into the daemon's state dir. True when it could.
pub fn write_state() -> bool {
    targets("state").fold(false, |done, dir| write_mark(dir) | done)
}

/// Writes [`MARK`] into every directory of the other repository (its checkout, and its snapshot
/// and work dirs under the daemon's state dir). True when any write succeeded.
pub fn write_other_repo() -> bool {
    targets("other").fold(false, |done, dir| write_mark(dir) | done)
}

/// Well-behaved, so the suite always has something to keep.
pub fn halve(x: i64) -> i64 {
    if x < 0 {
        -(x.wrapping_neg() / 2)
    } else {
        x / 2
    }
}
