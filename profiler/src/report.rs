//! The profile report: plain serde types that storage and the daemon keep as they are.
//!
//! Versioned by [`SCHEMA_VERSION`]; bump it when a field changes meaning or disappears (adding an
//! optional field does not need a bump). Every figure names the [`Source`] it came from, and a
//! figure the machine could not measure is [`Reading::Unavailable`] with a reason, never 0.

use serde::{Deserialize, Serialize};

/// Version of the JSON written by [`Report`].
pub const SCHEMA_VERSION: u32 = 1;

/// Which tests of the crate are profiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Suite {
    /// `tests/frugal_generated.rs`, the integration test target `frugal_generated`.
    Generated,
    /// Every other test of the crate (unit tests, other integration tests, bin tests).
    Existing,
    /// Both of the above.
    Both,
}

/// Where a figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// perf_event hardware counter (needs a PMU the kernel exposes).
    HardwarePerf,
    /// perf_event software counter.
    SoftwarePerf,
    /// `wait4` resource usage of the test process.
    Wait4,
    /// Wall clock around the test process, measured by the launcher.
    WallClock,
    /// `valgrind --tool=cachegrind --cache-sim=no` (deterministic).
    Cachegrind,
    /// `valgrind --tool=dhat`.
    Dhat,
}

/// What a figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Retired instructions (user space).
    Instructions,
    /// CPU cycles (user space).
    Cycles,
    /// Branch mispredictions (user space).
    BranchMisses,
    /// Last-level cache misses (user space).
    CacheMisses,
    /// CPU time of the test's threads, in nanoseconds.
    TaskClockNs,
    /// Page faults (minor and major).
    PageFaults,
    /// Context switches (voluntary and involuntary).
    ContextSwitches,
    /// Wall time from release to exit, in nanoseconds.
    WallNs,
    /// User CPU time, in nanoseconds (microsecond resolution).
    UserCpuNs,
    /// System CPU time, in nanoseconds (microsecond resolution).
    SystemCpuNs,
    /// Peak resident set size, in bytes.
    MaxRssBytes,
    /// Bytes allocated over the whole run (dhat).
    HeapTotalBytes,
    /// Bytes live at the heap's global peak (dhat).
    HeapPeakBytes,
}

impl Metric {
    /// Whether the empty-test baseline can be subtracted: counts and times add up over a
    /// process's life, peaks do not.
    pub fn is_additive(self) -> bool {
        !matches!(self, Metric::MaxRssBytes | Metric::HeapPeakBytes)
    }

    /// Short unit for tables.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Instructions
            | Metric::Cycles
            | Metric::BranchMisses
            | Metric::CacheMisses
            | Metric::PageFaults
            | Metric::ContextSwitches => "count",
            Metric::TaskClockNs | Metric::WallNs | Metric::UserCpuNs | Metric::SystemCpuNs => "ns",
            Metric::MaxRssBytes | Metric::HeapTotalBytes | Metric::HeapPeakBytes => "bytes",
        }
    }
}

/// Median and spread over the passing repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Number of values.
    pub n: u32,
    /// Median of the values, in the metric's unit ([`Metric::unit`]).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
}

/// One figure of one test (or of a baseline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// What the figure measures.
    pub metric: Metric,
    /// Where the figure came from.
    pub source: Source,
    /// The figure, or why there is none.
    pub reading: Reading,
}

/// A measured figure, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Reading {
    /// The figure was measured on the passing runs.
    Measured {
        /// Raw values, baseline not subtracted.
        stats: Stats,
        /// `stats.median` minus the empty-test baseline's median of the same binary, metric and
        /// source; `None` for peaks (not additive) and for the baseline itself. Can be slightly
        /// negative for tests cheaper than the noise.
        net_median: Option<f64>,
    },
    /// The figure could not be measured (the counter is missing, no run passed, ...).
    Unavailable {
        /// Why, for people.
        reason: String,
    },
}

impl Figure {
    /// Raw statistics when measured.
    pub fn stats(&self) -> Option<&Stats> {
        match &self.reading {
            Reading::Measured { stats, .. } => Some(stats),
            Reading::Unavailable { .. } => None,
        }
    }

