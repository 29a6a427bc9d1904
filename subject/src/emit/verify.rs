//! Verification: compile the emitted file against a clean copy of the crate and run it twice.
//! Tests that do not compile, fail, or disagree between runs are dropped and counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::Placement;
use super::render::RenderedTest;
use super::suite_copy::{Env, SuiteCopy, TEST_TARGET_DECL, is_suite_file};
use frugal_cargo::Output;
use frugal_sandbox::Policy;

/// What verification kept and dropped.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    /// The final file text (only passing tests).
    pub text: String,
    /// Names of the tests kept, in file order.
    pub kept: Vec<String>,
    /// Dropped tests with the reason.
    pub dropped: Vec<(String, String)>,
    /// The dropped tests' text, each preceded by a comment with the reason, for inspection.
    pub dropped_text: String,
    /// Wall time of the test builds, all rounds.
    pub build_time: Duration,
    /// Wall time of the test runs, all rounds.
    pub run_time: Duration,
    /// Test builds it took: one, plus one per round that dropped tests which did not compile
    /// or edited tests (tests dropped for failing at run time are skipped in the same binary).
    pub builds: usize,
    /// Kept tests that lost assertions whose values differ between runs, and how many.
    pub loosened: BTreeMap<String, usize>,
}

/// Why verification (or the preflight) could not judge the tests.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The crate could not be copied for verification, or a link was found where a file is written.
    #[error("failed to copy the crate into {path}: {source}")]
    Copy {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: crate::instrument::InstrumentError,
    },
    /// A file or directory of the verification copy could not be read or written.
    #[error("failed to prepare the verification copy in {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The test binary could not be started or confined.
    #[error("failed to run the tests: {0}")]
    Run(std::io::Error),
    /// cargo failed to run or timed out.
    #[error(transparent)]
    Cargo(#[from] frugal_cargo::CargoError),
    /// The crate itself does not build with the tests' target, or cannot hold them: the message says why.
    #[error("{0}")]
    CrateBroken(String),
    /// A run of the test binary did not finish within the limit given.
    #[error("the test binary did not finish within {0:?}")]
    Hung(Duration),
}

/// Name of the integration-test target frugal writes.
pub const TEST_TARGET: &str = "frugal_generated";
const ROUNDS: usize = 8;
const RUN_LIMIT: Duration = Duration::from_secs(300);
/// One test run alone, after a whole run ended before reporting it.
const ALONE_LIMIT: Duration = Duration::from_secs(30);

/// How the emitted file is built: where it goes and with which cargo flags.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// Where the emitted tests go in the crate.
    pub placement: Placement,
    /// Extra `cargo test` arguments (`--all-features`, `--features a,b`).
    pub cargo_args: Vec<String>,
    /// Confinement of the build and of the test runs.
    pub sandbox: Option<Policy>,
}

/// Builds the crate's tests with an empty suite in the copy [`verify`] will use, so a crate
/// whose own tests do not build fails before the search rather than after it; the build's
/// dependencies are the ones verification needs anyway.
pub fn preflight(
    crate_dir: &Path,
    work: &Path,
    header: &str,
    opts: &VerifyOptions,
) -> Result<(), VerifyError> {
    let copy = SuiteCopy::in_work(crate_dir, work, opts)?;
    copy.write(&super::layout(header, &[]).0)?;
    let out = copy.build()?;
    match out.success {
        true => Ok(()),
        false => Err(VerifyError::CrateBroken(copy.explain_broken(&out))),
    }
}

