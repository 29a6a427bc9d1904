//! Turning samples into figures: statistics over passing runs, sources, baseline subtraction.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::ProfileConfig;
use crate::counters::{PerfEvent, Plan};
use crate::launch::Sample;
use crate::report::{
    Baseline, Figure, Metric, NotProfiled, Outcome, Overhead, Reading, Report, SCHEMA_VERSION,
    Source, TestBinary, TestReport,
};
use crate::stats::summarize;
use crate::valgrind::{Heap, ValgrindRun};

/// One thing to run: a test, or (name `None`) its binary's empty baseline.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub binary: TestBinary,
    pub executable: PathBuf,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
    pub name: Option<String>,
}

/// Everything measured on one unit.
#[derive(Debug, Default)]
pub(crate) struct Measured {
    pub samples: Vec<Sample>,
    pub valgrind: Option<(ValgrindRun<u64>, ValgrindRun<Heap>)>,
}

/// What the report needs besides the measurements.
pub(crate) struct Context<'a> {
    pub crate_name: String,
    pub crate_dir: String,
    pub config: &'a ProfileConfig,
    pub plan: &'a Plan,
    pub valgrind_version: Option<String>,
}

pub(crate) fn report(
    context: &Context<'_>,
    units: &[Unit],
    measured: Vec<Measured>,
    not_profiled: Vec<NotProfiled>,
) -> Report {
    let overhead = overhead(&measured);
    let mut baselines = Vec::new();
    let mut tests = Vec::new();
    for (unit, m) in units.iter().zip(measured) {
        let figures = figures(context.plan, context.valgrind_version.is_some(), &m);
        let outcomes: Vec<Outcome> = m.samples.iter().map(|s| s.outcome.clone()).collect();
        match &unit.name {
            None => baselines.push(Baseline {
                binary: unit.binary.clone(),
                outcomes,
                figures,
            }),
            Some(name) => tests.push(TestReport {
                binary: unit.binary.clone(),
                name: name.clone(),
                outcomes,
                valgrind_outcomes: valgrind_outcomes(&m),
                figures,
                failure_output: failure_output(&m),
            }),
        }
    }
    for test in &mut tests {
        if let Some(baseline) = baselines.iter().find(|b| b.binary == test.binary) {
            subtract(&mut test.figures, &baseline.figures);
        }
    }
    Report {
        schema_version: SCHEMA_VERSION,
        crate_name: context.crate_name.clone(),
        crate_dir: context.crate_dir.clone(),
        suite: context.config.suite,
        repeat: context.config.repeat,
        timeout_ms: u64::try_from(context.config.timeout.as_millis()).unwrap_or(u64::MAX),
        build_profile: if context.config.release {
            "release"
        } else {
            "dev"
        }
        .into(),
        hardware_unavailable: context.plan.hardware_unavailable.clone(),
        counters: context.plan.availability(),
        cost_basis: context.plan.cost_basis,
        valgrind: context.valgrind_version.clone(),
        baselines,
        overhead,
        tests,
        not_profiled,
        notes: notes(context),
    }
}

fn notes(context: &Context<'_>) -> Vec<String> {
    let mut notes = vec![
        "net figures subtract the median of the same test binary run with a filter matching no \
         test (process start, loading, libtest start-up), measured the same way; they still hold \
         libtest's per-test work (a thread, output capture)"
            .to_string(),
        "max RSS and heap peak are peaks and are not subtracted; the baseline's max RSS is the \
         floor every test of that binary pays"
            .to_string(),
    ];
    if let Some(reason) = &context.plan.hardware_unavailable {
        notes.push(format!(
            "no hardware counters on this machine ({reason}); software counters and wait4 give \
             the figures, ranked by {:?} from {:?}",
            context.plan.cost_basis.metric, context.plan.cost_basis.source
        ));
    }
    if context.valgrind_version.is_some() {
        notes.push(
            "valgrind figures come from one run per test (cachegrind counts are deterministic \
             for single-threaded code); valgrind replaces memset/memcpy with simple loops, so \
             tests that fill or copy much memory count more instructions than they retire natively"
                .into(),
        );
    }
    notes
}

/// Reads one value out of a sample.
type Pick = fn(&Sample) -> Option<f64>;

