//! The emitted suite's measurement: the one way frugal measures a generated suite, for
//! `frugal run`'s summary (`measured_cost`, over the verified copy) and for frugald's stored
//! suites (per-test cost, over the job's snapshot). Callers say where the suite is, where its
//! build goes, how often each test runs and what confines it; the rest (the generated suite
//! alone, the profiler's defaults) is the same for both.

use std::path::PathBuf;

use crate::report::{Metric, Source};
use crate::{ProfileConfig, ProfileError, Report, Suite};

/// What to measure: the generated suite of the crate in `crate_dir`.
#[derive(Clone, Debug)]
pub struct SuiteMeasurement {
    /// The crate holding the suite as `tests/frugal_generated.rs`.
    pub crate_dir: PathBuf,
    /// Cargo target dir of the suite's build (created by the caller, who confines it).
    pub target_dir: PathBuf,
    /// Runs per test under counters; at least 1.
    pub repeat: u32,
    /// Extra `cargo test --no-run` arguments: the run's features, which the suite needs.
    pub cargo_args: Vec<String>,
    /// Confinement of the build and the tests.
    pub sandbox: frugal_sandbox::Policy,
}

/// Profiles the generated suite, test by test (one process each, as `frugal profile` runs
/// them).
pub fn measure_suite(m: &SuiteMeasurement) -> Result<Report, ProfileError> {
    let mut config = ProfileConfig::new(&m.crate_dir);
    config.suite = Suite::Generated;
    config.repeat = m.repeat.max(1);
    config.target_dir = Some(m.target_dir.clone());
    config.cargo_args = m.cargo_args.clone();
    config.sandbox = Some(m.sandbox.clone());
    crate::profile(&config)
}

impl Metric {
    /// The metric's name in reports and summaries (`instructions`, `task-clock-ns`).
    pub fn name(self) -> String {
        kebab(&self)
    }
}

impl Source {
    /// The source's name in reports and summaries (`hardware-perf`, `cachegrind`).
    pub fn name(self) -> String {
        kebab(&self)
    }
}

/// A unit variant by its serialised (kebab-case) name.
fn kebab(v: &impl serde::Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "unknown".to_string(),
    }
}
