//! Cgroups: every process of a job, including those that left its session, is a member, so the
//! job can be counted, bounded (`pids.max`, `memory.max`) and killed as a whole.
//!
//! Two levels. A [`JobScope`] is one frugald job (or one `frugal run`): the cgroup that carries
//! the job's memory and process limits and is killed whole when the job ends or hits its time
//! cap. Each confined command then gets a [`JobCgroup`] of its own, created inside the scope
//! entered on the thread that made its [`crate::Policy`] (or inside our own cgroup without
//! one), so the sandbox still kills one command's tree when that command ends.
//!
//! Hierarchies used, each where we may create cgroups: the cgroup v2 (unified) hierarchy, and
//! the cgroup v1 `pids` and `memory` hierarchies. On a hybrid host that gives `cgroup.kill`
//! from v2 and `pids.max`, `memory.limit_in_bytes` from v1; on a pure v2 host the limits exist
//! only where the `pids` and `memory` controllers can be enabled for our children: our cgroup
//! must hold no process then (cgroup v2's "no internal processes" rule), so a process that is
//! alone in its cgroup (frugald under its unit with `Delegate=yes`) moves itself into a leaf
//! `supervisor` child first.

use std::cell::RefCell;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Which hierarchy a cgroup dir belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    V2,
    PidsV1,
    MemoryV1,
}

/// Where new cgroups of one hierarchy are created: our own cgroup in it (or a scope's).
#[derive(Debug, Clone)]
pub(crate) struct Hierarchy {
    pub base: PathBuf,
    pub kind: Kind,
}

/// The hierarchies this process can see, found once.
pub(crate) fn hierarchies() -> &'static [Hierarchy] {
    static FOUND: OnceLock<Vec<Hierarchy>> = OnceLock::new();
    FOUND.get_or_init(detect)
}

fn detect() -> Vec<Hierarchy> {
    let (Ok(mounts), Ok(own)) = (
        std::fs::read_to_string("/proc/self/mountinfo"),
        std::fs::read_to_string("/proc/self/cgroup"),
    ) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in mounts.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (Some(root), Some(mount), Some(fstype)) = (left.get(3), left.get(4), right.first())
        else {
            continue;
        };
        let v1_with = |ctrl: &str| {
            *fstype == "cgroup"
                && right
                    .get(2)
                    .is_some_and(|opts| opts.split(',').any(|o| o == ctrl))
        };
        let kind = if *fstype == "cgroup2" {
            Kind::V2
        } else if v1_with("pids") {
            Kind::PidsV1
        } else if v1_with("memory") {
            Kind::MemoryV1
        } else {
            continue;
        };
        if let Some(path) = own_path(&own, kind) {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .trim_start_matches('/');
            let base = Path::new(mount).join(rel);
            if kind == Kind::V2 {
                enable_v2_controllers(&base);
            }
            sweep_stale(&base);
            found.push(Hierarchy { base, kind });
        }
    }
    found
}

/// Our cgroup path in the v2 hierarchy (`0::/p`) or a v1 one (`N:pids:/p`, `N:memory:/p`).
fn own_path(proc_cgroup: &str, kind: Kind) -> Option<String> {
    proc_cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = match kind {
            Kind::V2 => id == "0" && ctrls.is_empty(),
            Kind::PidsV1 => ctrls.split(',').any(|c| c == "pids"),
            Kind::MemoryV1 => ctrls.split(',').any(|c| c == "memory"),
        };
        matches.then(|| path.to_string())
    })
}

