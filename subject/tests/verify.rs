//! Verification of a hand-written suite against the real crate: tests that do not compile are
//! dropped and the rest rebuilt; tests that fail at run time are dropped without a rebuild, the
//! survivors running again, alone, in the same binary.

use frugal_testkit as common;

use frugal_subject::emit::Placement;
use frugal_subject::emit::render::RenderedTest;
use frugal_subject::emit::verify::{NOT_ASSERTED, Verified, VerifyOptions, verify};

fn test(name: &str, body: &str) -> RenderedTest {
    RenderedTest {
        name: name.into(),
        text: format!("#[test]\nfn {name}() {{\n    {body}\n}}\n"),
        home: frugal_subject::emit::home::TestHome::Root,
        executor: false,
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
        // Over several lines: only a one-line assertion is turned into a comment, so this
        // test fails as a whole.
        test(
            "gcd_is_wrong",
            "assert_eq!(\n        numeric::gcd(4, 2),\n        3\n    );",
        ),
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
fn an_assertion_on_the_jobs_home_or_terminal_is_not_kept() {
    let work = common::work_dir("verify-home");
    // What the search saw: a path under the job's `HOME` (lsd's config dir was one). On any
    // other machine it differs, so the assertion must not ship (before: kept, and it failed
    // for every user), while the calls before it still run.
    let home = std::env::var("HOME").unwrap_or_default();
    let config_dir = format!(
        "let g = numeric::gcd(4, 2);\n    assert_eq!(std::env::var(\"HOME\").ok(), Some({home:?}.to_string()));"
    );
    let tests = vec![
        test("config_dir", &config_dir),
        // termcolor's `Auto` colours when `TERM` is set (and not `dumb`); the job has none.
        test("no_colours", "assert!(std::env::var(\"TERM\").is_err());"),
        test("gcd_returns_2", "assert_eq!(numeric::gcd(4, 2), 2);"),
        // Failing in one run only, but not at an assertion: nothing to take out.
        test(
            "home_panics",
            &format!(
                "if std::env::var(\"HOME\").ok() != Some({home:?}.to_string()) {{ panic!(\"moved\") }}"
            ),
        ),
        // Loses its assertion, then fails in the moved run all the same: dropped, and not
        // listed as a test that lost assertions.
        test(
            "address_then_home",
            &format!(
                "let b = Box::new(1);\n    assert_eq!(format!(\"{{:p}}\", b), \"0x1\");\n    if std::env::var(\"HOME\").ok() != Some({home:?}.to_string()) {{ panic!(\"moved\") }}"
            ),
        ),
    ];
    let v = verify_numeric(&work, tests);
    assert_eq!(
        v.kept,
        ["config_dir", "no_colours", "gcd_returns_2"],
        "{v:?}"
    );
    assert_eq!(
        reasons(&v),
        [
            ("home_panics", "depends on its environment or is flaky"),
            (
                "address_then_home",
                "depends on its environment or is flaky"
            )
        ],
        "{v:?}"
    );
    for (name, asserted) in [
        ("config_dir", "assert_eq!(std::env::var"),
        ("no_colours", "assert!(std::env::var"),
    ] {
        assert_eq!(v.loosened.get(name), Some(&1), "{v:?}");
        let comment = format!("{NOT_ASSERTED}{asserted}");
        assert!(
            v.text.contains(&comment),
            "{name}: no {comment:?} in\n{}",
            v.text
        );
    }
    assert!(v.text.contains("let g = numeric::gcd(4, 2);"), "{}", v.text);
    assert_eq!(v.loosened.len(), 2, "{v:?}");
}

/// A value that differs from run to run (an address, as in lsd's `Debug` forms of function
/// pointers) loses its assertion, found by the line it panicked on inside a home's macro
/// section; the test's other assertions stay. Before, the whole test was dropped as failing
/// against the real crate, and the code it ran went uncovered.
#[test]
fn an_assertion_on_an_address_is_taken_out_of_a_test_in_a_module() {
    let work = common::work_dir("verify-address");
    let opts = VerifyOptions {
        placement: Placement::InCrate,
        cargo_args: Vec::new(),
        sandbox: None,
    };
    let home = frugal_subject::model::Home {
        module: "date".into(),
        file: "src/date.rs".into(),
    };
    let mut addresses = test(
        "addresses",
        "let b = std::boxed::Box::new(private_mods::date::is_leap(2000));\n    \
         assert_eq!(std::format!(\"{:p}\", b), \"0x1\");\n    \
         assert_eq!(*b, true);\n    \
         assert_eq!(std::format!(\"{:p}\", &b), \"0x2\");",
    );
    addresses.home = frugal_subject::emit::home::TestHome::Module(home);
    let header = format!("//! h\n{}", Placement::InCrate.prelude("private_mods"));
    let v = verify(
        &fixture("private_mods"),
        &work.path,
        &header,
        vec![addresses],
        &[],
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v.kept, ["addresses"], "{v:?}");
    assert_eq!(v.loosened.get("addresses"), Some(&2), "{v:?}");
    assert!(v.text.contains("assert_eq!(*b, true);"), "{}", v.text);
    assert_eq!(v.text.matches(NOT_ASSERTED).count(), 2, "{}", v.text);
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}
