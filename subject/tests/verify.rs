//! Verification of a hand-written suite against the real crate: tests that do not compile are
//! dropped and the rest rebuilt; tests that fail at run time are dropped without a rebuild, the
//! survivors running again, alone, in the same binary.

use frugal_testkit as common;

use frugal_subject::emit::Placement;
use frugal_subject::emit::render::RenderedTest;
use frugal_subject::emit::verify::{Verified, VerifyOptions, verify};

fn test(name: &str, body: &str) -> RenderedTest {
    RenderedTest {
        name: name.into(),
        text: format!("#[test]\nfn {name}() {{\n    {body}\n}}\n"),
        home: frugal_subject::emit::home::TestHome::Root,
    }
}

/// `tests` verified against the `numeric` example, placed in `tests/`, unconfined.
fn verify_numeric(work: &common::WorkDir, tests: Vec<RenderedTest>) -> Verified {
    let opts = VerifyOptions {
        placement: Placement::Tests,
        cargo_args: Vec::new(),
        sandbox: None,
    };
    verify(
        &common::example("numeric"),
        &work.path,
        "#![allow(unused)]\n",
        tests,
        &[],
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Each dropped test with the first clause of its reason.
fn reasons(v: &Verified) -> Vec<(&str, &str)> {
    v.dropped
        .iter()
        .map(|(n, why)| (n.as_str(), why.split(':').next().unwrap_or_default()))
        .collect()
}

#[test]
fn a_test_failing_at_run_time_is_dropped_without_another_build() {
    let work = common::work_dir("verify-rounds");
    let tests = vec![
        test("gcd_returns_2", "assert_eq!(numeric::gcd(4, 2), 2);"),
        test("gcd_is_wrong", "assert_eq!(numeric::gcd(4, 2), 3);"),
        test("gone", "numeric::no_such_function();"),
        // An error inside `assert_eq!` has its primary span in core's macros (before: the
        // whole run stopped as "the crate's test build fails").
        test(
            "no_partial_eq",
            "assert_eq!(numeric::gcd as fn(i64, i64) -> u64, numeric::gcd);",
        ),
        test("gcd_of_zero", "assert_eq!(numeric::gcd(0, 5), 5);"),
    ];
    let v = verify_numeric(&work, tests);
    assert_eq!(v.kept, ["gcd_returns_2", "gcd_of_zero"], "{v:?}");
    let reasons = reasons(&v);
    assert_eq!(
        reasons,
        [
            ("gone", "does not compile"),
            ("no_partial_eq", "does not compile"),
            ("gcd_is_wrong", "fails against the real crate")
        ]
    );
    // The reason says what failed (before: "fails against the real crate" alone, and a user
    // had to rebuild the test to see why).
    assert!(
        v.dropped
            .iter()
            .any(|(n, why)| n == "gcd_is_wrong" && why.ends_with(": left 2, right 3")),
        "{v:?}"
    );
    // One build with the uncompilable test, one without it; the failing test is skipped in
    // that second binary (before: a third build).
    assert_eq!(v.builds, 2, "{v:?}");
    assert!(!v.text.contains("gcd_is_wrong") && v.text.contains("gcd_of_zero"));
}

#[test]
fn a_test_that_ends_the_process_is_dropped_alone() {
    let work = common::work_dir("verify-exit");
    // The slow tests are still running when `exits` ends the process, so the whole run
    // reports none of them (before: all dropped as "fails against the real crate").
    let slow = "std::thread::sleep(std::time::Duration::from_millis(300));";
    let tests = vec![
        test(
            "slow_gcd",
            &format!("{slow} assert_eq!(numeric::gcd(4, 2), 2);"),
        ),
        test("exits", "std::process::exit(0);"),
        test(
            "slow_wrong",
            &format!("{slow} assert_eq!(numeric::gcd(4, 2), 3);"),
        ),
        test("aborts", &format!("{slow} std::process::abort();")),
        test(
            "slow_zero",
            &format!("{slow} assert_eq!(numeric::gcd(0, 5), 5);"),
        ),
        // Writes past libtest's capture onto its own status line (termcolor's streams do).
        test(
            "writes_stdout",
            "use std::io::Write; let mut out = std::io::stdout(); out.write_all(b\"\\x1b[0m\").unwrap(); out.flush().unwrap();",
        ),
    ];
    let v = verify_numeric(&work, tests);
    assert_eq!(v.kept, ["slow_gcd", "slow_zero", "writes_stdout"], "{v:?}");
    let reasons = reasons(&v);
    assert_eq!(
        reasons,
        [
            ("exits", "ends the test process"),
            ("slow_wrong", "fails against the real crate"),
            ("aborts", "ends the test process"),
        ],
        "{v:?}"
    );
    assert!(
        v.dropped.iter().any(|(_, why)| why.contains("SIGABRT")),
        "{v:?}"
    );
}

#[test]
fn a_test_asserting_the_jobs_home_or_terminal_is_dropped() {
    let work = common::work_dir("verify-home");
    // What the search saw: a path under the job's `HOME` (lsd's config dir was one). On any
    // other machine it differs, so the test must not ship (before: kept, and it failed for
    // every user).
    let home = std::env::var("HOME").unwrap_or_default();
    let tests = vec![
        test(
            "config_dir",
            &format!("assert_eq!(std::env::var(\"HOME\").ok(), Some({home:?}.to_string()));"),
        ),
        // termcolor's `Auto` colours when `TERM` is set (and not `dumb`); the job has none.
        test("no_colours", "assert!(std::env::var(\"TERM\").is_err());"),
        test("gcd_returns_2", "assert_eq!(numeric::gcd(4, 2), 2);"),
    ];
    let v = verify_numeric(&work, tests);
    assert_eq!(v.kept, ["gcd_returns_2"], "{v:?}");
    assert_eq!(
        reasons(&v),
        [
            ("config_dir", "depends on its environment or is flaky"),
            ("no_colours", "depends on its environment or is flaky")
        ],
        "{v:?}"
    );
}
