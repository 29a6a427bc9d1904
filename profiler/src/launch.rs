//! Running one test process under counters, through the `frugal-launch` helper.
//!
//! The profiler spawns the launcher in a new process group; the launcher forks the test process
//! and holds it on a pipe before exec, prints its pid, and waits for a byte from us. We open the
//! counters on that pid with `enable_on_exec`, send the byte, and wait with a deadline for the
//! launcher's report (exit status, wall time, `wait4` rusage). On timeout the whole group gets
//! SIGKILL. The test's stdout and stderr go to a file (nothing to fill, so no deadlock); its tail
//! is kept for runs that did not pass.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use frugal_sandbox::{ConfinedChild, Policy};

use crate::counters::{CounterBackend, CounterValue, OpenCounter, PerfEvent, explain_open_error};
use crate::error::ProfileError;
use crate::report::Outcome;

/// Name of the launcher binary.
pub const LAUNCHER_NAME: &str = "frugal-launch";

/// How much of a failing test's output the report keeps.
const OUTPUT_TAIL_BYTES: u64 = 4096;

/// How long the launcher may take to fork and report the pid.
const LAUNCHER_START_LIMIT: Duration = Duration::from_secs(30);

/// How often a plain child is polled for exit.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// The program that starts each test: a `frugal-launch` binary, or an executable that serves
/// the launcher itself (`<exe> __frugal-launch`, see [`crate::launcher::serve_if_asked`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launcher {
    /// The launcher executable.
    pub program: PathBuf,
    /// Arguments before the launcher's own `-- PROGRAM ...`.
    pub args: Vec<OsString>,
}

impl Launcher {
    /// A `frugal-launch` binary.
    pub fn binary(program: impl Into<PathBuf>) -> Launcher {
        Launcher {
            program: program.into(),
            args: Vec::new(),
        }
    }

    /// `exe`, run with [`crate::launcher::SELF_ARG`].
    pub fn served_by(exe: impl Into<PathBuf>) -> Launcher {
        Launcher {
            program: exe.into(),
            args: vec![crate::launcher::SELF_ARG.into()],
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }
}

/// Finds the launcher: the explicit path, else `$FRUGAL_LAUNCH`, else `frugal-launch` next to the
/// running executable, else one directory up (test and example binaries live in `target/*/deps`
/// and `target/*/examples`, the launcher in `target/*`), else the running executable itself when
/// it serves the launcher (`self_serves`: `frugal` and `frugald` do, so a lone installed `frugal`
/// or a `cargo run` that built only it can still profile).
pub fn find_launcher(
    explicit: Option<&Path>,
    env: Option<OsString>,
    current_exe: Option<PathBuf>,
    self_serves: bool,
) -> Result<Launcher, ProfileError> {
    if let Some(path) = explicit.map(Path::to_path_buf).or(env.map(PathBuf::from)) {
        return if path.is_file() {
            Ok(Launcher::binary(path))
        } else {
            Err(ProfileError::LauncherNotFound {
                searched: vec![path],
            })
        };
    }
    let mut searched = Vec::new();
    if let Some(dir) = current_exe.as_deref().and_then(Path::parent) {
        searched.push(dir.join(LAUNCHER_NAME));
        if let Some(up) = dir.parent() {
            searched.push(up.join(LAUNCHER_NAME));
        }
    }
    if let Some(found) = searched.iter().find(|p| p.is_file()) {
        return Ok(Launcher::binary(found));
    }
    match current_exe {
        Some(exe) if self_serves => Ok(Launcher::served_by(exe)),
        _ => Err(ProfileError::LauncherNotFound { searched }),
    }
}

/// One process to run: program, arguments, cwd and the environment added to ours.
#[derive(Clone, Debug)]
pub(crate) struct RunSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    /// Receives the process's stdout and stderr.
    pub output: PathBuf,
    pub timeout: Duration,
    /// Confinement of the process (and everything it starts); `None`: unconfined, in its own
    /// process group.
    pub sandbox: Option<Policy>,
}

/// A spawned process: unconfined in its own process group, or the root of a sandbox job
/// (which leads its own session: a process group set here would make its `setsid` fail).
pub(crate) enum Proc {
    Plain(Child),
    Confined(ConfinedChild),
}

