//! Job cgroups: every process of a job, including those that left its session, is a
//! member, so the job can be counted, bounded (`pids.max`) and killed as a whole.
//!
//! A job joins every writable hierarchy found among: the cgroup v2 (unified)
//! hierarchy, and the cgroup v1 `pids` hierarchy. On a hybrid host that gives
//! `cgroup.kill` from v2 and `pids.max` from v1; on a pure v2 host `pids.max` exists
//! only where the `pids` controller is delegated to our cgroup.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where new job cgroups of one hierarchy are created: our own cgroup in it.
#[derive(Debug, Clone)]
pub(crate) struct Hierarchy {
    pub base: PathBuf,
    pub v2: bool,
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
        let v2 = *fstype == "cgroup2";
        let pids_v1 = *fstype == "cgroup"
            && right
                .get(2)
                .is_some_and(|opts| opts.split(',').any(|o| o == "pids"));
        if !(v2 || pids_v1) {
            continue;
        }
        if let Some(path) = own_path(&own, v2) {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .trim_start_matches('/');
            found.push(Hierarchy {
                base: Path::new(mount).join(rel),
                v2,
            });
        }
    }
    found
}

/// Our cgroup path in the v2 hierarchy (`0::/p`) or the v1 `pids` one (`N:pids:/p`).
fn own_path(proc_cgroup: &str, v2: bool) -> Option<String> {
    proc_cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = if v2 {
            id == "0" && ctrls.is_empty()
        } else {
            ctrls.split(',').any(|c| c == "pids")
        };
        matches.then(|| path.to_string())
    })
}

/// One job's cgroups (one per usable hierarchy).
#[derive(Debug)]
pub(crate) struct JobCgroup {
    dirs: Vec<Hierarchy>,
    pids_limited: bool,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl JobCgroup {
    /// Creates the job's cgroups; hierarchies where we may not create one are skipped.
    /// `None` when no hierarchy is usable.
    pub(crate) fn create(pids_max: Option<u64>) -> Option<JobCgroup> {
        let name = format!(
            "frugal-sandbox-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut dirs = Vec::new();
        let mut pids_limited = false;
        for h in hierarchies() {
            let dir = h.base.join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            if let Some(max) = pids_max {
                let file = dir.join("pids.max");
                pids_limited |= file.exists() && std::fs::write(&file, max.to_string()).is_ok();
            }
            dirs.push(Hierarchy {
                base: dir,
                v2: h.v2,
            });
        }
        if dirs.is_empty() {
            None
        } else {
            Some(JobCgroup { dirs, pids_limited })
        }
    }

    pub(crate) fn pids_limited(&self) -> bool {
        self.pids_limited
    }

    /// `cgroup.procs` paths, for the child to join with `write("0")` before exec.
    pub(crate) fn procs_files(&self) -> Vec<CString> {
        self.dirs
            .iter()
            .filter_map(|d| CString::new(d.base.join("cgroup.procs").as_os_str().as_bytes()).ok())
            .collect()
    }

    /// Live (non-zombie) member processes, over all hierarchies.
    pub(crate) fn live_members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self
            .dirs
            .iter()
            .filter_map(|d| std::fs::read_to_string(d.base.join("cgroup.procs")).ok())
            .flat_map(|s| {
                s.lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect::<Vec<i32>>()
            })
            .filter(|&pid| crate::child::is_alive(pid))
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Kills every member and waits up to `grace` for them to disappear; returns how
    /// many are still alive afterwards.
    pub(crate) fn kill_all(&self, grace: Duration) -> usize {
        for d in self.dirs.iter().filter(|d| d.v2) {
            // cgroup.kill (Linux 5.14) kills atomically, even a forking member.
            let _ = std::fs::write(d.base.join("cgroup.kill"), "1");
        }
        let deadline = Instant::now() + grace;
        loop {
            let members = self.live_members();
            if members.is_empty() {
                return 0;
            }
            for pid in &members {
                // SAFETY: plain kill(2); a recycled pid is not possible while it is a
                // member of this cgroup.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            if Instant::now() >= deadline {
                return members.len();
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for JobCgroup {
    fn drop(&mut self) {
        // Fails while survivors remain; the empty directory is then left behind.
        for d in &self.dirs {
            let _ = std::fs::remove_dir(&d.base);
        }
    }
}

impl JobCgroup {
    /// Whether some hierarchy offers `cgroup.kill`.
    pub(crate) fn has_kill(&self) -> bool {
        self.dirs
            .iter()
            .any(|d| d.v2 && d.base.join("cgroup.kill").exists())
    }
}
