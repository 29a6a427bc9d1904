//! The policy builder and its application to a `Command`.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use crate::cgroup::{JobCgroup, JobScope};
use crate::child::ConfinedChild;
use crate::enter::Plan;
use crate::seccomp::Program;
use crate::{Error, landlock_rules};

/// System locations every confined process may read (and execute). Missing ones are
/// skipped. `/proc` is whole because a process's own `/proc/<pid>` does not exist when
/// the rules are made; other processes' private entries stay behind ptrace checks,
/// which Landlock tightens to the job's own domain.
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/urandom",
    "/dev/random",
];

/// Device files every confined process may write (their content goes nowhere).
const SYSTEM_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// Variables taken from the parent when set; everything else is cleared.
const PASSED_ENV: &[&str] = &[
    "PATH",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "LANG",
];

/// Resource limits, each `None` to leave the inherited one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Processes and threads (`RLIMIT_NPROC`); also the job cgroup's `pids.max`.
    pub nproc: Option<u64>,
    /// Largest file a process may write, in bytes (`RLIMIT_FSIZE`).
    pub fsize: Option<u64>,
    /// Core dump size (`RLIMIT_CORE`); 0 means none.
    pub core: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`).
    pub nofile: Option<u64>,
    /// CPU seconds per process (`RLIMIT_CPU`).
    pub cpu_seconds: Option<u64>,
    /// Virtual address space per process, bytes (`RLIMIT_AS`).
    pub address_space: Option<u64>,
}

impl Default for Limits {
    /// Large enough for cargo building a big crate with `-j2`, small enough that a
    /// runaway test cannot fill the disk or the process table.
    fn default() -> Self {
        Limits {
            nproc: Some(512),
            fsize: Some(4 << 30),
            core: Some(0),
            nofile: Some(4096),
            cpu_seconds: Some(3600),
            address_space: Some(16 << 30),
        }
    }
}

/// Confinement policy of one job. Build it, then [`Policy::command`] or
/// [`Policy::apply`] for every process the job runs.
#[derive(Debug, Clone)]
pub struct Policy {
    writable: Vec<PathBuf>,
    readable: Vec<PathBuf>,
    env: Vec<(OsString, OsString)>,
    home: Option<PathBuf>,
    tmpdir: Option<PathBuf>,
    limits: Limits,
    timeout: Duration,
    net_namespace: bool,
    /// Whether to hide socket dirs in a private mount namespace (`hide.rs`).
    hide_sockets: bool,
    require_fs_confinement: bool,
    /// The job whose cgroup holds every command of this policy: the scope entered on the
    /// thread that made it.
    scope: Option<JobScope>,
    /// [`Policy::for_fetch`]: inet sockets and TCP allowed, the job's own uid not taken.
    fetch: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new()
    }
}

impl Policy {
    /// Nothing writable but the null devices; the system and toolchain read-only;
    /// default limits; 10 minutes; an empty network namespace when possible. Its commands
    /// run in the [`JobScope`] entered on this thread, if any: a job's policies are made on
    /// its thread (and cloned to workers), so every command of the job lands in its cgroup.
    pub fn new() -> Policy {
        let mut readable: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        readable.extend(toolchain_dirs());
        let scope = JobScope::current();
        let cargo_git = scope.as_ref().is_none_or(JobScope::cargo_git);
        let policy = Policy {
            writable: SYSTEM_WRITE.iter().map(PathBuf::from).collect(),
            readable,
            env: Vec::new(),
            home: None,
            tmpdir: None,
            limits: Limits::default(),
            timeout: Duration::from_secs(600),
            net_namespace: true,
            hide_sockets: true,
            require_fs_confinement: false,
            scope,
            fetch: false,
        };
        policy.cargo_git_readable(cargo_git)
    }

    /// The usual job policy: `scratch` and `target_dir` writable, `scratch/home` as
    /// `HOME` and `scratch/tmp` as `TMPDIR` (both created). The crate copy is writable
    /// as well: cargo writes `Cargo.lock` beside the manifest and tests write fixtures
    /// there, and it is the job's own copy.
    pub fn for_job(
        scratch: impl AsRef<Path>,
        target_dir: impl AsRef<Path>,
        crate_copy: impl AsRef<Path>,
    ) -> Result<Policy, Error> {
        let scratch = scratch.as_ref();
        let home = scratch.join("home");
        let tmp = scratch.join("tmp");
        for dir in [&home, &tmp] {
            std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
                path: dir.clone(),
                source,
            })?;
        }
        Ok(Policy::new()
            .writable(scratch)
            .writable(target_dir)
            .writable(crate_copy)
            .home(home)
            .tmpdir(tmp))
    }

    /// Adds a directory (or file) the job may create, change and delete under.
    pub fn writable(mut self, path: impl AsRef<Path>) -> Policy {
        self.writable.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds a directory (or file) the job may read and execute.
    pub fn readable(mut self, path: impl AsRef<Path>) -> Policy {
        self.readable.push(path.as_ref().to_path_buf());
        self
    }

    /// Makes the crate's workspace readable (its path dependencies usually live there): the
    /// outermost directory at or above `crate_dir` holding a `Cargo.toml`, but never one that
    /// holds `work`, the job's own work dir. A directory above the work dir holds the caller's
    /// private state (frugald's state dir: the API token, other repositories' snapshots), so a
    /// stray `Cargo.toml` above it must not open it up; `crate_dir` itself is always readable.
    pub fn crate_workspace_readable(self, crate_dir: &Path, work: &Path) -> Policy {
        match crate_workspace(crate_dir, work) {
            Some(root) => self.readable(root),
            None => self,
        }
    }

    /// Whether confined code may read `$CARGO_HOME/git`, which [`Policy::new`] opens (offline
    /// builds read their git dependencies' checkouts there) unless the [`JobScope`] it was made
    /// in says otherwise. It holds every git dependency this `$CARGO_HOME` ever fetched, other
    /// jobs' and users' private ones included: a command with no git dependency to build needs
    /// none of it. Only the default grant is withdrawn: Landlock cannot take the dir back out
    /// of a readable dir above it (a `$CARGO_HOME` under `/usr`).
    pub fn cargo_git_readable(mut self, on: bool) -> Policy {
        let Some(git) = cargo_home().map(|h| h.join("git")) else {
            return self;
        };
        self.readable.retain(|p| *p != git);
        if on {
            self.readable.push(git);
        }
        self
    }

    /// This build policy made fit for `cargo fetch` of the crate it builds. The fetch runs
    /// cargo's own code on a manifest the crate's author wrote (which names the sources), so it
    /// gets the network and writes the dependency caches, but reads no more than the build:
    /// - inet sockets and TCP are allowed, and no network namespace is made (which hosts a
    ///   manifest may name is the caller's check, before: `jobs.git_hosts` under frugald);
    /// - `$CARGO_HOME`'s `registry` and `git` and its lock and cache files are writable, and
    ///   the resolver's and TLS's configuration under `/etc` readable;
    /// - `HOME` stays the job's own, so no `~/.ssh`, `~/.gitconfig` or credential helper of
    ///   the caller is found, and `credentials.toml` stays unreadable: a private repository on
    ///   an allowed host is not fetched with the service's credentials for another tenant;
    /// - socket dirs are not hidden (`/etc/resolv.conf` may link under `/run`), and the job's
    ///   own uid is not taken: the shared caches are the service's, not the job's, to own.
    ///
    /// Returns `None` without a `$CARGO_HOME`.
    pub fn for_fetch(mut self) -> Option<Policy> {
        let home = cargo_home()?;
        // Landlock grants only what exists, and cargo would create these in `$CARGO_HOME`
        // itself, which stays read-only: a fresh one gets them here, empty (an empty file is
        // an empty lock and an empty database).
        for part in FETCH_WRITABLE {
            let path = home.join(part);
            let _ = if part.starts_with('.') {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map(drop)
            } else {
                std::fs::create_dir_all(&path)
            };
            self.writable.push(path);
        }
        Some(self.with_network())
    }

    /// The network, for a download the daemon asks for (`cargo fetch`, a `git fetch` of a
    /// repository registered by URL): inet sockets allowed, no network namespace, socket dirs
    /// not hidden, and the resolver's and TLS's configuration readable. Files stay as confined
    /// as the rest of the policy says.
    pub fn with_network(mut self) -> Policy {
        self.readable
            .extend(FETCH_READABLE.iter().map(PathBuf::from));
        self.fetch = true;
        self.net_namespace = false;
        self.hide_sockets = false;
        self
    }

    /// Adds an environment variable for the child (e.g. a harness control variable).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Policy {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// `HOME` of the child; must be writable. Without it `HOME` is unset.
    pub fn home(mut self, dir: impl AsRef<Path>) -> Policy {
        self.home = Some(dir.as_ref().to_path_buf());
        self.writable(dir)
    }

    /// `TMPDIR` of the child; made writable. Without it `TMPDIR` is unset.
    pub fn tmpdir(mut self, dir: impl AsRef<Path>) -> Policy {
        self.tmpdir = Some(dir.as_ref().to_path_buf());
        self.writable(dir)
    }

    /// Replaces the resource limits.
    pub fn limits(mut self, limits: Limits) -> Policy {
        self.limits = limits;
        self
    }

    /// Wall-clock time the whole job may take per spawned process tree.
    pub fn timeout(mut self, timeout: Duration) -> Policy {
        self.timeout = timeout;
        self
    }

    /// Whether to put the child in a new, empty network namespace when the kernel
    /// lets us (needs `CAP_SYS_ADMIN`). Seccomp and Landlock refuse inet sockets anyway.
    pub fn network_namespace(mut self, on: bool) -> Policy {
        self.net_namespace = on;
        self
    }

    /// Whether to hide the dirs that hold unix socket files (`/run`, `/tmp`, `/var/tmp`,
    /// `/dev/shm`, and those given to [`crate::hide_from_confined`]) behind an empty tmpfs in a
    /// private mount namespace, the policy's own paths under them bound back, when the kernel
    /// lets us (needs `CAP_SYS_ADMIN`). Landlock does not govern `connect()` to a socket file,
    /// so where nothing hides them (off, or no mount namespace) seccomp refuses `socket()` for
    /// `AF_UNIX` instead (`socketpair()` stays allowed).
    pub fn hide_sockets(mut self, on: bool) -> Policy {
        self.hide_sockets = on;
        self
    }

    /// Refuse to spawn (with [`Error::Unconfinable`]) when Landlock is unavailable.
    pub fn require_fs_confinement(mut self, on: bool) -> Policy {
        self.require_fs_confinement = on;
        self
    }

    /// Whether this policy's commands belong to a service job (a [`JobScope`]): a tenant's,
    /// whose dependencies are fetched confined too ([`Policy::for_fetch`]).
    pub fn in_job(&self) -> bool {
        self.scope.is_some()
    }

    /// Puts the commands in `scope` (or in no job's cgroup), whatever thread made the policy.
    pub fn job_scope(mut self, scope: Option<JobScope>) -> Policy {
        self.scope = scope;
        self
    }

    /// The configured wall-clock timeout.
    pub fn timeout_duration(&self) -> Duration {
        self.timeout
    }

    /// A confined command for `program`. Add arguments, stdio and your own fds to it,
    /// then [`Sandboxed::spawn`] it.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Result<Sandboxed, Error> {
        let mut cmd = Command::new(program);
        let job = self.apply(&mut cmd)?;
        Ok(Sandboxed { cmd, job })
    }

    /// Confines an existing command: clears its environment to the allow-list and
    /// registers the pre-exec confinement. Hooks registered earlier with `pre_exec`
    /// run before the confinement (so they may still open files); later ones run
    /// after it. Inherited file descriptors are left alone. Spawn it with
    /// [`Job::spawn`] so the process tree is supervised.
    pub fn apply(&self, cmd: &mut Command) -> Result<Job, Error> {
        self.apply_env(cmd);
        let (plan, job) = self.prepare()?;
        let plan = Arc::new(plan);
        // SAFETY: Plan::enter only makes async-signal-safe system calls.
        unsafe { cmd.pre_exec(move || plan.enter()) };
        Ok(job)
    }

    fn apply_env(&self, cmd: &mut Command) {
        cmd.env_clear();
        for key in PASSED_ENV {
            if let Some(value) = std::env::var_os(key) {
                cmd.env(key, value);
            }
        }
        if std::env::var_os("CARGO_HOME").is_none()
            && let Some(dir) = default_home_dir(".cargo")
        {
            cmd.env("CARGO_HOME", dir);
        }
        if std::env::var_os("RUSTUP_HOME").is_none()
            && let Some(dir) = default_home_dir(".rustup")
        {
            cmd.env("RUSTUP_HOME", dir);
        }
        if std::env::var_os("LANG").is_none() {
            cmd.env("LANG", "C.UTF-8");
        }
        if let Some(home) = &self.home {
            cmd.env("HOME", home);
        }
        if let Some(tmp) = &self.tmpdir {
            cmd.env("TMPDIR", tmp);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    /// The policy's limits, with the address space of each process held to the job's memory
    /// bound where no cgroup holds the job's memory ([`JobScope::memory_per_process`]).
    fn job_limits(&self) -> Limits {
        let mut limits = self.limits.clone();
        if let Some(max) = self.scope.as_ref().and_then(JobScope::memory_per_process) {
            limits.address_space = Some(limits.address_space.map_or(max, |a| a.min(max)));
        }
        limits
    }

    fn prepare(&self) -> Result<(Plan, Job), Error> {
        let landlock = landlock_rules::build(&self.readable, &self.writable, self.fetch)?;
        if landlock.is_none() && self.require_fs_confinement {
            return Err(Error::Unconfinable(
                "the kernel has no usable Landlock".into(),
            ));
        }
        let hide = (self.hide_sockets && crate::caps::mount_namespace_possible()).then(|| {
            let keep: Vec<PathBuf> = self
                .readable
                .iter()
                .chain(&self.writable)
                .cloned()
                .collect();
            crate::hide::HidePlan::new(&keep)
        });
        let seccomp = if crate::seccomp::available() {
            Some(if self.fetch {
                Program::deny_sockets_but_inet()?
            } else if hide.is_none() {
                // Nothing hides the host's socket files (M3): no unix socket to connect with.
                Program::deny_network_and_unix_sockets()?
            } else {
                Program::deny_network()?
            })
        } else {
            None
        };
        let cgroup = JobCgroup::create(self.limits.nproc, self.scope.as_ref());
        let pids_limited = cgroup.as_ref().is_some_and(JobCgroup::pids_limited);
        let root = is_root();
        // A uid of the job's own needs root, to take it and to hand it the writable dirs.
        let run_as = self
            .scope
            .as_ref()
            .and_then(JobScope::ids)
            .filter(|_| root && !self.fetch);
        if let Some((uid, gid)) = run_as {
            for dir in self
                .writable
                .iter()
                .filter(|w| !SYSTEM_WRITE.iter().any(|s| w == s))
            {
                hand_over(dir, uid, gid).map_err(|source| Error::HandOver {
                    path: dir.clone(),
                    source,
                })?;
            }
        }
        let plan = Plan {
            cgroup_procs: cgroup
                .as_ref()
                .map(JobCgroup::procs_files)
                .unwrap_or_default(),
            // RLIMIT_NPROC counts the processes of the job's own uid.
            rlimits: rlimits(&self.job_limits(), root && run_as.is_none(), pids_limited),
            new_netns: self.net_namespace && crate::caps::net_namespace_possible(),
            hide,
            drop_caps_upto: if root { last_capability() } else { None },
            run_as,
            landlock,
            seccomp,
        };
        let job = Job {
            cgroup,
            timeout: self.timeout,
        };
        Ok((plan, job))
    }
}

/// The supervision side of one confined command: its cgroup and its timeout.
#[derive(Debug)]
pub struct Job {
    pub(crate) cgroup: Option<JobCgroup>,
    pub(crate) timeout: Duration,
}

impl Job {
    /// Spawns a command confined by [`Policy::apply`] (which returned this job).
    pub fn spawn(self, cmd: &mut Command) -> Result<ConfinedChild, Error> {
        let child = cmd.spawn()?;
        Ok(ConfinedChild::new(child, self))
    }
}

/// A confined `Command` together with its [`Job`]. It deliberately does not
/// dereference to `Command`: `Command::spawn` would start the process confined but
/// unsupervised (no tree kill, no timeout).
#[derive(Debug)]
pub struct Sandboxed {
    cmd: Command,
    job: Job,
}

impl Sandboxed {
    /// Starts the process tree.
    pub fn spawn(mut self) -> Result<ConfinedChild, Error> {
        self.job.spawn(&mut self.cmd)
    }

    /// Runs to completion (or the policy timeout) with stdout and stderr captured.
    pub fn output(mut self) -> Result<crate::ConfinedOutput, Error> {
        self.cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let timeout = self.job.timeout;
        self.spawn()?.output_with_timeout(timeout)
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Sandboxed {
        self.cmd.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Sandboxed
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Sets one more environment variable (on top of the policy's allow-list).
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Sandboxed {
        self.cmd.env(key, value);
        self
    }

    /// Working directory of the child (it must be readable under the policy).
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Sandboxed {
        self.cmd.current_dir(dir);
        self
    }

    /// Standard input of the child.
    pub fn stdin(&mut self, cfg: impl Into<std::process::Stdio>) -> &mut Sandboxed {
        self.cmd.stdin(cfg);
        self
    }

    /// Standard output of the child.
    pub fn stdout(&mut self, cfg: impl Into<std::process::Stdio>) -> &mut Sandboxed {
        self.cmd.stdout(cfg);
        self
    }

    /// Standard error of the child.
    pub fn stderr(&mut self, cfg: impl Into<std::process::Stdio>) -> &mut Sandboxed {
        self.cmd.stderr(cfg);
        self
    }

    /// The command itself, for settings not forwarded here (fds, `pre_exec`). Start
    /// it with [`Sandboxed::spawn`], never with `Command::spawn`.
    pub fn command_mut(&mut self) -> &mut Command {
        &mut self.cmd
    }

    /// The parts, for callers that drive the command themselves.
    pub fn into_parts(self) -> (Command, Job) {
        (self.cmd, self.job)
    }
}

/// Makes `path` and everything under it belong to `uid` and `gid`, so a job running as that
/// uid can write where its policy lets it: the files frugald made there as root, and those an
/// earlier job left. The job's own processes may be running meanwhile and rename or replace
/// what is walked, so nothing is looked up by a path twice: each dir is opened without
/// following links and its entries taken relative to it; each entry is changed through a
/// descriptor opened on it without following a link, and only after checking that descriptor
/// (a link is never followed nor changed, a file with other names, which a job could have
/// linked from elsewhere, is left alone). Entries owned already are not opened.
fn hand_over(path: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return Ok(());
    };
    match open_at(libc::AT_FDCWD, &c) {
        Ok(fd) => hand_over_fd(fd, uid, gid),
        // Not made yet (the command makes it), or a link: left as it is.
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ELOOP)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens `name` under `dir` for reading, never following a link and never blocking.
fn open_at(dir: libc::c_int, name: &std::ffi::CStr) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let flags =
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    // SAFETY: openat on a NUL-terminated name; the descriptor is owned from here on.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

fn stat_fd(fd: libc::c_int) -> std::io::Result<libc::stat> {
    // SAFETY: fstat writes into the zeroed struct.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st)
}

fn hand_over_fd(fd: std::os::fd::OwnedFd, uid: u32, gid: u32) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let st = stat_fd(fd.as_raw_fd())?;
    let is_dir = st.st_mode & libc::S_IFMT == libc::S_IFDIR;
    let owned = st.st_uid == uid && st.st_gid == gid;
    if !owned && (is_dir || st.st_nlink == 1) {
        // SAFETY: fchown on the descriptor just checked.
        if unsafe { libc::fchown(fd.as_raw_fd(), uid, gid) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    if !is_dir {
        return Ok(());
    }
    // The open dir itself, whatever its path has become.
    let entries = std::fs::read_dir(format!("/proc/self/fd/{}", fd.as_raw_fd()))?;
    for e in entries {
        let e = e?;
        let Ok(name) = std::ffi::CString::new(e.file_name().as_bytes()) else {
            continue;
        };
        // SAFETY: fstatat relative to the open dir, not following a link.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let listed = unsafe {
            libc::fstatat(
                fd.as_raw_fd(),
                name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        let kind = st.st_mode & libc::S_IFMT;
        if listed < 0
            || kind == libc::S_IFLNK
            || (kind != libc::S_IFDIR && st.st_uid == uid && st.st_gid == gid)
        {
            continue;
        }
        match open_at(fd.as_raw_fd(), &name) {
            Ok(child) => hand_over_fd(child, uid, gid)?,
            // Gone, turned into a link, or a socket: nothing to hand over.
            Err(_) => continue,
        }
    }
    Ok(())
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn default_home_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| Path::new(&h).join(name))
}

/// What confined code may read of `$CARGO_HOME`: the tools, the registry's and git's sources
/// (offline builds read them) and cargo's config. Never the whole dir: `credentials.toml` (and
/// the old `credentials`) hold the user's registry tokens, which no build needs.
const CARGO_HOME_READABLE: [&str; 6] = ["bin", "registry", "git", "config.toml", "config", "env"];

/// What `cargo fetch` writes in `$CARGO_HOME` ([`Policy::for_fetch`]): the sources, the lock
/// files and the last-use database (each a file Landlock can grant; the dir itself stays
/// read-only).
const FETCH_WRITABLE: [&str; 5] = [
    "registry",
    "git",
    ".package-cache",
    ".package-cache-mutate",
    ".global-cache",
];

/// What a fetch reads beyond a build: name resolution, TLS trust, and the admin's git config
/// (libgit2 refuses to fetch when it exists but cannot be read).
const FETCH_READABLE: [&str; 8] = [
    "/etc/gitconfig",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
];

/// `$CARGO_HOME`, or its default (`~/.cargo`).
fn cargo_home() -> Option<PathBuf> {
    match std::env::var_os("CARGO_HOME") {
        Some(v) => Some(PathBuf::from(v)),
        None => default_home_dir(".cargo"),
    }
}

/// `$RUSTUP_HOME`, the readable parts of `$CARGO_HOME` (or their defaults), and the
/// installation prefix of whatever `cargo` and `rustc` resolve to on `PATH`, unless that prefix
/// holds `$CARGO_HOME` (rustup's proxies live in `$CARGO_HOME/bin`): it would open the
/// credentials again.
fn toolchain_dirs() -> Vec<PathBuf> {
    let home_of = |var: &str, default: &str| match std::env::var_os(var) {
        Some(v) => Some(PathBuf::from(v)),
        None => default_home_dir(default),
    };
    let mut dirs: Vec<PathBuf> = home_of("RUSTUP_HOME", ".rustup").into_iter().collect();
    let cargo_home = cargo_home();
    if let Some(home) = &cargo_home {
        dirs.extend(CARGO_HOME_READABLE.iter().map(|part| home.join(part)));
    }
    let real_home = cargo_home.as_ref().and_then(|h| h.canonicalize().ok());
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for tool in ["cargo", "rustc"] {
            let Ok(real) = std::fs::canonicalize(dir.join(tool)) else {
                continue;
            };
            // .../bin/rustc -> the prefix, which holds lib/ and the sysroot.
            let Some(prefix) = real.parent().and_then(Path::parent) else {
                continue;
            };
            let holds_home = [&cargo_home, &real_home]
                .into_iter()
                .flatten()
                .any(|h| h.starts_with(prefix));
            if !holds_home {
                dirs.push(prefix.to_path_buf());
            }
        }
    }
    dirs.sort();
    dirs.dedup();
    // A prefix of "/" would open the whole filesystem for reading.
    dirs.retain(|d| d.parent().is_some());
    dirs
}

fn rlimits(
    limits: &Limits,
    root: bool,
    pids_limited: bool,
) -> Vec<(libc::__rlimit_resource_t, libc::rlimit)> {
    let nproc = match (limits.nproc, root) {
        // Without capabilities, root's RLIMIT_NPROC counts every uid-0 process on the
        // host; with a pids cgroup that bound is the one that matters.
        (Some(_), true) if pids_limited => None,
        (Some(n), true) => Some(n + count_uid0_processes()),
        (n, false) => n,
        (None, true) => None,
    };
    let cpu_hard = limits.cpu_seconds.map(|s| s.saturating_add(5));
    let wanted = [
        (libc::RLIMIT_NPROC, nproc, nproc),
        (libc::RLIMIT_FSIZE, limits.fsize, limits.fsize),
        (libc::RLIMIT_CORE, limits.core, limits.core),
        (libc::RLIMIT_NOFILE, limits.nofile, limits.nofile),
        // SIGXCPU at the soft limit, SIGKILL at the hard one.
        (libc::RLIMIT_CPU, limits.cpu_seconds, cpu_hard),
        (libc::RLIMIT_AS, limits.address_space, limits.address_space),
    ];
    wanted
        .into_iter()
        .filter_map(|(res, soft, hard)| Some((res, clamp_to_current(res, soft?, hard?))))
        .collect()
}

/// Never ask for more than the current hard limit: raising it would fail without
/// privileges, and the child could not have had more anyway.
fn clamp_to_current(res: libc::__rlimit_resource_t, soft: u64, hard: u64) -> libc::rlimit {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit writes into `cur`.
    unsafe { libc::getrlimit(res, &mut cur) };
    let hard = hard.min(cur.rlim_max);
    libc::rlimit {
        rlim_cur: soft.min(hard),
        rlim_max: hard,
    }
}

fn count_uid0_processes() -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == 0))
        .count() as u64
}

fn last_capability() -> Option<libc::c_ulong> {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// The outermost directory at or above `crate_dir` holding a `Cargo.toml` that does not hold
/// `work` (`crate_dir` itself always qualifies); `None` when `crate_dir` does not resolve.
pub fn crate_workspace(crate_dir: &Path, work: &Path) -> Option<PathBuf> {
    let dir = crate_dir.canonicalize().ok()?;
    let work = work.canonicalize().unwrap_or_else(|_| work.to_path_buf());
    dir.ancestors()
        .filter(|d| d.parent().is_some() && d.join("Cargo.toml").is_file())
        .filter(|d| *d == dir || !work.starts_with(d))
        .last()
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod workspace_tests {
    use super::crate_workspace;

    #[test]
    fn the_crate_workspace_never_holds_the_work_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let ws = top.join("state/snap");
        let krate = ws.join("crates/a");
        let work = top.join("state/work");
        for d in [&krate, &work] {
            std::fs::create_dir_all(d).unwrap();
        }
        for d in [&top, &ws, &krate] {
            std::fs::write(d.join("Cargo.toml"), "").unwrap();
        }
        // `top` holds the work dir (and so the caller's state): the snapshot's workspace wins.
        assert_eq!(crate_workspace(&krate, &work), Some(ws.clone()));
        // Without a work dir below it, the outermost manifest is the workspace.
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(crate_workspace(&krate, elsewhere.path()), Some(top.clone()));
        // A work dir inside the crate still leaves the crate itself readable.
        assert_eq!(
            crate_workspace(&krate, &krate.join("w")),
            Some(krate.clone())
        );
    }
}

#[cfg(test)]
mod cargo_git_tests {
    use super::{Policy, cargo_home};
    use crate::{JobLimits, JobScope};

    #[test]
    fn the_cargo_git_dir_is_readable_unless_the_policy_or_its_scope_turns_it_off() {
        let Some(git) = cargo_home().map(|h| h.join("git")) else {
            return;
        };
        let grants = |p: &Policy| p.readable.iter().filter(|r| **r == git).count();
        assert_eq!(grants(&Policy::new()), 1);
        assert_eq!(grants(&Policy::new().cargo_git_readable(false)), 0);
        let again = Policy::new()
            .cargo_git_readable(false)
            .cargo_git_readable(true)
            .cargo_git_readable(true);
        assert_eq!(grants(&again), 1);
        // The rest of `$CARGO_HOME` that builds read stays.
        let registry = git.with_file_name("registry");
        assert!(
            Policy::new()
                .cargo_git_readable(false)
                .readable
                .contains(&registry)
        );
        let scope = JobScope::new(JobLimits::default()).cargo_git_readable(false);
        assert!(!scope.cargo_git());
        let entered = scope.enter();
        assert_eq!(grants(&Policy::new()), 0);
        assert_eq!(grants(&Policy::new().cargo_git_readable(true)), 1);
        drop(entered);
        assert_eq!(grants(&Policy::new()), 1);
    }
}
