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

/// The run of `job` (as `GET /v1/runs?repo={repo}` lists it) once it ended: succeeded, failed
/// or cancelled. Panics with the daemon's log when it did not end within `limit`.
pub fn ended_run(
    d: &frugal_testkit::Daemon,
    limit: std::time::Duration,
    repo: u64,
    job: u64,
) -> serde_json::Value {
    frugal_testkit::wait_for(
        &format!("the run of job {job}"),
        limit,
        std::time::Duration::from_millis(300),
        || {
            let runs = d.get(&format!("/v1/runs?repo={repo}"))?.json();
            Ok(runs.as_array().into_iter().flatten().find_map(|r| {
                let ended = matches!(
                    r["status"].as_str(),
                    Some("succeeded" | "failed" | "cancelled")
                );
                (r["job"] == job && ended).then(|| r.clone())
            }))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n--- daemon log ---\n{}", d.log_text()))
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

/// Who runs frugald in the corpus. `FRUGAL_TENANTS_DAEMON=unprivileged` (or
/// `unprivileged:UID:GID`) runs it as `systemd/frugald.service` does: a uid and gid of its own
/// (61234 by default, no supplementary groups), no capabilities (bounding, inheritable and
/// ambient sets empty) and no new privileges, so no namespace, no cgroup of root's and no
/// file of another user's is open to it. Unset, frugald runs as the test's user (root on CI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaemonUser {
    /// The test's own user, with every capability the host gives it.
    Invoker,
    /// A user without capabilities, as the unit runs frugald.
    Unprivileged { uid: u32, gid: u32 },
}

/// The uid and gid of the unprivileged daemon when `FRUGAL_TENANTS_DAEMON` names none.
const UNPRIVILEGED_ID: u32 = 61234;

/// Who runs frugald here (`FRUGAL_TENANTS_DAEMON`); an unknown value is an error, not a
/// silent run as root.
pub fn daemon_user() -> DaemonUser {
    let Some(value) = std::env::var_os("FRUGAL_TENANTS_DAEMON") else {
        return DaemonUser::Invoker;
    };
    let value = value.to_string_lossy().into_owned();
    let mut parts = value.split(':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("root" | "invoker" | ""), None, None, None) => DaemonUser::Invoker,
        (Some("unprivileged"), None, None, None) => DaemonUser::Unprivileged {
            uid: UNPRIVILEGED_ID,
            gid: UNPRIVILEGED_ID,
        },
        (Some("unprivileged"), Some(uid), Some(gid), None) => {
            match (uid.parse::<u32>(), gid.parse::<u32>()) {
                (Ok(uid), Ok(gid)) if uid != 0 && gid != 0 => DaemonUser::Unprivileged { uid, gid },
                _ => panic!("FRUGAL_TENANTS_DAEMON: `{value}`: UID and GID are non-zero numbers"),
            }
        }
        _ => panic!(
            "FRUGAL_TENANTS_DAEMON: `{value}`: expected `unprivileged` or `unprivileged:UID:GID`"
        ),
    }
}

/// Prepares a test's dir for the daemon's user: traversable (a temp dir is 0700), and its
/// `state` (where the test configs put frugald's state) the daemon's own. Everything else in
/// it stays the test's: the daemon reads the repositories and configs, as it reads other
/// users' repositories on a shared host.
pub fn daemon_dir(dir: tempfile::TempDir) -> tempfile::TempDir {
    if let DaemonUser::Unprivileged { .. } = daemon_user() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("open the test dir to the daemon's user");
        let state = dir.path().join("state");
        std::fs::create_dir_all(&state).expect("the state dir");
        give_to_daemon(&state);
    }
    dir
}

/// Makes `path` (and everything under it) the daemon user's, where frugald runs as another
/// user than the test: a dir an attack writes its markers to must be writable to whatever runs
/// as frugald, or the attack could not show that it ran.
pub fn give_to_daemon(path: &std::path::Path) {
    let DaemonUser::Unprivileged { uid, gid } = daemon_user() else {
        return;
    };
    let out = std::process::Command::new("chown")
        .arg("-R")
        .arg(format!("{uid}:{gid}"))
        .arg(path)
        .output()
        .expect("run chown");
    assert!(
        out.status.success(),
        "chown {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Shell lines that, in the launcher's private mount namespace, open to every uid the dirs
/// that close a path frugald or its jobs' uids need (the binaries, the toolchain, the test's
/// dir): each dir on the way that others may not traverse (root's `$HOME` is 0700; a CI
/// checkout may lie in a private dir) is covered by a tmpfs they may traverse, with its entries
/// bound back, each keeping its own modes. The unit's user has a toolchain of its own
/// (`RUSTUP_HOME`, `CARGO_HOME` under /var/lib/frugal); nothing outside the namespace changes.
fn open_closed_dirs(dir: &std::path::Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let from_env = |var: &str, default: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)))
    };
    let mut needed: Vec<PathBuf> = vec![
        dir.to_path_buf(),
        frugal_testkit::binaries().frugald.clone(),
    ];
    needed.extend(from_env("RUSTUP_HOME", ".rustup"));
    needed.extend(from_env("CARGO_HOME", ".cargo"));
    needed.extend(std::env::var_os("CARGO").map(PathBuf::from));
    let mut closed: Vec<PathBuf> = Vec::new();
    for path in needed {
        let path = path.canonicalize().unwrap_or(path);
        let mut on_the_way: Vec<&std::path::Path> = path.ancestors().collect();
        on_the_way.reverse();
        for a in on_the_way {
            let shut = std::fs::metadata(a)
                .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o001 == 0);
            if shut && a.parent().is_some() && !closed.iter().any(|c| c == a) {
                closed.push(a.to_path_buf());
            }
        }
    }
    // Outer dirs first: an inner one is reached again through its outer one's binding.
    closed.sort_by_key(|c| c.components().count());
    let mut lines = String::new();
    for a in &closed {
        // Outside every dir it covers: /tmp is open to all. Removed once unmounted.
        let hold = tempfile::Builder::new()
            .prefix("frugald-hold-")
            .tempdir_in("/tmp")
            .expect("a mount point")
            .keep();
        lines.push_str(&format!(
            "a='{a}'\nhold='{hold}'\n\
             mount --bind \"$a\" \"$hold\"\n\
             mount -t tmpfs -o mode=0755,size=1m frugald-open \"$a\"\n\
             for e in \"$hold\"/* \"$hold\"/.[!.]* \"$hold\"/..?*; do\n  \
               n=\"${{e##*/}}\"\n  \
               if [ -L \"$e\" ]; then cp -P \"$e\" \"$a/$n\"\n  \
               elif [ -d \"$e\" ]; then mkdir \"$a/$n\"; mount --bind \"$e\" \"$a/$n\"\n  \
               elif [ -e \"$e\" ]; then : > \"$a/$n\"; mount --bind \"$e\" \"$a/$n\"\n  \
               fi\n\
             done\n\
             umount -l \"$hold\"\n\
             rmdir \"$hold\"\n",
            a = a.display(),
            hold = hold.display(),
        ));
    }
    lines
}

