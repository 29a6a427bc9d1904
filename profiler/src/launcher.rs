//! The launcher: the small process that starts one profiled test.
//!
//! Run as `frugal-launch -- PROGRAM [ARGS...]` (the binary of this crate) or as
//! `<exe> __frugal-launch -- PROGRAM [ARGS...]` by any binary that calls [`serve_if_asked`] first
//! thing in `main` (`frugal` and `frugald` do, so an installed `frugal` alone can profile).
//! Spawned by the profiler with stdin a pipe from the profiler, stdout a pipe to the profiler
//! and stderr the file that collects the test's output. It exists so that the test's max RSS is
//! the test's own: a child's `ru_maxrss` starts from the RSS of the process it was forked from
//! (the kernel records the old address space's high-water mark at exec), and the launcher is a
//! few MiB at most where the profiler may be hundreds of MiB.
//!
//! Protocol (one line each on stdout):
//! 1. fork; the child blocks reading an internal pipe; print `pid <child-pid>`.
//! 2. wait for one byte on stdin (the profiler has armed its counters on the child); EOF means the
//!    profiler gave up: kill the child and exit 3.
//! 3. release the child, which execs PROGRAM with stdin `/dev/null`, stdout+stderr our stderr,
//!    SIGPIPE at its default and no core dumps (RLIMIT_CORE 0: its cwd is the user's crate);
//!    print `execfail errno=N` if exec failed, else wait4 and print
//!    `done kind=exit|signal value=N core=0|1 wall_ns=.. utime_us=.. stime_us=.. maxrss_kib=..
//!    minflt=.. majflt=.. nvcsw=.. nivcsw=..`.
//!
//! Exit codes of the launcher itself: 0 reported, 2 bad usage, 3 released never, 4 system error.
//! It knows nothing about tests, counters or reports: the rest of the profiler owns all of that.

use std::ffi::{CString, OsString};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The argument that turns a binary calling [`serve_if_asked`] into the launcher:
/// `<exe> __frugal-launch -- PROGRAM [ARGS...]`.
pub const SELF_ARG: &str = "__frugal-launch";

/// Set once a binary has called [`serve_if_asked`]: its own executable can then be the launcher.
static SERVES: AtomicBool = AtomicBool::new(false);

/// Call first thing in `main`, while the process is still single-threaded. When the process was
/// started as the launcher (`<exe> __frugal-launch -- PROGRAM ...`) this runs the launcher and
/// exits; otherwise it records that this executable can serve as the launcher, so
/// [`crate::find_launcher`] falls back to it where no `frugal-launch` binary is installed.
pub fn serve_if_asked() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == SELF_ARG) {
        std::process::exit(main(args));
    }
    SERVES.store(true, Ordering::Relaxed);
}

/// Whether this process called [`serve_if_asked`].
pub(crate) fn this_exe_serves() -> bool {
    SERVES.load(Ordering::Relaxed)
}

/// The launcher: `args` are `-- PROGRAM [ARGS...]`; returns the exit code. The process must be
/// single-threaded (it forks and the child runs until exec).
pub fn main(args: impl Iterator<Item = OsString>) -> i32 {
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("frugal-launch: {message}");
            4
        }
    }
}

fn run(args: impl Iterator<Item = OsString>) -> Result<i32, String> {
    let argv = match parse_args(args) {
        Some(argv) => argv,
        None => {
            eprintln!("usage: frugal-launch -- PROGRAM [ARGS...]");
            return Ok(2);
        }
    };
    let go = Pipe::new()?;
    let exec_error = Pipe::new()?;
    // Everything the child needs is prepared before fork: the child only makes raw syscalls.
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let dev_null = c"/dev/null";

    // SAFETY: this process is single-threaded, and the child only calls async-signal-safe
    // functions before exec or _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("fork failed: {}", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: in the child of fork: raw syscalls only, then exec or _exit.
        unsafe { child(&go, &exec_error, &argv_ptrs, dev_null.as_ptr()) }
    }
    go.close_read();
    exec_error.close_write();
    parent(pid, go, exec_error)
}

/// `--` followed by the program and its arguments, as C strings.
fn parse_args(mut args: impl Iterator<Item = OsString>) -> Option<Vec<CString>> {
    if args.next()?.as_bytes() != b"--" {
        return None;
    }
    let argv: Option<Vec<CString>> = args.map(|a| CString::new(a.as_bytes()).ok()).collect();
    argv.filter(|argv| !argv.is_empty())
}

