//! Building cargo commands and running them under a timeout that kills the whole process group.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use frugal_sandbox::{Job, Policy};

use crate::{CargoError, Messages};

/// A way to run cargo: which binary, which target dir, and how each command is prepared
/// (the sandbox's policy, say) before it is spawned.
pub struct Cargo {
    program: PathBuf,
    target_dir: Option<PathBuf>,
    prepare: Option<Box<Prepare>>,
    sandbox: Option<Policy>,
    /// The end of `cargo fetch`'s stderr when the fetch before an offline build failed: a
    /// failed build then ends with the cause, not with "you are in the offline mode".
    fetch_failure: Option<String>,
}

/// What the caller does to each command before it is spawned.
type Prepare = dyn Fn(&mut Command) + Send + Sync;

/// What a cargo run printed, and its messages when it was asked for JSON.
#[derive(Debug, Default)]
pub struct Output {
    /// Cargo exited with status 0.
    pub success: bool,
    /// Everything cargo printed to stdout (the JSON lines, with `--message-format=json`),
    /// lossily decoded.
    pub stdout: String,
    /// Cargo's stderr, lossily decoded; after a failure in offline mode it ends with why the
    /// `cargo fetch` before it failed.
    pub stderr: String,
    /// Compiler errors and artifacts parsed from `stdout`; empty unless JSON was asked for.
    pub messages: Messages,
}

impl Output {
    /// The last `max` bytes of stderr (on a char boundary), for messages.
    pub fn stderr_tail(&self, max: usize) -> &str {
        let s = &self.stderr;
        let mut start = s.len().saturating_sub(max);
        while !s.is_char_boundary(start) {
            start += 1;
        }
        &s[start..]
    }

