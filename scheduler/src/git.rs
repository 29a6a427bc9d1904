//! Polling repositories with the git CLI (no libgit2: one fewer C dependency, and the daemon's
//! host has git anyway since it runs the hooks).

use std::path::Path;
use std::process::{Command, Stdio};

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
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        // Hooks export these; they would point git at the hook's repository, not `repo`.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot start git: {e}")))?;
    if !out.status.success() {
        return Err(err(format!(
            "{} ({})",
            String::from_utf8_lossy(&out.stderr).trim(),
            out.status
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| err(format!("output is not UTF-8: {e}")))
}

/// The current HEAD commit of `repo` and whether it changed since `last_seen`.
pub fn poll_head(repo: &Path, last_seen: Option<&str>) -> Result<Head, SchedulerError> {
    let commit = git(repo, &["rev-parse", "--verify", "HEAD"])?
        .trim()
        .to_string();
    let changed = last_seen != Some(commit.as_str());
    Ok(Head { commit, changed })
}

/// Files changed between two commits, relative to the repository root. Renames count as a
/// deletion plus an addition, so a file moved out of a crate changes that crate too.
pub fn changed_files(repo: &Path, from: &str, to: &str) -> Result<Vec<String>, SchedulerError> {
    let out = git(
        repo,
        &["diff", "--name-only", "--no-renames", "-z", from, to, "--"],
    )?;
    Ok(out
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}
