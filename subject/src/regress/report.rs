//! The regression report: one outcome per test of the stored suite, the counts a CI gate reads,
//! a short text a reviewer reads, and JUnit XML for CI systems.

use serde::{Deserialize, Serialize};

use crate::libtest::clip;

/// What a stored suite said about a version of its crate.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Report {
    /// The crate's name as paths spell it (`[lib] name`, or the package name with `_`).
    pub krate: String,
    /// Every `#[test]` fn of the suite, in file order.
    pub tests: Vec<TestReport>,
    /// Wall time of the builds (all rounds), in seconds.
    pub build_seconds: f64,
    /// Wall time of the test runs (the whole run, single runs and re-runs), in seconds.
    pub run_seconds: f64,
}

/// One test of the suite and what became of it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TestReport {
    /// The test fn's name.
    pub name: String,
    /// The fn's source text as the suite holds it, attributes included.
    pub body: String,
    /// What the test did against the crate checked.
    pub outcome: Outcome,
}

/// What a test of the stored suite did against the crate checked.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The behaviour the test recorded still holds.
    Passed,
    /// It failed, then passed on a re-run: nondeterminism, not a change. `first` says how it
    /// failed first.
    Flaky {
        /// How it failed the first time.
        first: String,
    },
    /// The behaviour changed (after the failure held on every re-run).
    Changed {
        /// What changed.
        change: Change,
    },
    /// The test does not compile any more: the API it calls changed. `item` is the crate item
    /// the failing call names, when the error lets us tell; `error` is the compiler's message.
    NoLongerCompiles {
        /// The crate item the failing call names, when the error tells.
        item: Option<String>,
        /// The compiler's message.
        error: String,
    },
    /// The test's process died (a signal, an abort, a stack overflow, an unexpected exit).
    Crashed {
        /// How it died, as far as the run tells.
        detail: String,
    },
    /// The test did not finish within the per-test timeout.
    TimedOut,
}

/// How the behaviour changed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A regression assertion failed. `expected` is the recorded value, `actual` the new one
    /// (for `assert_eq!(format!("{:?}", x), ..)` both are the `Debug` text itself, unquoted);
    /// `subject` is what was asserted on: the expression that produced the value (the call
    /// bound to the asserted variable, when there is one); `assertion` is the failing
    /// statement.
    Value {
        /// What was asserted on: the expression that produced the value.
        subject: String,
        /// The recorded value.
        expected: String,
        /// The value the crate checked gives now.
        actual: String,
        /// The failing assertion statement.
        assertion: String,
    },
    /// A panic where the test recorded none.
    UnexpectedPanic {
        /// The panic's message.
        message: String,
    },
    /// No panic where the test (`#[should_panic]`) recorded one.
    MissingPanic {
        /// The message the test expects, if it names one.
        expected: Option<String>,
    },
    /// A panic, but with another message than recorded.
    PanicMessage {
        /// The recorded message.
        expected: String,
        /// The message of the panic now.
        actual: String,
    },
}

impl Outcome {
    /// Whether the test reveals something for a reviewer: every outcome but passing (flaky
    /// included).
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Passed | Outcome::Flaky { .. })
    }

    /// Order of outcomes in the text report: changes, compile failures, crashes, timeouts,
    /// flaky passes; passes (not shown) last.
    fn rank(&self) -> u8 {
        match self {
            Outcome::Changed { .. } => 0,
            Outcome::NoLongerCompiles { .. } => 1,
            Outcome::Crashed { .. } => 2,
            Outcome::TimedOut => 3,
            Outcome::Flaky { .. } => 4,
            Outcome::Passed => 5,
        }
    }

    /// A word for the outcome in text and counts.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Flaky { .. } => "flaky",
            Outcome::Changed { .. } => "changed",
            Outcome::NoLongerCompiles { .. } => "no longer compiles",
            Outcome::Crashed { .. } => "crashed",
            Outcome::TimedOut => "timed out",
        }
    }
}

