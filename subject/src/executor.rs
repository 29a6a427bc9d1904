//! The executor: a pool of harness processes that run test cases and report what the probes saw.
//!
//! Each worker is one harness process in its own process group, fed batched frames on
//! descriptor 3 and read on descriptor 4 from the search's own thread (`executor/pipes.rs`:
//! buffered non-blocking writes, reads as outcomes come, every wait bounded by `poll(2)`), so
//! the engine never blocks on a full pipe and can always enforce its deadline; only the
//! harness's stderr has a thread, which keeps its last words for the crash report. A test that kills its
//! harness (abort, stack overflow, out of memory, `exit`) is recorded as crashing, the harness is
//! restarted, and the rest of the batch is sent again. A test that makes no progress within the
//! timeout gets its process group killed the same way. Fuel inside the probes stops most endless
//! loops long before that, deterministically.
//!
//! With a sandbox policy ([`ExecutorPool::sandbox`]) each harness is spawned confined instead:
//! its own session and job cgroup, the policy's filesystem, network and environment rules, and
//! the whole job (whatever the code under test spawned) is killed when the harness is stopped.

use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use frugal_sandbox::{ConfinedChild, Limits, Policy};

mod pipes;
mod repeats;
use pipes::{Ended, Pipes};
use repeats::{Encoded, Repeats};

use frugal_probe::wire::{self, Enc, Outcome, Request};
use frugal_search::{Counters, ExecResult, Executor, Look, Observation, Status, TestCase, Value};

/// The largest file code under test may write (harness processes and test runs): enough for
/// any fixture a unit test writes, small enough that a flood cannot fill a CI host's disk.
/// Builds keep the sandbox's default, since binaries with debug info are large.
pub const CODE_FILE_LIMIT: u64 = 64 << 20;

/// Limits and sizes of the pool.
#[derive(Debug, Clone)]
pub struct ExecConfig {
    /// Harness processes run side by side (at least one is started); defaults to the cores available.
    pub workers: usize,
    /// Longest a single test may take, wall clock.
    pub timeout: Duration,
    /// Probe units (loop iterations and function entries) per test.
    pub fuel: i64,
    /// Deepest nesting of instrumented calls.
    pub depth: u32,
    /// Live heap ceiling per harness, enforced by the counting allocator.
    pub heap_bytes: u64,
    /// Address-space limit of a harness process (`RLIMIT_AS`).
    pub address_space: u64,
    /// Working directory of the harness processes: code under test that writes relative paths
    /// (a `save(path)` fed random strings) writes there, never where frugal was started.
    pub cwd: Option<PathBuf>,
    /// Record the state statements leave in values they borrow mutably
    /// (`ExecResult::observed`); see [`ExecutorPool::observe_state`].
    pub observe: bool,
    /// The mutant switched on, by its manifest goal id (strong mutation); see
    /// [`ExecutorPool::switch_mutant`].
    pub mutant: Option<u32>,
}

impl ExecConfig {
    /// The harness's configuration frame.
    fn request(&self) -> Request {
        Request::Config {
            fuel: self.fuel,
            depth: self.depth,
            heap_bytes: self.heap_bytes,
            observe: self.observe,
            mutant: self.mutant.unwrap_or(frugal_probe::mutants::NO_MUTANT),
        }
    }
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            workers: thread::available_parallelism().map_or(1, |n| n.get()),
            timeout: Duration::from_secs(1),
            fuel: 2_000_000,
            depth: 1_000,
            heap_bytes: 1 << 30,
            address_space: 8 << 30,
            cwd: None,
            observe: false,
            mutant: None,
        }
    }
}

/// What went wrong and how often, for the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecStats {
    /// Tests sent to harnesses, crashed and timed out ones included.
    pub executions: u64,
    /// Tests that killed their harness process (not by timeout).
    pub crashes: u64,
    /// Tests that ran past [`ExecConfig::timeout`].
    pub timeouts: u64,
    /// Harness processes stopped and replaced, after a crash or a timeout.
    pub restarts: u64,
    /// Tests answered with the result of an earlier run instead of running (see `repeats`).
    pub repeats: u64,
}