    /// The first `max` compiler errors as rendered, or the end of cargo's stderr when there are
    /// none (a resolution failure, say): a message a user can act on.
    pub fn summarise_errors(&self, max: usize) -> String {
        if self.messages.errors.is_empty() {
            let lines: Vec<&str> = self.stderr_tail(4000).lines().collect();
            return lines[lines.len().saturating_sub(15)..].join("\n");
        }
        self.messages
            .errors
            .iter()
            .take(max)
            .map(|e| e.rendered.trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Default for Cargo {
    fn default() -> Self {
        Cargo::new()
    }
}

impl Cargo {
    /// `$CARGO` when a cargo process runs us (it names the toolchain in use), else the default
    /// toolchain's own `cargo`, else `cargo` on PATH.
    ///
    /// Why not rustup's proxies: a crate may ship a `rust-toolchain.toml` asking for another
    /// toolchain or component, which the proxy then tries to download (into `$RUSTUP_HOME`,
    /// read-only when confined, and over a network a confined build does not have), so the
    /// crate did not build (anyhow). frugal builds every crate with the toolchain it runs with;
    /// the real binaries need nothing writable.
    pub fn new() -> Cargo {
        Cargo {
            program: std::env::var_os("CARGO")
                .map(PathBuf::from)
                .or_else(|| toolchain_binary("cargo"))
                .unwrap_or_else(|| "cargo".into()),
            target_dir: None,
            prepare: None,
            sandbox: None,
            fetch_failure: None,
        }
    }

    /// Builds into `dir` (`CARGO_TARGET_DIR`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Cargo {
        self.target_dir = Some(dir.into());
        self
    }

    /// Applies `f` to every command before it is spawned (confinement, extra environment).
    pub fn prepare(mut self, f: impl Fn(&mut Command) + Send + Sync + 'static) -> Cargo {
        self.prepare = Some(Box::new(f));
        self
    }

    /// Spawns every command through `policy` (confinement, a job cgroup, a timeout that kills
    /// the whole tree) instead of an own process group. Commands that run no crate code on the
    /// user's repository (`cargo metadata`, `cargo fetch`) may stay unconfined.
    pub fn sandbox(mut self, policy: Policy) -> Cargo {
        self.sandbox = Some(policy);
        self
    }

    /// The usual way to build a crate's code confined: first `cargo fetch` the dependencies of
    /// `manifest`, then run every later command through `policy`, offline. A failed fetch is
    /// left for the offline build to report; the fetch runs at most `fetch_timeout`.
    ///
    /// In a service job ([`Policy::in_job`]) the fetch is confined as well
    /// ([`Policy::for_fetch`]: the network, but the job's files and `HOME`, so no credentials
    /// of the service's reach another tenant's manifest). Outside one (`frugal run` on the
    /// user's own crate) it runs with the user's network and credentials, as `cargo` would:
    /// fetching runs no crate code.
    ///
    /// The fetch runs from `/`, naming the manifest: cargo reads `.cargo/config.toml` from the
    /// working directory up, and one planted in the work dir by confined code (a credential
    /// provider, `git-fetch-with-cli`) must not make the unconfined fetch run a program. The
    /// crate's own cargo config therefore applies to the confined build, not to the fetch.
    pub fn fetch_then_sandbox(
        self,
        manifest: &Path,
        policy: &Policy,
        fetch_timeout: Duration,
    ) -> Cargo {
        let mut fetch = self.command(Path::new("/"));
        fetch.arg("fetch").arg("--manifest-path").arg(manifest);
        let mut cargo = self;
        cargo.sandbox = policy.clone().for_fetch().filter(|_| policy.in_job());
        cargo.fetch_failure = match cargo.output(fetch, fetch_timeout) {
            Ok(out) if out.success => None,
            Ok(out) => Some(out.stderr_tail(2000).to_string()),
            Err(e) => Some(e.to_string()),
        };
        cargo.sandbox(policy.clone().env("CARGO_NET_OFFLINE", "true"))
    }

    /// `cargo` in `dir` with the environment frugal always sets: warnings capped so a crate's
    /// `deny(warnings)` cannot reject probes, no progress bars or colour in captured output.
    pub fn command(&self, dir: &Path) -> Command {
        let mut c = Command::new(&self.program);
        c.current_dir(dir);
        if let Some(t) = &self.target_dir {
            c.env("CARGO_TARGET_DIR", t);
        }
        if let Some(rustc) = rustc() {
            c.env("RUSTC", rustc);
        }
        c.env("CARGO_TERM_PROGRESS_WHEN", "never")
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_ENCODED_RUSTFLAGS", encoded_rustflags())
            .env_remove("RUSTFLAGS")
            .stdin(Stdio::null());
        c
    }

    /// Runs `cmd` (from [`Cargo::command`]) to the end or until `timeout`, when its whole
    /// process tree is killed (the sandbox's job when [`Cargo::sandbox`] gave a policy, else
    /// its own process group). Parses JSON messages when the command asked for them.
    pub fn output(&self, mut cmd: Command, timeout: Duration) -> Result<Output, CargoError> {
        if let Some(f) = &self.prepare {
            f(&mut cmd);
        }
        let command = describe(&cmd);
        let (stdout, mut stderr, success) = match &self.sandbox {
            Some(policy) => run_confined(policy, cmd, &command, timeout)?,
            None => run_in_group(cmd, &command, timeout)?,
        };
        if let (false, Some(fetch)) = (success, &self.fetch_failure) {
            stderr.push_str("\n`cargo fetch` failed before this offline command:\n");
            stderr.push_str(fetch);
        }
        let messages = Messages::parse(&stdout);
        Ok(Output {
            success,
            stdout,
            stderr,
            messages,
        })
    }
}

/// The sysroot of the toolchain `rustc` on PATH resolves to (rustup's proxy answers for its
/// default toolchain), asked once.
fn sysroot() -> Option<&'static Path> {
    static SYSROOT: OnceLock<Option<PathBuf>> = OnceLock::new();
    SYSROOT
        .get_or_init(|| {
            let mut cmd = Command::new("rustc");
            // From `/`: a `rust-toolchain.toml` in the current directory must not pick it.
            cmd.args(["--print", "sysroot"])
                .current_dir("/")
                .stdin(Stdio::null());
            let out = frugal_sandbox::output_in_group(&mut cmd, Duration::from_secs(120)).ok()?;
            let text = String::from_utf8(out.stdout).ok()?;
            let dir = PathBuf::from(text.trim());
            (out.status.success() && dir.is_dir()).then_some(dir)
        })
        .as_deref()
}

/// `bin/<tool>` of the toolchain, when it exists.
fn toolchain_binary(tool: &str) -> Option<PathBuf> {
    let path = sysroot()?.join("bin").join(tool);
    path.is_file().then_some(path)
}

/// The `rustc` cargo and build scripts run: `$RUSTC` when the user set one, else the one next
/// to `$CARGO` (the toolchain of the cargo running us), else the default toolchain's own.
fn rustc() -> Option<PathBuf> {
    let beside_cargo = || {
        let path = PathBuf::from(std::env::var_os("CARGO")?).with_file_name("rustc");
        path.is_file().then_some(path)
    };
    std::env::var_os("RUSTC")
        .map(PathBuf::from)
        .or_else(beside_cargo)
        .or_else(|| toolchain_binary("rustc"))
}

/// Confines `cmd` with `policy` and keeps the variables the command set explicitly (the
/// policy clears the environment to its allow-list first). Start it with [`Job::spawn`].
pub fn confine(policy: &Policy, cmd: &mut Command) -> Result<Job, frugal_sandbox::Error> {
    let explicit: Vec<(OsString, Option<OsString>)> = cmd
        .get_envs()
        .map(|(k, v)| (k.to_os_string(), v.map(OsStr::to_os_string)))
        .collect();
    let job = policy.apply(cmd)?;
    for (k, v) in explicit {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    Ok(job)
}

/// Runs `cmd` confined: the sandbox kills the whole job (cgroup or tree) when the root exits
/// or the timeout expires.
fn run_confined(
    policy: &Policy,
    mut cmd: Command,
    command: &str,
    timeout: Duration,
) -> Result<(String, String, bool), CargoError> {
    let sandbox_error = |e: frugal_sandbox::Error| CargoError::Spawn {
        command: command.to_string(),
        source: std::io::Error::other(e.to_string()),
    };
    let policy = policy.clone().timeout(timeout);
    let job = confine(&policy, &mut cmd).map_err(sandbox_error)?;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = job.spawn(&mut cmd).map_err(sandbox_error)?;
    let out = child.output_with_timeout(timeout).map_err(sandbox_error)?;
    if out.finished.timed_out {
        return Err(CargoError::Timeout {
            command: command.to_string(),
            seconds: timeout.as_secs(),
        });
    }
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.finished.status.success(),
    ))
}

