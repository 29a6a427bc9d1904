//! What this kernel and host can enforce, and what is used instead when not.

use std::sync::OnceLock;

use crate::Policy;
use crate::cgroup::{JobCgroup, JobLimits, JobScope};
use crate::landlock_rules;

/// The confinement features available here. Fill with [`Capabilities::probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// Landlock ABI version of the kernel, `None` without Landlock.
    pub landlock_abi: Option<i32>,
    /// Landlock TCP bind/connect rules (ABI >= 4, Linux 6.7).
    pub landlock_tcp: bool,
    /// Landlock signal and abstract-socket scoping (ABI >= 6, Linux 6.12).
    pub landlock_scopes: bool,
    /// A confined child really was refused a file outside its policy.
    pub fs_self_test: Option<bool>,
    /// Seccomp filters (inet sockets refused).
    pub seccomp: bool,
    /// The child can get an empty network namespace.
    pub net_namespace: bool,
    /// The child can get a private mount namespace: socket dirs (`/run`, `/tmp`, ...) hidden.
    pub mount_namespace: bool,
    /// Job cgroups can be created (whole-tree tracking and kill).
    pub cgroup: bool,
    /// The job cgroup has `cgroup.kill` (atomic kill of the tree).
    pub cgroup_kill: bool,
    /// The job cgroup has `pids.max` (bounds fork bombs, also for root).
    pub pids_limit: bool,
    /// A whole job's memory can be bounded (`memory.max`, or v1 `memory.limit_in_bytes`).
    pub job_memory_limit: bool,
    /// We run as root (children keep uid 0 but lose all capabilities).
    pub root: bool,
}

impl Capabilities {
    /// Probes the kernel and host. Spawns two short-lived processes (network
    /// namespace test, once per process; filesystem self-test).
    pub fn probe() -> Capabilities {
        let abi = landlock_rules::kernel_abi();
        let test_scope = JobScope::new(JobLimits {
            memory_max: Some(1 << 40),
            pids_max: Some(1 << 16),
        });
        let test_cgroup = JobCgroup::create(Some(1 << 16), None);
        let mut caps = Capabilities {
            landlock_abi: abi,
            landlock_tcp: abi.is_some_and(|a| a >= 4),
            landlock_scopes: abi.is_some_and(|a| a >= 6),
            fs_self_test: None,
            seccomp: crate::seccomp::available(),
            net_namespace: net_namespace_possible(),
            mount_namespace: mount_namespace_possible(),
            cgroup: test_cgroup.is_some(),
            cgroup_kill: test_cgroup.as_ref().is_some_and(JobCgroup::has_kill),
            pids_limit: test_cgroup.as_ref().is_some_and(JobCgroup::pids_limited),
            job_memory_limit: test_scope.memory_limited(),
            root: crate::policy::is_root(),
        };
        drop(test_cgroup);
        drop(test_scope);
        caps.fs_self_test = fs_self_test();
        caps
    }

    /// True when files outside the policy are really out of reach: Landlock is there
    /// and a confined child was refused a file in the self-test. A daemon should
    /// refuse to run jobs when this is false.
    pub fn fs_confined(&self) -> bool {
        self.landlock_abi.is_some() && self.fs_self_test == Some(true)
    }

    /// What this host lacks to confine files, in the report's words; `None` when
    /// [`Capabilities::fs_confined`]. What every refusal under `sandbox.require` names.
    pub fn fs_missing(&self) -> Option<String> {
        (!self.fs_confined()).then(|| self.fs_line())
    }

    /// True when at least one layer refuses inet sockets.
    pub fn net_confined(&self) -> bool {
        self.seccomp || self.landlock_tcp || self.net_namespace
    }

    /// One human line per layer: what is used, what is missing and what replaces it.
    pub fn report(&self) -> Vec<String> {
        let mut lines = vec![self.fs_line()];
        lines.push(self.net_line());
        lines.push(self.socket_line());
        lines.push(self.tree_line());
        lines.push(self.fork_line());
        lines.push(self.memory_line());
        if !self.landlock_scopes {
            // Without scopes only the uid separates a job from the daemon: frugald's, unless a
            // uid per job is in force (the daemon's report says so).
            lines.push(
                "no Landlock scopes: kernel < 6.12; confined code running as frugald's uid \
                 can signal frugald, other jobs and every process of that uid, and reach \
                 their abstract unix sockets"
                    .into(),
            );
        }
        lines
    }

    fn fs_line(&self) -> String {
        match (self.landlock_abi, self.fs_self_test) {
            (None, _) => "no Landlock: filesystem NOT confined (needs Linux 5.13 or later with `landlock` in the \
             kernel's `lsm=` list; `cat /sys/kernel/security/lsm` shows it)"
                .into(),
            (Some(abi), Some(true)) => {
                format!("Landlock ABI {abi}: filesystem confined (self-test refused a file)")
            }
            (Some(abi), Some(false)) => {
                format!("Landlock ABI {abi} but the self-test read a file: filesystem NOT confined")
            }
            (Some(abi), None) => {
                format!("Landlock ABI {abi}: self-test could not run (no /bin/sh); unverified")
            }
        }
    }

