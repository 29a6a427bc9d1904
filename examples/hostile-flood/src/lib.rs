//! A deliberately hostile crate for the sandbox's end-to-end tests: its public functions write
//! without bound to a file in their working directory, in `$TMPDIR` and at a fixed path outside
//! the run, and to stdout. Under frugal's sandbox the outside file cannot be created, the others
//! are bounded by `RLIMIT_FSIZE` and the per-test timeout, and the search quarantines the calls.
//! (Kept apart from `hostile-io`: calls that always time out get the calls tested with them
//! quarantined too.)
//!
//! Never run its generated tests outside frugal's sandbox: there nothing bounds the writes.
//! It only ever writes the fixed names below, never a search-invented path.

use std::io::Write;

/// A directory outside the run the test creates and watches: [`flood_outside`] writes into it.
pub const OUTSIDE_DIR: &str = "/tmp/frugal-hostile-outside";

/// Appends 1 MiB chunks to `path` until a write fails; returns the bytes written.
fn flood(path: &std::path::Path) -> u64 {
    let Ok(mut f) = std::fs::File::create(path) else {
        return 0;
    };
    let chunk = vec![b'x'; 1 << 20];
    let mut written = 0u64;
    while f.write_all(&chunk).is_ok() {
        written += chunk.len() as u64;
    }
    written
}

/// Writes without bound to `hostile-flood.bin` in the working directory.
pub fn flood_cwd() -> u64 {
    flood(std::path::Path::new("hostile-flood.bin"))
}

/// Writes without bound to `hostile-flood.bin` in `$TMPDIR` (or `/tmp`).
pub fn flood_tmpdir() -> u64 {
    flood(&std::env::temp_dir().join("hostile-flood.bin"))
}

/// Writes without bound to `OUTSIDE_DIR/flood.bin`.
pub fn flood_outside() -> u64 {
    flood(&std::path::Path::new(OUTSIDE_DIR).join("flood.bin"))
}

/// Writes to stdout until a write fails (never, when stdout is `/dev/null`).
pub fn flood_stdout() -> u64 {
    let chunk = vec![b'y'; 64 << 10];
    let mut out = std::io::stdout().lock();
    let mut written = 0u64;
    while out.write_all(&chunk).is_ok() {
        written += chunk.len() as u64;
    }
    written
}

/// Well-behaved, so the suite always has something to keep.
pub fn halve(x: i32) -> i32 {
    x / 2
}
