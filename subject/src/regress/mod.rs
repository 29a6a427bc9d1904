//! The regression check: a stored suite run against another version of its crate. Every test
//! of a frugal suite recorded what the crate did when it was generated, so against a newer
//! version each test either still passes or reveals a behaviour change; [`check`] finds which,
//! and why, and returns a [`Report`] (JSON, a reviewer's text, JUnit XML).
//!
//! The check reuses verification's machinery (`emit::suite_copy::SuiteCopy`): a clean copy of the
//! crate in the work dir, the suite placed as frugal places it, one confined offline
//! `cargo test --no-run`, and the test binary run confined. Tests whose lines hold compiler
//! errors no longer compile: they are blanked out (lines keep their numbers) and the rest is
//! rebuilt. The binary runs the suite once; a test that fails is run alone `reruns` more times
//! and passes as flaky if any re-run passes. When the whole run dies (an abort, a stack
//! overflow, a hang), the tests it did not report are run one at a time so one crash hides
//! nothing.
//!
//! Must not know storage, the daemon or HTTP: the caller picks the suite and says where the
//! crate and the work dir are.

mod compile;
mod junit;
pub(crate) mod report;
mod suite;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use frugal_sandbox::Policy;

pub use report::{Change, Outcome, Report, TestReport};
pub use suite::detect_placement;

use crate::emit::Placement;
use crate::emit::suite_copy::{SuiteCopy, is_suite_file};
use crate::emit::verify::{VerifyError, VerifyOptions};
use crate::libtest::{self, Failure, Status};
use suite::{Suite, SuiteTest};

/// The per-test timeout when the caller has no better figure.
pub const DEFAULT_TEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Re-runs of a failing test when the caller has no better figure.
pub const DEFAULT_RERUNS: u32 = 2;
/// Build rounds at most: each round drops the tests the compiler rejected.
const BUILD_ROUNDS: usize = 8;

/// How to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Scratch space: the crate's copy goes to `work_dir/check`, its build to
    /// `work_dir/target-check` (kept, so later checks build incrementally). Absolute, and
    /// writable under the sandbox policy.
    pub work_dir: PathBuf,
    /// Extra `cargo test` arguments (`--all-features`, `--features a,b`).
    pub cargo_args: Vec<String>,
    /// Where the suite goes in the crate (see [`detect_placement`]).
    pub placement: Placement,
    /// Confinement of the build and the test runs; `None` runs the crate's code with the
    /// caller's rights (only for code the caller trusts).
    pub sandbox: Option<Policy>,
    /// Extra runs of a failing test before its failure is reported.
    pub reruns: u32,
    /// Limit of one test run alone. The whole suite's first run gets
    /// `2 * test_timeout + 50 ms per test`.
    pub test_timeout: Duration,
}

impl CheckOptions {
    /// Defaults around `work_dir`: tests placement, no cargo flags, NO sandbox (set one with
    /// [`crate::pipeline::job_policy`]), [`DEFAULT_RERUNS`], [`DEFAULT_TEST_TIMEOUT`].
    pub fn new(work_dir: impl Into<PathBuf>) -> CheckOptions {
        CheckOptions {
            work_dir: work_dir.into(),
            cargo_args: Vec::new(),
            placement: Placement::Tests,
            sandbox: None,
            reruns: DEFAULT_RERUNS,
            test_timeout: DEFAULT_TEST_TIMEOUT,
        }
    }

    /// The limit of the suite's first, whole run.
    fn whole_run_limit(&self, tests: usize) -> Duration {
        self.test_timeout.saturating_mul(2) + Duration::from_millis(50).saturating_mul(tests as u32)
    }
}