    fn net_line(&self) -> String {
        let mut used = Vec::new();
        if self.landlock_tcp {
            used.push("Landlock TCP rules");
        }
        if self.seccomp {
            used.push("seccomp refuses every socket family but unix, and x32 system calls");
        }
        if self.net_namespace {
            used.push("empty network namespace");
        }
        let missing = if self.landlock_tcp {
            String::new()
        } else if self.seccomp {
            "no Landlock network rules: kernel < 6.7; inet sockets refused by seccomp instead; "
                .into()
        } else {
            "no Landlock network rules (Linux 6.7 or later) and no seccomp: ".into()
        };
        let no_namespace = if self.net_namespace {
            ""
        } else {
            "; no network namespace (user namespaces are off: run as root, or allow them with \
             `sysctl kernel.unprivileged_userns_clone=1` / `user.max_user_namespaces`)"
        };
        if used.is_empty() {
            format!("{missing}network NOT confined{no_namespace}")
        } else {
            format!("{missing}network: {}{no_namespace}", used.join(", "))
        }
    }

    fn socket_line(&self) -> String {
        if self.mount_namespace {
            "unix socket files hidden: /run, /tmp, /var/tmp, /dev/shm and the daemon's socket dir \
             covered in a private mount namespace, the job's own paths bound back"
                .into()
        } else if self.seccomp {
            "no mount namespace (needs CAP_SYS_ADMIN) to hide unix socket files, which Landlock \
             does not govern connect() to: seccomp refuses confined code every unix socket \
             instead (socketpair() still works), so code that listens or connects on one fails"
                .into()
        } else {
            "no mount namespace (needs CAP_SYS_ADMIN) and no seccomp: confined code can \
             connect() to unix socket files it can name (the daemon's socket, /run/*, \
             docker.sock); Landlock does not govern connect()"
                .into()
        }
    }

    fn tree_line(&self) -> String {
        match (self.cgroup, self.cgroup_kill) {
            (true, true) => "job cgroup with cgroup.kill: whole tree killed atomically".into(),
            (true, false) => "job cgroup (no cgroup.kill): whole tree killed by a kill loop".into(),
            (false, _) => "no writable cgroup: a job is neither bounded (memory, processes) \
                           nor killed as a whole; its trees are killed by process group and \
                           parentage, and a process that left the session and was orphaned \
                           survives its command; a job runs as frugald's uid unless frugald, \
                           as root, gives each a uid of its own (jobs.uid_range) (needs cgroup \
                           v2 at /sys/fs/cgroup, writable: root, or frugald's systemd unit with \
                           Delegate=yes)"
                .into(),
        }
    }

    fn memory_line(&self) -> String {
        if self.job_memory_limit {
            "a job's memory bounded as a whole by its cgroup (memory.max)".into()
        } else {
            "no memory cgroup: a job's memory bounded only per process, by RLIMIT_AS at the \
             job's bound (jobs.max_memory), not as a whole (needs the memory controller \
             delegated: cgroup v2 with Delegate=yes, or cgroup v1's memory hierarchy writable)"
                .into()
        }
    }

    fn fork_line(&self) -> String {
        match (self.pids_limit, self.root) {
            (true, _) => "fork bombs bounded by the job cgroup's pids.max".into(),
            (false, false) => "no pids cgroup: fork bombs bounded by RLIMIT_NPROC (a writable \
                               cgroup v2 with the pids controller bounds them per job)"
                .into(),
            (false, true) => "no pids cgroup and root: RLIMIT_NPROC counts every uid-0 \
                              process of the host; fork bombs bounded only loosely"
                .into(),
        }
    }
}

/// Whether a child can `unshare(CLONE_NEWNET)`; probed once per process.
pub(crate) fn net_namespace_possible() -> bool {
    static POSSIBLE: OnceLock<bool> = OnceLock::new();
    *POSSIBLE.get_or_init(|| {
        use std::os::unix::process::CommandExt;
        let mut cmd = std::process::Command::new("/bin/true");
        // SAFETY: unshare is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                if libc::unshare(libc::CLONE_NEWNET) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
        };
        cmd.status().is_ok_and(|s| s.success())
    })
}

/// Whether a child can `unshare(CLONE_NEWNS)` and mount a tmpfs in it; probed once per process.
pub(crate) fn mount_namespace_possible() -> bool {
    static POSSIBLE: OnceLock<bool> = OnceLock::new();
    *POSSIBLE.get_or_init(|| {
        use std::os::unix::process::CommandExt;
        let mut cmd = std::process::Command::new("/bin/true");
        // SAFETY: unshare and mount are async-signal-safe system calls on static strings.
        unsafe {
            cmd.pre_exec(|| {
                let none = std::ptr::null();
                let ok = libc::unshare(libc::CLONE_NEWNS) == 0
                    && libc::mount(
                        none,
                        c"/".as_ptr(),
                        none,
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) == 0
                    && libc::mount(
                        c"tmpfs".as_ptr(),
                        c"/dev".as_ptr(),
                        c"tmpfs".as_ptr(),
                        0,
                        c"size=64k".as_ptr().cast(),
                    ) == 0;
                if ok {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
        };
        cmd.status().is_ok_and(|s| s.success())
    })
}

/// Spawns a confined `sh` that tries to read a file outside its policy.
fn fs_self_test() -> Option<bool> {
    if !std::path::Path::new("/bin/sh").exists() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("frugal-sandbox-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let secret = dir.join("secret");
    std::fs::write(&secret, "probe-secret").ok()?;
    let result = Policy::new()
        .network_namespace(false)
        .command("/bin/sh")
        .ok()
        .and_then(|mut cmd| {
            cmd.arg("-c").arg("cat \"$1\"").arg("sh").arg(&secret);
            cmd.output().ok()
        })
        .map(|out| !String::from_utf8_lossy(&out.stdout).contains("probe-secret"));
    let _ = std::fs::remove_dir_all(&dir);
    result
}
