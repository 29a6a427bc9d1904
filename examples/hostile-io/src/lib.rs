//! A deliberately hostile crate for the sandbox's end-to-end tests. Its public functions try to
//! leave a file in a directory outside the run, fork a bounded bomb of `sleep` processes, read
//! secrets (the `FRUGAL_TOKEN` and `HOSTILE_SECRET` environment variables and a
//! secret file) and return them, and forge result frames on the harness's protocol descriptors.
//! Its build script tries the network and `$HOME` (see `build.rs`). Under frugal's sandbox
//! every attempt must fail, be bounded or be cleaned up, and no secret may reach the suite.
//!
//! Never run its generated tests, or build it, outside frugal's sandbox. It only ever targets
//! the fixed paths below, which the end-to-end test creates, never a search-invented path, and
//! its fork bomb stops at [`FORK_LIMIT`] processes.

use std::io::Write;
use std::os::fd::FromRawFd;
use std::process::{Command, Stdio};

/// A directory outside the run the test creates and watches: [`plant_file`] writes into it.
pub const OUTSIDE_DIR: &str = "/tmp/frugal-hostile-outside";

/// A secret file the test creates; [`read_secret_file`] returns its contents.
pub const SECRET_FILE: &str = "/tmp/frugal-hostile-secret/secret.txt";

/// Most processes [`fork_bomb`] starts, so that an unconfined run cannot take the machine down.
pub const FORK_LIMIT: u32 = 10_000;

/// The argument of the `sleep` processes [`fork_bomb`] leaves behind (the test looks for it).
pub const BOMB_MARK: &str = "1002";

/// What a forged result frame claims every statement returned.
pub const FORGED: &str = "31337";

/// Creates `OUTSIDE_DIR/planted.txt`. True when it was written.
pub fn plant_file() -> bool {
    std::fs::write(format!("{OUTSIDE_DIR}/planted.txt"), "hostile-io was here").is_ok()
}

/// Starts up to [`FORK_LIMIT`] `sleep` processes and leaves them running, until spawning
/// fails. Returns nothing: how many started depends on what earlier calls left running, and
/// a nondeterministic result fed to other calls would only get tests dropped by verification.
pub fn fork_bomb() {
    let mut started = 0;
    while started < FORK_LIMIT {
        let spawned = Command::new("sleep")
            .arg(BOMB_MARK)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(child) => {
                std::mem::forget(child);
                started += 1;
            }
            Err(_) => break,
        }
    }
}

/// The `FRUGAL_TOKEN` environment variable, empty when unset.
pub fn read_token() -> String {
    std::env::var("FRUGAL_TOKEN").unwrap_or_default()
}

/// The `HOSTILE_SECRET` environment variable, empty when unset.
pub fn read_env_secret() -> String {
    std::env::var("HOSTILE_SECRET").unwrap_or_default()
}

/// The contents of [`SECRET_FILE`], empty when unreadable.
pub fn read_secret_file() -> String {
    std::fs::read_to_string(SECRET_FILE).unwrap_or_default()
}

/// A well-formed outcome frame of the harness protocol (wire version 1) claiming that the test
/// completed and that each of its statements returned [`FORGED`].
fn forged_frame() -> Vec<u8> {
    fn str(b: &mut Vec<u8>, s: &str) {
        b.extend_from_slice(&(s.len() as u32).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    }
    let statements = 16u32;
    let mut body = vec![0u8]; // completed
    body.extend_from_slice(&statements.to_le_bytes());
    str(&mut body, "");
    str(&mut body, "");
    body.extend_from_slice(&statements.to_le_bytes());
    for _ in 0..statements {
        body.push(1);
        str(&mut body, FORGED);
    }
    body.extend_from_slice(&0u32.to_le_bytes()); // goals
    body.extend_from_slice(&0u32.to_le_bytes()); // calls
    body.extend_from_slice(&0u32.to_le_bytes()); // loops
    body.extend_from_slice(&[0u8; 24]); // statements, allocations, bytes
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

/// Writes a forged outcome frame to descriptors 3 and 4 (where the harness protocol lives
/// unless the harness moved it), then returns `x + 1`. True results only if the engine is not
/// fooled.
pub fn forge_frames(x: u32) -> u32 {
    let frame = forged_frame();
    for fd in [3, 4] {
        // SAFETY: none; this is the attack. `ManuallyDrop` keeps the descriptor open.
        let mut f = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        let _ = f.write_all(&frame);
        let _ = f.flush();
    }
    x.wrapping_add(1)
}

/// Well-behaved, so the suite always has something to keep.
pub fn triple(x: i32) -> i32 {
    x.wrapping_mul(3)
}
