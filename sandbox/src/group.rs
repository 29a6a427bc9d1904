//! Commands that run no code under test (git, tar, `cargo fetch`, `cargo metadata`) still get a
//! deadline: each runs in its own process group, which is killed whole when the command ends or
//! its time is up, so nothing it started outlives it and a grandchild holding a pipe cannot
//! hang the caller.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Runs `cmd` (stdin closed, stdout and stderr captured) in its own process group and kills
/// the group at the end, or at `timeout` with an error of kind `TimedOut`.
pub fn output_in_group(cmd: &mut Command, timeout: Duration) -> std::io::Result<Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let status = wait_or_kill(&mut child, timeout)?;
    let (stdout, stderr) = (join(out), join(err));
    match status {
        Some(status) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        None => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "did not finish within {} s and was killed",
                timeout.as_secs()
            ),
        )),
    }
}

/// Reads a pipe to its end on a thread, so a full pipe never blocks the child.
fn drain(pipe: Option<impl Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut p| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = p.read_to_end(&mut buf);
            buf
        })
    })
}

fn join(reader: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    reader.and_then(|h| h.join().ok()).unwrap_or_default()
}

/// Waits for the child, killing its process group when it exits (leftovers go too) or at
/// `timeout` (then `None`).
fn wait_or_kill(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait()? {
            kill_group(child.id());
            return Ok(Some(status));
        }
        if start.elapsed() >= timeout {
            kill_group(child.id());
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// SIGKILL to the process group led by `pid`.
fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hanging_command_and_its_group_are_killed_at_the_timeout() {
        let started = Instant::now();
        let r = output_in_group(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30"]),
            Duration::from_millis(300),
        );
        assert_eq!(
            r.map(|_| ()).unwrap_err().kind(),
            std::io::ErrorKind::TimedOut
        );
        // The background sleep held stdout open: the drain would hang had it survived.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn output_and_status_come_back() {
        let out = output_in_group(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(
            (&out.stdout[..], &out.stderr[..]),
            (&b"out\n"[..], &b"err\n"[..])
        );
    }
}