impl Proc {
    /// Spawns `cmd`, confined by `sandbox` (its timeout replaced by `timeout`) when given. The
    /// confinement is prepared here and entered by the child between fork and exec, once.
    pub(crate) fn spawn(
        mut cmd: Command,
        sandbox: Option<&Policy>,
        timeout: Duration,
    ) -> Result<Proc, ProfileError> {
        let program = Path::new(cmd.get_program()).display().to_string();
        let spawn_error = |source| ProfileError::Spawn {
            command: program.clone(),
            source,
        };
        let sandbox_error =
            |e: frugal_sandbox::Error| spawn_error(std::io::Error::other(e.to_string()));
        match sandbox {
            None => {
                cmd.process_group(0);
                cmd.spawn().map(Proc::Plain).map_err(spawn_error)
            }
            Some(policy) => {
                let policy = policy.clone().timeout(timeout);
                let job = frugal_cargo::confine(&policy, &mut cmd).map_err(sandbox_error)?;
                job.spawn(&mut cmd)
                    .map(Proc::Confined)
                    .map_err(sandbox_error)
            }
        }
    }

    pub(crate) fn child(&mut self) -> &mut Child {
        match self {
            Proc::Plain(c) => c,
            Proc::Confined(c) => c.inner(),
        }
    }

    /// SIGKILL to the whole tree (the process group, or the sandbox job).
    pub(crate) fn kill(&mut self) {
        match self {
            Proc::Plain(c) => kill_group(c),
            Proc::Confined(c) => {
                let _ = c.kill_tree();
            }
        }
    }

    /// Waits for the root to exit, or kills the tree at `timeout`; `None` on timeout.
    pub(crate) fn wait_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<ExitStatus>, ProfileError> {
        let deadline = Instant::now() + timeout;
        match self {
            Proc::Plain(child) => loop {
                match child.try_wait() {
                    Ok(Some(status)) => return Ok(Some(status)),
                    Ok(None) if Instant::now() >= deadline => {
                        kill_group(child);
                        let _ = child.wait();
                        return Ok(None);
                    }
                    Ok(None) => std::thread::sleep(POLL_INTERVAL),
                    Err(e) => return Err(ProfileError::io("wait for a child process", e)),
                }
            },
            Proc::Confined(child) => {
                let finished = child.wait_timeout(timeout).map_err(|e| {
                    ProfileError::io(
                        "wait for a confined process",
                        std::io::Error::other(e.to_string()),
                    )
                })?;
                Ok((!finished.timed_out).then_some(finished.status))
            }
        }
    }

    /// Reaps the root (after its report, it is exiting); a confined job's tree is killed.
    fn reap(&mut self) {
        match self {
            Proc::Plain(c) => {
                let _ = c.wait();
            }
            Proc::Confined(c) => {
                let _ = c.wait_timeout(LAUNCHER_START_LIMIT);
            }
        }
    }
}

/// Resource usage of the test process from `wait4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub utime_us: u64,
    pub stime_us: u64,
    pub maxrss_kib: u64,
    pub minflt: u64,
    pub majflt: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
}

/// One run of one test process.
#[derive(Debug)]
pub(crate) struct Sample {
    pub outcome: Outcome,
    /// Release to reaped, measured by the launcher.
    pub wall_ns: Option<u64>,
    pub usage: Option<Usage>,
    pub counters: Vec<(PerfEvent, Result<CounterValue, String>)>,
    /// Launcher spawn to test release.
    pub setup_ns: u64,
    /// Launcher spawn to launcher reaped, as the profiler sees it.
    pub profiler_ns: u64,
    pub output_tail: Option<String>,
}

impl Sample {
    /// A run that produced an outcome but no measurement (it timed out, or never started).
    fn unmeasured(outcome: Outcome, setup_ns: u64) -> Sample {
        Sample {
            outcome,
            wall_ns: None,
            usage: None,
            counters: Vec::new(),
            setup_ns,
            profiler_ns: 0,
            output_tail: None,
        }
    }
}

/// What the launcher said at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LauncherReport {
    Done {
        outcome: Outcome,
        wall_ns: u64,
        usage: Usage,
    },
    ExecFailed {
        errno: i32,
    },
}