/// The forked child: wait for the release, set up stdio, exec.
///
/// # Safety
/// Must only be called in the child right after `fork`.
unsafe fn child(
    go: &Pipe,
    exec_error: &Pipe,
    argv: &[*const libc::c_char],
    dev_null: *const libc::c_char,
) -> ! {
    unsafe {
        libc::close(go.write);
        libc::close(exec_error.read);
        let mut byte = 0u8;
        loop {
            let n = libc::read(go.read, (&raw mut byte).cast(), 1);
            if n == 1 {
                break;
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            libc::_exit(126); // never released: the launcher gave up.
        }
        // The test must not see the profiler's pipes: stdin from /dev/null, stdout into the
        // same file as stderr (libtest reports failures on stdout).
        let null = libc::open(dev_null, libc::O_RDONLY);
        if null >= 0 {
            libc::dup2(null, 0);
        }
        libc::dup2(2, 1);
        // Rust's runtime ignores SIGPIPE and ignored signals survive exec; a test expects the
        // default, as `Command` gives it.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        // A crashing test must not drop core files into the crate directory (its cwd).
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::execvp(argv[0], argv.as_ptr());
        let errno = *libc::__errno_location();
        let bytes = errno.to_ne_bytes();
        libc::write(exec_error.write, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(127);
    }
}

/// The launcher after fork: report the pid, wait for the profiler, release, wait4, report.
fn parent(pid: libc::pid_t, go: Pipe, exec_error: Pipe) -> Result<i32, String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "pid {pid}").map_err(|e| format!("cannot write to the profiler: {e}"))?;
    out.flush()
        .map_err(|e| format!("cannot write to the profiler: {e}"))?;

    let mut byte = [0u8; 1];
    let released = matches!(std::io::stdin().read(&mut byte), Ok(1));
    if !released {
        // SAFETY: plain syscalls on our own child.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        return Ok(3);
    }
    let start = Instant::now();
    go.release()?;

    if let Some(errno) = exec_error.read_errno() {
        // SAFETY: reap our own child, which has _exit'ed.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        writeln!(out, "execfail errno={errno}").map_err(|e| e.to_string())?;
        return Ok(0);
    }
    let (status, usage) = wait4(pid)?;
    let wall_ns = start.elapsed().as_nanos();
    writeln!(
        out,
        "{} wall_ns={wall_ns} {}",
        describe_status(status),
        describe_usage(&usage)
    )
    .map_err(|e| e.to_string())?;
    out.flush().map_err(|e| e.to_string())?;
    Ok(0)
}

fn wait4(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage), String> {
    let mut status = 0;
    // SAFETY: rusage is plain old data; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(format!("wait4 failed: {err}"));
        }
    }
}

fn describe_status(status: libc::c_int) -> String {
    if libc::WIFSIGNALED(status) {
        let core = u8::from(libc::WCOREDUMP(status));
        format!(
            "done kind=signal value={} core={core}",
            libc::WTERMSIG(status)
        )
    } else {
        format!("done kind=exit value={} core=0", libc::WEXITSTATUS(status))
    }
}

fn describe_usage(u: &libc::rusage) -> String {
    let micros = |t: libc::timeval| t.tv_sec as i128 * 1_000_000 + t.tv_usec as i128;
    format!(
        "utime_us={} stime_us={} maxrss_kib={} minflt={} majflt={} nvcsw={} nivcsw={}",
        micros(u.ru_utime),
        micros(u.ru_stime),
        u.ru_maxrss,
        u.ru_minflt,
        u.ru_majflt,
        u.ru_nvcsw,
        u.ru_nivcsw
    )
}

/// A close-on-exec pipe as two raw fds (the child of fork cannot use owned std types safely).
struct Pipe {
    read: libc::c_int,
    write: libc::c_int,
}

impl Pipe {
    fn new() -> Result<Pipe, String> {
        let mut fds = [0; 2];
        // SAFETY: fds is a valid array of two ints.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(format!("pipe2 failed: {}", std::io::Error::last_os_error()));
        }
        Ok(Pipe {
            read: fds[0],
            write: fds[1],
        })
    }

    fn close_read(&self) {
        // SAFETY: closing an fd this process owns.
        unsafe { libc::close(self.read) };
    }

    fn close_write(&self) {
        // SAFETY: closing an fd this process owns.
        unsafe { libc::close(self.write) };
    }

    /// Lets the child exec.
    fn release(&self) -> Result<(), String> {
        let byte = b'g';
        // SAFETY: writing one byte from a local.
        let n = unsafe { libc::write(self.write, (&raw const byte).cast(), 1) };
        self.close_write();
        if n == 1 {
            Ok(())
        } else {
            Err(format!(
                "cannot release the test: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    /// The child's errno if its exec failed; `None` once exec closed the pipe.
    fn read_errno(&self) -> Option<i32> {
        let mut buf = [0u8; 4];
        let mut got = 0;
        while got < buf.len() {
            // SAFETY: reading into the unfilled tail of a local buffer.
            let n =
                unsafe { libc::read(self.read, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
            if n > 0 {
                got += n as usize;
            } else if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            } else {
                break;
            }
        }
        (got == buf.len()).then(|| i32::from_ne_bytes(buf))
    }
}
