//! Helpers shared by the profiler's integration tests.

#![allow(dead_code)] // Each test file uses a different subset.

use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_profiler::report::{Figure, Metric, Report, Source};
use frugal_profiler::{ProfileConfig, Suite};

/// A fixture crate under `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Config for a fixture: built in release mode (short loops, fast cachegrind) into a target dir
/// shared by all tests and runs, with the launcher this package built.
pub fn config(name: &str) -> ProfileConfig {
    let mut config = ProfileConfig::new(fixture(name));
    config.launcher = Some(PathBuf::from(env!("CARGO_BIN_EXE_frugal-launch")));
    config.target_dir = Some(Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures"));
    config.release = true;
    config.suite = Suite::Existing;
    config.repeat = 3;
    config.timeout = Duration::from_secs(60);
    config
}

/// Whether valgrind runs here; prints why a test is skipped otherwise.
pub fn valgrind_present(test: &str) -> bool {
    let present = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        eprintln!("{test}: skipped, valgrind is not installed (Debian package `valgrind`)");
    }
    present
}

/// The raw median of a test's figure; panics with the report's reason when unavailable.
pub fn median(report: &Report, test: &str, metric: Metric, source: Source) -> f64 {
    figure(report, test, metric, source)
        .stats()
        .unwrap_or_else(|| {
            panic!(
                "{test} {metric:?} {source:?}: {:?}",
                figure(report, test, metric, source)
            )
        })
        .median
}

/// The baseline-subtracted median of a test's figure.
pub fn net(report: &Report, test: &str, metric: Metric, source: Source) -> f64 {
    figure(report, test, metric, source)
        .net_or_raw_median()
        .unwrap_or_else(|| panic!("{test} {metric:?} {source:?} unavailable"))
}

pub fn figure<'r>(report: &'r Report, test: &str, metric: Metric, source: Source) -> &'r Figure {
    report
        .test(test)
        .unwrap_or_else(|| panic!("no test {test} in {:?}", names(report)))
        .figure(metric, source)
        .unwrap_or_else(|| panic!("{test} has no {metric:?} from {source:?}"))
}

pub fn names(report: &Report) -> Vec<&str> {
    report.tests.iter().map(|t| t.name.as_str()).collect()
}

pub const MIB: f64 = 1024.0 * 1024.0;

/// Every run of every test in the report passed (its output otherwise).
pub fn assert_all_pass(report: &Report) {
    for test in &report.tests {
        assert!(
            test.outcomes.iter().all(|o| o.is_pass()),
            "{}: {:?}\n{}",
            test.name,
            test.outcomes,
            test.failure_output.as_deref().unwrap_or_default()
        );
    }
}