/// Runs `spec` once through the launcher with `events` armed on the test process.
pub(crate) fn run_once(
    launcher: &Launcher,
    spec: &RunSpec,
    backend: &dyn CounterBackend,
    events: &[PerfEvent],
) -> Result<Sample, ProfileError> {
    let output = std::fs::File::create(&spec.output)
        .map_err(|e| ProfileError::io(format!("create `{}`", spec.output.display()), e))?;
    let mut command = launcher.command();
    command
        .arg("--")
        .arg(&spec.program)
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(output);
    let started = Instant::now();
    // The launcher enters the sandbox before its exec; the test it forks inherits it, so the
    // confinement's set-up is paid before the counters are armed (`enable_on_exec` of the test).
    let mut child = Proc::spawn(
        command,
        spec.sandbox.as_ref(),
        spec.timeout + LAUNCHER_START_LIMIT,
    )?;
    let result = drive(&mut child, launcher, spec, backend, events, started);
    if result.is_err() {
        child.kill();
    }
    // Reap the launcher in every case; its status carries nothing the report line did not.
    child.reap();
    let mut sample = result?;
    sample.profiler_ns = nanos(started.elapsed());
    if !sample.outcome.is_pass() {
        sample.output_tail = read_tail(&spec.output);
    }
    Ok(sample)
}

/// A counter opened on the test process, or why it could not be.
type Opened = Result<Box<dyn OpenCounter>, String>;

/// The protocol with a spawned launcher, up to its final report.
fn drive(
    proc: &mut Proc,
    launcher: &Launcher,
    spec: &RunSpec,
    backend: &dyn CounterBackend,
    events: &[PerfEvent],
    started: Instant,
) -> Result<Sample, ProfileError> {
    let misbehaved = |message: String| ProfileError::Launcher {
        launcher: launcher.program.clone(),
        message,
    };
    let child = proc.child();
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| misbehaved("no stdout pipe".into()))?;
    let mut lines = LineReader::new(stdout);
    let first = lines
        .next_line(Instant::now() + LAUNCHER_START_LIMIT)
        .map_err(|e| misbehaved(format!("reading its pid: {e}")))?;
    let pid = match first.as_deref().and_then(|l| l.strip_prefix("pid ")) {
        Some(pid) => pid
            .trim()
            .parse::<libc::pid_t>()
            .map_err(|_| misbehaved(format!("bad pid line {first:?}")))?,
        None => {
            let tail = read_tail(&spec.output).unwrap_or_default();
            return Err(misbehaved(format!(
                "expected `pid N`, got {first:?}; its stderr: {tail}"
            )));
        }
    };

    let mut open: Vec<(PerfEvent, Opened)> = events
        .iter()
        .map(|&event| {
            let counter = backend
                .open(event, pid)
                .map_err(|e| explain_open_error(event, &e));
            (event, counter)
        })
        .collect();

    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| misbehaved("no stdin pipe".into()))?;
    stdin
        .write_all(b"g")
        .map_err(|e| misbehaved(format!("releasing the test: {e}")))?;
    drop(stdin);
    let setup_ns = nanos(started.elapsed());

    let deadline = Instant::now() + spec.timeout;
    let line = match lines.next_line(deadline) {
        Ok(line) => line,
        Err(LineError::Timeout) => {
            proc.kill();
            let after_ms = u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX);
            return Ok(Sample::unmeasured(Outcome::Timeout { after_ms }, setup_ns));
        }
        Err(e) => return Err(misbehaved(format!("reading its report: {e}"))),
    };
    let line = line.ok_or_else(|| misbehaved("exited without a report".into()))?;
    let report = parse_report(&line).map_err(misbehaved)?;

    let counters = open
        .iter_mut()
        .map(|(event, counter)| {
            let value = match counter {
                Ok(c) => c
                    .read()
                    .map_err(|e| format!("reading {event:?} failed: {e}")),
                Err(reason) => Err(reason.clone()),
            };
            (*event, value)
        })
        .collect();
    Ok(match report {
        LauncherReport::Done {
            outcome,
            wall_ns,
            usage,
        } => Sample {
            outcome,
            wall_ns: Some(wall_ns),
            usage: Some(usage),
            counters,
            setup_ns,
            profiler_ns: 0,
            output_tail: None,
        },
        LauncherReport::ExecFailed { errno } => Sample::unmeasured(
            Outcome::ExecFailed {
                reason: format!(
                    "exec `{}`: {}",
                    spec.program.display(),
                    std::io::Error::from_raw_os_error(errno)
                ),
            },
            setup_ns,
        ),
    })
}