/// Why a check could not say anything about the tests.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The suite file does not parse as Rust.
    #[error("the suite is not valid Rust (line {line}): {message}")]
    Suite {
        /// 1-based line of the parse error.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// The crate's `Cargo.toml` could not be read or names no library.
    #[error("cannot read the crate's manifest: {0}")]
    Manifest(#[from] crate::analyze::AnalyzeError),
    /// The check's work directory could not be created.
    #[error("failed to create the work dir {path}: {source}")]
    WorkDir {
        /// The work directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The crate (or its test profile) does not compile: nothing of the suite can run.
    #[error(
        "{krate} does not build (`cargo test` of the suite's target), so no test of the suite \
         can run:\n{errors}"
    )]
    CrateBroken {
        /// The crate's name.
        krate: String,
        /// The compiler's errors.
        errors: String,
    },
    /// The suite's lines outside its tests (imports, helpers) do not compile.
    #[error("the suite's code outside its tests does not compile:\n{errors}")]
    SuiteBroken {
        /// The compiler's errors.
        errors: String,
    },
    /// Copying, writing, building or running failed for a reason of its own.
    #[error(transparent)]
    Prepare(#[from] VerifyError),
}

/// Progress of a check, for displays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckEvent {
    /// A build of the suite with `tests` tests starts; `round` counts from 1 (later rounds
    /// follow tests that no longer compile).
    Building {
        /// The build round, from 1.
        round: usize,
        /// Tests in the suite being built.
        tests: usize,
    },
    /// The suite's first, whole run starts.
    Running {
        /// Tests in the run.
        tests: usize,
    },
    /// The whole run died (`why`): `tests` tests it did not report run one at a time.
    OneByOne {
        /// Tests to run one at a time.
        tests: usize,
        /// Why the whole run died.
        why: String,
    },
    /// `failing` tests are re-run before their failures count.
    Rerunning {
        /// Failing tests to re-run.
        failing: usize,
    },
}

/// Runs the suite `suite_source` against the crate at `crate_dir` (see the module docs).
pub fn check(
    crate_dir: &Path,
    suite_source: &str,
    opts: &CheckOptions,
) -> Result<Report, CheckError> {
    check_with_progress(crate_dir, suite_source, opts, &mut |_| {})
}

/// [`check`], telling `progress` what it is doing.
pub fn check_with_progress(
    crate_dir: &Path,
    suite_source: &str,
    opts: &CheckOptions,
    progress: &mut dyn FnMut(&CheckEvent),
) -> Result<Report, CheckError> {
    let suite = Suite::parse(suite_source).map_err(|e| CheckError::Suite {
        line: e.span().start().line,
        message: e.to_string(),
    })?;
    let krate = crate_name(crate_dir)?;
    std::fs::create_dir_all(&opts.work_dir).map_err(|source| CheckError::WorkDir {
        path: opts.work_dir.clone(),
        source,
    })?;
    let copy = SuiteCopy::new(
        crate_dir,
        opts.work_dir.join("check"),
        &opts.work_dir.join("target-check"),
        &VerifyOptions {
            placement: opts.placement,
            cargo_args: opts.cargo_args.clone(),
            sandbox: opts.sandbox.clone(),
        },
    )?;
    let mut checker = Checker {
        suite: &suite,
        copy: &copy,
        opts,
        outcomes: vec![None; suite.tests.len()],
        build: Duration::ZERO,
        run: Duration::ZERO,
    };
    if let Some(exe) = checker.build(&krate, progress)? {
        checker.run(&exe, progress)?;
    }
    let tests = suite
        .tests
        .iter()
        .zip(checker.outcomes)
        .map(|(t, o)| TestReport {
            name: t.name.clone(),
            body: t.body.clone(),
            outcome: o.unwrap_or(Outcome::Crashed {
                detail: "never reported by the test binary".into(),
            }),
        })
        .collect();
    Ok(Report {
        krate,
        tests,
        build_seconds: checker.build.as_secs_f64(),
        run_seconds: checker.run.as_secs_f64(),
    })
}

/// The crate's name as the suite's paths spell it (`[lib] name`, else the package name with
/// `-` as `_`), read from its manifest.
pub fn crate_name(crate_dir: &Path) -> Result<String, CheckError> {
    Ok(crate::analyze::cargo_toml::read_lib_target(crate_dir, true)?.crate_name)
}

/// One check in progress: the outcome of each test of the suite as it becomes known.
struct Checker<'a> {
    suite: &'a Suite,
    copy: &'a SuiteCopy,
    opts: &'a CheckOptions,
    outcomes: Vec<Option<Outcome>>,
    build: Duration,
    run: Duration,
}