/// Verifies `tests` in a clean copy under `work/verify`; returns the surviving file. The
/// `refused` tests (name, reason) are dropped up front, with the others that fail.
pub fn verify(
    crate_dir: &Path,
    work: &Path,
    header: &str,
    mut tests: Vec<RenderedTest>,
    refused: &[(String, String)],
    opts: &VerifyOptions,
) -> Result<Verified, VerifyError> {
    let copy = SuiteCopy::in_work(crate_dir, work, opts)?;
    let mut v = Verified::default();
    drop_tests(&mut tests, refused, &mut v);
    // The binary of the last build when it holds tests dropped since: removing whole test fns
    // cannot change how the others compile, so the survivors run again in it, alone.
    let mut built: Option<PathBuf> = None;
    let mut loosened: BTreeMap<String, usize> = BTreeMap::new();
    for round in 0..ROUNDS {
        let (text, starts) = super::layout(header, &tests);
        copy.write(&text)?;
        if tests.is_empty() {
            v.text = text;
            return Ok(v);
        }
        let (exe, narrowed) = match built.take() {
            Some(exe) => (exe, true),
            None => {
                let started = Instant::now();
                let out = copy.build()?;
                v.build_time += started.elapsed();
                v.builds += 1;
                if !out.success {
                    let bad = failing_tests(&copy, &out, header, &tests);
                    if bad.is_empty() {
                        return Err(VerifyError::CrateBroken(copy.explain_broken(&out)));
                    }
                    drop_tests(&mut tests, &bad, &mut v);
                    continue;
                }
                (copy.executable(&out)?, false)
            }
        };
        let filter = match narrowed {
            false => copy.filter(),
            true => exactly(&copy, &tests),
        };
        let started = Instant::now();
        // The second run has another `HOME` and `TMPDIR`, and a `TERM`: a test asserting a path
        // under the job's home (lsd's config dir) or colours off for want of a terminal
        // (termcolor's streams) would fail on other machines.
        let first = run_tests(&copy, &exe, &filter, Env::Job)?;
        let second = run_tests(&copy, &exe, &filter, Env::Moved)?;
        let mut failing = Vec::new();
        let mut edited = false;
        for (i, t) in tests.iter_mut().enumerate() {
            let a = first.verdict(&copy, &exe, &t.name)?;
            let b = second.verdict(&copy, &exe, &t.name)?;
            let at = |v: &Verdict| v.assertion(&t.text, starts[i]);
            if let Some(offset) = at(&a).or_else(|| at(&b)) {
                let edits = loosened.entry(t.name.clone()).or_default();
                let may = round + RESERVED_ROUNDS < ROUNDS && *edits < MAX_LOOSENED;
                if let Some(text) = unasserted(&t.text, offset).filter(|_| may) {
                    t.text = text;
                    *edits += 1;
                    edited = true;
                    continue;
                }
            }
            let why = match (a, b) {
                (Verdict::Passed, Verdict::Passed) => continue,
                (Verdict::Ended(how), _) | (_, Verdict::Ended(how)) => {
                    format!("ends the test process: {how}")
                }
                (Verdict::Failed(f), Verdict::Failed(_)) => match f.why {
                    Some(why) => format!("fails against the real crate: {why}"),
                    None => "fails against the real crate".into(),
                },
                (Verdict::Passed, Verdict::Failed(_)) => {
                    "depends on its environment or is flaky: passed, then failed with another HOME, TMPDIR and TERM".into()
                }
                (Verdict::Failed(_), Verdict::Passed) => {
                    "flaky: failed, then passed (with another HOME, TMPDIR and TERM)".into()
                }
            };
            failing.push((t.name.clone(), why));
        }
        v.run_time += started.elapsed();
        if failing.is_empty() && !edited {
            v.text = text;
            v.kept = tests.iter().map(|t| t.name.clone()).collect();
            // A test that lost assertions and was dropped after all is not listed.
            v.loosened = loosened
                .into_iter()
                .filter(|(name, n)| *n > 0 && v.kept.contains(name))
                .collect();
            return Ok(v);
        }
        drop_tests(&mut tests, &failing, &mut v);
        // An edited test must be compiled again; dropped ones can be skipped in this binary.
        built = (!edited).then_some(exe);
    }
    // Out of rounds: keep nothing rather than something unverified.
    v.dropped.extend(
        tests
            .iter()
            .map(|t| (t.name.clone(), "unverified after repeated rounds".into())),
    );
    v.text = super::assemble(header, &[]);
    Ok(v)
}

/// What failed when the test build fails outside the generated tests: the target cargo was
/// compiling and its first errors, or cargo's own complaint, and how to see it by hand.
pub(crate) fn broken(out: &Output, select: &[String], cargo_args: &[String]) -> String {
    let command = |select: &[String]| {
        let mut c = vec!["cargo", "test"];
        c.extend(select.iter().map(String::as_str));
        c.push("--no-run");
        c.extend(cargo_args.iter().map(String::as_str));
        c.join(" ")
    };
    let what = match out.messages.errors.first() {
        Some(e) if !e.target.is_empty() => format!(
            "the crate's test build fails in {} before any generated test is compiled",
            e.target
        ),
        Some(_) => "the crate's test build fails outside the generated tests".to_string(),
        None if out.stderr.contains("no test target named") => format!(
            "cargo does not see {TEST_TARGET} as a test target: the manifest turns test \
             discovery off in a way frugal did not recognise; add to Cargo.toml:\n{TEST_TARGET_DECL}"
        ),
        None => "cargo failed before compiling the crate's tests".to_string(),
    };
    if let Some(host) = host_trouble(&out.stderr) {
        return format!("{what}:\n{}\n{host}", out.summarise_errors(3));
    }
    format!(
        "{what}:\n{}\nfrugal builds the suite with `{}` offline in a copy of the crate; `{}` in \
         the crate should show the same error. Fix it, or choose features with --features or \
         --all-features.",
        out.summarise_errors(3),
        command(select),
        command(&[]),
    )
}