/// Parses the launcher's last line (see `src/launcher.rs`).
fn parse_report(line: &str) -> Result<LauncherReport, String> {
    let mut words = line.split_whitespace();
    let head = words.next().unwrap_or_default();
    let mut fields = std::collections::HashMap::new();
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("bad field {word:?} in {line:?}"))?;
        fields.insert(key, value);
    }
    let int = |key: &str| -> Result<i64, String> {
        fields
            .get(key)
            .and_then(|v| v.parse::<i64>().ok())
            .ok_or_else(|| format!("missing or bad `{key}` in {line:?}"))
    };
    let uint = |key: &str| int(key).map(|v| u64::try_from(v).unwrap_or(0));
    match head {
        "execfail" => Ok(LauncherReport::ExecFailed {
            errno: i32::try_from(int("errno")?).unwrap_or(0),
        }),
        "done" => {
            let value = i32::try_from(int("value")?).unwrap_or(-1);
            let outcome = match fields.get("kind").copied() {
                Some("exit") if value == 0 => Outcome::Pass,
                Some("exit") => Outcome::Fail { code: value },
                Some("signal") => Outcome::Crashed {
                    signal: value,
                    core_dumped: int("core")? == 1,
                },
                other => return Err(format!("unknown kind {other:?} in {line:?}")),
            };
            Ok(LauncherReport::Done {
                outcome,
                wall_ns: uint("wall_ns")?,
                usage: Usage {
                    utime_us: uint("utime_us")?,
                    stime_us: uint("stime_us")?,
                    maxrss_kib: uint("maxrss_kib")?,
                    minflt: uint("minflt")?,
                    majflt: uint("majflt")?,
                    nvcsw: uint("nvcsw")?,
                    nivcsw: uint("nivcsw")?,
                },
            })
        }
        _ => Err(format!("unexpected line {line:?}")),
    }
}

/// Runs a command (valgrind, a listing) in its own process group with stdout and stderr into
/// `output`, killing the group at the deadline. Returns the outcome and the wall time.
pub(crate) fn run_plain(
    program: &OsStr,
    spec: &RunSpec,
) -> Result<(Outcome, Duration), ProfileError> {
    let output = std::fs::File::create(&spec.output)
        .map_err(|e| ProfileError::io(format!("create `{}`", spec.output.display()), e))?;
    let output2 = output
        .try_clone()
        .map_err(|e| ProfileError::io("duplicate an output file handle", e))?;
    let mut command = Command::new(program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(output)
        .stderr(output2);
    let started = Instant::now();
    let mut child = Proc::spawn(command, spec.sandbox.as_ref(), spec.timeout)?;
    match child.wait_timeout(spec.timeout)? {
        Some(status) => Ok((outcome_of(status), started.elapsed())),
        None => {
            let after_ms = u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX);
            Ok((Outcome::Timeout { after_ms }, started.elapsed()))
        }
    }
}

fn outcome_of(status: ExitStatus) -> Outcome {
    match (status.code(), status.signal()) {
        (Some(0), _) => Outcome::Pass,
        (Some(code), _) => Outcome::Fail { code },
        (None, Some(signal)) => Outcome::Crashed {
            signal,
            core_dumped: status.core_dumped(),
        },
        (None, None) => Outcome::ExecFailed {
            reason: format!("unknown wait status {status}"),
        },
    }
}

