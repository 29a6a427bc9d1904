//! What the hostile-crate tests share.

#![allow(dead_code)] // Each test file uses a different subset.

/// Hostile crates run only where the sandbox can hold them (files and network confined): on
/// another host the test says why and stops, rather than run them with root's rights.
pub fn sandbox_holds(test: &str) -> bool {
    let caps = frugal_sandbox::Capabilities::probe();
    if caps.fs_confined() && caps.net_confined() {
        return true;
    }
    eprintln!(
        "{test}: SKIPPED: this host cannot confine hostile code: {}",
        caps.report().join("; ")
    );
    false
}

/// A scratch dir under cargo's target dir for the hostile-crate test `test`, or `None` (the
/// reason printed) where the sandbox cannot hold hostile code.
pub fn hostile_scratch(test: &str) -> Option<tempfile::TempDir> {
    if !sandbox_holds(test) {
        return None;
    }
    let dir = tempfile::Builder::new()
        .prefix(test)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a scratch dir in the target dir");
    Some(dir)
}

/// Registers `repo` with one crate `krate` at its root; returns the repository id.
pub fn register(d: &frugal_testkit::Daemon, repo: &std::path::Path, krate: &str) -> u64 {
    let body = serde_json::json!({"path": repo, "crates": [{"name": krate, "dir": ""}]});
    let r = d
        .post("/v1/repos", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_u64().unwrap()
}

/// Runs `f` on a thread of its own whose every child sees a host without Landlock: a seccomp
/// filter answers `landlock_create_ruleset` with `ENOSYS`, as a kernel without Landlock does.
/// Filters are per thread and inherited by children, so frugal and frugald started in `f`
/// (and everything they start) probe no Landlock, while the test's other threads keep it.
pub fn without_landlock<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(|| {
            hide_landlock().expect("install the seccomp filter that hides Landlock");
            f()
        })
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

fn hide_landlock() -> std::io::Result<()> {
    // seccomp_data: nr at offset 0. Load it; ENOSYS for landlock_create_ruleset; allow the rest.
    let nr = libc::SYS_landlock_create_ruleset as u32;
    let errno = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    let mut filter = [
        stmt((libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, 0),
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: nr,
        },
        stmt((libc::BPF_RET | libc::BPF_K) as u16, errno),
        stmt(
            (libc::BPF_RET | libc::BPF_K) as u16,
            libc::SECCOMP_RET_ALLOW,
        ),
    ];
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: prctl and seccomp on the calling thread; `prog` points to a live filter.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}
