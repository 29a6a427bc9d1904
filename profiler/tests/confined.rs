//! The profiler with a sandbox policy: the build, the listings, the launcher with each test and
//! valgrind run confined, and the figures are still measured (perf counters open on a confined
//! test, wait4 sees its memory).

mod common;

use common::{MIB, assert_all_pass, config, median, valgrind_present};
use frugal_profiler::report::{Metric, Reading, Source};
use frugal_profiler::{ProfileConfig, profile};

/// The costs fixture under a job policy: a private scratch dir and the target dir writable,
/// the fixture's dir too (cargo may rewrite its `Cargo.lock`).
fn confined(scratch: &std::path::Path) -> ProfileConfig {
    let mut config = config("costs");
    let target = scratch.join("target");
    std::fs::create_dir_all(&target).unwrap();
    let policy =
        frugal_sandbox::Policy::for_job(scratch.join("job"), &target, &config.crate_dir).unwrap();
    config.target_dir = Some(target);
    config.sandbox = Some(policy);
    config.repeat = 2;
    config
}

#[test]
fn a_confined_profile_measures_like_an_unconfined_one() {
    let scratch = tempfile::tempdir().unwrap();
    let mut config = confined(scratch.path());
    config.filter = Some("tests::".into());
    let report = profile(&config).expect("confined profile of the costs fixture");
    assert_all_pass(&report);
    assert_eq!(report.tests.len(), 4, "{:?}", report.not_profiled);
    let big = median(
        &report,
        "tests::alloc_100mb",
        Metric::MaxRssBytes,
        Source::Wait4,
    );
    assert!(big >= 100.0 * MIB, "alloc_100mb max RSS {big}");
    // perf_event_open on the confined test process works (the profiler is outside the sandbox).
    let clock = common::figure(
        &report,
        "tests::loop_1e8",
        Metric::TaskClockNs,
        Source::SoftwarePerf,
    );
    assert!(
        matches!(clock.reading, Reading::Measured { .. }),
        "{:?}",
        clock.reading
    );
    if report.hardware_unavailable.is_none() {
        let slow = common::net(
            &report,
            "tests::loop_1e8",
            Metric::Instructions,
            Source::HardwarePerf,
        );
        assert!(slow >= 1e8, "1e8 loop retired {slow} instructions");
    }
}

#[test]
fn valgrind_runs_confined() {
    if !valgrind_present("valgrind_runs_confined") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut config = confined(scratch.path());
    config.repeat = 1;
    config.valgrind = true;
    config.filter = Some("tests::alloc_100mb".into());
    let report = profile(&config).expect("confined profile under valgrind");
    let peak = median(
        &report,
        "tests::alloc_100mb",
        Metric::HeapPeakBytes,
        Source::Dhat,
    );
    assert!(peak >= 100.0 * MIB, "heap peak {peak}");
}