    /// Baseline-subtracted median when there is one, else the raw median.
    pub fn net_or_raw_median(&self) -> Option<f64> {
        match &self.reading {
            Reading::Measured { stats, net_median } => Some(net_median.unwrap_or(stats.median)),
            Reading::Unavailable { .. } => None,
        }
    }
}

/// How one run of a test ended. Only passes enter the statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// Exited with code 0.
    Pass,
    /// Exited with a non-zero code.
    Fail {
        /// The exit code.
        code: i32,
    },
    /// Killed by a signal it did not get from frugal.
    Crashed {
        /// The signal's number.
        signal: i32,
        /// Whether the kernel wrote a core dump.
        core_dumped: bool,
    },
    /// Killed by frugal (SIGKILL to its process group) after the timeout.
    Timeout {
        /// The timeout that was exceeded, in milliseconds.
        after_ms: u64,
    },
    /// Could not be started.
    ExecFailed {
        /// Why, for people (the program and the operating system's error).
        reason: String,
    },
}

impl Outcome {
    /// Whether the run passed; only passing runs enter the statistics.
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// One word for tables.
    pub fn label(&self) -> String {
        match self {
            Outcome::Pass => "pass".into(),
            Outcome::Fail { code } => format!("fail({code})"),
            Outcome::Crashed { signal, .. } => format!("crash(sig {signal})"),
            Outcome::Timeout { .. } => "timeout".into(),
            Outcome::ExecFailed { .. } => "exec-failed".into(),
        }
    }
}

/// Kind of a cargo test target.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TestBinary {
    /// Cargo target name (`frugal_generated`, the lib's name, ...).
    pub target: String,
    /// Cargo target kind: `lib`, `bin`, `test`, `bench`, `example`.
    pub kind: String,
    /// Which suite its tests belong to.
    pub suite: Suite,
}

impl TestBinary {
    /// `kind:target`, as tables show it.
    pub fn label(&self) -> String {
        format!("{}:{}", self.kind, self.target)
    }
}

/// Figures of one test over all repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    /// The test binary holding the test.
    pub binary: TestBinary,
    /// Full libtest name, as `--exact` takes it.
    pub name: String,
    /// One outcome per repetition, in order.
    pub outcomes: Vec<Outcome>,
    /// Outcome of the valgrind runs, when `--valgrind` was asked for.
    pub valgrind_outcomes: Vec<Outcome>,
    /// Every figure measured for the test; baseline-subtracted where the metric allows
    /// ([`Reading::Measured::net_median`](Reading::Measured)).
    pub figures: Vec<Figure>,
    /// Last bytes of stdout+stderr of the last run that did not pass.
    pub failure_output: Option<String>,
}

impl TestReport {
    /// The figure for `metric` from `source`, if the report has one.
    pub fn figure(&self, metric: Metric, source: Source) -> Option<&Figure> {
        find_figure(&self.figures, metric, source)
    }

    /// Number of passing repetitions.
    pub fn passes(&self) -> usize {
        self.outcomes.iter().filter(|o| o.is_pass()).count()
    }

    /// Measured cost on `basis`: the baseline-subtracted median from passing runs; `None` when
    /// unmeasured (never 0 for unknown). A net figure below the noise can dip under zero; it
    /// still means "about nothing", so it counts as zero.
    pub fn cost(&self, basis: CostBasis) -> Option<f64> {
        if self.passes() == 0 {
            return None;
        }
        let v = self
            .figure(basis.metric, basis.source)?
            .net_or_raw_median()?;
        Some(v.max(0.0))
    }
}

/// Cost of starting a test binary and running no test, per binary: what every test pays before
/// its own work. Measured by running `<binary> --exact <a name no test has> --test-threads 1`
/// under exactly the same launcher and counters, interleaved with the tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// The test binary this baseline belongs to.
    pub binary: TestBinary,
    /// One outcome per repetition, in order.
    pub outcomes: Vec<Outcome>,
    /// The baseline's raw figures.
    pub figures: Vec<Figure>,
}

impl Baseline {
    /// The figure for `metric` from `source`, if the baseline has one.
    pub fn figure(&self, metric: Metric, source: Source) -> Option<&Figure> {
        find_figure(&self.figures, metric, source)
    }
}

fn find_figure(figures: &[Figure], metric: Metric, source: Source) -> Option<&Figure> {
    figures
        .iter()
        .find(|f| f.metric == metric && f.source == source)
}

