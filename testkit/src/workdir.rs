//! Example crates and work directories kept between test runs under `target/frugal-tests`,
//! guarded by a file lock, so that two test threads (or two `cargo test` processes) never
//! rewrite the same instrumented copy at once while cargo's caches stay warm.

use std::fs::File;
use std::path::PathBuf;

use crate::workspace;

/// `examples/<name>`.
pub fn example(name: &str) -> PathBuf {
    workspace().join("examples").join(name)
}

/// A work directory held exclusively while the value lives.
pub struct WorkDir {
    /// The directory, absolute and canonical; it persists after the lock is released.
    pub path: PathBuf,
    _lock: File,
}

/// Locks `<workspace>/target/frugal-tests/<name>` (created if missing) and returns its
/// absolute path. Blocks while another thread or process holds it.
pub fn work_dir(name: &str) -> WorkDir {
    let base = workspace().join("target").join("frugal-tests");
    std::fs::create_dir_all(&base).expect("create target/frugal-tests");
    let lock = File::create(base.join(format!("{name}.lock"))).expect("create the lock file");
    lock.lock().expect("lock the work dir");
    let path = base.join(name);
    std::fs::create_dir_all(&path).expect("create the work dir");
    WorkDir {
        path: path.canonicalize().expect("canonical work dir"),
        _lock: lock,
    }
}
