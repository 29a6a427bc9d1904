//! Polling repositories with the git CLI (no libgit2: one fewer C dependency, and the daemon's
//! host has git anyway since it runs the hooks), and the one place git commands are made.
//!
//! A registered repository's config is its owner's, not the daemon's: every command is made by
//! [`git_command`] so that no setting in it (filters, hooks, fsmonitor, textconv, external
//! diff, pagers, transports) makes git run a program, and run by [`git_output`], confined.
//! A job's or a replacement's copy of a commit is [`snapshot`] (the plumbing in `snapshot.rs`).

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::SchedulerError;

/// Extracts `commit` of the repository at `repo` into `dest` (emptied first), through
/// [`crate::export_commit`]: git's plumbing, confined, no filter or other command the
/// repository's config names, no link leading out of the snapshot. Files carry the extraction
/// time, not the commit's: a job's build dirs may be kept and cargo rebuilds by comparing
/// times, so a commit stamped before the last build (a push of several commits, a rebase)
/// would be built and profiled as the previous commit's code.
pub fn snapshot(repo: &Path, commit: &str, dest: &Path) -> Result<(), SchedulerError> {
    let failed = |reason: String| SchedulerError::Snapshot {
        commit: commit.to_string(),
        dest: dest.to_path_buf(),
        reason,
    };
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| failed(format!("empty it: {e}")))?;
    }
    std::fs::create_dir_all(dest).map_err(|e| failed(format!("create it: {e}")))?;
    crate::export_commit(repo, commit, dest).map_err(|e| failed(e.to_string()))
}

/// What a poll saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Full commit id of HEAD.
    pub commit: String,
    /// Whether it differs from the last commit seen (true on the first poll).
    pub changed: bool,
}

/// Settings passed with `-c` on every git command, after the repository's own config, so they
/// win over it: each switches off a way the repository's config (`.git/config` is the
/// repository owner's) could make git run a program as the daemon. Hooks, fsmonitor, pagers,
/// credential helpers and transports (lazy fetches of a partial clone run `core.sshCommand`) are
/// config-driven commands; automatic maintenance could run them later. Filters and textconv
/// cannot be switched off by name (each driver is named by the repository), so snapshots use
/// plumbing that applies none (`crate::snapshot`) and diffs pass `--no-textconv --no-ext-diff`.
const NO_COMMANDS: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.attributesFile=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.gitProxy=",
    "credential.helper=",
    "protocol.allow=never",
    "diff.external=",
    "log.showSignature=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// `git -c safe.directory=<repo> -c <NO_COMMANDS>... -C <repo>` with a cleared environment:
/// every git command the daemon runs on a registered repository is made here, and run by
/// [`git_output`] (confined).
///
/// Decisions:
/// - The daemon runs as its own user, and git refuses repositories other users own ("dubious
///   ownership") unless `safe.directory` names them in a protected scope. That guard exists
///   because another user's config can name commands git runs; here no config can (see
///   [`NO_COMMANDS`], no system or global config, no filters), so passing `safe.directory` for
///   exactly the repository the command works on trusts the repository's data, not its config.
/// - The environment is cleared rather than filtered: hooks export `GIT_DIR` and friends, and
///   `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_PARAMETERS` or `GIT_SSH_COMMAND` in the daemon's own
///   environment would name commands too.
pub fn git_command(repo: &Path) -> Command {
    let mut trusted = std::ffi::OsString::from("safe.directory=");
    trusted.push(repo.as_os_str());
    let mut cmd = Command::new("git");
    cmd.arg("-c").arg(trusted);
    for setting in NO_COMMANDS {
        cmd.arg("-c").arg(setting);
    }
    cmd.arg("-C").arg(repo);
    git_env(&mut cmd);
    cmd
}

/// The only environment git gets: `PATH` to find itself, no system or global config and no
/// system attributes, no lazy fetches, no prompts, no optional index writes.
fn git_env(cmd: &mut Command) {
    cmd.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    cmd.env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_ATTR_NOSYSTEM", "1")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PROTOCOL_FROM_USER", "0");
}

/// Runs `cmd` (made by [`git_command`] for `repo`) confined by `frugal-sandbox`: only the
/// repository (and the system) readable, nothing writable, no network, under [`GIT_TIMEOUT`],
/// `stdin` as its input; the environment is the one [`git_command`] made (a variable set on
/// `cmd` since is dropped). Where the host cannot confine (no Landlock, no network namespace) the
/// sandbox says so in its capability report and git still runs, with everything above.
///
/// Decision: git needs no write for what the daemon asks of it (it reads objects and refs; a
/// snapshot's files are written by the daemon from git's output), so a config setting this
/// module missed could still only read the repository.
pub fn git_output(repo: &Path, cmd: &mut Command, stdin: Option<File>) -> std::io::Result<Output> {
    let mut policy = frugal_sandbox::Policy::new().readable(repo);
    if let Ok(real) = repo.canonicalize() {
        policy = policy.readable(real);
    }
    run_confined(policy, cmd, stdin)
}

