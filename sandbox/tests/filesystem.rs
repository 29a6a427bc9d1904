mod common;

use common::{Job, need_fs};

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