/// What [`ExecutorPool::judge`] ran: the unmutated runs, then per mutant the runs of its
/// tests, in the order asked.
pub struct Judged {
    /// Results of every test with every mutant off, state observed, in the order given.
    pub baseline: Vec<ExecResult>,
    /// Per mutant, in the order asked, the results of its tests.
    pub mutated: Vec<Vec<ExecResult>>,
    /// Tests run in all: the baseline plus every mutant's.
    pub executions: u64,
}

/// The per-test timeout of mutated runs: twenty times the unmutated runs' mean time plus
/// 50 ms for scheduling, never more than the search's own timeout. Mutants that make a
/// loop endless are common (a `+=` turned `-=`), and each would otherwise hold a harness for
/// the whole timeout and cost a restart.
pub fn mutated_timeout(unmutated: Duration, tests: usize, cap: Duration) -> Duration {
    let mean = unmutated / tests.max(1) as u32;
    (mean * 20 + Duration::from_millis(50)).min(cap)
}

/// A pool of harness processes implementing the search's [`Executor`].
pub struct ExecutorPool {
    binary: PathBuf,
    config: ExecConfig,
    workers: Vec<Option<Worker>>,
    sandbox: Option<Policy>,
    /// Parts sent by [`Executor::start`] whose results [`Executor::finish`] has yet to collect.
    started: Vec<Started>,
    repeats: Repeats,
    /// What went wrong and how often, since the pool was made.
    pub stats: ExecStats,
}

/// A part of the tests in flight: its tests, its worker slot, and which harness (by id) got
/// it; a harness restarted since then never saw it, so it is sent again when collected.
struct Started {
    len: usize,
    /// The tests that run, with their places in the part; the others are `answered`.
    live: Vec<Live>,
    answered: Vec<(usize, ExecResult)>,
    slot: usize,
    harness: Option<u64>,
}

/// A test sent to a harness: its request frame, the end of each statement in the frame's
/// statement bytes (from `body` on; with them, its keys in [`Repeats`]), and its length.
struct Live {
    at: usize,
    frame: Vec<u8>,
    body: usize,
    ends: Vec<usize>,
    len: usize,
}

impl Live {
    fn encoded(&self) -> Encoded<'_> {
        Encoded {
            bytes: &self.frame[self.body..],
            ends: &self.ends,
        }
    }
}

/// Ids of harness processes, to tell a restarted one from the one a part was sent to.
static NEXT_HARNESS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

struct Worker {
    /// Unique per process started ([`NEXT_HARNESS`]).
    id: u64,
    child: Proc,
    pipes: Pipes,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread draining `stderr`; it ends when the harness (and its process group) is gone.
    stderr_reader: Option<thread::JoinHandle<()>>,
}

/// The sandbox's wall-clock limit of a confined harness (the search's budget ends it first).
const HARNESS_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// How long a harness that stopped answering (it crashed or wrote a broken frame) gets to
/// end by itself before it is killed: one that crashed closed its pipe while dying and is
/// gone within a millisecond or two; one that wrote a broken frame never ends by itself.
const LOST_GRACE: Duration = Duration::from_millis(20);

/// The longest a crash report waits for the stderr thread to read a dead harness's last
/// words; it is usually done at once, since the pipe closes with the process group.
const STDERR_GRACE: Duration = Duration::from_millis(20);

/// Keep this much of a harness's stderr to explain a crash.
const STDERR_KEEP: usize = 8 << 10;

impl ExecutorPool {
    /// A pool that runs `binary` (the built harness) with `config`; no process starts until tests are sent.
    pub fn new(binary: PathBuf, config: ExecConfig) -> Self {
        let n = config.workers.max(1);
        ExecutorPool {
            binary,
            config,
            workers: (0..n).map(|_| None).collect(),
            sandbox: None,
            started: Vec::new(),
            repeats: Repeats::default(),
            stats: ExecStats::default(),
        }
    }

