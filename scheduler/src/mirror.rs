//! Repositories registered by URL (`https://`, `ssh://`, or `file://` under a configured root):
//! each node keeps a bare mirror of its own under its state directory, fetched before every
//! git read of the repository (a poll, a trigger, a job's snapshot), so every node of a fleet
//! can serve any repository without a shared file system.
//!
//! A fetch is confined as every git command of the daemon is ([`crate::git_command`]: no
//! command the config names, no hooks, a cleared environment) and runs in the sandbox with
//! only the mirror writable; only the URL's own transport is allowed, and only hosts the
//! admin lists (`jobs.git_hosts`) or paths under `jobs.repo_roots`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::SchedulerError;
use crate::git::{git_command, run_confined};

/// Where a node keeps its mirrors and what URLs it accepts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mirrors {
    /// The node's mirror directory (`<state_dir>/mirrors`).
    pub dir: PathBuf,
    /// Directories `file://` URLs may point into (`jobs.repo_roots`).
    pub roots: Vec<PathBuf>,
    /// Hosts `https://` and `ssh://` URLs may name (`jobs.git_hosts`).
    pub hosts: Vec<String>,
}

/// Whether a registered repository's `path` is a URL rather than a work tree on this host.
pub fn is_url(path: &str) -> bool {
    ["https://", "ssh://", "file://"]
        .iter()
        .any(|s| path.starts_with(s))
}

/// One fetch at a time per node: a poll and a job fetching one mirror at once would fight over
/// its ref locks.
static FETCHING: Mutex<()> = Mutex::new(());

/// The host of an `https://` or `ssh://` URL (without user and port).
fn host_of(rest: &str) -> &str {
    let authority = rest.split('/').next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    host.split(':').next().unwrap_or("")
}

impl Mirrors {
    /// Checks a URL against the node's rules; the reason when it is refused.
    pub fn check(&self, url: &str) -> Result<(), String> {
        if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(format!("`{url}` has spaces or control characters"));
        }
        if let Some(path) = url.strip_prefix("file://") {
            let path = Path::new(path);
            let real = path
                .canonicalize()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if !self
                .roots
                .iter()
                .any(|r| r.canonicalize().is_ok_and(|root| real.starts_with(&root)))
            {
                return Err(format!(
                    "{} is outside jobs.repo_roots ({}): file:// URLs may name repositories only \
                     under the roots the admin lists",
                    real.display(),
                    if self.roots.is_empty() {
                        "none set".to_string()
                    } else {
                        self.roots
                            .iter()
                            .map(|r| r.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ));
            }
            return Ok(());
        }
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("ssh://"))
            .ok_or_else(|| format!("`{url}` is neither an https://, ssh:// nor file:// URL"))?;
        let host = host_of(rest);
        if host.is_empty() || !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return Err(format!(
                "host `{host}` is not in jobs.git_hosts: the daemon fetches only from hosts the \
                 admin lists"
            ));
        }
        Ok(())
    }

    /// This node's mirror of `url`.
    pub fn mirror_of(&self, url: &str) -> PathBuf {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in url.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.dir.join(format!("{h:016x}.git"))
    }

    /// The git directory to read a registered repository from: its work tree, or for a URL
    /// this node's mirror, fetched first.
    pub fn git_dir(&self, path: &str) -> Result<PathBuf, SchedulerError> {
        if !is_url(path) {
            return Ok(PathBuf::from(path));
        }
        self.check(path).map_err(|message| SchedulerError::Git {
            repo: PathBuf::from(path),
            args: "fetch".to_string(),
            message,
        })?;
        let dir = self.mirror_of(path);
        self.fetch(path, &dir)?;
        Ok(dir)
    }

    /// Creates or updates the mirror `dir` of `url`: its branches and tags, and `HEAD` pointing
    /// at the branch the remote's `HEAD` names.
    fn fetch(&self, url: &str, dir: &Path) -> Result<(), SchedulerError> {
        let _one = FETCHING.lock().unwrap_or_else(|e| e.into_inner());
        let fail = |args: &str, message: String| SchedulerError::Git {
            repo: PathBuf::from(url),
            args: args.to_string(),
            message,
        };
        if !dir.join("HEAD").exists() {
            std::fs::create_dir_all(dir)
                .map_err(|e| fail("init", format!("create {}: {e}", dir.display())))?;
            self.run(url, dir, &["init", "--bare", "-q"])
                .map_err(|m| fail("init --bare", m))?;
        }
        self.run(
            url,
            dir,
            &[
                "fetch",
                "--prune",
                "--force",
                "--no-write-fetch-head",
                url,
                "+refs/heads/*:refs/heads/*",
                "+refs/tags/*:refs/tags/*",
            ],
        )
        .map_err(|m| fail("fetch", m))?;
        let head = self
            .run(url, dir, &["ls-remote", "--symref", url, "HEAD"])
            .map_err(|m| fail("ls-remote --symref", m))?;
        if let Some(branch) = head
            .lines()
            .find_map(|l| l.strip_prefix("ref: ")?.split('\t').next())
            .filter(|b| b.starts_with("refs/heads/"))
        {
            self.run(url, dir, &["symbolic-ref", "HEAD", branch])
                .map_err(|m| fail("symbolic-ref", m))?;
        }
        Ok(())
    }

    /// Runs git on the mirror, confined: the mirror writable, the `file://` root readable or the
    /// network allowed, only the URL's transport; stdout, or stderr as the error.
    fn run(&self, url: &str, dir: &Path, args: &[&str]) -> Result<String, String> {
        let mut cmd: Command = git_command(dir);
        let scheme = url.split("://").next().unwrap_or("");
        cmd.arg("-c").arg("protocol.allow=never");
        cmd.arg("-c").arg(format!("protocol.{scheme}.allow=always"));
        if scheme == "ssh" {
            cmd.arg("-c")
                .arg("core.sshCommand=ssh -o BatchMode=yes -o StrictHostKeyChecking=yes");
        }
        cmd.args(args);
        let mut policy = frugal_sandbox::Policy::new().writable(dir);
        if let Some(path) = url.strip_prefix("file://") {
            policy = policy.readable(path);
            if let Ok(real) = Path::new(path).canonicalize() {
                policy = policy.readable(real);
            }
        } else {
            policy = policy.with_network();
        }
        let out = run_confined(policy, &mut cmd, None).map_err(|e| format!("git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{} ({})",
                String::from_utf8_lossy(&out.stderr).trim(),
                out.status
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_against_the_admin_s_hosts_and_roots() {
        let m = Mirrors {
            dir: PathBuf::from("/tmp/m"),
            roots: vec![PathBuf::from("/")],
            hosts: vec!["git.example.org".to_string()],
        };
        assert!(m.check("https://git.example.org/team/repo.git").is_ok());
        assert!(
            m.check("ssh://git@git.example.org:2222/team/repo.git")
                .is_ok()
        );
        assert!(m.check("https://evil.example.com/x.git").is_err());
        assert!(
            m.check("https://git.example.org@evil.example.com/x")
                .is_err()
        );
        assert!(m.check("ftp://git.example.org/x").is_err());
        assert!(m.check("https://git.example.org/a b").is_err());
        assert!(m.check("file:///").is_ok());
        let none = Mirrors::default();
        assert!(none.check("file:///").is_err());
        assert!(is_url("file:///srv/x") && !is_url("/srv/x"));
        assert_ne!(m.mirror_of("https://a/x"), m.mirror_of("https://a/y"));
    }
}