/// Makes `memory` and `pids` available to the cgroups we create under `base` (v2). Writing
/// `cgroup.subtree_control` fails with `EBUSY` while `base` holds processes (except at the
/// root); when the only one is this process (a delegated unit's cgroup), it moves into a leaf
/// child and tries again. A cgroup shared with other processes is left as it is: the limits
/// are then missing, and the capability report says so.
fn enable_v2_controllers(base: &Path) {
    let available = std::fs::read_to_string(base.join("cgroup.controllers")).unwrap_or_default();
    let wanted: Vec<&str> = ["memory", "pids"]
        .into_iter()
        .filter(|c| available.split_whitespace().any(|a| a == *c))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let enabled = std::fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
    let missing: Vec<String> = wanted
        .iter()
        .filter(|c| !enabled.split_whitespace().any(|e| e == **c))
        .map(|c| format!("+{c}"))
        .collect();
    if missing.is_empty() {
        return;
    }
    let control = base.join("cgroup.subtree_control");
    if std::fs::write(&control, missing.join(" ")).is_ok() {
        return;
    }
    let procs = std::fs::read_to_string(base.join("cgroup.procs")).unwrap_or_default();
    let me = std::process::id().to_string();
    let alone = procs.lines().all(|p| p.trim() == me);
    if !alone {
        return;
    }
    let leaf = base.join("supervisor");
    if (std::fs::create_dir(&leaf).is_ok() || leaf.is_dir())
        && std::fs::write(leaf.join("cgroup.procs"), &me).is_ok()
    {
        let _ = std::fs::write(&control, missing.join(" "));
    }
}

/// Removes the empty cgroups that processes of ours which are gone left behind (a cgroup dir
/// cannot be removed while a survivor is in it, and a killed process removes nothing): every
/// `frugal-*-<pid>-<n>` whose `<pid>` no longer exists. `rmdir` refuses a cgroup that still
/// has members, so nothing alive is touched.
fn sweep_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.starts_with("frugal-"))
            .and_then(|n| n.rsplit('-').nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            remove_tree(&e.path());
        }
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