    /// Spawns every harness confined by `policy`. Its limits are replaced by the defaults with
    /// this pool's address-space limit and no CPU-time limit, and its wall-clock timeout by a
    /// practically endless one: a harness lives for the whole search, and the per-test timeout
    /// bounds each test.
    pub fn sandbox(mut self, policy: Policy) -> Self {
        let limits = Limits {
            address_space: Some(self.config.address_space),
            cpu_seconds: None,
            fsize: Some(CODE_FILE_LIMIT),
            ..Limits::default()
        };
        self.sandbox = Some(policy.limits(limits).timeout(HARNESS_LIFETIME));
        self
    }

    /// Turns recording the state statements leave in mutably borrowed values on or off for
    /// the tests run from now on (the harnesses take it in order with the tests). Remembered
    /// results are forgotten: they were recorded the other way.
    pub fn observe_state(&mut self, on: bool) {
        if self.config.observe != on {
            self.config.observe = on;
            self.reconfigure();
        }
    }

    /// Switches mutant `mutant` (a manifest goal id of the weak-mutation schemata) on for the
    /// tests run from now on, or every mutant off with `None`. Remembered results are
    /// forgotten: they were recorded with another program.
    pub fn switch_mutant(&mut self, mutant: Option<u32>) {
        if self.config.mutant != mutant {
            self.config.mutant = mutant;
            self.reconfigure();
        }
    }

    /// Strong mutation without losing the search's state: runs `tests` observing state with
    /// every mutant off, then for each `(mutant, which)` the tests `which` (indices into
    /// `tests`) with that mutant on. Mutated runs get a timeout of [`mutated_timeout`]: a
    /// mutant that makes a loop endless is known after a few times the unmutated run's time,
    /// not after the search's whole per-test timeout. Afterwards the pool runs as before, with
    /// its remembered results back. Call it with nothing started.
    pub fn judge(&mut self, tests: &[TestCase], mutants: &[(u32, Vec<usize>)]) -> Judged {
        debug_assert!(self.started.is_empty(), "judge with tests in flight");
        let saved = self.config.clone();
        let remembered = std::mem::take(&mut self.repeats);
        self.observe_state(true);
        self.switch_mutant(None);
        let began = Instant::now();
        let baseline = Executor::execute(self, tests);
        self.config.timeout = mutated_timeout(began.elapsed(), tests.len(), saved.timeout);
        let mut mutated = Vec::with_capacity(mutants.len());
        for (m, which) in mutants {
            self.switch_mutant(Some(*m));
            let run: Vec<TestCase> = which.iter().map(|&i| tests[i].clone()).collect();
            mutated.push(Executor::execute(self, &run));
        }
        let executions = (tests.len() + mutants.iter().map(|(_, w)| w.len()).sum::<usize>()) as u64;
        self.config = saved;
        self.reconfigure();
        self.repeats = remembered;
        Judged {
            baseline,
            mutated,
            executions,
        }
    }

    /// Sets the per-test timeout, returning the one it replaces.
    pub fn set_timeout(&mut self, timeout: Duration) -> Duration {
        std::mem::replace(&mut self.config.timeout, timeout)
    }

    /// Sends the changed configuration to every live harness and forgets remembered results.
    fn reconfigure(&mut self) {
        self.repeats = Repeats::default();
        let mut enc = Enc::default();
        enc.request(&self.config.request());
        for worker in self.workers.iter_mut().flatten() {
            worker.pipes.send(&enc.buf);
        }
    }

    /// A part for `tests` on `slot`, not sent yet: repeats answered, the rest encoded.
    fn part(&mut self, tests: &[TestCase], slot: usize) -> Started {
        let mut part = Started {
            len: tests.len(),
            live: Vec::new(),
            answered: Vec::new(),
            slot,
            harness: None,
        };
        for (at, t) in tests.iter().enumerate() {
            let live = encode(at, t);
            match self.repeats.get(&live.encoded()) {
                Some(r) => part.answered.push((at, r)),
                None => part.live.push(live),
            }
        }
        self.stats.repeats += part.answered.len() as u64;
        part
    }

