//! Shared set-up: a job scratch dir (allowed) and an outside dir (not allowed), both
//! private temp dirs, so even a sandbox bug can only hurt the test's own files.
#![expect(dead_code, reason = "each test binary uses only some of these helpers")]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use frugal_sandbox::{Capabilities, ConfinedOutput, Policy};

pub fn caps() -> &'static Capabilities {
    static CAPS: OnceLock<Capabilities> = OnceLock::new();
    CAPS.get_or_init(Capabilities::probe)
}

/// Prints why a test does not run here; the caller returns.
pub fn skip(test: &str, reason: &str) {
    eprintln!("SKIPPED {test}: {reason}");
}

pub fn need_fs(test: &str) -> bool {
    if caps().fs_confined() {
        true
    } else {
        skip(test, "no filesystem confinement (Landlock) on this kernel");
        false
    }
}

pub struct Job {
    pub scratch: tempfile::TempDir,
    pub outside: tempfile::TempDir,
    pub policy: Policy,
}

impl Job {
    pub fn new() -> Job {
        let scratch = tempfile::tempdir().expect("scratch");
        let outside = tempfile::tempdir().expect("outside");
        let s = scratch.path();
        let policy = Policy::for_job(s, s.join("target"), s.join("crate"))
            .expect("policy")
            .timeout(Duration::from_secs(60));
        Job {
            scratch,
            outside,
            policy,
        }
    }

    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    pub fn outside(&self) -> &Path {
        self.outside.path()
    }

    /// A canary file outside the allowed dirs.
    pub fn canary(&self) -> PathBuf {
        let p = self.outside().join("canary");
        std::fs::write(&p, "canary-content").expect("canary");
        p
    }

    /// Runs `sh -c script` confined, with `$1`, `$2`, ... from `args`.
    pub fn sh(&self, script: &str, args: &[&Path]) -> ConfinedOutput {
        sh_with(&self.policy, script, args)
    }
}

pub fn sh_with(policy: &Policy, script: &str, args: &[&Path]) -> ConfinedOutput {
    let mut cmd = policy.command("/bin/sh").expect("command");
    cmd.arg("-c").arg(script).arg("sh").args(args);
    cmd.output().expect("output")
}

/// Live processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> usize {
    frugal_testkit::processes(|argv| {
        argv.iter()
            .any(|a| String::from_utf8_lossy(a).contains(marker))
    })
    .len()
}