impl Checker<'_> {
    /// Builds the suite, dropping tests that no longer compile round by round; the test
    /// executable, or `None` when no test is left to run.
    fn build(
        &mut self,
        krate: &str,
        progress: &mut dyn FnMut(&CheckEvent),
    ) -> Result<Option<PathBuf>, CheckError> {
        let starts: Vec<usize> = self.suite.tests.iter().map(|t| t.first_line).collect();
        for round in 1..=BUILD_ROUNDS {
            let removed: Vec<usize> = (0..self.outcomes.len())
                .filter(|&i| self.outcomes[i].is_some())
                .collect();
            let left = self.suite.tests.len() - removed.len();
            if left == 0 {
                return Ok(None);
            }
            progress(&CheckEvent::Building { round, tests: left });
            self.copy.write(&self.suite.without(&removed))?;
            let started = Instant::now();
            let out = self.copy.build()?;
            self.build += started.elapsed();
            if out.success {
                return Ok(Some(self.copy.executable(&out)?));
            }
            let mut rejected = 0;
            for (i, e) in self.copy.errors_by_test(&out, &starts) {
                let t = &self.suite.tests[i];
                if e.primary().line > t.last_line {
                    continue; // between tests: the suite's own code
                }
                if self.outcomes[i].is_none() {
                    self.outcomes[i] = Some(Outcome::NoLongerCompiles {
                        item: compile::item(e, self.suite, t),
                        error: e.rendered.trim_end().to_string(),
                    });
                    rejected += 1;
                }
            }
            if rejected > 0 {
                continue;
            }
            let in_suite = out
                .messages
                .errors
                .iter()
                .any(|e| is_suite_file(&e.primary().file));
            return Err(if in_suite {
                CheckError::SuiteBroken {
                    errors: out.summarise_errors(3),
                }
            } else {
                CheckError::CrateBroken {
                    krate: krate.to_string(),
                    errors: self.copy.explain_broken(&out),
                }
            });
        }
        Err(CheckError::SuiteBroken {
            errors: format!("still failing to build after {BUILD_ROUNDS} rounds"),
        })
    }

    /// Runs the tests that compiled: once together, one at a time where the whole run died,
    /// and the failures again.
    fn run(&mut self, exe: &Path, progress: &mut dyn FnMut(&CheckEvent)) -> Result<(), CheckError> {
        let pending: Vec<usize> = (0..self.outcomes.len())
            .filter(|&i| self.outcomes[i].is_none())
            .collect();
        progress(&CheckEvent::Running {
            tests: pending.len(),
        });
        let mut args = self.copy.filter();
        args.push("--include-ignored".into());
        let started = Instant::now();
        let whole = self
            .copy
            .run(exe, &args, self.opts.whole_run_limit(pending.len()))?;
        self.run += started.elapsed();
        let parsed = libtest::parse(&whole.stdout);
        let mut alone = Vec::new();
        for &i in &pending {
            let t = &self.suite.tests[i];
            match (parsed.status(&t.name), parsed.failures.get(&t.name)) {
                (Some(Status::Ok), _) => self.outcomes[i] = Some(Outcome::Passed),
                (Some(Status::Failed), Some(section)) => {
                    self.outcomes[i] = Some(classify(self.suite, t, section));
                }
                _ => alone.push(i),
            }
        }
        if !alone.is_empty() {
            progress(&CheckEvent::OneByOne {
                tests: alone.len(),
                why: whole.ended(parsed.finished),
            });
            for i in alone {
                self.outcomes[i] = Some(self.alone(exe, i)?);
            }
        }
        let failing: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&i| self.outcomes[i].as_ref().is_some_and(Outcome::is_failure))
            .collect();
        if failing.is_empty() || self.opts.reruns == 0 {
            return Ok(());
        }
        progress(&CheckEvent::Rerunning {
            failing: failing.len(),
        });
        for i in failing {
            for _ in 0..self.opts.reruns {
                if self.alone(exe, i)? == Outcome::Passed {
                    let first = self.outcomes[i].take().map(|o| o.describe());
                    self.outcomes[i] = Some(Outcome::Flaky {
                        first: first.unwrap_or_default(),
                    });
                    break;
                }
            }
        }
        Ok(())
    }

    /// Runs test `i` alone, under the per-test timeout.
    fn alone(&mut self, exe: &Path, i: usize) -> Result<Outcome, CheckError> {
        let t = &self.suite.tests[i];
        let args = [
            "--exact".to_string(),
            self.copy.test_path(&t.name),
            "--include-ignored".into(),
            "--test-threads".into(),
            "1".into(),
        ];
        let started = Instant::now();
        let run = self.copy.run(exe, &args, self.opts.test_timeout)?;
        self.run += started.elapsed();
        if run.timed_out() {
            return Ok(Outcome::TimedOut);
        }
        let parsed = libtest::parse(&run.stdout);
        Ok(
            match (parsed.status(&t.name), parsed.failures.get(&t.name)) {
                (Some(Status::Ok), _) => Outcome::Passed,
                (Some(Status::Failed), Some(section)) => classify(self.suite, t, section),
                _ => Outcome::Crashed {
                    detail: run.ended(parsed.finished),
                },
            },
        )
    }
}