    /// Sends a part's live tests to its slot's harness, starting it when there is none, and
    /// notes the harness that got them; none when none could start (then [`Self::run_on`]
    /// tries again and reports the reason).
    fn send_part(&mut self, part: &mut Started) {
        if part.live.is_empty() {
            return;
        }
        let (binary, config, sandbox) = (&self.binary, &self.config, self.sandbox.as_ref());
        let slot = &mut self.workers[part.slot];
        let worker = match slot {
            Some(w) => w,
            None => match Worker::spawn(binary, config, sandbox) {
                Ok(w) => slot.insert(w),
                Err(_) => return,
            },
        };
        worker.send(&part.live);
        part.harness = Some(worker.id);
    }

    /// Collects the results of tests on one worker slot (sending them first unless `sent`),
    /// restarting its harness as often as needed; each goes to `each` as it comes.
    #[expect(
        clippy::too_many_arguments,
        reason = "the pool's fields, borrowed apart"
    )]
    fn run_on(
        binary: &PathBuf,
        config: &ExecConfig,
        sandbox: Option<&Policy>,
        slot: &mut Option<Worker>,
        tests: &[Live],
        sent: bool,
        stats: &mut ExecStats,
        each: &mut dyn FnMut(ExecResult, bool),
    ) {
        let mut done = 0;
        let mut sent = sent;
        while done < tests.len() {
            let worker = match slot {
                Some(w) => w,
                None => match Worker::spawn(binary, config, sandbox) {
                    Ok(w) => slot.insert(w),
                    Err(e) => {
                        let reason = format!("cannot start the harness {}: {e}", binary.display());
                        tests[done..]
                            .iter()
                            .for_each(|_| each(crashed(reason.clone()), false));
                        break;
                    }
                },
            };
            if !std::mem::take(&mut sent) {
                worker.send(&tests[done..]);
            }
            let mut failed = None;
            for t in &tests[done..] {
                match worker.pipes.next(config.timeout) {
                    Ok(o) => {
                        each(convert(o, t.len), true);
                        done += 1;
                    }
                    Err(ended) => {
                        failed = Some(ended == Ended::Timeout);
                        break;
                    }
                }
            }
            if let Some(timed_out) = failed {
                let Some(w) = slot.take() else { break };
                let reason = w.stop(timed_out);
                stats.restarts += 1;
                if timed_out {
                    stats.timeouts += 1;
                    each(timeout_result(), false);
                } else {
                    stats.crashes += 1;
                    each(crashed(reason), false);
                }
                done += 1;
            }
        }
        stats.executions += tests.len() as u64;
    }

    /// Stops every harness.
    pub fn shutdown(&mut self) {
        for w in self.workers.iter_mut().filter_map(Option::take) {
            w.close();
        }
    }
}

