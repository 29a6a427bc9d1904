//! Supervision of a confined process tree: wait with a deadline, then kill the tree.

use std::io::Read;
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::{Error, Job};

/// How long killed processes get to disappear before they count as survivors.
const KILL_GRACE: Duration = Duration::from_millis(500);
/// How long readers get, after the tree is killed, to see the end of the pipes.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// Captured output beyond this many bytes per stream is read and dropped.
const OUTPUT_CAP: usize = 64 << 20;

/// How a confined process tree ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    /// Exit status of the process that was spawned (the tree's root).
    pub status: ExitStatus,
    /// The wall-clock timeout expired and the tree was killed.
    pub timed_out: bool,
    /// Processes of the tree still alive after the kill (0 unless something is
    /// unkillable or escaped a host without cgroups).
    pub survivors: usize,
}

/// Captured output of a confined run.
#[derive(Debug, Clone)]
pub struct ConfinedOutput {
    /// How the tree ended: the root's status, whether it timed out, survivors.
    pub finished: Finished,
    /// What the tree wrote to stdout, up to 64 MiB (the rest is read and dropped); empty when
    /// stdout was not piped. What arrives more than half a second after the tree ended (from
    /// an escaped process holding the pipe) is lost.
    pub stdout: Vec<u8>,
    /// Stderr, captured like `stdout`.
    pub stderr: Vec<u8>,
}

/// A running confined process tree. Dropping it kills the whole tree.
#[derive(Debug)]
pub struct ConfinedChild {
    child: Child,
    job: Job,
    started: Instant,
    finished: Option<Finished>,
}

impl ConfinedChild {
    pub(crate) fn new(child: Child, job: Job) -> ConfinedChild {
        ConfinedChild {
            child,
            job,
            started: Instant::now(),
            finished: None,
        }
    }

    /// Pid of the tree's root (also its process group and session id).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The underlying child, to take its stdin/stdout/stderr. Do not `wait` on it:
    /// use [`ConfinedChild::wait_timeout`] so the tree is killed.
    pub fn inner(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The policy's timeout counted from the spawn.
    pub fn policy_deadline(&self) -> Instant {
        self.started + self.job.timeout
    }

    /// Waits until the root exits, or `timeout` (capped by the policy's timeout),
    /// then kills whatever is left of the tree: the job ends with its root.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Result<Finished, Error> {
        if let Some(f) = self.finished {
            return Ok(f);
        }
        let deadline = (Instant::now() + timeout).min(self.policy_deadline());
        let exited = wait_exit(self.id(), deadline)?;
        self.finish(!exited)
    }

    /// Waits up to the policy's timeout.
    pub fn wait(&mut self) -> Result<Finished, Error> {
        let left = self
            .policy_deadline()
            .saturating_duration_since(Instant::now());
        self.wait_timeout(left)
    }

    /// Kills the whole tree now.
    pub fn kill_tree(&mut self) -> Result<Finished, Error> {
        if let Some(f) = self.finished {
            return Ok(f);
        }
        self.finish(true)
    }

    /// Reads stdout and stderr (if piped) while waiting; the readers never outlive
    /// the deadline by more than a short grace, even when an escaped process keeps a
    /// pipe open.
    pub fn output_with_timeout(mut self, timeout: Duration) -> Result<ConfinedOutput, Error> {
        let out = self.child.stdout.take().map(Reader::start);
        let err = self.child.stderr.take().map(Reader::start);
        let finished = self.wait_timeout(timeout)?;
        let drain_until = Instant::now() + DRAIN_GRACE;
        Ok(ConfinedOutput {
            finished,
            stdout: out.map(|r| r.collect(drain_until)).unwrap_or_default(),
            stderr: err.map(|r| r.collect(drain_until)).unwrap_or_default(),
        })
    }