/// What frugald to start for the corpus, as `daemon_user` says: the binary itself, or a
/// script in `dir` that starts it as the unit would. `cgroups: false` hides `/sys/fs/cgroup`
/// from it (a private mount namespace without it), the unit's case where no cgroup is
/// delegated.
pub fn frugald(dir: &std::path::Path, cgroups: bool) -> std::path::PathBuf {
    let bin = frugal_testkit::binaries().frugald.display().to_string();
    let hide_cgroups = if cgroups {
        ""
    } else {
        "umount -l /sys/fs/cgroup\n"
    };
    if cgroups && daemon_user() == DaemonUser::Invoker {
        return frugal_testkit::binaries().frugald.clone();
    }
    // The test's dir is the daemon's to reach (its state dir, the repositories).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
        .expect("open the test dir");
    let open = open_closed_dirs(dir);
    let exec = match daemon_user() {
        DaemonUser::Invoker => format!("exec '{bin}' \"$@\""),
        DaemonUser::Unprivileged { uid, gid } => format!(
            "exec setpriv --reuid={uid} --regid={gid} --clear-groups --inh-caps=-all \
             --bounding-set=-all --no-new-privs -- '{bin}' \"$@\""
        ),
    };
    let script = format!("set -e\n{open}{hide_cgroups}{exec}\n");
    let name = if cgroups {
        "frugald-as-unit"
    } else {
        "frugald-without-cgroups"
    };
    let inner = dir.join(format!("{name}.sh"));
    std::fs::write(&inner, script).expect("write the daemon's start script");
    // The pid stays frugald's: unshare (without --fork) and setpriv exec what they start.
    let outer = dir.join(name);
    std::fs::write(
        &outer,
        format!(
            "#!/bin/sh\nexec unshare --mount --propagation private /bin/sh '{}' \"$@\"\n",
            inner.display()
        ),
    )
    .expect("write the daemon's launcher");
    std::fs::set_permissions(&outer, std::fs::Permissions::from_mode(0o755))
        .expect("make the launcher executable");
    outer
}