impl Drop for ExecutorPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Executor for ExecutorPool {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        if tests.is_empty() {
            return Vec::new();
        }
        let chunk = tests.len().div_ceil(self.workers.len());
        for part in tests.chunks(chunk) {
            self.start(part);
        }
        self.finish(tests)
    }

    /// Sends `tests` to the next worker in turn: harnesses run them while the search makes
    /// the next ones.
    fn start(&mut self, tests: &[TestCase]) -> bool {
        if tests.is_empty() {
            return true;
        }
        let slot = self.started.len() % self.workers.len();
        let mut part = self.part(tests, slot);
        self.send_part(&mut part);
        self.started.push(part);
        true
    }

    fn finish(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let mut out = Vec::with_capacity(tests.len());
        self.finish_each(tests, &mut |_, r| out.push(r));
        out
    }

    /// Collects the parts in the order they were started, which is the order each harness
    /// received its own; a part whose harness was restarted meanwhile is sent again.
    fn finish_each(&mut self, tests: &[TestCase], each: &mut dyn FnMut(usize, ExecResult)) {
        let mut given = 0;
        let mut give = |r: ExecResult| {
            each(given, r);
            given += 1;
        };
        let mut parts = std::mem::take(&mut self.started);
        let started: usize = parts.iter().map(|p| p.len).sum();
        if let Some(rest) = tests.get(started..).filter(|r| !r.is_empty()) {
            parts.push(self.part(rest, 0));
        }
        let (binary, config, sandbox) = (&self.binary, &self.config, self.sandbox.as_ref());
        let mut at = 0;
        for part in parts {
            if at + part.len > tests.len() {
                break;
            }
            at += part.len;
            let slot = &mut self.workers[part.slot];
            let sent = part.harness.is_some() && slot.as_ref().map(|w| w.id) == part.harness;
            let (stats, repeats) = (&mut self.stats, &mut self.repeats);
            // Answers and runs merged back into the part's order.
            let mut answered = part.answered.into_iter().peekable();
            let mut next_live = part.live.iter();
            let mut take = |r: ExecResult, reported: bool| {
                let Some(live) = next_live.next() else { return };
                while let Some((_, a)) = answered.next_if(|(i, _)| *i < live.at) {
                    give(a);
                }
                if reported {
                    repeats.put(&live.encoded(), &r);
                }
                give(r);
            };
            Self::run_on(
                binary, config, sandbox, slot, &part.live, sent, stats, &mut take,
            );
            answered.for_each(|(_, a)| give(a));
        }
        // Never hand the search a short answer.
        for _ in at.min(tests.len())..tests.len() {
            give(crashed("executor lost the test".into()));
        }
    }
}

impl Worker {
    fn spawn(
        binary: &PathBuf,
        config: &ExecConfig,
        sandbox: Option<&Policy>,
    ) -> std::io::Result<Worker> {
        let (req_read, req_write) = std::io::pipe()?;
        let (out_read, out_write) = std::io::pipe()?;
        let mut cmd = Command::new(binary);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if sandbox.is_none() {
            // Confined, the harness leads its own session instead (set by the sandbox).
            cmd.process_group(0);
        }
        if let Some(dir) = &config.cwd {
            cmd.current_dir(dir);
        }
        let (r, w) = (req_read.as_raw_fd(), out_write.as_raw_fd());
        let limit = config.address_space;
        // SAFETY: only async-signal-safe calls (fcntl, dup2, setrlimit) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                place_fds(r, w)?;
                let rl = libc::rlimit {
                    rlim_cur: limit as libc::rlim_t,
                    rlim_max: limit as libc::rlim_t,
                };
                libc::setrlimit(libc::RLIMIT_AS, &rl);
                Ok(())
            });
        }
        // After `pre_exec` above: the descriptors are placed before the confinement is entered.
        let job = match sandbox {
            Some(policy) => Some(frugal_cargo::confine(policy, &mut cmd).map_err(sandbox_error)?),
            None => None,
        };
        // Crash reasons come from the last line of stderr; a backtrace would bury them.
        cmd.env("RUST_BACKTRACE", "0");
        let mut child = match job {
            Some(job) => Proc::Confined(job.spawn(&mut cmd).map_err(sandbox_error)?),
            None => Proc::Plain(cmd.spawn()?),
        };
        drop(req_read);
        drop(out_write);
        let pipes = match Pipes::new(req_write, out_read) {
            Ok(p) => p,
            Err(e) => {
                child.stop(true).ok();
                return Err(e);
            }
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = child.take_stderr().map(|mut pipe| {
            let keep = Arc::clone(&stderr);
            thread::spawn(move || drain(&mut pipe, &keep))
        });
        let mut worker = Worker {
            id: NEXT_HARNESS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            child,
            pipes,
            stderr,
            stderr_reader,
        };
        let mut enc = Enc::default();
        enc.request(&config.request());
        worker.pipes.send(&enc.buf);
        Ok(worker)
    }

    fn send(&mut self, tests: &[Live]) {
        let bytes: Vec<u8> = tests.iter().flat_map(|t| t.frame.iter().copied()).collect();
        self.pipes.send(&bytes);
    }

    /// Kills the process group and explains how the harness ended.
    fn stop(mut self, timed_out: bool) -> String {
        let status = self.child.stop(timed_out);
        let tail = self.stderr_line();
        match status {
            Ok(s) if s.signal().is_some() => {
                let sig = s.signal().unwrap_or(0);
                format!(
                    "harness killed by signal {sig} ({}){tail}",
                    signal_name(sig)
                )
            }
            Ok(s) => format!("harness exited with {}{tail}", s.code().unwrap_or(-1)),
            Err(e) => format!("harness lost: {e}"),
        }
    }

    fn stderr_line(&self) -> String {
        // Give the stderr thread a moment to catch the last words: until the pipe closed,
        // at most `STDERR_GRACE`. Before it was a fixed 20 ms, and on ipnet, where 1.7% of
        // the tests outgrow the heap ceiling, the search ran at half speed.
        let deadline = std::time::Instant::now() + STDERR_GRACE;
        while self
            .stderr_reader
            .as_ref()
            .is_some_and(|r| !r.is_finished())
            && std::time::Instant::now() < deadline
        {
            thread::sleep(Duration::from_micros(200));
        }
        let buf = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        let text = String::from_utf8_lossy(&buf);
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with("note:"))
            .map(|l| format!(": {}", l.trim()))
            .unwrap_or_default()
    }

    fn close(mut self) {
        let mut enc = Enc::default();
        enc.request(&Request::Shutdown);
        self.pipes.send(&enc.buf);
        // The harness also ends when its request pipe closes, should the shutdown not fit.
        drop(self.pipes);
        self.child.close();
    }
}

