//! A job's snapshot of a commit: the files carry the time they were extracted, not the
//! commit's, so the job's kept build dirs (cargo compares file times) never mistake a commit
//! stamped before their last build for code they already built.

use std::process::Command;
use std::time::{Duration, SystemTime};

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@localhost")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@localhost")
        // A commit from 2001: an extraction keeping commit times (`git archive`) would stamp
        // every file with it.
        .env("GIT_AUTHOR_DATE", "2001-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2001-01-01T00:00:00Z")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn snapshot_files_are_stamped_when_extracted_not_when_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "old"]);
    let commit = git(&repo, &["rev-parse", "HEAD"]);

    let dest = tmp.path().join("snapshot");
    let before = SystemTime::now() - Duration::from_secs(60);
    frugal_scheduler::snapshot(&repo, &commit, &dest).unwrap();
    let modified = std::fs::metadata(dest.join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(
        modified > before,
        "the snapshot's file carries the commit's time {modified:?}"
    );
}

/// The snapshot holds what `git archive` gave: regular files, executables, links inside the
/// repository and empty submodule dirs; a link leading out of it fails the extraction.
#[test]
fn snapshot_keeps_executables_and_inner_links_and_refuses_links_out() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::write(repo.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(repo.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("lib.rs", repo.join("src/alias.rs")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "inside"]);
    let inside = git(&repo, &["rev-parse", "HEAD"]);
    let dest = tmp.path().join("snapshot");
    frugal_scheduler::snapshot(&repo, &inside, &dest).unwrap();
    let mode = |p: &str| {
        std::fs::metadata(dest.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("src/lib.rs"), 0o644);
    assert_eq!(
        std::fs::read_link(dest.join("src/alias.rs")).unwrap(),
        std::path::Path::new("lib.rs")
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("src/alias.rs")).unwrap(),
        "pub fn f() {}\n"
    );

    let secret = tmp.path().join("secret");
    std::fs::write(&secret, "s\n").unwrap();
    std::os::unix::fs::symlink(&secret, repo.join("Cargo.toml")).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "outside"]);
    let outside = git(&repo, &["rev-parse", "HEAD"]);
    let err = format!(
        "{:#}",
        frugal_scheduler::snapshot(&repo, &outside, &dest).unwrap_err()
    );
    assert!(
        err.contains("Cargo.toml") && err.contains("outside"),
        "{err}"
    );
}