/// Whether a counter could be opened on this machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterAvailability {
    /// What the counter measures.
    pub metric: Metric,
    /// Where the figure would come from.
    pub source: Source,
    /// `None` when available, else why not (with the errno).
    pub unavailable: Option<String>,
}

/// Which figure ranks tests by cost, chosen from what the machine offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostBasis {
    /// The metric tests are ranked by.
    pub metric: Metric,
    /// Where that metric comes from: instructions from cachegrind when valgrind ran, else from
    /// the hardware counter, else task-clock, else `wait4` user CPU time.
    pub source: Source,
}

/// The profiler's own cost per test process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// From spawning the launcher to releasing the test (launcher start, fork, counters armed).
    pub setup_ns: Stats,
    /// Profiler wall time per process minus the test's own wall time (setup, pipe round trips,
    /// reaping, reading counters).
    pub per_process_ns: Stats,
    /// Median wall time of every measured process (the tests' and the empty baseline test's),
    /// for comparison.
    pub test_wall_ns_median: f64,
}

/// A test or target that was found but not measured, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotProfiled {
    /// Binary label (`kind:target`) or `doc` for doc tests.
    pub binary: String,
    /// Test name, or `None` for a whole target.
    pub name: Option<String>,
    /// Why it was not measured, for people.
    pub reason: String,
}

/// Everything `frugal profile` measured on one crate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Version of this report's shape: [`SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// The crate's package name.
    pub crate_name: String,
    /// The crate's directory, as cargo metadata reports it, canonicalised where possible.
    pub crate_dir: String,
    /// Which tests were profiled.
    pub suite: Suite,
    /// Repetitions per test under counters (valgrind runs once: it is deterministic).
    pub repeat: u32,
    /// The per-run timeout, in milliseconds.
    pub timeout_ms: u64,
    /// Cargo profile the tests were built with (`dev` or `release`).
    pub build_profile: String,
    /// `None` when the kernel exposes hardware counters, else why not; the software figures are
    /// the ones to use then.
    pub hardware_unavailable: Option<String>,
    /// Every counter the profiler tried, and whether it could be opened.
    pub counters: Vec<CounterAvailability>,
    /// The figure that ranks tests by cost on this machine.
    pub cost_basis: CostBasis,
    /// The valgrind version used, when the tests also ran under valgrind.
    pub valgrind: Option<String>,
    /// One empty-test baseline per test binary, subtracted from its tests' figures.
    pub baselines: Vec<Baseline>,
    /// The profiler's own cost per test process; `None` when no run was measured.
    pub overhead: Option<Overhead>,
    /// One report per test.
    pub tests: Vec<TestReport>,
    /// Tests and targets found but not measured, with the reason.
    pub not_profiled: Vec<NotProfiled>,
    /// Plain-language remarks a reader needs (e.g. how the baseline is subtracted).
    pub notes: Vec<String>,
}

/// What a whole suite measured on a report's cost basis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteCost {
    /// The metric of [`Report::cost_basis`].
    pub metric: Metric,
    /// The source of [`Report::cost_basis`].
    pub source: Source,
    /// Sum over the measured tests of their net median (baseline subtracted; a figure dipping
    /// under zero counts as zero).
    pub total: f64,
    /// Tests with a passing run and a figure on the basis.
    pub measured: usize,
    /// Tests without one (failed, timed out, or the basis was not recorded for them).
    pub unmeasured: usize,
}

impl Report {
    /// The suite's cost on [`Report::cost_basis`].
    pub fn suite_cost(&self) -> SuiteCost {
        let mut cost = SuiteCost {
            metric: self.cost_basis.metric,
            source: self.cost_basis.source,
            total: 0.0,
            measured: 0,
            unmeasured: 0,
        };
        for t in &self.tests {
            match t.cost(self.cost_basis) {
                Some(v) => {
                    cost.total += v;
                    cost.measured += 1;
                }
                None => cost.unmeasured += 1,
            }
        }
        cost
    }

    /// The test with this exact name, in any binary.
    pub fn test(&self, name: &str) -> Option<&TestReport> {
        self.tests.iter().find(|t| t.name == name)
    }

    /// The baseline of a binary.
    pub fn baseline(&self, binary: &TestBinary) -> Option<&Baseline> {
        self.baselines.iter().find(|b| &b.binary == binary)
    }
}
