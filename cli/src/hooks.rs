//! Git hooks that tell `frugald` about new commits: `post-commit`, `post-merge` and
//! `post-receive`, each calling `frugal trigger --hook <repo>`.
//!
//! A hook must never slow down or break a git operation, whatever state the daemon is in: the
//! call runs in the background with its output discarded, under `timeout` when it exists, and
//! the script exits 0. The `frugal` binary is called by the absolute path recorded at install
//! time, because git runs hooks with whatever PATH the committer has. A hook that was there
//! before (and is not ours) is kept as `<name>.pre-frugal` and still runs first.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The hooks frugal installs.
pub const HOOKS: &[&str] = &["post-commit", "post-merge", "post-receive"];

/// Marks a script as ours, so reinstalling replaces it instead of chaining it.
const MARKER: &str = "# frugal-hook v1";

/// Seconds a hook's trigger may take before it is killed.
const TRIGGER_TIMEOUT_S: u32 = 10;

/// What to put in the hooks.
#[derive(Clone, Debug)]
pub struct HookSpec {
    /// Absolute path of the `frugal` binary.
    pub frugal: PathBuf,
    /// Absolute path of the repository as registered.
    pub repo: PathBuf,
    /// `--config` to pass, if the installer was given one.
    pub config: Option<PathBuf>,
    /// `--url` to pass, if the installer was given one.
    pub url: Option<String>,
}

/// The hooks directory of a repository (honours `core.hooksPath`, works for bare repositories).
pub fn hooks_dir(repo: &Path) -> anyhow::Result<PathBuf> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--git-path", "hooks"])
        .output()
        .context("run git (is it installed?)")?;
    if !out.status.success() {
        bail!(
            "{} is not a git repository: {}",
            repo.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let rel = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    Ok(if rel.is_absolute() {
        rel
    } else {
        repo.join(rel)
    })
}

/// Single-quotes a string for `sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script of one hook.
pub fn script(name: &str, spec: &HookSpec) -> String {
    let mut cmd = vec![sh_quote(&spec.frugal.to_string_lossy())];
    if let Some(c) = &spec.config {
        cmd.push("--config".into());
        cmd.push(sh_quote(&c.to_string_lossy()));
    }
    if let Some(u) = &spec.url {
        cmd.push("--url".into());
        cmd.push(sh_quote(u));
    }
    cmd.extend(["trigger".into(), "--hook".into()]);
    cmd.push(sh_quote(&spec.repo.to_string_lossy()));
    let cmd = cmd.join(" ");
    // post-receive gets the pushed refs on stdin: keep them for a chained hook, and read them so
    // git never blocks writing to us.
    let (read_input, chain) = if name == "post-receive" {
        (
            "input=$(cat)\n",
            "[ -x \"$0.pre-frugal\" ] && printf '%s\\n' \"$input\" | \"$0.pre-frugal\" \"$@\"\n",
        )
    } else {
        ("", "[ -x \"$0.pre-frugal\" ] && \"$0.pre-frugal\" \"$@\"\n")
    };
    format!(
        "#!/bin/sh\n\
         {MARKER}\n\
         # Installed by `frugal hooks install`: asks frugald to regenerate test suites after this\n\
         # git operation. It runs in the background, bounded and silent, and always exits 0, so\n\
         # git never waits for or fails because of frugald.\n\
         {read_input}{chain}\
         (\n  \
           if command -v timeout >/dev/null 2>&1; then t=\"timeout {TRIGGER_TIMEOUT_S}\"; else t=; fi\n  \
           $t {cmd}\n\
         ) </dev/null >/dev/null 2>&1 &\n\
         exit 0\n"
    )
}

/// Installs the hooks; returns the paths written.
pub fn install(spec: &HookSpec) -> anyhow::Result<Vec<PathBuf>> {
    let dir = hooks_dir(&spec.repo)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
    let mut written = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        keep_foreign_hook(&path)?;
        std::fs::write(&path, script(name, spec))
            .with_context(|| format!("write the hook {}", path.display()))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("make {} executable", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Moves a hook that is not ours aside so ours can chain it.
fn keep_foreign_hook(path: &Path) -> anyhow::Result<()> {
    let Ok(text) = std::fs::read(path) else {
        return Ok(());
    };
    if String::from_utf8_lossy(&text).contains(MARKER) {
        return Ok(());
    }
    let mut aside = path.as_os_str().to_owned();
    aside.push(".pre-frugal");
    std::fs::rename(path, &aside)
        .with_context(|| format!("keep the existing hook {} aside", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(repo: &Path) -> HookSpec {
        HookSpec {
            frugal: PathBuf::from("/opt/frugal's/frugal"),
            repo: repo.to_path_buf(),
            config: Some(PathBuf::from("/etc/frugal/frugal.toml")),
            url: None,
        }
    }

    #[test]
    fn the_script_backgrounds_a_bounded_call_and_exits_zero() {
        let s = script("post-commit", &spec(Path::new("/srv/r")));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(
            "'/opt/frugal'\\''s/frugal' --config '/etc/frugal/frugal.toml' trigger --hook '/srv/r'"
        ));
        assert!(s.contains(") </dev/null >/dev/null 2>&1 &\n"));
        assert!(s.trim_end().ends_with("exit 0"));
    }

    #[test]
    fn install_keeps_a_foreign_hook_and_replaces_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(ok.success());
        let hooks = hooks_dir(dir.path()).unwrap();
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(hooks.join("post-merge"), "#!/bin/sh\necho mine\n").unwrap();
        install(&spec(dir.path())).unwrap();
        install(&spec(dir.path())).unwrap();
        let kept = std::fs::read_to_string(hooks.join("post-merge.pre-frugal")).unwrap();
        assert_eq!(kept, "#!/bin/sh\necho mine\n");
        for h in HOOKS {
            let text = std::fs::read_to_string(hooks.join(h)).unwrap();
            assert!(text.contains(MARKER));
        }
    }

    /// Runs a script this test just wrote. Another test thread forking at that moment can hold
    /// the script's write descriptor until its exec, and Linux refuses to run a file open for
    /// writing (ETXTBSY): retry briefly instead of failing on that race.
    fn run_fresh_script(path: &std::path::Path) -> std::process::ExitStatus {
        for _ in 0..100 {
            match Command::new(path).status() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => return other.expect("run the hook"),
            }
        }
        panic!("{} stayed busy", path.display());
    }

    #[test]
    fn a_hook_returns_at_once_and_succeeds_when_the_daemon_is_down() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec(dir.path());
        // A "frugal" that would hang: the hook must not wait for it.
        let slow = dir.path().join("slow-frugal");
        std::fs::write(&slow, "#!/bin/sh\nsleep 30\nexit 3\n").unwrap();
        std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
        s.frugal = slow;
        let hook = dir.path().join("post-commit");
        std::fs::write(&hook, script("post-commit", &s)).unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let t = std::time::Instant::now();
        let status = run_fresh_script(&hook);
        assert!(status.success());
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