fn sandbox_error(e: frugal_sandbox::Error) -> std::io::Error {
    std::io::Error::other(format!("sandbox: {e}"))
}

/// A harness process: in its own process group, or confined in a sandbox job.
enum Proc {
    Plain(Child),
    Confined(ConfinedChild),
}

impl Proc {
    fn take_stderr(&mut self) -> Option<ChildStderr> {
        match self {
            Proc::Plain(c) => c.stderr.take(),
            Proc::Confined(c) => c.inner().stderr.take(),
        }
    }

    /// Waits for the harness to end (killing it first after a timeout), then kills whatever
    /// the tests left running.
    fn stop(&mut self, kill_first: bool) -> std::io::Result<ExitStatus> {
        match self {
            Proc::Plain(child) => {
                let pid = child.id() as i32;
                if !kill_first {
                    // As below: a harness that wrote garbage may live on.
                    let until = Instant::now() + LOST_GRACE;
                    while Instant::now() < until && matches!(child.try_wait(), Ok(None)) {
                        thread::sleep(Duration::from_millis(2));
                    }
                }
                // SAFETY: plain syscall on the group we created.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                let status = child.wait();
                // SAFETY: as above; children the test left behind go too.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                status
            }
            Proc::Confined(child) => {
                let finished = if kill_first {
                    child.kill_tree()
                } else {
                    // It crashed, closed its pipe or wrote garbage: a crashing harness ends
                    // at once, but one whose memory a mutant or unsafe code corrupted may write
                    // a broken frame and live on; the whole job goes after a short wait.
                    child.wait_timeout(LOST_GRACE)
                };
                finished.map(|f| f.status).map_err(sandbox_error)
            }
        }
    }

    /// After a shutdown request: a short wait for the harness to exit, then the kill.
    fn close(&mut self) {
        match self {
            Proc::Plain(child) => {
                for _ in 0..50 {
                    if let Ok(Some(_)) = child.try_wait() {
                        return;
                    }
                    thread::sleep(Duration::from_millis(2));
                }
                let pid = child.id() as i32;
                // SAFETY: plain syscall on the group we created.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                let _ = child.wait();
            }
            Proc::Confined(child) => {
                let _ = child.wait_timeout(Duration::from_millis(100));
            }
        }
    }
}