/// At most `max` characters of `s`, with `..` when cut.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Change {
    /// One line: what was called and how its result differs.
    pub fn describe(&self) -> String {
        match self {
            Change::Value {
                subject,
                expected,
                actual,
                ..
            } => format!(
                "{} was {}, now {}",
                clip(subject, 80),
                clip(expected, 100),
                clip(actual, 100)
            ),
            Change::UnexpectedPanic { message } => {
                format!("panics now: {}", clip(first_line(message), 160))
            }
            Change::MissingPanic { expected: Some(e) } => {
                format!("no longer panics (expected \"{}\")", clip(e, 120))
            }
            Change::MissingPanic { expected: None } => "no longer panics".to_string(),
            Change::PanicMessage { expected, actual } => format!(
                "panics with \"{}\", expected \"{}\"",
                clip(first_line(actual), 120),
                clip(expected, 120)
            ),
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

impl Outcome {
    /// One line on what happened, empty for a pass.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Passed => String::new(),
            Outcome::Flaky { first } => format!("passed on a re-run after: {}", clip(first, 160)),
            Outcome::Changed { change } => change.describe(),
            Outcome::NoLongerCompiles { item, error } => match item {
                Some(item) => format!("`{item}`: {}", clip(first_line(error), 160)),
                None => clip(first_line(error), 160),
            },
            Outcome::Crashed { detail } => clip(detail, 160),
            Outcome::TimedOut => "did not finish within the per-test timeout".to_string(),
        }
    }
}

impl TestReport {
    /// One line on what happened, empty for a pass.
    pub fn describe(&self) -> String {
        self.outcome.describe()
    }

    /// The body's statements on one line (the call sequence, assertions included).
    pub fn compact_body(&self) -> String {
        let body = self
            .body
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("#[") && !l.starts_with("///") && !l.starts_with("//"))
            .skip_while(|l| !l.starts_with("fn "))
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ");
        let body = body.strip_suffix('}').unwrap_or(&body).trim_end();
        clip(body, 240)
    }
}

