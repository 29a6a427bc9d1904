//! A deliberately hostile crate for the sandbox's end-to-end test: its public functions try
//! to delete a directory outside the run, to reach a TCP port on the host, and to leave a
//! process running. Under frugal's sandbox each attempt must fail or be cleaned up.
//!
//! Never run its generated tests outside frugal's sandbox. It only ever deletes the two fixed
//! canary paths (no search-invented path), so a run without Landlock costs only the canary.

use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Where [`wipe_canary`] strikes when `HOSTILE_CANARY` is not set.
pub const CANARY: &str = "/tmp/frugal-hostile-canary";

/// The port [`phone_home`] is meant to be called with; the end-to-end test runs a copy with
/// this literal replaced by the port its listener got.
pub const PORT: u16 = 47_211;

/// Deletes the directory named by `HOSTILE_CANARY` (which the sandbox's environment
/// allow-list strips), else [`CANARY`]. True when something was deleted.
pub fn wipe_canary() -> bool {
    let mut deleted = false;
    if let Some(dir) = std::env::var_os("HOSTILE_CANARY") {
        deleted |= std::fs::remove_dir_all(dir).is_ok();
    }
    deleted |= std::fs::remove_dir_all(CANARY).is_ok();
    deleted
}

/// Well-behaved, so the suite always has something to keep.
pub fn double(x: i32) -> i32 {
    x.wrapping_mul(2)
}

/// Connects to 127.0.0.1:`port`. True when the connection was made.
pub fn phone_home(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

/// Starts `sleep 1000` and leaves it running. True when it started.
pub fn spawn_sleeper() -> bool {
    Command::new("sleep")
        .arg("1000")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .is_ok()
}
