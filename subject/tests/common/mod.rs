#![allow(dead_code)] // Each test file uses a different subset.

//! Helpers shared by the integration tests that build real crates: where the workspace and the
//! example crates are, and cached work directories under `target/frugal-tests` guarded by a
//! file lock, so that two test threads (or two `cargo test` processes) never rewrite the same
//! instrumented copy at once.

use std::fs::File;
use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("subject/ has a parent")
        .to_path_buf()
}

/// `examples/<name>`.
pub fn example(name: &str) -> PathBuf {
    workspace().join("examples").join(name)
}

/// A work directory kept between test runs so that cargo's caches stay warm, and held
/// exclusively while the returned guard lives.
pub struct WorkDir {
    pub path: PathBuf,
    _lock: File,
}

/// Locks `<workspace>/target/frugal-tests/<name>` (created if missing) and returns its
/// absolute path. Blocks while another thread or process holds it.
pub fn work_dir(name: &str) -> WorkDir {
    let base = workspace().join("target").join("frugal-tests");
    std::fs::create_dir_all(&base).unwrap();
    let lock = File::create(base.join(format!("{name}.lock"))).unwrap();
    lock.lock().unwrap();
    let path = base.join(name);
    std::fs::create_dir_all(&path).unwrap();
    WorkDir {
        path: path.canonicalize().unwrap(),
        _lock: lock,
    }
}
