//! `frugal profile` as a process: flags, JSON output, the FRUGAL_VALGRIND variable.

use std::path::{Path, PathBuf};
use std::process::Command;

use frugal_profiler::report::{Report, SCHEMA_VERSION};
use frugal_testkit::{binaries, workspace};

/// `frugal profile`, with the launcher built beside it.
fn frugal_profile() -> Command {
    let bins = binaries();
    let mut command = Command::new(&bins.frugal);
    command.arg("profile").env("FRUGAL_LAUNCH", &bins.launcher);
    command
}

/// A fixture crate of the profiler's tests.
fn fixture(name: &str) -> PathBuf {
    workspace().join("profiler/tests/fixtures").join(name)
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures")
}

/// `frugal profile costs --release --json <args>` must succeed: its report and its stderr.
fn json_report(args: &[&str]) -> (Report, String) {
    let output = frugal_profile()
        .arg(fixture("costs"))
        .args(["--release", "--json"])
        .args(args)
        .arg("--target-dir")
        .arg(target_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let report = serde_json::from_slice(&output.stdout).expect("JSON report on stdout");
    (report, stderr)
}

#[test]
fn json_output_is_a_report() {
    let (report, stderr) = json_report(&["--repeat", "2", "--filter", "alloc_nothing"]);
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    assert_eq!(report.repeat, 2);
    assert_eq!(report.tests.len(), 1);
    assert!(stderr.contains("building the tests of `costs`"), "{stderr}");
}

#[test]
fn table_output_and_suite_flag() {
    let output = frugal_profile()
        .arg(fixture("costs"))
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

/// Tests behind a feature are built and measured with `--features` (before: `frugal profile`
/// had no feature flags, so a suite for a feature-gated API did not even build).
#[test]
fn features_reach_the_build() {
    let tests_with = |features: &[&str]| {
        let mut args = vec!["--repeat", "1", "--suite", "generated"];
        args.extend(["--filter", "gated_by_a_feature"]);
        args.extend(features);
        json_report(&args).0.tests.len()
    };
    assert_eq!(tests_with(&[]), 0);
    assert_eq!(tests_with(&["--features", "gated"]), 1);
    assert_eq!(tests_with(&["--all-features"]), 1);
}

#[test]
fn frugal_valgrind_pointing_nowhere_is_a_clear_error() {
    let output = frugal_profile()
        .arg(fixture("costs"))
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
        .arg(fixture("costs"))
        .args(["--repeat", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
}

/// A `frugal` installed alone (as `cargo install --path cli` or `cargo run -p frugal` leave it,
/// with no `frugal-launch` beside it) is its own launcher: every test is measured.
#[test]
fn a_lone_frugal_binary_is_its_own_launcher() {
    let alone = tempfile::tempdir().unwrap();
    let frugal = alone.path().join("frugal");
    std::fs::copy(&binaries().frugal, &frugal).unwrap();
    let output = Command::new(&frugal)
        .args([
            "profile",
            "--release",
            "--json",
            "--repeat",
            "1",
            "--filter",
            "alloc_nothing",
        ])
        .arg(fixture("costs"))
        .arg("--target-dir")
        .arg(target_dir())
        .env_remove("FRUGAL_LAUNCH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Report = serde_json::from_slice(&output.stdout).expect("JSON report on stdout");
    assert_eq!(report.tests.len(), 1);
    assert!(
        report.tests.iter().all(|t| t.passes() == 1),
        "{:?}",
        report.tests
    );
    assert_eq!(report.suite_cost().measured, 1, "{stderr}");
}

/// `--ci-cost`: what CI pays for the generated suite and for the crate's own tests, side by
/// side: a clean build, a build after a one-line change, and runs under `cargo test` and
/// `cargo nextest run`. Measured on copies: the crate itself is left as it was.
#[test]
fn ci_cost_measures_builds_and_runs_of_both_suites_on_a_copy() {
    let root = fixture("costs").join("src/lib.rs");
    let before = std::fs::read(&root).unwrap();
    let output = frugal_profile()
        .arg(fixture("costs"))
        .args(["--ci-cost", "--suite", "both", "--repeat", "1", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let costs: Vec<frugal_profiler::CiCost> =
        serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let suites: Vec<&str> = costs.iter().map(|c| c.suite.as_str()).collect();
    assert_eq!(suites, ["generated", "existing"]);
    assert_eq!(costs[0].targets, ["--test", "frugal_generated"]);
    assert!(costs[1].targets.contains(&"--lib".to_string()), "{costs:?}");
    assert!(!costs[1].targets.contains(&"frugal_generated".to_string()));
    for c in &costs {
        assert!(
            c.build_clean_seconds > 0.0 && c.build_clean_cpu_seconds > 0.0,
            "{c:?}"
        );
        assert!(c.build_incremental_seconds > 0.0, "{c:?}");
        let test = c.cargo_test.as_ref().expect("cargo test ran");
        assert!(test.passed && test.wall_seconds > 0.0, "{c:?}");
        // cargo-nextest is optional on a host; without it the figure is missing with the reason.
        match &c.nextest {
            Some(n) => assert!(n.passed && n.wall_seconds > 0.0, "{c:?}"),
            None => assert!(c.notes.iter().any(|n| n.contains("nextest")), "{c:?}"),
        }
    }
    assert_eq!(
        std::fs::read(&root).unwrap(),
        before,
        "the crate was changed"
    );
}

/// `--ci-cost` on a suite placed inside the crate: it shares the own tests' binary, so each side
/// runs only its tests by name (`--filter` for frugal's module, `--skip` for the own tests),
/// and a failing own test does not count against the suite beside it.
#[test]
fn ci_cost_tells_an_in_crate_suite_from_the_own_tests_by_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"in_crate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn one() -> u8 { 1 }\n\
         #[cfg(test)]\nmod own { #[test] fn own_fails() { panic!(\"the own suite's failure\") } }\n\
         #[cfg(test)]\nmod frugal_generated { #[test] fn one_is_one() { assert_eq!(super::one(), 1) } }\n",
    )
    .unwrap();
    let cost = |args: &[&str]| -> frugal_profiler::CiCost {
        let output = frugal_profile()
            .arg(dir.path())
            .args(["--ci-cost", "--repeat", "1", "--json"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let mut costs: Vec<frugal_profiler::CiCost> =
            serde_json::from_slice(&output.stdout).expect("JSON on stdout");
        costs.remove(0)
    };
    let passed =
        |c: &frugal_profiler::CiCost| c.cargo_test.as_ref().expect("cargo test ran").passed;
    let generated = cost(&["--suite", "generated", "--filter", "frugal_generated::"]);
    assert_eq!(generated.targets, ["--lib"]);
    assert!(
        passed(&generated),
        "only the module's test ran: {generated:?}"
    );
    assert!(
        generated
            .notes
            .iter()
            .any(|n| n.contains("frugal_generated::"))
    );
    let others = cost(&["--suite", "existing", "--skip", "own::"]);
    assert!(
        passed(&others),
        "the own failing test was skipped: {others:?}"
    );
    let all = cost(&["--suite", "existing"]);
    assert!(!passed(&all), "unfiltered, the own failure counts: {all:?}");
}
