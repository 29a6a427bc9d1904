//! The confined environment: the parent's variables (a token, say) and the ones set on the
//! command never reach the child; only the policy's allow-list and its own variables do, and
//! `HOME` is the job's scratch home.

mod common;

use common::Job;

#[test]
fn parent_secrets_do_not_reach_the_child() {
    // SAFETY: the only test in this binary, set before any thread is spawned by it.
    unsafe { std::env::set_var("FRUGAL_TOKEN", "process-env-token") };
    let job = Job::new();
    let policy = job.policy.clone().env("HARNESS_CONTROL", "on");
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.env("FRUGAL_TOKEN", "command-env-token")
        .env("OTHER_SECRET", "x1");
    cmd.arg("-c").arg("env");
    cmd.stdout(std::process::Stdio::piped());
    let child_job = policy.apply(&mut cmd).unwrap();
    let child = child_job.spawn(&mut cmd).unwrap();
    let out = child
        .output_with_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    let env = String::from_utf8_lossy(&out.stdout);
    assert!(!env.contains("token"), "{env}");
    assert!(!env.contains("FRUGAL_"), "{env}");
    assert!(!env.contains("OTHER_SECRET"), "{env}");
    assert!(env.contains("HARNESS_CONTROL=on"), "{env}");
    let home = format!("HOME={}", job.scratch().join("home").display());
    assert!(env.lines().any(|l| l == home), "{env}");
}