fn unique_name(kind: &str) -> String {
    format!(
        "frugal-{kind}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Creates a fresh cgroup `parent/<unique name>`. A name can be taken already: pids are reused
/// (32768 of them by default), and a process killed before it removed its cgroups leaves
/// `frugal-<kind>-<its pid>-<n>` behind, which the sweep keeps while a process with that pid
/// lives (us) or the cgroup still has members. Such a name is passed over, not the hierarchy:
/// skipping it would leave a job without its `pids.max`.
fn create_fresh(parent: &Path, kind: &str) -> Option<PathBuf> {
    for _ in 0..64 {
        let dir = parent.join(unique_name(kind));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Some(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => return None,
        }
    }
    None
}

/// Live (non-zombie) processes in `dir` and every cgroup below it.
fn members_below(dir: &Path) -> Vec<i32> {
    let mut pids = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(text) = std::fs::read_to_string(d.join("cgroup.procs")) {
            pids.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
        }
        if let Ok(entries) = std::fs::read_dir(&d) {
            stack.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path()),
            );
        }
    }
    pids.retain(|&pid| crate::child::is_alive(pid));
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Removes `dir` and the cgroups below it, deepest first (a cgroup dir is removed by `rmdir`
/// once empty of processes and children). Fails quietly while members remain.
fn remove_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// Kills every member of `dirs` (cgroup.kill where v2 has it, then SIGKILL by pid) and waits up
/// to `grace` for them to disappear; returns how many are still alive afterwards.
fn kill_members(dirs: &[Hierarchy], grace: Duration) -> usize {
    for d in dirs.iter().filter(|d| d.kind == Kind::V2) {
        // cgroup.kill (Linux 5.14) kills the whole subtree atomically, even a forking member.
        let _ = std::fs::write(d.base.join("cgroup.kill"), "1");
    }
    let deadline = Instant::now() + grace;
    loop {
        let members = live_in(dirs);
        if members.is_empty() {
            return 0;
        }
        for pid in &members {
            // SAFETY: plain kill(2); a recycled pid is not possible while it is a member.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
        if Instant::now() >= deadline {
            return members.len();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn live_in(dirs: &[Hierarchy]) -> Vec<i32> {
    let mut pids: Vec<i32> = dirs.iter().flat_map(|d| members_below(&d.base)).collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Limits of one whole job, each `None` to leave it unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobLimits {
    /// Memory of every process of the job together, bytes (`memory.max`, or
    /// `memory.limit_in_bytes` on cgroup v1); beyond it the kernel's OOM killer picks one of
    /// the job's processes.
    pub memory_max: Option<u64>,
    /// Processes and threads of the job together (`pids.max`).
    pub pids_max: Option<u64>,
}

/// One job's cgroup (one per usable hierarchy), the parent of every confined command's cgroup
/// made while it is [entered](JobScope::enter). Cloning shares it; the last clone dropped kills
/// what is left in it and removes it.
#[derive(Debug, Clone)]
pub struct JobScope {
    inner: Arc<ScopeInner>,
}

#[derive(Debug)]
struct ScopeInner {
    dirs: Vec<Hierarchy>,
    memory_limited: bool,
    pids_limited: bool,
    /// Processes found alive in a command's cgroup after the command's root had exited.
    escaped: AtomicUsize,
    /// The uid and gid every confined command of the job runs as ([`JobScope::run_as`]).
    ids: Option<(u32, u32)>,
    /// The job's memory bound as asked for, held by its cgroup or, without one, per process.
    memory_max: Option<u64>,
    /// Whether the job's policies open `$CARGO_HOME/git` ([`JobScope::cargo_git_readable`]).
    cargo_git: bool,
}

thread_local! {
    static CURRENT: RefCell<Option<JobScope>> = const { RefCell::new(None) };
}

/// While alive, policies made on this thread belong to the scope; dropping it restores the
/// scope entered before.
#[derive(Debug)]
pub struct Entered {
    previous: Option<JobScope>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

impl JobScope {
    /// Creates the job's cgroups, with its limits where the hierarchy has the controller.
    /// Never fails: where no cgroup can be created, the scope contains nothing
    /// ([`JobScope::contained`] is false) and confined commands get their own cgroups, or none.
    pub fn new(limits: JobLimits) -> JobScope {
        let mut dirs = Vec::new();
        let (mut memory_limited, mut pids_limited) = (false, false);
        for h in hierarchies() {
            let Some(dir) = create_fresh(&h.base, "job") else {
                continue;
            };
            if let Some(max) = limits.pids_max
                && matches!(h.kind, Kind::V2 | Kind::PidsV1)
            {
                pids_limited |= write_limit(&dir, "pids.max", max);
            }
            if let Some(max) = limits.memory_max {
                match h.kind {
                    // No swap either, or memory.max would only move the job to swap.
                    Kind::V2 => {
                        memory_limited |= write_limit(&dir, "memory.max", max);
                        let _ = write_limit(&dir, "memory.swap.max", 0);
                    }
                    Kind::MemoryV1 => {
                        memory_limited |= write_limit(&dir, "memory.limit_in_bytes", max);
                    }
                    Kind::PidsV1 => {}
                }
            }
            dirs.push(Hierarchy {
                base: dir,
                kind: h.kind,
            });
        }
        JobScope {
            inner: Arc::new(ScopeInner {
                dirs,
                memory_limited,
                pids_limited,
                escaped: AtomicUsize::new(0),
                ids: None,
                memory_max: limits.memory_max,
                cargo_git: true,
            }),
        }
    }

    /// Runs every confined command of the job as `uid` and `gid` (no supplementary groups),
    /// given to this job alone: where no cgroup holds the job, its processes then cannot signal
    /// frugald or another job's (a uid may signal only its own processes), and `RLIMIT_NPROC`
    /// counts the job's processes only. Needs root (the commands' writable dirs are handed to
    /// the uid before each spawn); a scope already shared is left as it is.
    pub fn run_as(mut self, uid: u32, gid: u32) -> JobScope {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.ids = Some((uid, gid));
        }
        self
    }

    /// Whether the policies made in this scope let confined code read `$CARGO_HOME/git` (the
    /// checkouts of every git dependency this `$CARGO_HOME` fetched, other jobs' included); on
    /// unless turned off here, for a job that has no git dependency to build
    /// ([`Policy::cargo_git_readable`](crate::Policy::cargo_git_readable)). A scope already
    /// shared is left as it is.
    pub fn cargo_git_readable(mut self, on: bool) -> JobScope {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.cargo_git = on;
        }
        self
    }

    /// Whether this scope's policies open `$CARGO_HOME/git` ([`JobScope::cargo_git_readable`]).
    pub fn cargo_git(&self) -> bool {
        self.inner.cargo_git
    }

    /// The uid and gid the job's commands run as, if it has its own ([`JobScope::run_as`]).
    pub fn ids(&self) -> Option<(u32, u32)> {
        self.inner.ids
    }

    /// Policies made on this thread until the guard drops put their commands in this scope.
    pub fn enter(&self) -> Entered {
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        Entered { previous }
    }

    /// The scope entered on this thread, if any.
    pub fn current() -> Option<JobScope> {
        CURRENT.with(|c| c.borrow().clone())
    }

    /// Whether some cgroup holds the job: its processes can be counted and killed whatever
    /// session or parent they have.
    pub fn contained(&self) -> bool {
        self.inner
            .dirs
            .iter()
            .any(|d| matches!(d.kind, Kind::V2 | Kind::PidsV1))
    }

    /// Whether the job's memory is bounded as a whole.
    pub fn memory_limited(&self) -> bool {
        self.inner.memory_limited
    }

    /// The bound on each of the job's processes' address space where its memory is not bounded
    /// as a whole (no memory cgroup): the job's memory bound, so no one process of it goes past
    /// what the whole job was allowed. `None` where the cgroup bounds the job, or nothing does.
    pub fn memory_per_process(&self) -> Option<u64> {
        self.inner.memory_max.filter(|_| !self.inner.memory_limited)
    }

    /// Whether the job's processes are bounded as a whole.
    pub fn pids_limited(&self) -> bool {
        self.inner.pids_limited
    }

    /// Live processes of the job now, in every cgroup of the scope.
    pub fn members(&self) -> Vec<i32> {
        live_in(&self.inner.dirs)
    }

    /// Kills every process of the job; returns how many there were. Waits up to half a
    /// second for them to be gone.
    pub fn kill(&self) -> usize {
        let before = self.members().len();
        kill_members(&self.inner.dirs, Duration::from_millis(500));
        before
    }

    /// How many processes outlived their command (alive in its cgroup once its root had exited:
    /// a `setsid` and a double fork, a daemon a build script started) and were killed with it.
    pub fn escaped(&self) -> usize {
        self.inner.escaped.load(Ordering::Relaxed)
    }

    /// How many times the kernel's OOM killer killed a process of the job for its memory limit.
    pub fn oom_kills(&self) -> u64 {
        self.inner
            .dirs
            .iter()
            .filter_map(|d| match d.kind {
                Kind::V2 => {
                    let text = std::fs::read_to_string(d.base.join("memory.events")).ok()?;
                    text.lines()
                        .find_map(|l| l.strip_prefix("oom_kill "))
                        .and_then(|n| n.trim().parse::<u64>().ok())
                }
                Kind::MemoryV1 => {
                    let text = std::fs::read_to_string(d.base.join("memory.oom_control")).ok()?;
                    text.lines()
                        .find_map(|l| l.strip_prefix("oom_kill "))
                        .and_then(|n| n.trim().parse::<u64>().ok())
                }
                Kind::PidsV1 => None,
            })
            .sum()
    }

    /// The scope's dir in `kind`, under which a command's cgroup goes.
    fn dir(&self, kind: Kind) -> Option<&Path> {
        self.inner
            .dirs
            .iter()
            .find(|d| d.kind == kind)
            .map(|d| d.base.as_path())
    }
}

impl Drop for ScopeInner {
    fn drop(&mut self) {
        kill_members(&self.dirs, Duration::from_millis(500));
        for d in &self.dirs {
            remove_tree(&d.base);
        }
    }
}

fn write_limit(dir: &Path, file: &str, value: u64) -> bool {
    let path = dir.join(file);
    path.exists() && std::fs::write(&path, value.to_string()).is_ok()
}

/// One confined command's cgroups (one per usable hierarchy).
#[derive(Debug)]
pub(crate) struct JobCgroup {
    dirs: Vec<Hierarchy>,
    /// `cgroup.procs` of the scope's cgroups the command joins without one of its own.
    joined: Vec<PathBuf>,
    pids_limited: bool,
    /// Keeps the scope's cgroups alive while this command runs in them.
    _scope: Option<JobScope>,
}

impl JobCgroup {
    /// Creates the command's cgroups, inside `scope` where it has the hierarchy, else in our
    /// own cgroup; hierarchies where we may not create one are skipped. `None` when no
    /// hierarchy is usable. There is no memory cgroup per command (no per-command memory
    /// limit): on v2 the scope's bounds its children; on v1 the command joins the scope's.
    pub(crate) fn create(pids_max: Option<u64>, scope: Option<&JobScope>) -> Option<JobCgroup> {
        let mut dirs = Vec::new();
        let mut joined = Vec::new();
        let mut pids_limited = false;
        for h in hierarchies() {
            let parent = match (scope.and_then(|s| s.dir(h.kind)), h.kind) {
                // The command joins the scope's memory cgroup itself: v1 counts an OOM kill
                // in the victim's own cgroup, which would go with the command's.
                (Some(dir), Kind::MemoryV1) => {
                    joined.push(dir.join("cgroup.procs"));
                    continue;
                }
                (Some(dir), _) => dir,
                (None, Kind::MemoryV1) => continue,
                (None, _) => h.base.as_path(),
            };
            let Some(dir) = create_fresh(parent, "sandbox") else {
                continue;
            };
            if let Some(max) = pids_max
                && h.kind != Kind::MemoryV1
            {
                pids_limited |= write_limit(&dir, "pids.max", max);
            }
            dirs.push(Hierarchy {
                base: dir,
                kind: h.kind,
            });
        }
        if dirs.is_empty() {
            None
        } else {
            Some(JobCgroup {
                dirs,
                joined,
                pids_limited: pids_limited || scope.is_some_and(JobScope::pids_limited),
                _scope: scope.cloned(),
            })
        }
    }

    pub(crate) fn pids_limited(&self) -> bool {
        self.pids_limited
    }

    /// `cgroup.procs` paths, for the child to join with `write("0")` before exec.
    pub(crate) fn procs_files(&self) -> Vec<CString> {
        self.dirs
            .iter()
            .map(|d| d.base.join("cgroup.procs"))
            .chain(self.joined.iter().cloned())
            .filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok())
            .collect()
    }

    /// Kills every member and waits up to `grace` for them to disappear; returns how
    /// many are still alive afterwards.
    pub(crate) fn kill_all(&self, grace: Duration) -> usize {
        kill_members(&self.dirs, grace)
    }

    /// Counts, for the scope, the members other than `root` still alive: called once the root
    /// has exited, they outlived their command.
    pub(crate) fn note_escapees(&self, root: i32) {
        let n = live_in(&self.dirs)
            .into_iter()
            .filter(|p| *p != root)
            .count();
        if let (Some(scope), true) = (&self._scope, n > 0) {
            scope.inner.escaped.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Whether some hierarchy offers `cgroup.kill`.
    pub(crate) fn has_kill(&self) -> bool {
        self.dirs
            .iter()
            .any(|d| d.kind == Kind::V2 && d.base.join("cgroup.kill").exists())
    }
}

impl Drop for JobCgroup {
    fn drop(&mut self) {
        // Fails while survivors remain; the scope's end (or the next start) removes it.
        for d in &self.dirs {
            remove_tree(&d.base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dead process with our pid left `frugal-<kind>-<pid>-<n>` for the next names: they are
    /// passed over, and the hierarchy still gets a cgroup.
    #[test]
    fn names_a_dead_process_with_our_pid_left_are_passed_over() {
        let parent = tempfile::tempdir().unwrap();
        let next = NEXT.load(Ordering::Relaxed);
        let pid = std::process::id();
        let taken: Vec<PathBuf> = (next..next + 3)
            .map(|n| parent.path().join(format!("frugal-probe-{pid}-{n}")))
            .collect();
        for t in &taken {
            std::fs::create_dir(t).unwrap();
        }
        let made = create_fresh(parent.path(), "probe").expect("a fresh cgroup");
        assert!(!taken.contains(&made), "{}", made.display());
        assert!(made.is_dir());
    }
}
