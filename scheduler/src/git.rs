//! Polling repositories with the git CLI (no libgit2: one fewer C dependency, and the daemon's
//! host has git anyway since it runs the hooks).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::SchedulerError;

/// What a poll saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Full commit id of HEAD.
    pub commit: String,
    /// Whether it differs from the last commit seen (true on the first poll).
    pub changed: bool,
}

fn git(repo: &Path, args: &[&str]) -> Result<String, SchedulerError> {
    let err = |message: String| SchedulerError::Git {
        repo: repo.to_path_buf(),
        args: args.join(" "),
        message,
    };
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(repo)
        .args(args)
        // Hooks export these; they would point git at the hook's repository, not `repo`.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    let out = output_within(&mut cmd, GIT_TIMEOUT).map_err(|e| err(format!("git: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "{} ({})",
            String::from_utf8_lossy(&out.stderr).trim(),
            out.status
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| err(format!("output is not UTF-8: {e}")))
}

/// The longest one git (or tar) command of the daemon may take: a repository on a hung network
/// file system, or a huge archive, must not hold a job slot or a request for ever.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `cmd` (stdin closed, stdout and stderr captured) in its own process group,
/// and kills the group when it has not finished within `timeout` (an error of kind
/// `TimedOut`). Every git and tar command of the scheduler and the daemon runs through it.
pub fn output_within(cmd: &mut Command, timeout: Duration) -> std::io::Result<Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            // SAFETY: kill(2) on our child's process group; no memory is touched.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "did not finish within {} s and was killed",
                    timeout.as_secs()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

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

#[cfg(test)]
mod timeout_tests {
    use super::*;

    #[test]
    fn a_hanging_command_and_its_group_are_killed_at_the_timeout() {
        let started = Instant::now();
        let r = output_within(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30"]),
            Duration::from_millis(300),
        );
        assert_eq!(
            r.map(|_| ()).unwrap_err().kind(),
            std::io::ErrorKind::TimedOut
        );
        // The background sleep held stdout open: the drain would hang had it survived.
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
