//! The profiler on a fixture crate whose tests have known, very different costs.

mod common;

use std::io;

use common::{MIB, assert_all_pass, config, median, names, net, valgrind_present};
use frugal_profiler::report::{Metric, Reading, Report, SCHEMA_VERSION, Source};
use frugal_profiler::{
    CounterBackend, OpenCounter, PerfEvent, PerfEventBackend, Suite, profile, profile_with,
};

const ALL_PASS: [&str; 5] = [
    "tests::alloc_100mb",
    "tests::alloc_nothing",
    "tests::loop_1e8",
    "tests::loop_1e3",
    "runs_in_the_crate_dir_with_cargo_env",
];

#[test]
fn existing_suite_orders_tests_by_memory_and_time() {
    let report = profile(&config("costs")).expect("profile the costs fixture");
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    let mut got = names(&report);
    got.sort_unstable();
    let mut want = ALL_PASS.to_vec();
    want.sort_unstable();
    assert_eq!(got, want, "the generated suite is not part of `existing`");
    assert_all_pass(&report);
    assert!(report.tests.iter().all(|t| t.outcomes.len() == 3));

    // wait4: the big allocation is resident, the test without allocation stays near the floor.
    let rss = |test| median(&report, test, Metric::MaxRssBytes, Source::Wait4);
    let (big, none) = (rss("tests::alloc_100mb"), rss("tests::alloc_nothing"));
    assert!(big >= 100.0 * MIB, "alloc_100mb max RSS {big}");
    assert!(
        none < 20.0 * MIB,
        "alloc_nothing max RSS {none}: launcher not small?"
    );

    // task-clock: 10^8 iterations against 10^3.
    let (slow, fast) = loops(&report, median, Metric::TaskClockNs, Source::SoftwarePerf);
    assert!(slow > 20.0 * fast, "task-clock 1e8 {slow} vs 1e3 {fast}");
    assert!(slow > 20e6, "10^8 iterations took only {slow} ns of CPU");

    // The empty-test baseline exists per binary and is subtracted from additive figures.
    let lib = &report.test("tests::loop_1e3").unwrap().binary;
    let baseline = report
        .baseline(lib)
        .expect("baseline of the lib test binary");
    assert!(baseline.outcomes.iter().all(|o| o.is_pass()));
    let base = baseline
        .figure(Metric::TaskClockNs, Source::SoftwarePerf)
        .and_then(|f| f.stats())
        .expect("baseline task-clock")
        .median;
    let fast_net = net(
        &report,
        "tests::loop_1e3",
        Metric::TaskClockNs,
        Source::SoftwarePerf,
    );
    assert!((fast - base - fast_net).abs() < 1.0);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("net figures subtract"))
    );

    // The profiler's own overhead is measured and stated.
    let overhead = report.overhead.as_ref().expect("overhead");
    assert!(overhead.per_process_ns.median > 0.0 && overhead.setup_ns.median > 0.0);
    let table = frugal_profiler::render_table(&report);
    assert!(
        table.contains("profiler overhead per test process"),
        "{table}"
    );
    assert!(table.contains("baseline (empty test)"), "{table}");

    // Ignored tests and doc tests are named, not silently dropped.
    assert!(
        report
            .not_profiled
            .iter()
            .any(|n| n.name.as_deref() == Some("tests::ignored_one"))
    );
    assert!(report.not_profiled.iter().any(|n| n.binary == "doc:costs"));

    // The JSON round-trips through the serde types unchanged.
    let json = serde_json::to_string(&report).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);

    hardware_path(&report);
}

/// A figure of the 10^8-iteration loop test and of the 10^3 one (`slow`, `fast`), which most
/// checks here compare; `of` reads it (`median` or `net`).
fn loops(
    report: &Report,
    of: fn(&Report, &str, Metric, Source) -> f64,
    metric: Metric,
    source: Source,
) -> (f64, f64) {
    (
        of(report, "tests::loop_1e8", metric, source),
        of(report, "tests::loop_1e3", metric, source),
    )
}

