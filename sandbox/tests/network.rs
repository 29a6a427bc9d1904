//! Network confinement: the default policy refuses TCP connections (with or without a network
//! namespace) while unix sockets still work, and the fetch policy connects but reads no more
//! of `$CARGO_HOME` than the caches.

mod common;

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Job, caps, skip};
use frugal_sandbox::Policy;

const BASH: &str = "/bin/bash";

/// Connections the listener accepts within `wait`.
fn accepted(listener: &TcpListener, wait: Duration) -> usize {
    listener.set_nonblocking(true).unwrap();
    let until = Instant::now() + wait;
    let mut n = 0;
    while Instant::now() < until {
        match listener.accept() {
            Ok(_) => n += 1,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10))
            }
            Err(e) => panic!("{e}"),
        }
    }
    n
}

fn connect_script(port: u16) -> String {
    format!("echo hello > /dev/tcp/127.0.0.1/{port}")
}

fn try_connect(policy: &Policy, listener: &TcpListener) -> (bool, usize) {
    let port = listener.local_addr().unwrap().port();
    let mut cmd = policy.command(BASH).unwrap();
    cmd.arg("-c").arg(connect_script(port));
    let out = cmd.output().unwrap();
    (
        out.finished.status.success(),
        accepted(listener, Duration::from_millis(300)),
    )
}

fn usable(test: &str) -> bool {
    if !Path::new(BASH).exists() {
        skip(test, "no /bin/bash for /dev/tcp");
        return false;
    }
    if !caps().net_confined() {
        skip(test, "no seccomp, Landlock TCP rules or network namespace");
        return false;
    }
    true
}

#[test]
fn unconfined_control_connects() {
    if !Path::new(BASH).exists() {
        return skip("unconfined_control_connects", "no /bin/bash");
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ok = std::process::Command::new(BASH)
        .arg("-c")
        .arg(connect_script(port))
        .status()
        .unwrap()
        .success();
    assert!(ok);
    assert_eq!(accepted(&listener, Duration::from_millis(300)), 1);
}

#[test]
fn tcp_connect_refused_with_default_policy() {
    if !usable("tcp_connect_refused_with_default_policy") {
        return;
    }
    let job = Job::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (ok, n) = try_connect(&job.policy, &listener);
    assert!(!ok);
    assert_eq!(n, 0);
}

#[test]
fn tcp_connect_refused_without_network_namespace() {
    // Seccomp and Landlock alone, as on a host where unshare is not allowed.
    if !usable("tcp_connect_refused_without_network_namespace") {
        return;
    }
    let job = Job::new();
    let policy = job.policy.clone().network_namespace(false);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let (ok, n) = try_connect(&policy, &listener);
    assert!(!ok);
    assert_eq!(n, 0);
}

#[test]
fn unix_sockets_still_work() {
    if !Path::new("/usr/bin/python3").exists() {
        return skip("unix_sockets_still_work", "no python3 to open sockets");
    }
    let job = Job::new();
    let script = "import socket\na, b = socket.socketpair()\na.send(b'u')\n\
                  s = socket.socket(socket.AF_UNIX)\ns.bind('sock')\ns.listen()\n\
                  print(b.recv(1).decode())\n\
                  try:\n    socket.socket(socket.AF_INET)\n    print('inet-allowed')\n\
                  except OSError as e:\n    print('inet', e.errno)";
    let mut cmd = job.policy.command("/usr/bin/python3").unwrap();
    cmd.arg("-c").arg(script).current_dir(job.scratch());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.finished.status.success(), "{out:?}");
    assert!(stdout.starts_with("u\n"), "{stdout}");
    assert!(
        stdout.contains(&format!("inet {}", libc_eacces())),
        "{stdout}"
    );
}

fn libc_eacces() -> i32 {
    13
}

/// `Policy::for_fetch` (frugald's `cargo fetch`): the network is there, and the dependency
/// caches are writable, but the rest of `$CARGO_HOME` (where `credentials.toml` lives) stays
/// unreadable, as for the build the fetch precedes.
#[test]
fn a_fetch_policy_connects_and_writes_the_caches_but_reads_no_more_of_cargo_home() {
    if !usable("a_fetch_policy_connects_and_writes_the_caches_but_reads_no_more_of_cargo_home") {
        return;
    }
    let Some(home) = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
    else {
        return skip(
            "a_fetch_policy_connects_and_writes_the_caches",
            "no $CARGO_HOME",
        );
    };
    let job = Job::new();
    let fetch = job.policy.clone().for_fetch().expect("a $CARGO_HOME");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    assert_eq!(try_connect(&fetch, &listener), (true, 1));

    // A file of `$CARGO_HOME` outside the caches, made for the test.
    let private = home.join(format!("frugal-fetch-test-{}", std::process::id()));
    std::fs::write(&private, "token = \"secret\"\n").unwrap();
    let probe = home
        .join("registry")
        .join(format!("frugal-fetch-probe-{}", std::process::id()));
    let script = format!(
        "cat {} && echo READ; echo x > {} && echo WROTE",
        private.display(),
        probe.display()
    );
    let mut cmd = fetch.command(BASH).unwrap();
    cmd.arg("-c").arg(&script);
    let out = cmd.output().unwrap();
    let _ = std::fs::remove_file(&private);
    let wrote = probe.exists();
    let _ = std::fs::remove_file(&probe);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if caps().fs_confined() {
        assert!(
            !stdout.contains("READ") && !stdout.contains("secret"),
            "{stdout}"
        );
    }
    assert!(stdout.contains("WROTE") && wrote, "{out:?}");
}
