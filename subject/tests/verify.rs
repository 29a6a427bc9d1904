//! Verification of a hand-written suite against the real crate: tests that do not compile are
//! dropped and the rest rebuilt; tests that fail at run time are dropped without a rebuild, the
//! survivors running again, alone, in the same binary.

use frugal_testkit as common;

use frugal_subject::emit::Placement;
use frugal_subject::emit::render::RenderedTest;
use frugal_subject::emit::verify::{VerifyOptions, verify};

fn test(name: &str, body: &str) -> RenderedTest {
    RenderedTest {
        name: name.into(),
        text: format!("#[test]\nfn {name}() {{\n    {body}\n}}\n"),
    }
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
    let opts = VerifyOptions {
        placement: Placement::Tests,
        cargo_args: Vec::new(),
        sandbox: None,
    };
    let v = verify(
        &common::example("numeric"),
        &work.path,
        "#![allow(unused)]\n",
        tests,
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v.kept, ["gcd_returns_2", "gcd_of_zero"], "{v:?}");
    let reasons: Vec<(&str, &str)> = v
        .dropped
        .iter()
        .map(|(n, why)| (n.as_str(), why.split(':').next().unwrap_or_default()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("gone", "does not compile"),
            ("no_partial_eq", "does not compile"),
            ("gcd_is_wrong", "fails against the real crate")
        ]
    );
    // One build with the uncompilable test, one without it; the failing test is skipped in
    // that second binary (before: a third build).
    assert_eq!(v.builds, 2, "{v:?}");
    assert!(!v.text.contains("gcd_is_wrong") && v.text.contains("gcd_of_zero"));
}
