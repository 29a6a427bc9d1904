//! frugal-testkit: the helpers the project's tests share, so each exists once. Where the
//! workspace and its example crates are, cached work directories (`work_dir`), git
//! repositories made in temp dirs, the real `frugald` started on 127.0.0.1 (port 0, read back
//! from `frugald.addr`) and talked to over HTTP, the bounded fixed-rate load generator
//! (`load`), child-process entry points for `kill -9` tests (`child`) that are not counted
//! as tests, time-bounded property fuzzing (`fuzz`), and a real PostgreSQL server in a temp
//! dir (`postgres`).
//!
//! Must not know any frugal crate's internals: only binaries, files, HTTP and git, as a user
//! would; it depends on no frugal crate, so every crate can use it as a dev-dependency.
//! Binaries are built once per test process with the same cargo and target dir as the test, so
//! a plain `cargo test -p frugal-e2e` never runs stale ones.

pub mod child;
pub mod fuzz;
pub mod load;
pub mod postgres;
mod workdir;

pub use workdir::{WorkDir, example, work_dir};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// The binaries under test.
#[derive(Clone, Debug)]
pub struct Bins {
    /// `frugald`, the daemon ([`Daemon::start`] runs it).
    pub frugald: PathBuf,
    /// `frugal`, the command-line client.
    pub frugal: PathBuf,
    /// `frugal-launch`, the profiler's launcher that frugald profiles suites with.
    pub launcher: PathBuf,
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testkit/ sits in the workspace")
        .to_path_buf()
}

/// Builds (if needed) and returns `frugald`, `frugal` and `frugal-launch`, from the target dir
/// and profile of the running test.
pub fn binaries() -> &'static Bins {
    static BINS: OnceLock<Bins> = OnceLock::new();
    BINS.get_or_init(|| build_binaries().unwrap_or_else(|e| panic!("{e:#}")))
}

fn build_binaries() -> anyhow::Result<Bins> {
    let exe = std::env::current_exe().context("find the test executable")?;
    // <target>/<profile>/deps/<test>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .context("the test executable is not in <target>/<profile>/deps")?
        .to_path_buf();
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let target = profile_dir.parent().context("no target dir")?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace())
        .args([
            "build",
            "--quiet",
            "-p",
            "frugal",
            "-p",
            "frugald",
            "-p",
            "frugal-profiler",
            "--bins",
        ])
        .env("CARGO_TARGET_DIR", target);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().context("run cargo build for the binaries")?;
    if !status.success() {
        bail!("cargo build of frugal's binaries failed");
    }
    let bins = Bins {
        frugald: profile_dir.join("frugald"),
        frugal: profile_dir.join("frugal"),
        launcher: profile_dir.join("frugal-launch"),
    };
    for b in [&bins.frugald, &bins.frugal, &bins.launcher] {
        if !b.is_file() {
            bail!("{} is missing after the build", b.display());
        }
    }
    Ok(bins)
}

/// A running `frugald`, killed (SIGKILL) on drop if still running.
pub struct Daemon {
    /// The `frugald` process; a test may kill or wait for it itself.
    pub child: Child,
    /// `http://<addr>` read from `frugald.addr`, without a trailing `/`: paths are appended.
    pub base: String,
    /// The bearer token the daemon generated into `<state_dir>/token`.
    pub token: String,
    /// The file the daemon's stdout and stderr go to, beside the state dir (`RUST_LOG=info`).
    pub log: PathBuf,
    agent: ureq::Agent,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status code; every status is an answer, not an error.
    pub status: u16,
    /// The body as text.
    pub body: String,
}

impl Answer {
    /// The body parsed as JSON; panics with the body when it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// An HTTP agent that returns every status as an answer.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

impl Daemon {
    /// Starts `frugald --config <config>`, waits for its address file and health check.
    pub fn start(frugald: &Path, config: &Path, state_dir: &Path) -> anyhow::Result<Daemon> {
        Self::start_with(frugald, config, state_dir, &[], &[])
    }