/// Runs `cmd` unconfined in its own process group, killed whole at the end or the timeout.
fn run_in_group(
    mut cmd: Command,
    command: &str,
    timeout: Duration,
) -> Result<(String, String, bool), CargoError> {
    let out = frugal_sandbox::output_in_group(&mut cmd, timeout).map_err(|source| match source
        .kind()
    {
        std::io::ErrorKind::TimedOut => CargoError::Timeout {
            command: command.to_string(),
            seconds: timeout.as_secs(),
        },
        _ => CargoError::Spawn {
            command: command.to_string(),
            source,
        },
    })?;
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    ))
}

/// The longest a build of a crate (instrumented, harness, verification or profiling) may take before its
/// whole process tree is killed: cold builds of real crates take 100–170 s on 2 cores, and a
/// build script that hangs must not hold a daemon's job slot for ever.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The environment variable that lowers (or raises) [`BUILD_TIMEOUT`], in whole seconds.
pub const BUILD_TIMEOUT_ENV: &str = "FRUGAL_BUILD_TIMEOUT_SECS";

/// The build timeout in force: `FRUGAL_BUILD_TIMEOUT_SECS` when it holds a positive number of
/// seconds, else [`BUILD_TIMEOUT`]. The one place the variable is read.
pub fn build_timeout() -> Duration {
    std::env::var(BUILD_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map_or(BUILD_TIMEOUT, Duration::from_secs)
}

/// The caller's rustflags plus `--cap-lints=warn`, in cargo's `\x1f`-separated encoding.
fn encoded_rustflags() -> String {
    let mut flags: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(s) => s
            .split('\x1f')
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect(),
        Err(_) => std::env::var("RUSTFLAGS")
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
    };
    flags.push("--cap-lints=warn".to_string());
    flags.join("\x1f")
}

fn describe(cmd: &Command) -> String {
    let args: Vec<String> = cmd
        .get_args()
        .take(3)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!("cargo {}", args.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn a_timeout_is_reported_as_such() {
        // The process-group kill itself is `frugal_sandbox::output_in_group`'s, tested there.
        let r = Cargo::new().output(sh("sleep 30"), Duration::from_millis(200));
        assert!(matches!(r, Err(CargoError::Timeout { .. })), "{r:?}");
    }

    #[test]
    fn a_confined_command_keeps_its_explicit_environment_and_output() {
        // The parent's HOME is not on the policy's allow-list (and the policy names none).
        let mut cmd = sh("echo \"$KEPT-${HOME:-none}\"; echo err >&2; exit 3");
        cmd.env("KEPT", "yes");
        let out = Cargo::new()
            .sandbox(Policy::new())
            .output(cmd, Duration::from_secs(10))
            .unwrap();
        assert!(!out.success);
        assert_eq!((out.stdout.trim(), out.stderr.trim()), ("yes-none", "err"));
    }

    #[test]
    fn a_confined_hanging_command_and_its_children_are_killed_at_the_timeout() {
        let t = Instant::now();
        let r = Cargo::new()
            .sandbox(Policy::new())
            .output(sh("sleep 30 & sleep 30"), Duration::from_millis(300));
        assert!(matches!(r, Err(CargoError::Timeout { .. })), "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn rustflags_keep_the_callers_and_cap_lints() {
        let flags = encoded_rustflags();
        assert!(flags.ends_with("--cap-lints=warn"), "{flags}");
    }
}
