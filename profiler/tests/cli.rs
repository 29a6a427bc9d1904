//! `frugal profile` (the daemon's `profile_cmd.rs`, compiled into the `frugal-profile` example)
//! as a process: flags, JSON output, the FRUGAL_VALGRIND variable.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use frugal_profiler::report::{Report, SCHEMA_VERSION};

/// The example binary; `cargo test` builds examples into `target/<profile>/examples`, one level
/// above this test's `deps` directory.
fn frugal_profile() -> Command {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let example = profile_dir.join("examples").join("frugal-profile");
    assert!(example.is_file(), "{} not built", example.display());
    let mut command = Command::new(example);
    command.env("FRUGAL_LAUNCH", env!("CARGO_BIN_EXE_frugal-launch"));
    command
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures")
}

#[test]
fn json_output_is_a_report() {
    let output = frugal_profile()
        .arg(common::fixture("costs"))
        .args([
            "--release",
            "--repeat",
            "2",
            "--filter",
            "alloc_nothing",
            "--json",
        ])
        .arg("--target-dir")
        .arg(target_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Report = serde_json::from_slice(&output.stdout).expect("JSON report on stdout");
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    assert_eq!(report.repeat, 2);
    assert_eq!(report.tests.len(), 1);
    assert!(stderr.contains("building the tests of `costs`"), "{stderr}");
}

#[test]
fn table_output_and_suite_flag() {
    let output = frugal_profile()
        .arg(common::fixture("costs"))
        .args(["--release", "--repeat", "1", "--suite", "generated"])
        .arg("--target-dir")
        .arg(target_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("test:frugal_generated generated_spin"),
        "{stdout}"
    );
    assert!(stdout.contains("cost basis:"), "{stdout}");
}

#[test]
fn frugal_valgrind_pointing_nowhere_is_a_clear_error() {
    let output = frugal_profile()
        .arg(common::fixture("costs"))
        .arg("--valgrind")
        .env("FRUGAL_VALGRIND", "/nonexistent/valgrind")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("apt-get install valgrind"), "{stderr}");
    assert!(stderr.contains("/nonexistent/valgrind"), "{stderr}");
}

#[test]
fn repeat_zero_is_rejected_by_the_parser() {
    let output = frugal_profile()
        .arg(common::fixture("costs"))
        .args(["--repeat", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
}