/// The capability report's words for what frugald lacks as the unit runs it; each must be in
/// the log of a daemon started unprivileged (empty otherwise).
pub fn missing_as_unit() -> &'static [&'static str] {
    match daemon_user() {
        DaemonUser::Invoker => &[],
        DaemonUser::Unprivileged { .. } => &[
            "no writable cgroup",
            "no memory cgroup",
            "no pids cgroup",
            "no mount namespace",
            "no network namespace",
        ],
    }
}

/// Starts frugald for the corpus (`frugald`'s launcher, with `env` on top of the test's) and,
/// where it runs unprivileged, checks that its capability report names what it lacks there.
pub fn start_daemon(
    dir: &std::path::Path,
    cfg: &std::path::Path,
    state: &std::path::Path,
    cgroups: bool,
    env: &[(&str, &str)],
) -> frugal_testkit::Daemon {
    let d = frugal_testkit::Daemon::start_with(&frugald(dir, cgroups), cfg, state, &[], env)
        .unwrap_or_else(|e| panic!("{e:#}"));
    if let DaemonUser::Unprivileged { uid, .. } = daemon_user() {
        let status = std::fs::read_to_string(format!("/proc/{}/status", d.child.id()))
            .expect("frugald's status");
        let ids = |key: &str| -> String {
            let line = status.lines().find(|l| l.starts_with(key)).unwrap_or("");
            line[key.len()..]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(ids("Uid:"), format!("{uid} {uid} {uid} {uid}"), "{status}");
        for caps in ["CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"] {
            assert_eq!(ids(caps), "0000000000000000", "frugald's {caps}\n{status}");
        }
        assert_eq!(ids("NoNewPrivs:"), "1", "{status}");
    }
    let log = d.log_text();
    for missing in missing_as_unit() {
        assert!(
            log.contains(missing),
            "frugald's capability report does not say `{missing}`:\n{log}"
        );
    }
    d
}

/// One HTTP/1.1 request on its own connection (`Connection: close`), with an optional session
/// cookie and form body; the whole answer, head and body.
pub fn http(
    d: &frugal_testkit::Daemon,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) -> String {
    let host = d.base.trim_start_matches("http://");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(c) = cookie {
        req.push_str(&format!("Cookie: frugal_session={c}\r\n"));
    }
    let body = form.unwrap_or("");
    if form.is_some() {
        req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    d.raw(&req).unwrap()
}

/// Logs in to the pages with `token`; the answer (a 303 with the session cookie when it took).
pub fn ui_login(d: &frugal_testkit::Daemon, token: &str) -> String {
    let form = format!("token={token}&next=%2Fui");
    http(d, "POST", "/ui/login", None, Some(&form))
}

/// The session id a successful login's answer sets.
pub fn session_cookie(login: &str) -> String {
    login
        .split("frugal_session=")
        .nth(1)
        .and_then(|c| c.split(';').next())
        .unwrap_or_else(|| panic!("no session cookie: {login}"))
        .to_string()
}
