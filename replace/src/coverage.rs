//! Per-test goal coverage: every test of the instrumented copy runs as its own process (the
//! profiler's runner) with the probe runtime's coverage environment set, and the goal ids it
//! dumps at exit are its goal set.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::Path;

use frugal_profiler::report::Outcome;
use frugal_profiler::{ProfileConfig, TestRunner};
use frugal_subject::manifest::Manifest;
use frugal_subject::probe_src::{
    COVERAGE_END_MARK as END_MARK, COVERAGE_OUT_ENV as OUT_ENV, COVERAGE_SIZES_ENV as SIZES_ENV,
};

use crate::ReplaceError;

/// What one test covered on the instrumented copy.
#[derive(Clone, Debug)]
pub struct TestCoverage {
    /// `kind:target` of its binary.
    pub binary: String,
    /// Cargo target kind of its binary: `lib`, `bin`, `test`, `bench`, `example`.
    pub kind: String,
    /// Cargo target name of its binary (`frugal_generated` for the generated file).
    pub target: String,
    /// Full libtest name, as `--exact` takes it.
    pub name: String,
    /// Manifest goal ids its coverage dump listed; empty when no probe ran.
    pub goals: BTreeSet<u32>,
    /// How its run ended; a test that did not pass is not a candidate for the cover.
    pub outcome: Outcome,
    /// The last bytes of its output when it did not pass.
    pub output_tail: Option<String>,
}

/// `goals,functions,loops` of a manifest.
pub fn sizes(manifest: &Manifest) -> String {
    format!(
        "{},{},{}",
        manifest.goals.len(),
        manifest.functions.len(),
        manifest.loops.len()
    )
}

/// Builds and lists the tests of `config`, then runs those `wanted` accepts, one process each.
pub fn collect(
    config: &ProfileConfig,
    manifest: &Manifest,
    scratch: &Path,
    wanted: &dyn Fn(&frugal_profiler::TestUnit) -> bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<TestCoverage>, ReplaceError> {
    let runner = TestRunner::build(config)?;
    std::fs::create_dir_all(scratch).map_err(|e| ReplaceError::io(scratch, e))?;
    let tests: Vec<_> = runner.tests.iter().filter(|t| wanted(t)).collect();
    let mut out = Vec::with_capacity(tests.len());
    for (i, test) in tests.iter().enumerate() {
        let file = scratch.join(format!("{i}.goals"));
        // A stale dump would be appended to.
        let _ = std::fs::remove_file(&file);
        let env: Vec<(OsString, OsString)> = vec![
            (OUT_ENV.into(), file.clone().into_os_string()),
            (SIZES_ENV.into(), sizes(manifest).into()),
        ];
        let run = runner.run(test, &env)?;
        let goals = match std::fs::read_to_string(&file) {
            Ok(text) => parse_dump(&text).ok_or_else(|| ReplaceError::Dump {
                test: test.name.clone(),
                file: file.clone(),
            })?,
            // No probe ran, so nothing registered the dump: the test covers no goal.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
            Err(e) => return Err(ReplaceError::io(&file, e)),
        };
        out.push(TestCoverage {
            binary: test.binary.label(),
            kind: test.binary.kind.clone(),
            target: test.binary.target.clone(),
            name: test.name.clone(),
            goals,
            outcome: run.outcome,
            output_tail: run.output_tail,
        });
        progress(i + 1, tests.len());
    }
    Ok(out)
}

/// Goal ids of one or more complete dumps; `None` if the last one is cut short.
pub fn parse_dump(text: &str) -> Option<BTreeSet<u32>> {
    let mut goals = BTreeSet::new();
    let mut complete = true;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line == END_MARK {
            complete = true;
            continue;
        }
        goals.insert(line.parse().ok()?);
        complete = false;
    }
    complete.then_some(goals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumps_union_and_must_be_complete() {
        assert_eq!(
            parse_dump("1\n5\n.\n5\n9\n.\n"),
            Some([1, 5, 9].into_iter().collect())
        );
        assert_eq!(parse_dump(".\n"), Some(BTreeSet::new()));
        assert_eq!(parse_dump("1\n2\n"), None);
        assert_eq!(parse_dump("x\n.\n"), None);
    }
}