/// A build that failed for the host's sake, not the crate's: the disk holding the build full
/// (a linker writing its output through a memory map dies of SIGBUS then). Said so, since the
/// crate's own fix does not apply.
fn host_trouble(stderr: &str) -> Option<&'static str> {
    let full = stderr.contains("No space left on device")
        || stderr.contains("Bus error")
        || stderr.contains("signal 7");
    full.then_some(
        "This is the host, not the crate: the build ran out of disk space (a linker writing \
         through a memory map dies of SIGBUS, signal 7, when the disk fills). Free space where \
         frugal's work dirs are (`frugal gc`, or the job's work dir) and run again.",
    )
}

fn drop_tests(tests: &mut Vec<RenderedTest>, bad: &[(String, String)], v: &mut Verified) {
    for t in tests.iter() {
        if let Some((_, why)) = bad.iter().find(|(n, _)| *n == t.name) {
            v.dropped_text
                .push_str(&format!("\n// dropped: {why}\n{}", t.text));
        }
    }
    tests.retain(|t| !bad.iter().any(|(n, _)| *n == t.name));
    v.dropped.extend(bad.iter().cloned());
}

/// Tests whose lines hold a compiler error, with the error's first line.
fn failing_tests(
    copy: &SuiteCopy,
    out: &Output,
    header: &str,
    tests: &[RenderedTest],
) -> Vec<(String, String)> {
    // Tests by the line they start on in the assembled file.
    let mut by_line: Vec<(usize, usize)> = super::layout(header, tests)
        .1
        .into_iter()
        .enumerate()
        .map(|(i, line)| (line, i))
        .collect();
    by_line.sort_unstable();
    let starts: Vec<usize> = by_line.iter().map(|&(line, _)| line).collect();
    let mut bad: Vec<(String, String)> = Vec::new();
    for (k, e) in copy.errors_by_test(out, &starts) {
        let name = &tests[by_line[k].1].name;
        if !bad.iter().any(|(n, _)| n == name) {
            let first = e
                .rendered
                .lines()
                .next()
                .unwrap_or("compile error")
                .to_string();
            bad.push((name.clone(), format!("does not compile: {first}")));
        }
    }
    bad
}

/// libtest arguments selecting exactly `tests` (run without the tests dropped beside them).
fn exactly(copy: &SuiteCopy, tests: &[RenderedTest]) -> Vec<String> {
    std::iter::once("--exact".to_string())
        .chain(tests.iter().map(|t| copy.test_path(&t.name)))
        .collect()
}

/// One test's outcome in one run of the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Passed,
    Failed(Failed),
    /// Run alone, it took the test process down (`process::exit`, an abort, a signal).
    Ended(String),
}

/// A failure libtest reported.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failed {
    /// The first line of the failure section, when there was one.
    why: Option<String>,
    /// Where and how the test panicked, when it did.
    panic: Option<crate::libtest::Panic>,
}

impl Failed {
    fn of(section: Option<&String>) -> Failed {
        use crate::libtest::Failure;
        let panic = section.and_then(|s| match crate::libtest::failure(s) {
            Failure::Panicked(p) => Some(p),
            _ => None,
        });
        Failed {
            why: section.map(|s| crate::libtest::failure_line(s, WHY_CHARS)),
            panic,
        }
    }
}

impl Verdict {
    /// The line of `text` (a test starting on the suite's line `start`) holding the assertion
    /// it failed at. A panic in the suite file names its line. A test in a home's section
    /// panics at the module file's line invoking the section's macro, so there the assertion is
    /// the one whose expected value or condition the message repeats.
    fn assertion(&self, text: &str, start: usize) -> Option<usize> {
        let Verdict::Failed(Failed { panic: Some(p), .. }) = self else {
            return None;
        };
        if is_suite_file(&p.file) {
            return p.line.checked_sub(start);
        }
        let ends = match crate::libtest::assert_eq_values(&p.message) {
            Some((_, right)) => format!(", {right});"),
            None => format!("({});", p.message.strip_prefix("assertion failed: ")?),
        };
        let mut found = text
            .lines()
            .enumerate()
            .filter(|(_, l)| is_assertion(l) && l.ends_with(&ends));
        let (offset, _) = found.next()?;
        // Two assertions expecting the same value: which one failed is not known.
        found.next().is_none().then_some(offset)
    }
}

