//! What one run reports (`summary.json`, `frugal run --json`, the daemon's stored runs): goals
//! covered per criterion, callables supported and left out, the emitted suite's proxies and
//! measured cost, seeding, dropped tests and phase timings; and the pure functions that
//! count them.
//!
//! It must not know how a run is carried out (`pipeline.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use crate::criteria::{self, Criteria, Discovered, Plan};
use crate::harness::{self, registry::Registry};
use crate::strong::MutationScore;

/// Covered and total goals of one kind.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GoalCount {
    /// Goals of this kind the emitted suite covers.
    pub covered: usize,
    /// Goals of this kind the run counts.
    pub total: usize,
}

/// The share of public callables the harness drives, and why the rest are left out.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CallableSupport {
    /// Public callables the harness drives (registry calls, keyed variants not counted).
    pub supported: usize,
    /// All public callables: those driven plus those left out by the analysis or the registry.
    pub total: usize,
    /// Reason -> number of callables.
    pub reasons: BTreeMap<String, usize>,
    /// Every callable left out: its path, the reason and the piece of its signature behind it.
    pub left_out: Vec<crate::model::Unsupported>,
}

/// Everything a run reports.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// The crate's library name (dashes as underscores).
    pub krate: String,
    /// The search algorithm's name.
    pub algorithm: String,
    /// The archive's rule when `--archive` chose one other than the algorithm's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// How the archive became the suite (`plain`, `cost`, `shrink`; `--minimiser`).
    pub minimiser: String,
    /// The search's random seed: the same seed, crate and budget repeat the run.
    pub seed: u64,
    /// The search budget as configured, displayed (`60s`, ...).
    pub budget: String,
    /// Goals covered by the emitted suite (after minimisation), by kind.
    pub goals: BTreeMap<String, GoalCount>,
    /// The share of public callables the harness drives, and the reasons for the rest.
    pub callables: CallableSupport,
    /// Tests the search evaluated (its budget counts them), repeats included.
    pub executions: u64,
    /// `executions` per second of search wall time.
    pub executions_per_second: f64,
    /// Of `executions`, tests answered with the result of an earlier run: identical to it, or
    /// starting with its statements up to the one where it stopped.
    pub repeats: u64,
    /// Tests that crashed their harness process (not counting timeouts).
    pub crashes: u64,
    /// Tests that ran past the per-test timeout.
    pub timeouts: u64,
    /// Tests in the emitted suite (kept by verification).
    pub tests_emitted: usize,
    /// Sums over the emitted tests of the proxies I1..I7 (loop cycles, covered calls, test
    /// calls, allocations, covered statements, test statements, test length).
    pub suite_proxies: [u64; 7],
    /// The sum of `suite_proxies`: the estimated cost aDynaMOSA minimises (\[adynamosa\]).
    pub suite_proxy_total: u64,
    /// Tests verification dropped, with the reason.
    pub tests_dropped: Vec<DroppedTest>,
    /// Kept tests whose assertions on values that differ between runs (an address, an inode, a
    /// path under `HOME`) verification turned into comments, with how many each lost.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub assertions_not_reproducible: BTreeMap<String, usize>,
    /// Items or sites the instrumenter left without probes ([`crate::manifest::Manifest::skipped`]).
    pub uninstrumented: usize,
    /// Wall time of each phase.
    pub seconds: Timings,
    /// The suite file written to the output directory.
    pub output: PathBuf,
    /// The suite's test model (`frugal_generated.model.json` next to `output`): the verified
    /// tests by stable operation keys, which [`RunOptions::seed_model`] reads back.
    pub model: PathBuf,
    /// Where `--write` put the suite in the crate, if it did.
    pub written_to_crate: Option<PathBuf>,
    /// Module files `--write` appended a home's invocation to (in-module placement).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub homes_written: Vec<PathBuf>,
    /// Why the search ended: `budget`, `all-covered` or `stalled`.
    pub search_stop: String,
    /// What the seed model contributed, in a run that had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeding: Option<Seeding>,
    /// Goals each emitted test covers, in the suite's order (ids index `goal_info`): the daemon
    /// stores them per test.
    pub tests: Vec<TestGoals>,
    /// Every goal by id, as `goals.json` has it. In memory because the work dir's `goals.json`
    /// is writable by the crate's code: the daemon keys goals for the best-suite rule by this.
    #[serde(skip)]
    pub goal_info: Vec<criteria::GoalInfo>,
    /// Work-dir dumps that could not be written; the suite is unaffected. Left out of
    /// `summary.json` when empty, so a clean run's summary keeps its shape.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What confined the crate's code in this run, one line per layer
    /// (`frugal_sandbox::Capabilities::report`): what is used, what is missing.
    pub sandbox: Vec<String>,
    /// Whether files outside the run's work dir were really out of the crate code's reach.
    pub sandbox_fs_confined: bool,
    /// What the emitted suite costs when run, measured by a profiler after verification (the
    /// CLI fills it in); `None` when not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_cost: Option<MeasuredCost>,
    /// frugal's own mutants the emitted suite kills (strong mutation), in a run whose criteria
    /// include `weak-mutation`; left out of `summary.json` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationScore>,
    /// The verdict on each of the own suite's survivors (`--kill-survivors`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survivors: Option<crate::survivors::SurvivorReport>,
    /// What shrinking the kept tests' cost saved (`None` with `--no-shrink`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrinking: Option<crate::emit::shrink::ShrinkReport>,
    /// What CI pays for the suite and the crate's own tests (`frugal run --ci-cost`), as
    /// `frugal_api::summary::CiCostReport` in JSON: the CLI measures it with the profiler,
    /// which this crate does not know.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_cost: Option<serde_json::Value>,
}

