//! The job's process tree lives no longer than the job: escaped grandchildren are killed,
//! one holding stdout does not hang the wait, the timeout and dropping the child kill the
//! tree, and the caller's own descriptors survive.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{Job, processes_with};

#[test]
fn escaped_grandchild_does_not_survive_the_job() {
    let job = Job::new();
    let marker = "987601";
    let out = job.sh(
        &format!("setsid nohup sleep {marker} >/dev/null 2>&1 & echo started"),
        &[],
    );
    assert!(out.finished.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n");
    assert_eq!(out.finished.survivors, 0);
    assert_eq!(processes_with(marker), 0);
}

#[test]
fn grandchild_holding_stdout_does_not_hang_the_wait() {
    let job = Job::new();
    let marker = "987602";
    let start = Instant::now();
    // The grandchild keeps stdout open; the root exits at once.
    let out = job.sh(&format!("setsid sleep {marker} & echo out"), &[]);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "out\n");
    assert_eq!(out.finished.survivors, 0);
    assert_eq!(processes_with(marker), 0);
}

#[test]
fn hanging_command_is_killed_at_the_timeout() {
    let job = Job::new();
    let marker = "987603";
    let policy = job.policy.clone().timeout(Duration::from_secs(1));
    let start = Instant::now();
    let out = common::sh_with(&policy, &format!("sleep {marker} & sleep {marker}"), &[]);
    let took = start.elapsed();
    assert!(out.finished.timed_out);
    assert!(!out.finished.status.success());
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(4),
        "{took:?}"
    );
    assert_eq!(out.finished.survivors, 0);
    assert_eq!(processes_with(marker), 0);
}

#[test]
fn dropping_the_child_kills_the_tree() {
    let job = Job::new();
    let marker = "987604";
    let mut cmd = job.policy.command("/bin/sh").unwrap();
    cmd.arg("-c")
        .arg(format!("setsid sleep {marker} & sleep {marker}"));
    cmd.stdout(Stdio::null());
    let child = cmd.spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    // The shell's own command line carries the marker too: 3 processes.
    while processes_with(marker) < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Once all three were seen, the two sleeps stay; the shell and `setsid` may exec or fork
    // meanwhile (CI saw 2 right after 3), so the count is checked for the sleeps only.
    assert!(processes_with(marker) >= 2);
    drop(child);
    assert_eq!(processes_with(marker), 0);
}

#[test]
fn caller_fds_survive_confinement() {
    // A harness talks to its parent over fd 3; the caller sets it up in its own
    // pre_exec hook before applying the policy.
    use std::io::Read;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::process::CommandExt;
    let job = Job::new();
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let mut reader = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    let writer = unsafe { std::fs::File::from_raw_fd(fds[1]) };
    let wfd = writer.as_raw_fd();
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg("-c").arg("echo over-fd-3 >&3");
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(wfd, 3) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let confined = job.policy.apply(&mut cmd).unwrap();
    let mut child = confined.spawn(&mut cmd).unwrap();
    drop(writer);
    let f = child.wait_timeout(Duration::from_secs(10)).unwrap();
    assert!(f.status.success());
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert_eq!(got, "over-fd-3\n");
}
