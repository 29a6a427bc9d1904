//! The regression check on a real build: the fixture crate `tests/fixtures/regress` behaves
//! otherwise than two stored suites recorded, in every way `regress::check` tells apart: value
//! changes, panics, missing functions, wrong arity, a flaky pass, and, in a suite of its own, an
//! abort, a stack overflow and a hang that kill or stall the whole run. Runs confined, with the
//! policy `frugal check` uses.

use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_subject::pipeline;
use frugal_subject::regress::{self, Change, CheckEvent, CheckOptions, Outcome, Report};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/regress")
}

/// A fresh work dir (removed on drop) and the options `frugal check` would use with it.
fn options() -> (tempfile::TempDir, CheckOptions) {
    let work = tempfile::Builder::new()
        .prefix("frugal-regress")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let work_dir = work.path().canonicalize().unwrap();
    let mut opts = CheckOptions::new(&work_dir);
    opts.sandbox = Some(pipeline::job_policy(&fixture(), &work_dir).unwrap());
    (work, opts)
}

/// Checks `suite` against the fixture in a fresh work dir; the report and the progress seen.
fn check(suite: &str, test_timeout: Duration) -> (Report, Vec<CheckEvent>) {
    let (_work, mut opts) = options();
    opts.test_timeout = test_timeout;
    opts.reruns = 1;
    let mut events = Vec::new();
    let report =
        regress::check_with_progress(&fixture(), suite, &opts, &mut |e| events.push(e.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
    (report, events)
}

fn outcome<'r>(report: &'r Report, name: &str) -> &'r Outcome {
    &report
        .tests
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no test {name} in {report:?}"))
        .outcome
}

const SUITE: &str = r#"//! Regression tests for `regress_fixture`, as frugal writes them.
#![allow(unused_mut, unused_variables, unused_parens, clippy::all)]

#[test]
fn double() {
    let n = regress_fixture::double(4);
    assert_eq!(n, 8);
}

#[test]
fn same() {
    let n = regress_fixture::same(4);
    assert_eq!(n, 4);
}

#[test]
fn parse_returns_none() {
    let maybe = regress_fixture::parse("x");
    assert_eq!(format!("{:?}", maybe), "None");
}

#[test]
#[should_panic(expected = "a number")]
fn parse_panics() {
    let maybe = regress_fixture::parse("7");
}

#[test]
fn removed() {
    let n = regress_fixture::triple(4);
    assert_eq!(n, 12);
}

#[test]
fn arity() {
    let n = regress_fixture::same(4, 5);
    assert_eq!(n, 4);
}

#[test]
fn flip() {
    let n = regress_fixture::flip();
    assert_eq!(n, 1);
}
"#;

#[test]
fn each_kind_of_change_is_told_apart_and_a_flaky_failure_is_not_a_change() {
    let (report, events) = check(SUITE, Duration::from_secs(10));
    assert_eq!(report.krate, "regress_fixture");
    assert_eq!(report.tests.len(), 7);
    assert_eq!(outcome(&report, "same"), &Outcome::Passed);
    assert_eq!(
        outcome(&report, "double"),
        &Outcome::Changed {
            change: Change::Value {
                subject: "regress_fixture::double(4)".into(),
                expected: "8".into(),
                actual: "9".into(),
                assertion: "assert_eq!(n, 8);".into(),
            }
        }
    );
    assert_eq!(
        outcome(&report, "parse_returns_none"),
        &Outcome::Changed {
            change: Change::UnexpectedPanic {
                message: "a number: ParseIntError { kind: InvalidDigit }".into()
            }
        }
    );
    assert_eq!(
        outcome(&report, "parse_panics"),
        &Outcome::Changed {
            change: Change::MissingPanic {
                expected: Some("a number".into())
            }
        }
    );
    let Outcome::NoLongerCompiles { item, error } = outcome(&report, "removed") else {
        panic!("{report:?}")
    };
    assert_eq!(item.as_deref(), Some("regress_fixture::triple"));
    assert!(error.contains("cannot find function `triple`"), "{error}");
    let Outcome::NoLongerCompiles { item, .. } = outcome(&report, "arity") else {
        panic!("{report:?}")
    };
    assert_eq!(item.as_deref(), Some("regress_fixture::same"));
    assert!(
        matches!(outcome(&report, "flip"), Outcome::Flaky { first } if first.contains("was 1, now 0")),
        "{report:?}"
    );
    assert_eq!(
        (report.changed(), report.no_longer_compile(), report.flaky()),
        (3, 2, 1)
    );
    assert_eq!(
        events,
        vec![
            CheckEvent::Building { round: 1, tests: 7 },
            CheckEvent::Building { round: 2, tests: 5 },
            CheckEvent::Running { tests: 5 },
            CheckEvent::Rerunning { failing: 4 },
        ]
    );
    assert!(report.tests[0].body.starts_with("#[test]\nfn double() {"));
}

const CRASHES: &str = r#"#[test]
fn same() {
    let n = regress_fixture::same(4);
    assert_eq!(n, 4);
}

#[test]
fn stop() {
    let n = regress_fixture::stop();
    assert_eq!(n, 0);
}

#[test]
fn deep() {
    let n = regress_fixture::deep(100_000_000);
    assert_eq!(n, 0);
}

#[test]
fn spin() {
    let n = regress_fixture::spin();
    assert_eq!(n, 0);
}
"#;

#[test]
fn a_crash_kills_no_other_test_and_a_hang_times_out() {
    let (report, events) = check(CRASHES, Duration::from_secs(1));
    assert_eq!(outcome(&report, "same"), &Outcome::Passed);
    let crashed = |name: &str| match outcome(&report, name) {
        Outcome::Crashed { detail } => detail.clone(),
        other => panic!("{name}: {other:?}"),
    };
    assert!(crashed("stop").starts_with("killed by signal 6 (SIGABRT)"));
    let deep = crashed("deep");
    assert!(deep.contains("has overflowed its stack"), "{deep}");
    assert_eq!(outcome(&report, "spin"), &Outcome::TimedOut);
    assert_eq!(report.failures(), 3);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, CheckEvent::OneByOne { .. })),
        "{events:?}"
    );
}

#[test]
fn code_outside_the_tests_that_no_longer_compiles_is_an_error_not_a_change() {
    let (_work, opts) = options();
    let suite = format!("use regress_fixture::Gone;\n\n{CRASHES}");
    let err = regress::check(&fixture(), &suite, &opts).expect_err("the import fails");
    assert!(
        matches!(&err, regress::CheckError::SuiteBroken { errors } if errors.contains("Gone")),
        "{err}"
    );
}