/// All figures of one unit; `valgrind` says whether valgrind figures were asked for.
fn figures(plan: &Plan, valgrind: bool, m: &Measured) -> Vec<Figure> {
    let passes: Vec<&Sample> = m.samples.iter().filter(|s| s.outcome.is_pass()).collect();
    let mut figures = Vec::new();
    for event in PerfEvent::ALL {
        let from_wait4 = match event {
            PerfEvent::PageFaults => plan.page_faults_from_wait4,
            PerfEvent::ContextSwitches => plan.context_switches_from_wait4,
            _ => false,
        };
        if from_wait4 {
            let pick = |s: &Sample| {
                s.usage.map(|u| match event {
                    PerfEvent::PageFaults => (u.minflt + u.majflt) as f64,
                    _ => (u.nvcsw + u.nivcsw) as f64,
                })
            };
            figures.push(from_values(event.metric(), Source::Wait4, &passes, pick));
        } else if let Some((_, reason)) = plan.unavailable.iter().find(|(e, _)| *e == event) {
            figures.push(unavailable(event.metric(), event.source(), reason.clone()));
        } else {
            figures.push(counter_figure(event, &passes));
        }
    }
    let wait4: [(Metric, Source, Pick); 4] = [
        (Metric::WallNs, Source::WallClock, |s| {
            s.wall_ns.map(|w| w as f64)
        }),
        (Metric::UserCpuNs, Source::Wait4, |s| {
            s.usage.map(|u| u.utime_us as f64 * 1e3)
        }),
        (Metric::SystemCpuNs, Source::Wait4, |s| {
            s.usage.map(|u| u.stime_us as f64 * 1e3)
        }),
        (Metric::MaxRssBytes, Source::Wait4, |s| {
            s.usage.map(|u| u.maxrss_kib as f64 * 1024.0)
        }),
    ];
    for (metric, source, pick) in wait4 {
        figures.push(from_values(metric, source, &passes, pick));
    }
    if valgrind && m.valgrind.is_none() {
        let reason = "valgrind skipped: the test never passed without it";
        for (metric, source) in [
            (Metric::Instructions, Source::Cachegrind),
            (Metric::HeapTotalBytes, Source::Dhat),
            (Metric::HeapPeakBytes, Source::Dhat),
        ] {
            figures.push(unavailable(metric, source, reason.into()));
        }
    }
    if let Some((cg, dh)) = &m.valgrind {
        figures.push(valgrind_figure(
            Metric::Instructions,
            Source::Cachegrind,
            cg,
            |v| *v as f64,
        ));
        figures.push(valgrind_figure(
            Metric::HeapTotalBytes,
            Source::Dhat,
            dh,
            |h| h.total_bytes as f64,
        ));
        figures.push(valgrind_figure(
            Metric::HeapPeakBytes,
            Source::Dhat,
            dh,
            |h| h.peak_bytes as f64,
        ));
    }
    figures
}

/// A perf counter figure over the passing samples; if every read failed, the first reason.
fn counter_figure(event: PerfEvent, passes: &[&Sample]) -> Figure {
    let mut values = Vec::new();
    let mut first_error = None;
    for sample in passes {
        match sample.counters.iter().find(|(e, _)| *e == event) {
            Some((_, Ok(value))) => match value.scaled() {
                Some(v) => values.push(v),
                None => {
                    first_error.get_or_insert_with(|| "counter was never scheduled".to_string());
                }
            },
            Some((_, Err(reason))) => {
                first_error.get_or_insert_with(|| reason.clone());
            }
            None => {}
        }
    }
    match summarize(&values) {
        Some(stats) => measured(event.metric(), event.source(), stats),
        None if passes.is_empty() => no_pass(event.metric(), event.source()),
        None => unavailable(
            event.metric(),
            event.source(),
            first_error.unwrap_or_else(|| "no value".into()),
        ),
    }
}

fn from_values(
    metric: Metric,
    source: Source,
    passes: &[&Sample],
    pick: impl Fn(&Sample) -> Option<f64>,
) -> Figure {
    let values: Vec<f64> = passes.iter().filter_map(|s| pick(s)).collect();
    match summarize(&values) {
        Some(stats) => measured(metric, source, stats),
        None => no_pass(metric, source),
    }
}

fn valgrind_figure<T>(
    metric: Metric,
    source: Source,
    run: &ValgrindRun<T>,
    pick: impl Fn(&T) -> f64,
) -> Figure {
    match run.value.as_ref().map(&pick).and_then(|v| summarize(&[v])) {
        Some(stats) => measured(metric, source, stats),
        None => unavailable(
            metric,
            source,
            format!("the valgrind run did not pass: {}", run.outcome.label()),
        ),
    }
}

fn measured(metric: Metric, source: Source, stats: crate::report::Stats) -> Figure {
    Figure {
        metric,
        source,
        reading: Reading::Measured {
            stats,
            net_median: None,
        },
    }
}

fn unavailable(metric: Metric, source: Source, reason: String) -> Figure {
    Figure {
        metric,
        source,
        reading: Reading::Unavailable { reason },
    }
}

fn no_pass(metric: Metric, source: Source) -> Figure {
    unavailable(metric, source, "no passing run".into())
}

/// Sets `net_median` of additive measured figures from the baseline's medians.
fn subtract(figures: &mut [Figure], baseline: &[Figure]) {
    for figure in figures.iter_mut().filter(|f| f.metric.is_additive()) {
        let base = baseline
            .iter()
            .find(|b| b.metric == figure.metric && b.source == figure.source)
            .and_then(Figure::stats)
            .map(|s| s.median);
        if let (Reading::Measured { stats, net_median }, Some(base)) = (&mut figure.reading, base) {
            *net_median = Some(stats.median - base);
        }
    }
}

fn valgrind_outcomes(m: &Measured) -> Vec<Outcome> {
    m.valgrind
        .as_ref()
        .map(|(cg, dh)| vec![cg.outcome.clone(), dh.outcome.clone()])
        .unwrap_or_default()
}