/// Hardware counters where the kernel offers them; otherwise the report says why.
fn hardware_path(report: &Report) {
    match &report.hardware_unavailable {
        None => {
            let (slow, fast) = loops(report, net, Metric::Instructions, Source::HardwarePerf);
            assert!(slow >= 1e8, "1e8 loop retired {slow} instructions");
            assert!(
                slow >= 1000.0 * fast,
                "hw instructions 1e8 {slow} vs 1e3 {fast}"
            );
            assert_eq!(report.cost_basis.source, Source::HardwarePerf);
        }
        Some(reason) => {
            eprintln!("hardware counter checks skipped: {reason}");
            let figure = common::figure(
                report,
                "tests::loop_1e8",
                Metric::Instructions,
                Source::HardwarePerf,
            );
            assert!(matches!(figure.reading, Reading::Unavailable { .. }));
            assert_eq!(report.cost_basis.source, Source::SoftwarePerf);
        }
    }
}

/// The machine's counters, minus the hardware ones: what a CI VM without a PMU offers.
struct WithoutPmu;

impl CounterBackend for WithoutPmu {
    fn open(&self, event: PerfEvent, pid: libc::pid_t) -> io::Result<Box<dyn OpenCounter>> {
        if event.is_hardware() {
            return Err(io::Error::from_raw_os_error(libc::ENOENT));
        }
        PerfEventBackend.open(event, pid)
    }
}

#[test]
fn without_a_pmu_the_report_says_so_and_uses_software_figures() {
    let mut config = config("costs");
    config.repeat = 2;
    config.filter = Some("loop".into());
    let report = profile_with(&config, &WithoutPmu, &mut |_| {}).expect("profile");
    let reason = report.hardware_unavailable.as_deref().expect("reported");
    assert!(reason.contains("ENOENT"), "{reason}");
    assert_eq!(report.cost_basis.metric, Metric::TaskClockNs);
    assert_eq!(report.cost_basis.source, Source::SoftwarePerf);
    let instructions = common::figure(
        &report,
        "tests::loop_1e8",
        Metric::Instructions,
        Source::HardwarePerf,
    );
    match &instructions.reading {
        Reading::Unavailable { reason } => assert!(reason.contains("ENOENT"), "{reason}"),
        Reading::Measured { .. } => panic!("a missing counter must not be measured"),
    }
    let (slow, fast) = loops(&report, net, Metric::TaskClockNs, Source::SoftwarePerf);
    assert!(
        slow > 20.0 * fast.max(1.0),
        "task-clock 1e8 {slow} vs 1e3 {fast}"
    );
    let table = frugal_profiler::render_table(&report);
    assert!(table.contains("hardware counters: UNAVAILABLE"), "{table}");
}

#[test]
fn suites_select_the_generated_file_or_the_rest() {
    let mut config = config("costs");
    config.repeat = 1;
    config.suite = Suite::Generated;
    let generated = profile(&config).expect("generated suite");
    assert_eq!(names(&generated), vec!["generated_spin"]);
    assert_eq!(generated.tests[0].binary.suite, Suite::Generated);
    assert_all_pass(&generated);

    config.suite = Suite::Both;
    config.filter = Some("spin".into());
    let both = profile(&config).expect("both suites");
    assert_eq!(
        names(&both),
        vec!["generated_spin"],
        "filter applies to both"
    );
    config.filter = None;
    let both = profile(&config).expect("both suites");
    assert_eq!(both.tests.len(), ALL_PASS.len() + 1);
}

#[test]
fn valgrind_counts_instructions_and_heap() {
    if !valgrind_present("valgrind_counts_instructions_and_heap") {
        return;
    }
    let mut config = config("costs");
    config.repeat = 1;
    config.valgrind = true;
    config.filter = Some("tests::".into());
    let report = profile(&config).expect("profile under valgrind");
    assert_all_pass(&report);
    assert_eq!(report.cost_basis.source, Source::Cachegrind);

    let dhat = |test, metric| median(&report, test, metric, Source::Dhat);
    let peak = dhat("tests::alloc_100mb", Metric::HeapPeakBytes);
    let total = dhat("tests::alloc_100mb", Metric::HeapTotalBytes);
    assert!(peak >= 100.0 * MIB, "dhat peak {peak}");
    assert!(total >= peak);
    let small = dhat("tests::alloc_nothing", Metric::HeapPeakBytes);
    assert!(small < MIB, "alloc_nothing heap peak {small}");

    let (slow, fast) = loops(&report, net, Metric::Instructions, Source::Cachegrind);
    assert!(fast > 0.0, "net cachegrind count of the 1e3 loop is {fast}");
    assert!(slow >= 1000.0 * fast, "cachegrind 1e8 {slow} vs 1e3 {fast}");
}
