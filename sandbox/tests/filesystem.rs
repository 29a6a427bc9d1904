//! Filesystem confinement: confined code cannot read, delete or truncate files outside the
//! job's dirs, nor list `$CARGO_HOME/git` when the policy turns it off; its scratch dir stays
//! writable. Tests skip where Landlock is missing.

mod common;

use std::path::Path;

use common::{Job, need_fs, sh_with, skip};

#[test]
fn canary_outside_cannot_be_deleted_or_truncated() {
    if !need_fs("canary_outside_cannot_be_deleted_or_truncated") {
        return;
    }
    let job = Job::new();
    let canary = job.canary();
    let out = job.sh(
        "rm -f \"$1\"; (: > \"$1\"); (echo x >> \"$1\"); true",
        &[&canary],
    );
    assert!(out.finished.status.success());
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "canary-content");
    // Refused by Landlock, or (where the child gets a private mount namespace) not there at
    // all, the outside dir lying under the hidden /tmp: either way the canary stays.
    job.sh("rm -rf \"$1\"", &[job.outside()]);
    assert!(canary.exists());
}

#[test]
fn writing_elsewhere_fails_and_scratch_works() {
    if !need_fs("writing_elsewhere_fails_and_scratch_works") {
        return;
    }
    let job = Job::new();
    let elsewhere = job.outside().join("new-file");
    let inside = job.scratch().join("new-file");
    let out = job.sh("echo a > \"$1\"", &[&elsewhere]);
    assert!(!out.finished.status.success());
    assert!(!elsewhere.exists());
    let out = job.sh(
        "mkdir \"$1.d\" && echo a > \"$1\" && mv \"$1\" \"$1.d/f\"",
        &[&inside],
    );
    assert!(out.finished.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(job.scratch().join("new-file.d/f")).unwrap(),
        "a\n"
    );
    // TMPDIR and HOME are private and writable.
    let out = job.sh("echo t > \"$TMPDIR/t\" && echo h > \"$HOME/h\"", &[]);
    assert!(out.finished.status.success(), "{out:?}");
}

#[test]
fn secret_outside_cannot_be_read() {
    if !need_fs("secret_outside_cannot_be_read") {
        return;
    }
    let job = Job::new();
    let secret = job.outside().join("secret");
    std::fs::write(&secret, "s3cr3t-value").unwrap();
    let out = job.sh("cat \"$1\"; ls \"$2\"", &[&secret, job.outside()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("s3cr3t-value"));
    assert!(
        !stdout.contains("secret"),
        "directory listing leaked: {stdout}"
    );
    assert!(!out.finished.status.success());
}

/// `$CARGO_HOME/git` holds the checkouts of every git dependency fetched with this
/// `$CARGO_HOME`, other users' included: a policy (or its job scope) that turns it off leaves
/// confined code unable to list it, while the registry's sources stay readable.
#[test]
fn cargo_git_dir_is_unreadable_where_the_policy_turns_it_off() {
    let test = "cargo_git_dir_is_unreadable_where_the_policy_turns_it_off";
    if !need_fs(test) {
        return;
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(git) = cargo_home.map(|h| h.join("git")).filter(|g| g.is_dir()) else {
        return skip(test, "no $CARGO_HOME/git here");
    };
    // Where a readable system dir holds `$CARGO_HOME` (`/usr/local/cargo`), Landlock cannot
    // take it back out: the policy says so, this host cannot show it.
    if ["/usr", "/etc", "/opt", "/nix"]
        .iter()
        .any(|d| git.starts_with(d))
    {
        return skip(test, "$CARGO_HOME lies in a dir the sandbox opens anyway");
    }
    let job = Job::new();
    let listing = |policy: &frugal_sandbox::Policy| sh_with(policy, "ls \"$1\"", &[&git]);
    let open = listing(&job.policy.clone().cargo_git_readable(true));
    assert!(open.finished.status.success(), "{open:?}");
    let shut = listing(&job.policy.clone().cargo_git_readable(false));
    assert!(!shut.finished.status.success(), "{shut:?}");
    assert!(shut.stdout.is_empty(), "listed: {shut:?}");
    // A scope that turns it off does so for every policy made in it.
    let scope = frugal_sandbox::JobScope::new(Default::default()).cargo_git_readable(false);
    let entered = scope.enter();
    let s = job.scratch();
    let policy = frugal_sandbox::Policy::for_job(s, s.join("target"), s.join("crate")).unwrap();
    drop(entered);
    let in_scope = listing(&policy);
    assert!(!in_scope.finished.status.success(), "{in_scope:?}");
}
