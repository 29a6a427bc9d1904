//! Unix socket files outside the job's dirs (M3): Landlock does not govern `connect()` to one,
//! so where the child gets a private mount namespace, the dirs that hold them (`/run`, `/tmp`,
//! ...) are covered and only the job's own paths come back. A real listener outside the job's
//! dirs is never reached; one inside its scratch dir still is.

mod common;

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use common::{Job, caps, skip};

const PERL: &str = "/usr/bin/perl";

/// Connects to the socket at `$ARGV[0]` and says how it went.
const CONNECT: &str = "use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\"; \
     print(connect($s, pack_sockaddr_un($ARGV[0])) ? \"connected\" : \"refused: $!\")";

fn connect_confined(job: &Job, socket: &Path) -> String {
    let mut cmd = job.policy.command(PERL).unwrap();
    cmd.arg("-e").arg(CONNECT).arg(socket);
    let out = cmd.output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn accepted(listener: &UnixListener) -> usize {
    listener.set_nonblocking(true).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    std::iter::from_fn(|| listener.accept().ok()).count()
}

fn usable(test: &str) -> bool {
    if !Path::new(PERL).exists() {
        skip(test, "no /usr/bin/perl to connect with");
        return false;
    }
    if !caps().mount_namespace {
        skip(test, "no mount namespace here (needs CAP_SYS_ADMIN)");
        return false;
    }
    true
}

#[test]
fn a_listening_socket_outside_the_jobs_dirs_cannot_be_reached() {
    if !usable("socket_outside") {
        return;
    }
    let job = Job::new();
    // A daemon's socket in a dir of its own under /tmp, and a service's under /run.
    let elsewhere = tempfile::tempdir().unwrap();
    let in_tmp = elsewhere.path().join("daemon.sock");
    let run_dir = tempfile::Builder::new()
        .prefix("frugal-sockets-test")
        .tempdir_in("/run")
        .unwrap();
    let in_run = run_dir.path().join("service.sock");
    let inside = job.scratch().join("own.sock");
    for path in [&in_tmp, &in_run] {
        let listener = UnixListener::bind(path).unwrap();
        // The control: unconfined, the same script connects.
        let out = std::process::Command::new(PERL)
            .arg("-e")
            .arg(CONNECT)
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "connected");
        assert_eq!(accepted(&listener), 1);
        let got = connect_confined(&job, path);
        assert!(got.starts_with("refused"), "{}: {got}", path.display());
        assert_eq!(accepted(&listener), 0, "{} was reached", path.display());
    }
    // The job's own sockets still work.
    let listener = UnixListener::bind(&inside).unwrap();
    assert_eq!(connect_confined(&job, &inside), "connected");
    assert_eq!(accepted(&listener), 1);
}

/// Makes a connected unix socket pair and says whether it carries a byte.
const PAIR: &str = "use Socket; socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die \"pair: $!\"; \
     syswrite($a, \"x\"); sysread($b, my $got, 1); print($got eq \"x\" ? \"paired\" : \"silent\")";

/// Where nothing hides the host's socket files (no mount namespace: the shipped unit, without
/// `CAP_SYS_ADMIN`; here forced with `hide_sockets(false)`), seccomp refuses the confined
/// process a unix socket, so no socket file is reached, the job's own included; a socket pair,
/// which reaches nothing outside the process, still works.
#[test]
fn without_hidden_dirs_no_unix_socket_is_made_but_pairs_are() {
    if !Path::new(PERL).exists() {
        skip("socket_unhidden", "no /usr/bin/perl to connect with");
        return;
    }
    if !caps().seccomp {
        skip("socket_unhidden", "no seccomp here");
        return;
    }
    let mut job = Job::new();
    job.policy = job.policy.clone().hide_sockets(false);
    let elsewhere = tempfile::tempdir().unwrap();
    for path in [
        elsewhere.path().join("daemon.sock"),
        job.scratch().join("own.sock"),
    ] {
        let listener = UnixListener::bind(&path).unwrap();
        let got = connect_confined(&job, &path);
        assert!(
            got.starts_with("socket: Permission denied"),
            "{}: {got}",
            path.display()
        );
        assert_eq!(accepted(&listener), 0, "{} was reached", path.display());
    }
    let mut cmd = job.policy.command(PERL).unwrap();
    cmd.arg("-e").arg(PAIR);
    let out = cmd.output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "paired",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