/// Moves the pipe ends to descriptors 3 and 4, going through high numbers first so that one
/// cannot clobber the other, and clears close-on-exec on the results.
fn place_fds(r: RawFd, w: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl/dup2 on descriptors we own, in the child before exec.
    unsafe {
        let hr = libc::fcntl(r, libc::F_DUPFD, 64);
        let hw = libc::fcntl(w, libc::F_DUPFD, 64);
        if hr < 0 || hw < 0 || libc::dup2(hr, 3) < 0 || libc::dup2(hw, 4) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::close(hr);
        libc::close(hw);
    }
    Ok(())
}

fn drain(pipe: &mut impl Read, keep: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut chunk) {
        if n == 0 {
            break;
        }
        if let Ok(mut k) = keep.lock() {
            k.extend_from_slice(&chunk[..n]);
            if k.len() > STDERR_KEEP {
                let cut = k.len() - STDERR_KEEP;
                k.drain(..cut);
            }
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "abort",
        libc::SIGSEGV => "segmentation fault",
        libc::SIGKILL => "killed",
        libc::SIGBUS => "bus error",
        libc::SIGILL => "illegal instruction",
        libc::SIGFPE => "arithmetic exception",
        _ => "signal",
    }
}

/// Test `at` of a part as its run request, encoded once: the frame goes to the harness, its
/// statement bytes (and where each statement ends) key the repeats store.
/// A test's identity for caches outside the pool: the hash of its statements' encoding (what
/// the harness runs), so two tests that run the same statements share it.
pub fn test_key(t: &TestCase) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let live = encode(0, t);
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write(live.encoded().bytes);
    h.finish()
}

fn encode(at: usize, t: &TestCase) -> Live {
    let mut enc = Enc::default();
    let frame = enc.begin_frame();
    enc.run_header(t.stmts.len());
    let body = enc.buf.len();
    let ends = (t.stmts.iter())
        .map(|s| {
            enc.stmt_parts(s.op, &s.args, wire_value(s.value.as_ref()));
            enc.buf.len() - body
        })
        .collect();
    enc.end_frame(frame);
    Live {
        at,
        frame: enc.buf,
        body,
        ends,
        len: t.len(),
    }
}

fn wire_value(v: Option<&Value>) -> wire::ValueRef<'_> {
    match v {
        None => wire::ValueRef::None,
        Some(Value::Int(i)) => wire::ValueRef::Int(*i),
        Some(Value::Float(f)) => wire::ValueRef::Float(*f),
        Some(Value::Bool(b)) => wire::ValueRef::Bool(*b),
        Some(Value::Char(c)) => wire::ValueRef::Char(*c),
        Some(Value::Str(s)) => wire::ValueRef::Str(s),
    }
}

fn convert(o: Outcome, len: usize) -> ExecResult {
    let status = match o.status {
        wire::Status::Completed => Status::Completed,
        wire::Status::Panicked => Status::Panicked {
            message: o.message,
            location: o.location,
        },
        wire::Status::OutOfFuel | wire::Status::TooDeep => Status::Timeout,
        wire::Status::Invalid => Status::Invalid { reason: o.message },
    };
    ExecResult {
        status,
        completed: (o.stopped_at as usize).min(len),
        goals: o.goals,
        summaries: o.summaries,
        observed: o
            .observed
            .into_iter()
            .map(|(stmt, param, look, summary)| Observation {
                stmt,
                param,
                look: match look {
                    wire::LOOK_DEBUG => Look::Debug,
                    wire::LOOK_ITEMS => Look::Items,
                    k => Look::Inspector(k - wire::LOOK_INSPECTOR),
                },
                summary,
            })
            .collect(),
        counters: Counters {
            statements: o.statements,
            calls: o.calls,
            loops: o.loops,
            allocations: o.allocations,
            alloc_bytes: o.alloc_bytes,
        },
        seen: o.seen,
    }
}

fn crashed(reason: String) -> ExecResult {
    ExecResult {
        status: Status::Crashed { reason },
        completed: 0,
        goals: Vec::new(),
        summaries: Vec::new(),
        observed: Vec::new(),
        counters: Counters::default(),
        seen: Vec::new(),
    }
}

fn timeout_result() -> ExecResult {
    ExecResult {
        status: Status::Timeout,
        ..crashed(String::new())
    }
}
