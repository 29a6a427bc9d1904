//! The profiler on inputs that go wrong: failing, crashing and hanging tests, a crate that does
//! not build, a missing valgrind.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::config;
use frugal_profiler::report::{Metric, Outcome, Reading, Source};
use frugal_profiler::{ProfileError, profile};

#[test]
fn failures_crashes_and_hangs_are_outcomes() {
    let mut config = config("bad");
    config.repeat = 1;
    config.timeout = Duration::from_secs(2);
    let started = Instant::now();
    let report = profile(&config).expect("a misbehaving suite still gives a report");
    let outcome = |name: &str| report.test(name).unwrap().outcomes[0].clone();

    assert_eq!(outcome("tests::passes"), Outcome::Pass);
    assert_eq!(outcome("tests::fails"), Outcome::Fail { code: 101 });
    assert_eq!(
        outcome("tests::crashes"),
        Outcome::Crashed {
            signal: libc::SIGABRT,
            core_dumped: outcome_core(&report)
        }
    );
    assert_eq!(outcome("tests::hangs"), Outcome::Timeout { after_ms: 2000 });
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );

    let failed = report.test("tests::fails").unwrap();
    let output = failed.failure_output.as_deref().unwrap_or_default();
    assert!(output.contains("arithmetic is broken"), "{output}");
    assert!(
        failed.figures.iter().all(|f| f.stats().is_none()),
        "only passes enter figures"
    );

    // The whole process group of the hanging test is gone. `valgrind_skips_tests_that_never_passed`
    // runs the same hanging test in parallel with the same 2 s timeout, so wait for that one's
    // kill too rather than mistake it for a survivor of ours.
    let deadline = std::time::Instant::now() + Duration::from_secs(6);
    let mut survivors = processes_with_arg("tests::hangs");
    while !survivors.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        survivors = processes_with_arg("tests::hangs");
    }
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

/// Whether the crash dumped core depends on the machine's core limit: read it from the report.
fn outcome_core(report: &frugal_profiler::Report) -> bool {
    match report.test("tests::crashes").unwrap().outcomes[0] {
        Outcome::Crashed { core_dumped, .. } => core_dumped,
        ref other => panic!("not a crash: {other:?}"),
    }
}

fn processes_with_arg(arg: &str) -> Vec<u32> {
    frugal_testkit::processes(|argv| argv.contains(&arg.as_bytes()) && !argv[0].ends_with(b"cargo"))
}

#[test]
fn a_crate_that_does_not_build_names_itself_and_the_first_error() {
    let err = profile(&config("broken")).expect_err("must not build");
    let message = err.to_string();
    assert!(matches!(err, ProfileError::Build { .. }), "{message}");
    assert!(message.contains("`broken`"), "{message}");
    assert!(message.contains("mismatched types"), "{message}");
    assert!(message.contains("src/lib.rs"), "{message}");
}

#[test]
fn a_missing_valgrind_names_the_debian_package() {
    let mut config = config("costs");
    config.valgrind = true;
    config.valgrind_path = Some(PathBuf::from("/nonexistent/valgrind"));
    let err = profile(&config).expect_err("no valgrind there");
    let message = err.to_string();
    assert!(
        matches!(err, ProfileError::ValgrindMissing { .. }),
        "{message}"
    );
    assert!(message.contains("Debian package `valgrind`"), "{message}");
    assert!(message.contains("/nonexistent/valgrind"), "{message}");
}

#[test]
fn a_directory_without_a_crate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config("costs");
    config.crate_dir = dir.path().to_path_buf();
    let err = profile(&config).expect_err("no crate");
    assert!(matches!(err, ProfileError::NotACrate(_)), "{err}");
}

#[test]
fn valgrind_skips_tests_that_never_passed() {
    if !common::valgrind_present("valgrind_skips_tests_that_never_passed") {
        return;
    }
    let mut config = config("bad");
    config.repeat = 1;
    config.timeout = Duration::from_secs(2);
    config.valgrind = true;
    let report = profile(&config).expect("profile under valgrind");
    let skipped = report.test("tests::hangs").unwrap();
    assert!(skipped.valgrind_outcomes.is_empty());
    let figure = skipped
        .figure(Metric::Instructions, Source::Cachegrind)
        .expect("figure present, unavailable");
    match &figure.reading {
        Reading::Unavailable { reason } => assert!(reason.contains("never passed"), "{reason}"),
        Reading::Measured { .. } => panic!("a hanging test has no valgrind figures"),
    }
    let passed = report.test("tests::passes").unwrap();
    assert_eq!(passed.valgrind_outcomes, vec![Outcome::Pass, Outcome::Pass]);
    assert!(
        passed
            .figure(Metric::Instructions, Source::Cachegrind)
            .and_then(|f| f.stats())
            .is_some()
    );
}