/// What a failed test's section says about the behaviour.
fn classify(suite: &Suite, t: &SuiteTest, section: &str) -> Outcome {
    let change = match libtest::failure(section) {
        Failure::DidNotPanic => Change::MissingPanic {
            expected: t.should_panic.clone().flatten(),
        },
        Failure::WrongPanic {
            panic,
            message,
            expected,
        } => panic
            .and_then(|p| value_change(suite, t, &p))
            .unwrap_or(Change::PanicMessage {
                expected,
                actual: message,
            }),
        Failure::Panicked(p) => {
            value_change(suite, t, &p).unwrap_or(Change::UnexpectedPanic { message: p.message })
        }
        Failure::Other(text) => Change::UnexpectedPanic { message: text },
    };
    Outcome::Changed { change }
}

/// A failed assertion of the suite as a value change: what was asserted on, the recorded
/// value and the new one.
fn value_change(suite: &Suite, t: &SuiteTest, p: &libtest::Panic) -> Option<Change> {
    if !is_suite_file(&p.file) {
        return None;
    }
    let stmt = t.stmt_at(p.line);
    let assertion = stmt.map_or_else(|| suite.line(p.line).trim().to_string(), |s| s.text.clone());
    if let Some((left, right)) = libtest::assert_eq_values(&p.message) {
        let (subject, debug) = stmt
            .and_then(|s| s.asserts.clone())
            .unwrap_or_else(|| (assertion.clone(), false));
        let subject = t
            .binding_before(&subject, p.line)
            .map_or(subject, String::from);
        let value = |v: String| if debug { libtest::unquote(&v) } else { v };
        return Some(Change::Value {
            subject,
            // frugal's assertions put the actual value left, the recorded one right.
            expected: value(right),
            actual: value(left),
            assertion,
        });
    }
    let condition = p.message.strip_prefix("assertion failed: ")?;
    Some(Change::Value {
        subject: condition.to_string(),
        expected: "true".into(),
        actual: "false".into(),
        assertion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real libtest output and the test file it ran (see `libtest-failures.rs.txt`).
    const OUTPUT: &str = include_str!("../../tests/fixtures/libtest-failures.txt");
    const SUITE: &str = include_str!("../../tests/fixtures/libtest-failures.rs.txt");

    fn classified(name: &str) -> Outcome {
        let suite = Suite::parse(SUITE).unwrap();
        let run = libtest::parse(OUTPUT);
        let t = suite.tests.iter().find(|t| t.name == name).unwrap();
        classify(&suite, t, &run.failures[name])
    }

    fn change(name: &str) -> Change {
        match classified(name) {
            Outcome::Changed { change } => change,
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn failed_assertions_are_value_changes_with_the_call_behind_the_value() {
        assert_eq!(
            change("value_changed"),
            Change::Value {
                subject: "lt::f(2)".into(),
                expected: "4".into(),
                actual: "3".into(),
                assertion: "assert_eq!(n, 4);".into(),
            }
        );
        // `format!("{:?}", ..)` assertions compare Debug text: shown unquoted.
        assert_eq!(
            change("debug_changed"),
            Change::Value {
                subject: "Some(lt::f(1))".into(),
                expected: "Some(\"x\\ny\")".into(),
                actual: "Some(2)".into(),
                assertion: r#"assert_eq!(format!("{:?}", maybe), "Some(\"x\\ny\")");"#.into(),
            }
        );
        // An assertion failing before a `#[should_panic]` test's expected panic.
        assert!(matches!(
            change("assertion_in_should_panic"),
            Change::Value { expected, actual, .. } if expected == "3" && actual == "2"
        ));
    }

    #[test]
    fn panics_are_told_apart_by_what_the_test_expected() {
        assert_eq!(
            change("no_panic_now"),
            Change::MissingPanic {
                expected: Some("empty input".into())
            }
        );
        assert_eq!(
            change("plain_should_panic_without_panic"),
            Change::MissingPanic { expected: None }
        );
        assert_eq!(
            change("other_message"),
            Change::PanicMessage {
                expected: "something else".into(),
                actual: "empty input:\nsecond line".into(),
            }
        );
        assert_eq!(
            change("unexpected"),
            Change::UnexpectedPanic {
                message: "empty input:\nsecond line".into()
            }
        );
        assert_eq!(
            change("unwrap_none"),
            Change::UnexpectedPanic {
                message: "called `Option::unwrap()` on a `None` value".into()
            }
        );
    }
}