fn is_assertion(line: &str) -> bool {
    let code = line.trim_start();
    code.ends_with(");") && (code.starts_with("assert_eq!(") || code.starts_with("assert!("))
}

/// Rounds at the end of verification that only drop tests: an edit needs another round to
/// prove the edited test, and running out of rounds keeps nothing.
const RESERVED_ROUNDS: usize = 2;

/// Assertions one test may lose before it is dropped instead.
const MAX_LOOSENED: usize = 4;

/// The comment an assertion whose value is not reproducible becomes.
pub const NOT_ASSERTED: &str = "// not asserted, the value differs between runs: ";

/// `text` with its `offset`-th line, a one-line assertion, turned into a comment. A value that
/// differs between runs (an address, an inode, a path under `HOME`) cannot be asserted, but
/// the calls before it still run the code the test was kept for; dropping the whole test lost
/// that coverage.
fn unasserted(text: &str, offset: usize) -> Option<String> {
    let line = text.lines().nth(offset)?;
    if !is_assertion(line) {
        return None;
    }
    let code = line.trim_start();
    let indent = &line[..line.len() - code.len()];
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    out[offset] = format!("{indent}{NOT_ASSERTED}{code}");
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Some(joined)
}

/// Longest failure line in a dropped test's reason.
const WHY_CHARS: usize = 160;

/// One run of the whole suite, as far as libtest reported it.
struct SuiteRun {
    parsed: crate::libtest::Run,
    env: Env,
}

impl SuiteRun {
    /// `name`'s verdict: as reported, or, when the run ended before reporting it (another
    /// test exited or aborted the process), from a run of the test alone. Without this, one
    /// test calling `process::exit` failed every test still running beside it.
    fn verdict(&self, copy: &SuiteCopy, exe: &Path, name: &str) -> Result<Verdict, VerifyError> {
        use crate::libtest::Status;
        let why = |run: &crate::libtest::Run| Failed::of(run.failures.get(name));
        match self.parsed.status(name) {
            Some(Status::Ok) => return Ok(Verdict::Passed),
            Some(_) => return Ok(Verdict::Failed(why(&self.parsed))),
            None => {}
        }
        let args = [
            "--exact".to_string(),
            copy.test_path(name),
            "--test-threads".into(),
            "1".into(),
        ];
        let run = copy.run_in(exe, &args, ALONE_LIMIT, self.env)?;
        let parsed = crate::libtest::parse(&run.stdout);
        // A test writing to the process's stdout itself (not through `print!`, which libtest
        // captures) can garble its own status line; alone, the exit code still tells.
        let code = run.status.and_then(|s| s.code());
        Ok(match (parsed.status(name), parsed.finished, code) {
            (Some(Status::Ok), _, _) | (None, true, Some(0)) => Verdict::Passed,
            (Some(_), _, _) | (None, true, Some(101)) => Verdict::Failed(why(&parsed)),
            (None, _, _) => Verdict::Ended(run.ended(parsed.finished)),
        })
    }
}

/// Runs the suite's tests once.
fn run_tests(
    copy: &SuiteCopy,
    exe: &Path,
    filter: &[String],
    env: Env,
) -> Result<SuiteRun, VerifyError> {
    let run = copy.run_in(exe, filter, RUN_LIMIT, env)?;
    if run.timed_out() {
        return Err(VerifyError::Hung(RUN_LIMIT));
    }
    Ok(SuiteRun {
        parsed: crate::libtest::parse(&run.stdout),
        env,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_full_disk_is_named_as_the_host_s_trouble_not_the_crate_s() {
        let sigbus = "collect2: fatal error: ld terminated with signal 7 [Bus error]";
        assert!(super::host_trouble(sigbus).is_some_and(|h| h.contains("disk")));
        let enospc = "error: failed to write: No space left on device (os error 28)";
        assert!(super::host_trouble(enospc).is_some());
        assert!(super::host_trouble("error[E0308]: mismatched types").is_none());
    }
}
