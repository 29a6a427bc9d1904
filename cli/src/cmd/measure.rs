//! The emitted suite's measured cost for `frugal run`'s summary. The pipeline leaves the
//! verified copy of the crate (`verify/` in the work dir, the suite placed as
//! `tests/frugal_generated.rs`, its build in `target-verify/`); this measures that suite with
//! `frugal_profiler::measure_suite` (as frugald measures the suites it stores), confined as
//! `frugal profile` confines it, and sums the figures on the profiler's cost basis
//! (instructions where a hardware counter or valgrind gives them, CPU time otherwise). With
//! `--ci-cost` it also measures what CI pays for the suite and the crate's own tests
//! (`frugal_profiler::measure_ci_cost`).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use frugal_api::summary::CiCostReport;
use frugal_profiler::{Report, Suite, SuiteCost, SuiteMeasurement};
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

/// The tests of `suite` by name: only an in-crate suite needs telling apart.
fn names_of(placement: Placement, suite: Suite) -> frugal_profiler::NameFilter {
    // An in-crate suite's tests are named under its module, which bears the test target's name
    // (`frugal_generated::a`, or `date::frugal_generated::a` in a home module).
    let module = Some(format!("{}::", frugal_profiler::GENERATED_TARGET));
    match (placement, suite) {
        (Placement::Tests, _) => frugal_profiler::NameFilter::default(),
        (_, Suite::Generated) => frugal_profiler::NameFilter {
            only: module,
            skip: None,
        },
        (_, _) => frugal_profiler::NameFilter {
            only: None,
            skip: module,
        },
    }
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

/// What CI pays for the verified suite and, beside it, for the crate's own tests, each on its
/// own copy of the verified crate (`--ci-cost`); a side that cannot be measured says why. A
/// suite placed inside the crate shares the own tests' binaries: the two are told apart by the
/// suite's module name, and both builds include both.
pub fn ci_cost(work: &Path, placement: Placement, cargo_args: Vec<String>) -> CiCostReport {
    let started = Instant::now();
    let mut report = CiCostReport::default();
    let copy = work.join("verify");
    let scratch = work.join("ci-cost");
    let _ = std::fs::remove_dir_all(&scratch);
    for suite in [Suite::Generated, Suite::Existing] {
        let names = names_of(placement, suite);
        let measured =
            super::profile::ci_cost_of(&copy, suite, cargo_args.clone(), REPEAT, names, &scratch)
                .and_then(|cost| Ok(serde_json::from_value(serde_json::to_value(cost)?)?));
        match (measured, suite) {
            (Ok(cost), Suite::Generated) => report.generated = Some(cost),
            (Ok(cost), _) => report.own = Some(cost),
            (Err(e), Suite::Generated) => report
                .notes
                .push(format!("generated suite not measured: {e:#}")),
            (Err(e), _) => report.notes.push(format!("own tests not measured: {e:#}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    report.seconds = started.elapsed().as_secs_f64();
    report
}
