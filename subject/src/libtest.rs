//! What a libtest binary prints: one `test NAME ... ok|FAILED|ignored` line per test, then, for
//! failures, a `---- NAME stdout ----` section holding the test's captured output and its panic
//! report, and a closing `test result:` line. Verification reads the passing names; the
//! regression check also reads the failure sections.

use std::collections::BTreeMap;

use crate::emit::verify::TEST_TARGET;

/// How libtest reported one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Ok,
    Failed,
    Ignored,
}

/// One run of a test binary, as far as its output got.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Run {
    /// Each reported test (name without the `frugal_generated::` module of in-crate suites and
    /// without libtest's ` - should panic` mark) with its status, in the order printed.
    pub results: Vec<(String, Status)>,
    /// The captured output of each failed test (the text between its `---- NAME stdout ----`
    /// header and the next header), by name.
    pub failures: BTreeMap<String, String>,
    /// The closing `test result:` line was printed: the binary ran to its end.
    pub finished: bool,
}

impl Run {
    /// Names of the tests reported as passing.
    #[cfg(test)]
    pub fn passed(&self) -> impl Iterator<Item = &str> {
        self.results
            .iter()
            .filter(|(_, s)| *s == Status::Ok)
            .map(|(n, _)| n.as_str())
    }

    /// The status libtest printed for `name`, if it printed one.
    pub fn status(&self, name: &str) -> Option<Status> {
        self.results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }
}

/// Parses libtest's human output (stdout of a test binary run without `--nocapture`).
pub(crate) fn parse(stdout: &str) -> Run {
    let mut run = Run::default();
    let mut section: Option<(String, Vec<&str>)> = None;
    for line in stdout.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            close(&mut run, section.take());
            section = Some((bare(name).to_string(), Vec::new()));
            continue;
        }
        if line == "failures:" || line.starts_with("test result: ") {
            close(&mut run, section.take());
            run.finished |= line.starts_with("test result: ");
            continue;
        }
        if let Some((_, lines)) = section.as_mut() {
            lines.push(line);
        } else if let Some(result) = result_line(line) {
            run.results.push(result);
        }
    }
    close(&mut run, section);
    run
}

fn close(run: &mut Run, section: Option<(String, Vec<&str>)>) {
    if let Some((name, lines)) = section {
        let text = lines.join("\n").trim_matches('\n').to_string();
        run.failures.insert(name, text);
    }
}

/// `test NAME ... ok` and its kin.
fn result_line(line: &str) -> Option<(String, Status)> {
    let rest = line.strip_prefix("test ")?;
    let (name, word) = rest.rsplit_once(" ... ")?;
    let status = match word {
        "ok" => Status::Ok,
        "FAILED" => Status::Failed,
        w if w.starts_with("ignored") => Status::Ignored,
        _ => return None,
    };
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
    Some((bare(name).to_string(), status))
}

/// A test's name without the module in-crate placement puts the suite in (`frugal_generated::`,
/// or `date::frugal_generated::` for a test of a home, see `emit::home`).
fn bare(name: &str) -> &str {
    let module = format!("{TEST_TARGET}::");
    match name.find(&module) {
        Some(at) if at == 0 || name[..at].ends_with("::") => &name[at + module.len()..],
        _ => name,
    }
}

/// A panic report in a failure section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Panic {
    /// `file:line` of the panic, as libtest printed it (the column dropped).
    pub file: String,
    pub line: usize,
    /// The panic message (possibly several lines).
    pub message: String,
}

/// What a failure section says happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// `#[should_panic]` test that returned normally.
    DidNotPanic,
    /// `#[should_panic(expected = ..)]` test whose panic message lacked the expected text.
    WrongPanic {
        panic: Option<Panic>,
        message: String,
        expected: String,
    },
    /// A panic in a test that was not expected to panic.
    Panicked(Panic),
    /// A section this parser does not understand (its text is kept).
    Other(String),
}

/// `s` cut to `max` characters, with `..` where it was cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((end, _)) => format!("{}..", &s[..end]),
        None => s.to_string(),
    }
}