    /// [`Daemon::start`] with extra arguments and environment variables.
    pub fn start_with(
        frugald: &Path,
        config: &Path,
        state_dir: &Path,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> anyhow::Result<Daemon> {
        let addr_file = state_dir.join("frugald.addr");
        let _ = std::fs::remove_file(&addr_file);
        let log = state_dir.parent().unwrap_or(state_dir).join(format!(
            "frugald-{}.log",
            std::time::UNIX_EPOCH.elapsed()?.as_millis()
        ));
        let log_file = std::fs::File::create(&log).context("create the daemon log")?;
        let child = Command::new(frugald)
            .arg("--config")
            .arg(config)
            .arg("--profile-repeat")
            .arg("1")
            .args(args)
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .context("start frugald")?;
        let mut d = Daemon {
            child,
            base: String::new(),
            token: String::new(),
            log,
            agent: agent(),
        };
        let t = Instant::now();
        loop {
            if let Ok(a) = std::fs::read_to_string(&addr_file)
                && !a.trim().is_empty()
            {
                d.base = format!("http://{}", a.trim());
                if d.get("/healthz").is_ok_and(|r| r.status == 200) {
                    break;
                }
            }
            if let Some(st) = d.child.try_wait()? {
                bail!("frugald exited with {st} at start:\n{}", d.log_text());
            }
            if t.elapsed() > Duration::from_secs(30) {
                bail!("frugald did not come up in 30 s:\n{}", d.log_text());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        d.token = std::fs::read_to_string(state_dir.join("token"))
            .context("read the generated token")?
            .trim()
            .to_string();
        Ok(d)
    }

    /// Everything the daemon has logged so far (empty if the log cannot be read), for
    /// failure messages.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> anyhow::Result<Answer> {
        let mut r = r?;
        Ok(Answer {
            status: r.status().as_u16(),
            body: r.body_mut().read_to_string()?,
        })
    }

    /// GET without a token; `path` starts with `/`. Errs only when no whole answer came
    /// (connection refused, the agent's 30 s timeout): any status is an [`Answer`].
    pub fn get(&self, path: &str) -> anyhow::Result<Answer> {
        Self::answer(self.agent.get(format!("{}{path}", self.base)).call())
    }

    /// GET with a bearer token.
    pub fn get_with(&self, path: &str, token: &str) -> anyhow::Result<Answer> {
        let req = self
            .agent
            .get(format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {token}"));
        Self::answer(req.call())
    }

    /// Sends `request` (a whole HTTP/1.1 request, written as is) on a new connection and reads
    /// until the daemon closes it or 10 s pass: for what a well-behaved client would not send.
    pub fn raw(&self, request: &str) -> anyhow::Result<String> {
        use std::io::{Read, Write};
        let addr = self.base.trim_start_matches("http://");
        let mut s = std::net::TcpStream::connect(addr)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        s.write_all(request.as_bytes())?;
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        Ok(String::from_utf8_lossy(&answer).into_owned())
    }

    /// POST with an optional bearer token and a raw body.
    pub fn post(&self, path: &str, token: Option<&str>, body: &str) -> anyhow::Result<Answer> {
        let mut req = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/json");
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        Self::answer(req.send(body))
    }

    /// DELETE with an optional bearer token.
    pub fn delete(&self, path: &str, token: Option<&str>) -> anyhow::Result<Answer> {
        let mut req = self.agent.delete(format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        Self::answer(req.call())
    }

    /// Waits up to `limit` until the run of `commit` in repository `repo` succeeded, and
    /// returns it with its summary (`GET /v1/runs/{id}`); panics with the daemon's log if the
    /// run failed.
    pub fn wait_run(
        &self,
        repo: u64,
        commit: &str,
        limit: Duration,
    ) -> anyhow::Result<serde_json::Value> {
        wait_for(
            "the commit's run to succeed",
            limit,
            Duration::from_millis(500),
            || {
                let runs = self.get(&format!("/v1/runs?repo={repo}"))?.json();
                for r in runs.as_array().into_iter().flatten() {
                    if r["commit"] != commit {
                        continue;
                    }
                    match r["status"].as_str() {
                        Some("succeeded") => {
                            return Ok(Some(self.get(&format!("/v1/runs/{}", r["id"]))?.json()));
                        }
                        Some("failed") => {
                            panic!("run failed: {r}\n--- log ---\n{}", self.log_text())
                        }
                        _ => {}
                    }
                }
                Ok(None)
            },
        )
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill9(&mut self) -> anyhow::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }

    /// SIGTERM, and wait up to `limit` for the exit; returns the exit code.
    pub fn terminate(&mut self, limit: Duration) -> anyhow::Result<(Option<i32>, Duration)> {
        let t = Instant::now();
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        loop {
            if let Some(st) = self.child.try_wait()? {
                return Ok((st.code(), t.elapsed()));
            }
            if t.elapsed() > limit {
                bail!(
                    "frugald still running {limit:?} after SIGTERM:\n{}",
                    self.log_text()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs a command, failing with its output when it fails.
pub fn run(cmd: &mut Command) -> anyhow::Result<String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("run {cmd:?}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        bail!("{cmd:?} failed with {}:\n{text}", out.status);
    }
    Ok(text)
}

/// `git` with an identity, so commits work on a machine without one.
pub fn git(repo: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(repo)
        .env("GIT_AUTHOR_NAME", "frugal e2e")
        .env("GIT_AUTHOR_EMAIL", "e2e@frugal.invalid")
        .env("GIT_COMMITTER_NAME", "frugal e2e")
        .env("GIT_COMMITTER_EMAIL", "e2e@frugal.invalid");
    c
}

/// Copies an example crate (without build output) into a fresh git repository with one commit.
pub fn example_repo(example: &str, dest: &Path) -> anyhow::Result<()> {
    copy_example(example, dest)?;
    run(git(dest).args(["init", "-q", "-b", "main"]))?;
    run(git(dest).args(["add", "-A"]))?;
    run(git(dest).args(["commit", "-q", "-m", "initial"]))?;
    Ok(())
}

/// A copy of `examples/<example>` at `dest`, for a test that changes it.
pub fn copy_example(example: &str, dest: &Path) -> anyhow::Result<()> {
    copy_dir(&workspace().join("examples").join(example), dest)
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let name = e.file_name();
        if name == "target" || name == "frugal.out" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)
                .with_context(|| format!("copy {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

/// Polls `f` every `every` until it returns `Some`, or fails after `limit` with `what`.
pub fn wait_for<T>(
    what: &str,
    limit: Duration,
    every: Duration,
    mut f: impl FnMut() -> anyhow::Result<Option<T>>,
) -> anyhow::Result<T> {
    let t = Instant::now();
    loop {
        if let Some(v) = f()? {
            return Ok(v);
        }
        if t.elapsed() > limit {
            bail!("timed out after {limit:?} waiting for {what}");
        }
        std::thread::sleep(every);
    }
}

/// Runs a crate's own tests (`cargo test --quiet`) with warnings capped, as frugal builds it,
/// and fails with cargo's output when they fail.
pub fn cargo_test(root: &Path, target_dir: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--quiet", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", "--cap-lints=warn")
        // Doctests lint the crate's source again, through rustdoc.
        .env("RUSTDOCFLAGS", "--cap-lints=warn")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo test");
    assert!(
        out.status.success(),
        "own tests of {} failed:\n{}\n{}",
        root.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Pids of the live (not zombie) processes whose argument vector (`/proc/<pid>/cmdline` split at
/// NUL) satisfies `matches`: how tests count what code under test left running.
pub fn processes(matches: impl Fn(&[&[u8]]) -> bool) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().to_str()?.parse::<u32>().ok()?, e.path())))
        .filter(|(_, dir)| {
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            let zombie = stat
                .rfind(')')
                .and_then(|i| stat.get(i + 2..i + 3))
                .is_some_and(|s| s == "Z");
            !zombie
                && std::fs::read(dir.join("cmdline")).is_ok_and(|c| {
                    let argv: Vec<&[u8]> = c.split(|b| *b == 0).collect();
                    matches(&argv)
                })
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// Writes `<dir>/frugal.toml` for a test daemon: loopback on port 0, the state in
/// `<dir>/state`, no polling, and `sections` (whole TOML sections) on top.
pub fn daemon_config(dir: &Path, sections: &str) -> PathBuf {
    let path = dir.join("frugal.toml");
    let text = format!(
        "[daemon]\nlisten = \"127.0.0.1:0\"\nstate_dir = \"state\"\n\n{sections}\n\
         [scheduler]\npoll_interval = \"off\"\n"
    );
    std::fs::write(&path, text).expect("write the test config");
    path
}

/// Runs a command that must succeed (failing with its stderr otherwise) and returns its stdout.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed with {}:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
