//! Polling repositories with the git CLI (no libgit2: one fewer C dependency, and the daemon's
//! host has git anyway since it runs the hooks).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::SchedulerError;

/// What a poll saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Full commit id of HEAD.
    pub commit: String,
    /// Whether it differs from the last commit seen (true on the first poll).
    pub changed: bool,
}

/// `git -c safe.directory=<repo> -C <repo>`: every git command the daemon runs on a registered
/// repository starts so (run it with `frugal_sandbox::output_in_group` and [`GIT_TIMEOUT`]).
///
/// Decision: the daemon runs as its own user, and git refuses repositories other users own
/// ("dubious ownership") unless `safe.directory` names them in a protected scope (system,
/// global or command line). Passing it on each command, for exactly the repository the command
/// works on, needs no git config file to keep in step with registrations and removals, does not
/// depend on `$HOME`, and trusts nothing else. Registration runs through here as well.
pub fn git_command(repo: &Path) -> Command {
    let mut trusted = std::ffi::OsString::from("safe.directory=");
    trusted.push(repo.as_os_str());
    let mut cmd = Command::new("git");
    cmd.arg("-c")
        .arg(trusted)
        .arg("-C")
        .arg(repo)
        // Hooks export these; they would point git at the hook's repository, not `repo`.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    cmd
}

fn git(repo: &Path, args: &[&str]) -> Result<String, SchedulerError> {
    let err = |message: String| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    };
    let mut cmd = git_command(repo);
    cmd.args(args);
    let out = frugal_sandbox::output_in_group(&mut cmd, GIT_TIMEOUT)
        .map_err(|e| err(format!("git: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "{} ({})",
            String::from_utf8_lossy(&out.stderr).trim(),
            out.status
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| err(format!("output is not UTF-8: {e}")))
}

/// The longest one git (or tar) command of the scheduler or the daemon may take (each runs
/// through `frugal_sandbox::output_in_group`): a repository on a hung network
/// file system, or a huge archive, must not hold a job slot or a request for ever.
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
    let out = git(
        repo,
        &["rev-parse", "--verify", "--quiet", "--end-of-options", &rev],
    )
    .map_err(|e| match e {
        SchedulerError::Git { message, .. } if !message.starts_with("cannot start git") => {
            bad("git rev-parse --verify names no commit by it".into())
        }
        other => other,
    })?;
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