impl Report {
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.tests.iter().filter(|t| f(&t.outcome)).count()
    }

    /// Tests whose behaviour changed.
    pub fn changed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Changed { .. }))
    }

    /// Tests that no longer compile.
    pub fn no_longer_compile(&self) -> usize {
        self.count(|o| matches!(o, Outcome::NoLongerCompiles { .. }))
    }

    /// Tests that crashed.
    pub fn crashed(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Crashed { .. }))
    }

    /// Tests that timed out.
    pub fn timed_out(&self) -> usize {
        self.count(|o| matches!(o, Outcome::TimedOut))
    }

    /// Tests that passed, flaky ones included.
    pub fn passed(&self) -> usize {
        self.count(|o| !o.is_failure())
    }

    /// Tests that passed only on a re-run.
    pub fn flaky(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Flaky { .. }))
    }

    /// Tests that reveal a difference: changed, no longer compiling, crashed or timed out.
    /// A CI gate fails when this is not 0.
    pub fn failures(&self) -> usize {
        self.count(Outcome::is_failure)
    }

    /// One line: `numeric: 2 behaviours changed in abc1234, 1 test no longer compiles; 61 of
    /// 64 tests pass`. `label` names what was checked (a commit, `the working tree`); empty
    /// leaves it out.
    pub fn summary_line(&self, label: &str) -> String {
        let within = if label.is_empty() {
            String::new()
        } else {
            format!(" in {label}")
        };
        let total = self.tests.len();
        let mut flaky = String::new();
        if self.flaky() > 0 {
            flaky = format!(" ({} flaky)", self.flaky());
        }
        if self.failures() == 0 {
            let all = match total {
                1 => "the 1 test passes".to_string(),
                n => format!("all {n} tests pass"),
            };
            return format!("{}: no behaviour changed{within}: {all}{flaky}", self.krate);
        }
        let mut parts = vec![format!(
            "{}{within}",
            plural(self.changed(), "behaviour changed", "behaviours changed")
        )];
        for (n, one, many) in [
            (
                self.no_longer_compile(),
                "test no longer compiles",
                "tests no longer compile",
            ),
            (self.crashed(), "test crashed", "tests crashed"),
            (self.timed_out(), "test timed out", "tests timed out"),
        ] {
            if n > 0 {
                parts.push(plural(n, one, many));
            }
        }
        format!(
            "{}: {}; {} of {total} tests pass{flaky}",
            self.krate,
            parts.join(", "),
            self.passed()
        )
    }

    /// The report for a reviewer: the summary line, then per test that did not pass, what it
    /// called and how the result differs; grouped by outcome (changes first, flaky last).
    pub fn human(&self, label: &str) -> String {
        let mut out = self.summary_line(label);
        out.push('\n');
        for rank in 0..5 {
            for t in self.tests.iter().filter(|t| t.outcome.rank() == rank) {
                out.push_str(&format!(
                    "  {} {}: {}\n      {}\n",
                    t.outcome.label(),
                    t.name,
                    t.describe(),
                    t.compact_body()
                ));
            }
        }
        out
    }

    /// The report as JUnit XML: one `testsuite` for the crate, one `testcase` per test; a
    /// `failure` for a changed behaviour or a test that no longer compiles, an `error` for a
    /// crash or a timeout, `system-out` noting a flaky pass.
    pub fn junit(&self) -> String {
        super::junit::render(&[self])
    }

    /// One JUnit document for several crates' reports (the daemon checks each crate of a
    /// commit), one `testsuite` each.
    pub fn junit_of(reports: &[&Report]) -> String {
        super::junit::render(reports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(name: &str, outcome: Outcome) -> TestReport {
        TestReport {
            name: name.into(),
            body: format!(
                "#[test]\nfn {name}() {{\n    let n = numeric::gcd(4, 2);\n    assert_eq!(n, 2);\n}}"
            ),
            outcome,
        }
    }

    fn report(outcomes: Vec<Outcome>) -> Report {
        Report {
            krate: "numeric".into(),
            tests: outcomes
                .into_iter()
                .enumerate()
                .map(|(i, o)| test(&format!("t{i}"), o))
                .collect(),
            build_seconds: 1.0,
            run_seconds: 0.5,
        }
    }

    fn value() -> Outcome {
        Outcome::Changed {
            change: Change::Value {
                subject: "numeric::gcd(4, 2)".into(),
                expected: "2".into(),
                actual: "3".into(),
                assertion: "assert_eq!(n, 2);".into(),
            },
        }
    }

    #[test]
    fn the_summary_counts_each_kind_and_names_the_label() {
        let r = report(vec![
            Outcome::Passed,
            value(),
            value(),
            Outcome::NoLongerCompiles {
                item: Some("numeric::gcd".into()),
                error: "error[E0425]: cannot find function `gcd` in crate `numeric`".into(),
            },
            Outcome::Flaky { first: "x".into() },
        ]);
        assert_eq!(
            (r.changed(), r.no_longer_compile(), r.passed(), r.failures()),
            (2, 1, 2, 3)
        );
        assert_eq!(
            r.summary_line("abc1234"),
            "numeric: 2 behaviours changed in abc1234, 1 test no longer compiles; 2 of 5 tests pass (1 flaky)"
        );
        let human = r.human("");
        assert!(
            human.contains("  changed t1: numeric::gcd(4, 2) was 2, now 3\n      let n = numeric::gcd(4, 2); assert_eq!(n, 2);\n"),
            "{human}"
        );
        assert!(
            human.contains("no longer compiles t3: `numeric::gcd`: error[E0425]"),
            "{human}"
        );
        assert!(
            human.contains("flaky t4: passed on a re-run after: x"),
            "{human}"
        );
    }

    #[test]
    fn a_clean_report_says_so() {
        let r = report(vec![Outcome::Passed, Outcome::Passed]);
        assert_eq!(
            r.summary_line("the working tree"),
            "numeric: no behaviour changed in the working tree: all 2 tests pass"
        );
        let one = report(vec![Outcome::Passed]);
        assert_eq!(
            one.summary_line(""),
            "numeric: no behaviour changed: the 1 test passes"
        );
        assert_eq!(r.human(""), format!("{}\n", r.summary_line("")));
    }

    #[test]
    fn outcomes_serialise_with_a_kind_tag() {
        let json = serde_json::to_value(value()).unwrap();
        assert_eq!(json["kind"], "changed");
        assert_eq!(json["change"]["kind"], "value");
        assert_eq!(json["change"]["actual"], "3");
        let r = report(vec![value(), Outcome::TimedOut]);
        let back: Report = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn long_values_are_clipped_at_character_boundaries() {
        assert_eq!(clip("ééééé", 3), "ééé..");
        assert_eq!(clip("abc", 3), "abc");
    }
}