    /// Kills the tree (the root is still unreaped, so its pid and group cannot be
    /// recycled meanwhile), counts survivors, then reaps the root.
    fn finish(&mut self, timed_out: bool) -> Result<Finished, Error> {
        let root = self.id() as i32;
        let survivors = match &self.job.cgroup {
            Some(cg) => {
                // The root exited by itself: whatever is left of the tree outlived it.
                if !timed_out {
                    cg.note_escapees(root);
                }
                kill_group(root);
                cg.kill_all(KILL_GRACE)
            }
            None => kill_without_cgroup(root),
        };
        let status = self.child.wait()?;
        let f = Finished {
            status,
            timed_out,
            survivors,
        };
        self.finished = Some(f);
        Ok(f)
    }
}

impl Drop for ConfinedChild {
    fn drop(&mut self) {
        if self.finished.is_none() {
            let _ = self.finish(true);
        }
    }
}

/// Waits for `pid` to exit without reaping it. True if it exited before `deadline`.
fn wait_exit(pid: u32, deadline: Instant) -> Result<bool, Error> {
    let pid = pid as libc::pid_t;
    // SAFETY: pidfd_open returns a new descriptor we own, or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd >= 0 {
        let pidfd = pidfd as libc::c_int;
        let r = wait_pidfd(pidfd, pid, deadline);
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(pidfd) };
        return r;
    }
    // Kernels before 5.3: poll.
    loop {
        if exited_unreaped(pid)? {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn wait_pidfd(pidfd: libc::c_int, pid: libc::pid_t, deadline: Instant) -> Result<bool, Error> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = left.as_millis().min(i32::MAX as u128) as libc::c_int;
        let mut pfd = libc::pollfd {
            fd: pidfd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
        if rc > 0 {
            return Ok(true);
        }
        if rc < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e.into());
            }
        }
        if Instant::now() >= deadline {
            return exited_unreaped(pid);
        }
    }
}

fn exited_unreaped(pid: libc::pid_t) -> Result<bool, Error> {
    // SAFETY: zeroed siginfo is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if rc < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: si_pid is valid after a successful waitid.
    Ok(unsafe { info.si_pid() } != 0)
}

fn kill_group(pgid: i32) {
    // SAFETY: plain kill(2) of the job's own process group.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// Without a cgroup: stop and kill the descendants still linked to the root by
/// parentage (the root's pid is held as an unreaped zombie at worst), then the
/// process group. Processes that left the session and were re-parented away from the
/// tree before this moment escape; `Capabilities` says so.
fn kill_without_cgroup(root: i32) -> usize {
    let mut seen = Vec::new();
    for _ in 0..10 {
        let tree = descendants(root);
        if tree.is_empty() {
            break;
        }
        for pid in &tree {
            // SAFETY: kill(2) of processes found in the job's tree.
            unsafe { libc::kill(*pid, libc::SIGSTOP) };
        }
        for pid in &tree {
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
        seen.extend(tree);
    }
    kill_group(root);
    let deadline = Instant::now() + KILL_GRACE;
    loop {
        let alive = seen.iter().filter(|&&p| is_alive(p)).count();
        if alive == 0 || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// All processes whose parent chain leads to `root` (excluding it).
fn descendants(root: i32) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter_map(|pid| Some((pid, stat(pid)?.1)))
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    found.remove(0);
    found.retain(|&p| is_alive(p));
    found
}

/// State letter and parent pid from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: split after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// True for an existing process that is not a zombie (or dead).
pub(crate) fn is_alive(pid: i32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

/// Reads a pipe on a thread into a shared buffer, so the caller can give up at a
/// deadline and still keep what arrived.
struct Reader {
    buf: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Reader {
    fn start(mut pipe: impl Read + Send + 'static) -> Reader {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let (tx, done) = mpsc::channel();
        let shared = Arc::clone(&buf);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut b) = shared.lock() {
                    let room = OUTPUT_CAP.saturating_sub(b.len()).min(n);
                    b.extend_from_slice(&chunk[..room]);
                }
            }
            let _ = tx.send(());
        });
        Reader { buf, done }
    }

    fn collect(self, until: Instant) -> Vec<u8> {
        let _ = self
            .done
            .recv_timeout(until.saturating_duration_since(Instant::now()));
        self.buf
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default()
    }
}