/// The emitted suite's measured cost, beside the proxies' estimate (`suite_proxy_total`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeasuredCost {
    /// Sum over the measured tests, in `unit`; `None` when the measurement failed.
    pub total: Option<f64>,
    /// `instructions`, `task-clock-ns`, ... as the profiler names its metrics.
    pub unit: String,
    /// Where the figure comes from: `hardware-perf`, `software-perf`, `cachegrind`, ...
    pub source: String,
    /// Tests the profiler measured.
    pub tests_measured: usize,
    /// Tests it could not measure (not counted in `total`).
    pub tests_unmeasured: usize,
    /// Wall time the measurement took (its build and the runs).
    pub seconds: f64,
    /// Why there is no figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the host lacked for the preferred figure (hardware instruction counts) and what was
    /// used instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// The goals one emitted test covers.
#[derive(Debug, Clone, Serialize)]
pub struct TestGoals {
    /// The test function's name.
    pub name: String,
    /// Ids of the goals it covers (indices into [`RunSummary::goal_info`]).
    pub goals: Vec<u32>,
    /// The test's performance proxies I1..I7, by name.
    pub proxies: BTreeMap<String, u64>,
    /// frugal's own mutants it kills (strong mutation; with `weak-mutation` only), by goal id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kills: Vec<u32>,
}

/// Names of the proxies I1..I7, in order.
pub const PROXY_NAMES: [&str; 7] = [
    "loop_cycles",
    "covered_calls",
    "test_calls",
    "allocations",
    "covered_statements",
    "test_statements",
    "test_length",
];

/// What a seed model contributed to a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Seeding {
    /// Model tests that still apply to the new build.
    pub resolved: usize,
    /// Model tests that do not, with the reason (the callable is gone, its signature or a type
    /// changed).
    pub dropped: Vec<DroppedTest>,
    /// Resolved tests executed before the first generation (the budget may cut them short).
    pub executed: usize,
    /// Goals the search pursues that the seeds covered before its first generation.
    pub goals_covered: usize,
}

/// A test verification (or, in [`Seeding::dropped`], resolution) dropped.
#[derive(Debug, Clone, Serialize)]
pub struct DroppedTest {
    /// The test's name.
    pub name: String,
    /// Why it was dropped.
    pub reason: String,
}

/// Wall time per phase, in seconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    /// Analysing the crate's API.
    pub analyse: f64,
    /// Making and checking the instrumented copy.
    pub instrument: f64,
    /// Building the harness (and the verification preflight).
    pub build_harness: f64,
    /// The search itself.
    pub search: f64,
    /// Minimising the archive's tests and splitting conflicting ones.
    pub minimise: f64,
    /// Verifying the emitted suite against the uninstrumented crate.
    pub verify: f64,
}

/// Dropped tests, name and reason, as the summary lists them.
pub(crate) fn dropped_tests(dropped: &[(String, String)]) -> Vec<DroppedTest> {
    dropped
        .iter()
        .map(|(name, reason)| DroppedTest {
            name: name.clone(),
            reason: reason.clone(),
        })
        .collect()
}

/// Sums of each proxy I1..I7 over the suite.
pub(crate) fn proxy_sums(proxies: &[frugal_search::Proxies]) -> [u64; 7] {
    let mut sums = [0u64; 7];
    for p in proxies {
        for (sum, v) in sums.iter_mut().zip(p.values()) {
            *sum += v;
        }
    }
    sums
}

/// One test's proxies keyed by [`PROXY_NAMES`].
pub(crate) fn proxies_by_name(p: &frugal_search::Proxies) -> BTreeMap<String, u64> {
    PROXY_NAMES
        .iter()
        .map(|k| k.to_string())
        .zip(p.values())
        .collect()
}

pub(crate) fn goal_counts(
    plan: &Plan,
    criteria: &Criteria,
    found: &Discovered,
    covered: &BTreeSet<u32>,
) -> BTreeMap<String, GoalCount> {
    plan.counts(criteria, found, covered)
        .into_iter()
        .map(|(k, (covered, total))| (k, GoalCount { covered, total }))
        .collect()
}

pub(crate) fn support(model: &crate::model::ApiModel, reg: &Registry) -> CallableSupport {
    let supported = reg
        .ops
        .iter()
        .filter(|o| matches!(o.code, harness::registry::OpCode::Call(_)) && !o.keyed)
        .count();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for u in model.unsupported.iter().chain(&reg.dropped) {
        *reasons.entry(u.reason.clone()).or_default() += 1;
    }
    CallableSupport {
        supported,
        total: supported + model.unsupported.len() + reg.dropped.len(),
        reasons,
        left_out: model
            .unsupported
            .iter()
            .chain(&reg.dropped)
            .cloned()
            .collect(),
    }
}