/// Runs git `cmd` under `policy` (plus git's own directories and [`GIT_TIMEOUT`]), with the
/// environment [`git_command`] made; its output, an error when it timed out.
pub(crate) fn run_confined(
    mut policy: frugal_sandbox::Policy,
    cmd: &mut Command,
    stdin: Option<File>,
) -> std::io::Result<Output> {
    policy = policy.timeout(GIT_TIMEOUT);
    // The admin's git may live outside the system dirs (`/opt`, a wrapper in a bin dir of
    // its own): its directory, and the real one behind a link, stay readable.
    for dir in git_dirs() {
        policy = policy.readable(dir);
    }
    let job = policy.apply(cmd).map_err(std::io::Error::other)?;
    // `apply` sets the sandbox's own environment; git gets its own, as `git_command` made it.
    git_env(cmd);
    cmd.stdin(stdin.map_or_else(Stdio::null, Stdio::from))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = job
        .spawn(cmd)
        .and_then(|child| child.output_with_timeout(GIT_TIMEOUT))
        .map_err(std::io::Error::other)?;
    if out.finished.timed_out {
        return Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "did not finish within {} s and was killed",
                GIT_TIMEOUT.as_secs()
            ),
        ));
    }
    Ok(Output {
        status: out.finished.status,
        stdout: out.stdout,
        stderr: out.stderr,
    })
}

/// The directory of the `git` that `PATH` names, and of the file behind it when it is a link.
fn git_dirs() -> Vec<std::path::PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let Some(git) = std::env::split_paths(&path)
        .map(|d| d.join("git"))
        .find(|g| g.is_file())
    else {
        return Vec::new();
    };
    [Some(git.clone()), git.canonicalize().ok()]
        .into_iter()
        .flatten()
        .filter_map(|g| g.parent().map(Path::to_path_buf))
        .collect()
}

fn git(repo: &Path, args: &[&str]) -> Result<String, SchedulerError> {
    let out = git_bytes(repo, args, None)?;
    let err = |message: String| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    };
    String::from_utf8(out).map_err(|e| err(format!("output is not UTF-8: {e}")))
}

/// The stdout of `git <args>` on `repo` (fed `stdin`), an error with its stderr when it fails.
pub(crate) fn git_bytes(
    repo: &Path,
    args: &[&str],
    stdin: Option<File>,
) -> Result<Vec<u8>, SchedulerError> {
    let err = |message: String| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    };
    let mut cmd = git_command(repo);
    cmd.args(args);
    let out = git_output(repo, &mut cmd, stdin).map_err(|e| err(format!("git: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "{} ({})",
            String::from_utf8_lossy(&out.stderr).trim(),
            out.status
        )));
    }
    Ok(out.stdout)
}

/// The longest one git command of the scheduler or the daemon may take (each runs through
/// [`git_output`]): a repository on a hung network file system, or a huge commit to extract,
/// must not hold a job slot or a request for ever.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// The current HEAD commit of `repo` and whether it changed since `last_seen`.
pub fn poll_head(repo: &Path, last_seen: Option<&str>) -> Result<Head, SchedulerError> {
    let commit = git(repo, &["rev-parse", "--verify", "HEAD"])?
        .trim()
        .to_string();
    let changed = last_seen != Some(commit.as_str());
    Ok(Head { commit, changed })
}

/// Longest commit name accepted from a user; a full SHA-256 hash is 64 characters.
const MAX_COMMIT_NAME: usize = 256;

/// Resolves a user-given commit name (full or short hash, branch, tag, `HEAD~2`, ...) to the
/// full hash of a commit of `repo`. The name reaches git after `--end-of-options`, so a value
/// starting with `-` is a (bad) revision, never an option.
pub fn resolve_commit(repo: &Path, name: &str) -> Result<String, SchedulerError> {
    let bad = |message: String| SchedulerError::BadCommit {
        commit: name.to_string(),
        message,
    };
    if name.is_empty() {
        return Err(bad("it is empty".into()));
    }
    if name.len() > MAX_COMMIT_NAME {
        return Err(bad(format!("it is longer than {MAX_COMMIT_NAME} bytes")));
    }
    if name.chars().any(char::is_control) {
        return Err(bad("it contains control characters".into()));
    }
    let rev = format!("{name}^{{commit}}");
    let args = ["rev-parse", "--verify", "--quiet", "--end-of-options", &rev];
    let mut cmd = git_command(repo);
    cmd.args(args);
    // Git that could not run (missing, refused by the sandbox, timed out) is a git error; git
    // that ran and failed says the name is no commit.
    let out = git_output(repo, &mut cmd, None).map_err(|e| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message: format!("git: {e}"),
    })?;
    if !out.status.success() {
        return Err(bad("git rev-parse --verify names no commit by it".into()));
    }
    let out = String::from_utf8_lossy(&out.stdout);
    let full = out.trim();
    if !matches!(full.len(), 40 | 64) || !full.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad(format!(
            "git resolved it to `{full}`, not a commit hash"
        )));
    }
    Ok(full.to_string())
}

/// Files changed between two commits, relative to the repository root. Renames count as a
/// deletion plus an addition, so a file moved out of a crate changes that crate too.
pub fn changed_files(repo: &Path, from: &str, to: &str) -> Result<Vec<String>, SchedulerError> {
    let out = git(
        repo,
        &[
            "diff",
            "--no-textconv",
            "--no-ext-diff",
            "--name-only",
            "--no-renames",
            "-z",
            "--end-of-options",
            from,
            to,
            "--",
        ],
    )?;
    Ok(out
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

/// Ancestors of `commit` (full ids), nearest first, at most `max`, the commit itself excluded:
/// where the regression check looks for the previous suite.
pub fn ancestors(repo: &Path, commit: &str, max: usize) -> Result<Vec<String>, SchedulerError> {
    let count = format!("--max-count={}", max.saturating_add(1));
    let out = git(
        repo,
        &["rev-list", &count, "--end-of-options", commit, "--"],
    )?;
    Ok(out.lines().skip(1).map(str::to_string).collect())
}
