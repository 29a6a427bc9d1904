//! A dir given to `hide_from_confined` (frugald's socket dir outside /run and /tmp) is covered
//! for every confined process of the caller. A binary of its own: the setting is process-wide.

mod common;

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use common::{Job, caps, skip};

const PERL: &str = "/usr/bin/perl";

const CONNECT: &str = "use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die \"socket: $!\"; \
     print(connect($s, pack_sockaddr_un($ARGV[0])) ? \"connected\" : \"refused: $!\")";

#[test]
fn a_dir_hidden_by_the_caller_is_covered() {
    if !Path::new(PERL).exists() || !caps().mount_namespace {
        skip("socket_hidden_dir", "no perl, or no mount namespace here");
        return;
    }
    let state = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let socket = state.path().join("frugald.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    frugal_sandbox::hide_from_confined(state.path());
    let job = Job::new();
    let mut cmd = job.policy.command(PERL).unwrap();
    cmd.arg("-e").arg(CONNECT).arg(&socket);
    let out = cmd.output().unwrap();
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(got.starts_with("refused"), "{got}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(listener.accept().is_err(), "the hidden socket was reached");
    // Unconfined, the same script connects (the control).
    let out = std::process::Command::new(PERL)
        .arg("-e")
        .arg(CONNECT)
        .arg(&socket)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "connected");
}