/// SIGKILL to the child's process group (it leads its own group).
fn kill_group(child: &Child) {
    if let Ok(pgid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill has no memory effects; the group is ours.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

/// The last bytes of a file, lossily decoded.
pub(crate) fn read_tail(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(OUTPUT_TAIL_BYTES)))
        .ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[derive(Debug)]
enum LineError {
    Timeout,
    Io(std::io::Error),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Timeout => write!(f, "timed out"),
            LineError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Reads lines from a pipe with a deadline (poll, then read what is there).
struct LineReader<R> {
    inner: R,
    buffer: Vec<u8>,
}

impl<R: Read + AsRawFd> LineReader<R> {
    fn new(inner: R) -> Self {
        LineReader {
            inner,
            buffer: Vec::new(),
        }
    }

    /// The next line without its newline; `None` at EOF.
    fn next_line(&mut self, deadline: Instant) -> Result<Option<String>, LineError> {
        loop {
            if let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=pos).collect();
                return Ok(Some(String::from_utf8_lossy(&line[..pos]).into_owned()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LineError::Timeout);
            }
            if !self.wait_readable(left)? {
                continue;
            }
            let mut chunk = [0u8; 512];
            match self.inner.read(&mut chunk) {
                Ok(0) if self.buffer.is_empty() => return Ok(None),
                Ok(0) => {
                    let rest = std::mem::take(&mut self.buffer);
                    return Ok(Some(String::from_utf8_lossy(&rest).into_owned()));
                }
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(LineError::Io(e)),
            }
        }
    }

    /// Waits until the pipe is readable (data or EOF) or `left` passed.
    fn wait_readable(&self, left: Duration) -> Result<bool, LineError> {
        let mut pfd = libc::pollfd {
            fd: self.inner.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // Poll in slices of at most a second so a huge timeout cannot overflow the int.
        let ms = left.as_millis().clamp(1, 1000) as libc::c_int;
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            return if e.kind() == std::io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(LineError::Io(e))
            };
        }
        Ok(r > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_passing_report() {
        let line = "done kind=exit value=0 core=0 wall_ns=1500 utime_us=10 stime_us=20 \
                    maxrss_kib=2048 minflt=100 majflt=1 nvcsw=3 nivcsw=4";
        let report = parse_report(line).unwrap();
        assert_eq!(
            report,
            LauncherReport::Done {
                outcome: Outcome::Pass,
                wall_ns: 1500,
                usage: Usage {
                    utime_us: 10,
                    stime_us: 20,
                    maxrss_kib: 2048,
                    minflt: 100,
                    majflt: 1,
                    nvcsw: 3,
                    nivcsw: 4
                }
            }
        );
    }

    #[test]
    fn parses_failures_signals_and_exec_failures() {
        let tail =
            "wall_ns=1 utime_us=0 stime_us=0 maxrss_kib=0 minflt=0 majflt=0 nvcsw=0 nivcsw=0";
        let fail = parse_report(&format!("done kind=exit value=101 core=0 {tail}")).unwrap();
        assert!(matches!(
            fail,
            LauncherReport::Done {
                outcome: Outcome::Fail { code: 101 },
                ..
            }
        ));
        let crash = parse_report(&format!("done kind=signal value=6 core=1 {tail}")).unwrap();
        assert!(matches!(
            crash,
            LauncherReport::Done {
                outcome: Outcome::Crashed {
                    signal: 6,
                    core_dumped: true
                },
                ..
            }
        ));
        assert_eq!(
            parse_report("execfail errno=2").unwrap(),
            LauncherReport::ExecFailed { errno: 2 }
        );
        assert!(parse_report("done kind=exit").is_err());
        assert!(parse_report("hello").is_err());
    }

    #[test]
    fn launcher_is_found_next_to_or_above_the_executable() {
        let dir = tempfile::tempdir().unwrap();
        let deps = dir.path().join("deps");
        std::fs::create_dir(&deps).unwrap();
        let exe = deps.join("some-test");
        let err = find_launcher(None, None, Some(exe.clone()), false).unwrap_err();
        assert!(err.to_string().contains("frugal-launch"), "{err}");
        assert_eq!(
            find_launcher(None, None, Some(exe.clone()), true).unwrap(),
            Launcher::served_by(&exe),
            "an executable that serves the launcher is the last resort"
        );
        std::fs::write(dir.path().join(LAUNCHER_NAME), b"").unwrap();
        assert_eq!(
            find_launcher(None, None, Some(exe), true).unwrap(),
            Launcher::binary(dir.path().join(LAUNCHER_NAME)),
            "an installed frugal-launch comes first"
        );
        let missing = dir.path().join("nope");
        assert!(find_launcher(None, Some(missing.into_os_string()), None, true).is_err());
    }
}
