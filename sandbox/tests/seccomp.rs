//! The seccomp filter: every socket family but unix is refused, and on x86_64 so is every x32
//! system call number. Each probe runs `perl`'s raw `syscall` confined and unconfined, and
//! prints the errno it got: `EACCES` is the filter's own answer, which no kernel gives to these
//! calls otherwise.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Job, caps, skip};

const PERL: &str = "/usr/bin/perl";
const EACCES: &str = "13";

/// `syscall(nr, args...)` in perl, printing the errno (0 when the call succeeded).
fn script(nr: i64, args: &[i64]) -> String {
    let args: Vec<String> = args.iter().map(i64::to_string).collect();
    format!(
        "my $r = syscall({nr}{}{}); print($r < 0 ? ($!+0) : 0)",
        if args.is_empty() { "" } else { ", " },
        args.join(", ")
    )
}

fn errno_confined(job: &Job, script: &str) -> String {
    let mut cmd = job.policy.command(PERL).unwrap();
    cmd.arg("-e").arg(script);
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn errno_unconfined(script: &str) -> String {
    let out = Command::new(PERL).arg("-e").arg(script).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn usable(test: &str) -> bool {
    if !Path::new(PERL).exists() {
        skip(test, "no /usr/bin/perl for raw system calls");
        return false;
    }
    if !caps().seccomp {
        skip(test, "no seccomp");
        return false;
    }
    true
}

/// socket(family, SOCK_STREAM or SOCK_DGRAM, 0) for families no build needs: refused with the
/// filter's `EACCES`, whatever the kernel would have said (created, or `EAFNOSUPPORT` where the
/// family's module is missing). A unix socket is still created.
#[test]
fn every_socket_family_but_unix_is_refused() {
    if !usable("every_socket_family_but_unix_is_refused") {
        return;
    }
    let job = Job::new();
    let socket = libc::SYS_socket;
    let families = [
        ("AF_SMC", 43, libc::SOCK_STREAM),
        ("AF_VSOCK", libc::AF_VSOCK, libc::SOCK_STREAM),
        ("AF_INET", libc::AF_INET, libc::SOCK_STREAM),
        ("AF_INET6", libc::AF_INET6, libc::SOCK_DGRAM),
        ("AF_NETLINK", libc::AF_NETLINK, libc::SOCK_DGRAM),
        ("AF_PACKET", libc::AF_PACKET, libc::SOCK_DGRAM),
        ("AF_ALG", libc::AF_ALG, libc::SOCK_SEQPACKET),
        ("AF_BLUETOOTH", libc::AF_BLUETOOTH, libc::SOCK_STREAM),
        ("AF_CAN", libc::AF_CAN, libc::SOCK_DGRAM),
        ("AF_XDP", libc::AF_XDP, libc::SOCK_RAW),
        ("AF_TIPC", libc::AF_TIPC, libc::SOCK_DGRAM),
        ("AF_RDS", libc::AF_RDS, libc::SOCK_SEQPACKET),
    ];
    for (name, family, kind) in families {
        let probe = script(socket, &[family.into(), kind.into(), 0]);
        let got = errno_confined(&job, &probe);
        assert_eq!(
            got,
            EACCES,
            "{name}: errno {got} (unconfined: {})",
            errno_unconfined(&probe)
        );
    }
    let unix = script(socket, &[libc::AF_UNIX.into(), libc::SOCK_STREAM.into(), 0]);
    assert_eq!(
        errno_confined(&job, &unix),
        "0",
        "a unix socket was refused"
    );
    let pair = script(
        libc::SYS_socketpair,
        &[libc::AF_INET.into(), libc::SOCK_STREAM.into(), 0, 0],
    );
    assert_eq!(errno_confined(&job, &pair), EACCES, "socketpair(AF_INET)");
}

/// x32's `getpid` (`__X32_SYSCALL_BIT | 39`) and `socket` (`__X32_SYSCALL_BIT | 41`): refused
/// with `EACCES`. Unconfined, a kernel with x32 runs them (and one without says `ENOSYS`).
#[cfg(target_arch = "x86_64")]
#[test]
fn x32_system_call_numbers_are_refused() {
    if !usable("x32_system_call_numbers_are_refused") {
        return;
    }
    let job = Job::new();
    let x32 = 0x4000_0000_i64;
    let getpid = script(x32 | 39, &[]);
    let got = errno_confined(&job, &getpid);
    assert_eq!(
        got,
        EACCES,
        "x32 getpid: errno {got} (unconfined: {})",
        errno_unconfined(&getpid)
    );
    let socket = script(
        x32 | 41,
        &[libc::AF_INET.into(), libc::SOCK_STREAM.into(), 0],
    );
    assert_eq!(errno_confined(&job, &socket), EACCES, "x32 socket");
    // The native numbers still work.
    assert_eq!(errno_confined(&job, &script(39, &[])), "0");
}
