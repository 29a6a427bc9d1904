//! The emitted suite's measured cost for `frugal run`'s summary. The pipeline leaves the
//! verified copy of the crate (`verify/` in the work dir, the suite placed as
//! `tests/frugal_generated.rs`, its build in `target-verify/`); this measures that suite with
//! `frugal_profiler::measure_suite` (as frugald measures the suites it stores), confined as
//! `frugal profile` confines it, and sums the figures on the profiler's cost basis
//! (instructions where a hardware counter or valgrind gives them, CPU time otherwise).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use frugal_profiler::{Report, SuiteCost, SuiteMeasurement};
use frugal_subject::emit::Placement;
use frugal_subject::pipeline::MeasuredCost;

/// Runs per test: a median of three, cheap next to the search.
const REPEAT: u32 = 3;

/// The measured cost, or why there is none.
/// `cargo_args` are the run's features, which the suite needs to build.
pub fn measured_cost(work: &Path, placement: Placement, cargo_args: Vec<String>) -> MeasuredCost {
    if placement != Placement::Tests {
        return unmeasured(
            "tests placed inside the crate: measure them with `frugal profile <crate> --suite existing` after `--write`",
        );
    }
    let started = Instant::now();
    match profile(work, cargo_args) {
        Ok(report) => from_report(&report, started.elapsed()),
        Err(e) => unmeasured(&format!("{e:#}")),
    }
}

fn profile(work: &Path, cargo_args: Vec<String>) -> anyhow::Result<Report> {
    let copy = work.join("verify");
    let target = work.join("target-verify");
    if !copy.join("tests").join("frugal_generated.rs").is_file() {
        anyhow::bail!("no verified suite in {}", copy.display());
    }
    let scratch = work.join("measure-scratch");
    let sandbox = super::profile::sandbox_policy(&copy, Some(&target), &scratch)?;
    let measurement = SuiteMeasurement {
        crate_dir: copy,
        target_dir: target,
        repeat: REPEAT,
        cargo_args,
        sandbox,
    };
    let report =
        frugal_profiler::measure_suite(&measurement).context("profiling the emitted suite");
    let _ = std::fs::remove_dir_all(&scratch);
    report
}

fn from_report(report: &Report, took: Duration) -> MeasuredCost {
    let cost = report.suite_cost();
    MeasuredCost {
        total: Some(cost.total),
        unit: cost.metric.name(),
        source: cost.source.name(),
        tests_measured: cost.measured,
        tests_unmeasured: cost.unmeasured,
        seconds: took.as_secs_f64(),
        note: None,
        fallback: fallback(report.hardware_unavailable.as_deref(), &cost),
    }
}

/// Says what was measured instead of hardware instructions, and why, when that is the case.
fn fallback(hardware_unavailable: Option<&str>, cost: &SuiteCost) -> Option<String> {
    let reason = hardware_unavailable?;
    Some(format!(
        "no hardware counters here ({reason}); the cost is {} from {}, which varies from run to \
         run; `frugal profile <crate> --suite generated --valgrind` counts instructions \
         deterministically (Debian package `valgrind`)",
        cost.metric.name(),
        cost.source.name()
    ))
}

fn unmeasured(why: &str) -> MeasuredCost {
    MeasuredCost {
        note: Some(why.to_string()),
        ..MeasuredCost::default()
    }
}