/// Output of the last run that did not pass (counters first, then valgrind).
fn failure_output(m: &Measured) -> Option<String> {
    let from_samples = m.samples.iter().rev().find_map(|s| s.output_tail.clone());
    let from_valgrind = m
        .valgrind
        .as_ref()
        .and_then(|(cg, dh)| cg.output_tail.clone().or(dh.output_tail.clone()));
    from_samples.or(from_valgrind)
}

/// The profiler's own cost per process, over every sample that reported a wall time.
fn overhead(measured: &[Measured]) -> Option<Overhead> {
    let samples: Vec<&Sample> = measured
        .iter()
        .flat_map(|m| &m.samples)
        .filter(|s| s.wall_ns.is_some())
        .collect();
    let setup: Vec<f64> = samples.iter().map(|s| s.setup_ns as f64).collect();
    let per_process: Vec<f64> = samples
        .iter()
        .map(|s| s.profiler_ns.saturating_sub(s.wall_ns.unwrap_or(0)) as f64)
        .collect();
    let walls: Vec<f64> = samples
        .iter()
        .filter_map(|s| s.wall_ns)
        .map(|w| w as f64)
        .collect();
    Some(Overhead {
        setup_ns: summarize(&setup)?,
        per_process_ns: summarize(&per_process)?,
        test_wall_ns_median: summarize(&walls)?.median,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{CounterValue, plan};
    use crate::launch::Usage;

    fn sample(outcome: Outcome, task_clock: u64, rss_kib: u64) -> Sample {
        Sample {
            outcome,
            wall_ns: Some(task_clock + 10),
            usage: Some(Usage {
                maxrss_kib: rss_kib,
                minflt: 3,
                ..Usage::default()
            }),
            counters: vec![(
                PerfEvent::TaskClock,
                Ok(CounterValue {
                    count: task_clock,
                    time_enabled: 1,
                    time_running: 1,
                }),
            )],
            setup_ns: 5,
            profiler_ns: task_clock + 30,
            output_tail: None,
        }
    }

    fn no_pmu_plan() -> Plan {
        let hw = |e| (e, Err("ENOENT".to_string()));
        plan(
            &[
                hw(PerfEvent::Instructions),
                hw(PerfEvent::Cycles),
                hw(PerfEvent::BranchMisses),
                hw(PerfEvent::CacheMisses),
                (PerfEvent::TaskClock, Ok(())),
                (PerfEvent::PageFaults, Err("EACCES".into())),
                (PerfEvent::ContextSwitches, Ok(())),
            ],
            false,
        )
    }

    #[test]
    fn only_passes_count_and_missing_counters_are_not_zero() {
        let m = Measured {
            samples: vec![
                sample(Outcome::Pass, 100, 2048),
                sample(Outcome::Fail { code: 101 }, 1_000_000, 9999),
                sample(Outcome::Pass, 300, 4096),
            ],
            valgrind: None,
        };
        let figures = figures(&no_pmu_plan(), false, &m);
        let find = |metric, source| {
            figures
                .iter()
                .find(|f| f.metric == metric && f.source == source)
                .unwrap()
        };
        let task = find(Metric::TaskClockNs, Source::SoftwarePerf)
            .stats()
            .unwrap();
        assert_eq!((task.n, task.median, task.max), (2, 200.0, 300.0));
        assert!(matches!(
            find(Metric::Instructions, Source::HardwarePerf).reading,
            Reading::Unavailable { .. }
        ));
        // Page faults fell back to wait4.
        let faults = find(Metric::PageFaults, Source::Wait4).stats().unwrap();
        assert_eq!(faults.median, 3.0);
        let rss = find(Metric::MaxRssBytes, Source::Wait4).stats().unwrap();
        assert_eq!(rss.median, 3072.0 * 1024.0);
    }

    #[test]
    fn baseline_is_subtracted_from_additive_figures_only() {
        let plan = no_pmu_plan();
        let test = Measured {
            samples: vec![sample(Outcome::Pass, 1000, 8192)],
            valgrind: None,
        };
        let base = Measured {
            samples: vec![sample(Outcome::Pass, 400, 2048)],
            valgrind: None,
        };
        let mut test_figures = figures(&plan, false, &test);
        subtract(&mut test_figures, &figures(&plan, false, &base));
        let net = |metric| match &test_figures
            .iter()
            .find(|f| f.metric == metric)
            .unwrap()
            .reading
        {
            Reading::Measured { net_median, .. } => *net_median,
            Reading::Unavailable { .. } => panic!("unavailable"),
        };
        assert_eq!(net(Metric::TaskClockNs), Some(600.0));
        assert_eq!(net(Metric::MaxRssBytes), None);
    }

    #[test]
    fn a_unit_without_passes_reports_why() {
        let m = Measured {
            samples: vec![sample(Outcome::Timeout { after_ms: 1 }, 0, 0)],
            valgrind: None,
        };
        let figures = figures(&no_pmu_plan(), false, &m);
        assert!(figures.iter().all(|f| f.stats().is_none()));
    }
}
