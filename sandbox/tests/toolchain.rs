//! The toolchain under confinement: `cargo` and `rustc` run, a crate with a build script builds
//! offline, and the host's capabilities are reported.

mod common;

use std::time::Duration;

use common::{Job, caps, skip};

#[test]
fn cargo_and_rustc_report_versions() {
    let job = Job::new();
    for tool in ["cargo", "rustc"] {
        let mut cmd = job.policy.command(tool).unwrap();
        cmd.arg("--version");
        let out = cmd.output().unwrap();
        assert!(out.finished.status.success(), "{tool}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(tool));
    }
}

#[test]
fn tiny_crate_builds_offline() {
    let job = Job::new();
    let krate = job.scratch().join("crate");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n",
    )
    .unwrap();
    // A build script is exactly the kind of code the sandbox exists for.
    std::fs::write(
        krate.join("build.rs"),
        "fn main() { println!(\"cargo:rustc-env=TINY=1\"); }\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        "fn main() { println!(\"tiny {}\", env!(\"TINY\")); }\n",
    )
    .unwrap();
    let target = job.scratch().join("target");
    let policy = job
        .policy
        .clone()
        .env("CARGO_TARGET_DIR", &target)
        .timeout(Duration::from_secs(300));
    let mut cmd = policy.command("cargo").unwrap();
    cmd.args(["run", "--offline", "-q"]).current_dir(&krate);
    let out = cmd.output().unwrap();
    assert!(
        out.finished.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "tiny 1\n");
    assert_eq!(out.finished.survivors, 0);
}

#[test]
fn capabilities_report() {
    let c = caps();
    for line in c.report() {
        eprintln!("capability: {line}");
    }
    if c.landlock_abi.is_none() {
        return skip("capabilities_report", "no Landlock");
    }
    assert!(c.fs_confined(), "{c:?}");
}