/// What a failure section says, in one line for a reader (`left 3, right 4` for a failed
/// `assert_eq!`, else the panic message), at most `max` chars.
pub(crate) fn failure_line(section: &str, max: usize) -> String {
    let text = match failure(section) {
        Failure::DidNotPanic => "did not panic".to_string(),
        Failure::WrongPanic { message, .. } => format!("panicked with another message: {message}"),
        Failure::Panicked(p) => match assert_eq_values(&p.message) {
            Some((left, right)) => format!("left {left}, right {right}"),
            None => p.message,
        },
        Failure::Other(text) => text,
    };
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// Reads a failure section.
pub(crate) fn failure(section: &str) -> Failure {
    if section
        .lines()
        .any(|l| l.starts_with("note: test did not panic as expected"))
    {
        return Failure::DidNotPanic;
    }
    let panic = last_panic(section);
    if let Some(at) = section.find("note: panic did not contain expected string") {
        let rest = &section[at..];
        let field = |key: &str| {
            rest.lines()
                .find_map(|l| l.trim_start().strip_prefix(key))
                .map(|v| unquote(v.trim()))
        };
        if let (Some(message), Some(expected)) =
            (field("panic message:"), field("expected substring:"))
        {
            return Failure::WrongPanic {
                panic,
                message,
                expected,
            };
        }
    }
    match panic {
        Some(p) => Failure::Panicked(p),
        None => Failure::Other(section.to_string()),
    }
}

/// The last `thread '..' panicked at FILE:LINE:COL:` report of a section and its message (the
/// lines up to libtest's next `note:` line).
fn last_panic(section: &str) -> Option<Panic> {
    let lines: Vec<&str> = section.lines().collect();
    let (i, place) = lines.iter().enumerate().rev().find_map(|(i, l)| {
        let at = l.strip_prefix("thread '")?.split_once("' ")?.1;
        let at = match at.split_once(" panicked at ") {
            Some((_thread_id, place)) => place,
            None => at.strip_prefix("panicked at ")?,
        };
        Some((i, at.strip_suffix(':')?))
    })?;
    let mut parts = place.rsplitn(3, ':');
    let (_col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    let message: Vec<&str> = lines[i + 1..]
        .iter()
        .take_while(|l| !l.starts_with("note: "))
        .copied()
        .collect();
    Some(Panic {
        file: file.to_string(),
        line: line.parse().ok()?,
        message: message.join("\n").trim_end().to_string(),
    })
}

/// The value of a Rust string literal as `Debug` prints it (`"a\"b"` -> `a"b`); text that is
/// no such literal comes back unchanged.
pub(crate) fn unquote(s: &str) -> String {
    syn::parse_str::<syn::LitStr>(s).map_or_else(|_| s.to_string(), |l| l.value())
}

/// `assertion `left == right` failed` with its two values: `(left, right)`.
pub(crate) fn assert_eq_values(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("assertion `left == right` failed")?;
    let left_at = rest.find("\n  left: ")?;
    let rest = &rest[left_at + "\n  left: ".len()..];
    let (left, right) = rest.split_once("\n right: ")?;
    Some((left.to_string(), right.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output of a real libtest binary (rustc 1.95, `RUST_BACKTRACE=0`), captured from a crate
    /// whose generated-style tests fail in every way a regression check meets; the crate's
    /// sources are in `libtest-failures.rs.txt` beside it.
    const OUTPUT: &str = include_str!("../tests/fixtures/libtest-failures.txt");

    #[test]
    fn every_test_line_and_failure_section_is_read() {
        let run = parse(OUTPUT);
        assert!(run.finished);
        assert_eq!(run.results.len(), 10);
        assert_eq!(run.passed().collect::<Vec<_>>(), vec!["passes"]);
        assert_eq!(
            run.status("no_panic_now"),
            Some(Status::Failed),
            "` - should panic` is not part of the name"
        );
        assert_eq!(run.failures.len(), 9);
        assert_eq!(
            run.failures["value_changed"],
            "thread 'value_changed' (653) panicked at tests/frugal_generated.rs:10:5:\n\
             assertion `left == right` failed\n  left: 3\n right: 4"
        );
    }

    #[test]
    fn assert_eq_failures_give_both_values() {
        let run = parse(OUTPUT);
        let Failure::Panicked(p) = failure(&run.failures["value_changed"]) else {
            panic!("a panic")
        };
        assert_eq!((p.file.as_str(), p.line), ("tests/frugal_generated.rs", 10));
        assert_eq!(assert_eq_values(&p.message), Some(("3".into(), "4".into())));
        let Failure::Panicked(p) = failure(&run.failures["debug_changed"]) else {
            panic!("a panic")
        };
        let (left, right) = assert_eq_values(&p.message).unwrap();
        assert_eq!(
            (unquote(&left), unquote(&right)),
            ("Some(2)".into(), "Some(\"x\\ny\")".into())
        );
        let Failure::Panicked(p) = failure(&run.failures["custom_message"]) else {
            panic!("a panic")
        };
        assert_eq!(assert_eq_values(&p.message), Some(("1".into(), "2".into())));
    }

    #[test]
    fn should_panic_failures_are_told_apart() {
        let run = parse(OUTPUT);
        assert_eq!(failure(&run.failures["no_panic_now"]), Failure::DidNotPanic);
        assert_eq!(
            failure(&run.failures["plain_should_panic_without_panic"]),
            Failure::DidNotPanic
        );
        let Failure::WrongPanic {
            message, expected, ..
        } = failure(&run.failures["other_message"])
        else {
            panic!("a wrong panic")
        };
        assert_eq!(
            (message.as_str(), expected.as_str()),
            ("empty input:\nsecond line", "something else")
        );
        let Failure::WrongPanic { panic, .. } = failure(&run.failures["assertion_in_should_panic"])
        else {
            panic!("a wrong panic")
        };
        let panic = panic.expect("the assertion's report");
        assert_eq!(panic.line, 52);
        assert_eq!(
            assert_eq_values(&panic.message),
            Some(("2".into(), "3".into()))
        );
    }

    #[test]
    fn other_panics_keep_their_multi_line_message_and_place() {
        let run = parse(OUTPUT);
        let Failure::Panicked(p) = failure(&run.failures["unexpected"]) else {
            panic!("a panic")
        };
        assert_eq!(
            (p.file.as_str(), p.line, p.message.as_str()),
            ("src/lib.rs", 2, "empty input:\nsecond line")
        );
        let Failure::Panicked(p) = failure(&run.failures["unwrap_none"]) else {
            panic!("a panic")
        };
        assert_eq!(p.message, "called `Option::unwrap()` on a `None` value");
    }

    #[test]
    fn a_run_cut_short_is_not_finished() {
        let run = parse("\nrunning 12 tests\ntest a ... ok\n");
        assert!(!run.finished);
        assert_eq!(run.passed().collect::<Vec<_>>(), vec!["a"]);
        assert!(run.failures.is_empty());
    }

    #[test]
    fn names_in_a_home_lose_their_modules() {
        let run = parse(
            "test meta::size::frugal_generated::a ... ok\ntest my_frugal_generated::b ... ok\n",
        );
        assert_eq!(
            run.results,
            vec![
                ("a".to_string(), Status::Ok),
                ("my_frugal_generated::b".to_string(), Status::Ok)
            ]
        );
    }

    #[test]
    fn in_crate_names_lose_their_module() {
        let run = parse(
            "test frugal_generated::a ... ok\ntest frugal_generated::b - should panic ... FAILED\n\
             test c ... ignored, slow\n\nfailures:\n\n---- frugal_generated::b stdout ----\nnote: test did not panic as expected at src/frugal_generated.rs:3:4\n\nfailures:\n    frugal_generated::b\n\ntest result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
        );
        assert_eq!(
            run.results,
            vec![
                ("a".to_string(), Status::Ok),
                ("b".to_string(), Status::Failed),
                ("c".to_string(), Status::Ignored)
            ]
        );
        assert_eq!(failure(&run.failures["b"]), Failure::DidNotPanic);
    }
}
