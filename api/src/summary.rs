//! The run summary: what a finished frugald run reports (`GET /v1/runs/{id}`'s `summary`), the
//! one shape CI reads besides the suites. Typed and versioned ([`SUMMARY_VERSION`]).
//!
//! Decision: every field is optional or defaulted on the way in and unknown fields are kept
//! (`extra`), so summaries stored by an older or newer frugald decode and are served as they
//! were stored; a field's meaning never changes within a version. The JSON is the one frugald
//! built before the summary was typed, plus `version`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Version of the summary's shape. `0`: stored before the summary carried a version (the same
/// fields as 1).
pub const SUMMARY_VERSION: u32 = 1;

/// A finished run's summary: the pipeline's own summary, the profile of the emitted suite, the
/// best-suite verdict, where the outputs are, the regression check and the own suite's
/// survivors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// [`SUMMARY_VERSION`] when written; 0 for summaries stored before it existed.
    #[serde(default)]
    pub version: u32,
    /// The engine's summary (what `frugal run` writes to `summary.json`).
    #[serde(default)]
    pub pipeline: PipelineSummary,
    /// The emitted suite's measurement, or why there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileDigest>,
    /// Whether the suite became the best one of its crate, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<BestVerdict>,
    /// The run's output dir on the daemon's host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<PathBuf>,
    /// The regression check the job ran first (`null` when `regressions.check` is off).
    #[serde(default)]
    pub regressions: Option<Regressions>,
    /// cargo-mutants on the crate's own suite (`null` when `mutation.survivors` is off).
    #[serde(default)]
    pub own_mutants: Option<OwnMutants>,
    /// Processes of the job that outlived it and were killed (not cargo-mutants' survivors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survivors: Option<u64>,
    /// Fields this version does not know, kept as stored.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// The engine's summary of one run (`frugal_subject::pipeline::RunSummary` as serialised).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PipelineSummary {
    /// The crate's package name.
    #[serde(default)]
    pub krate: String,
    /// The search algorithm's name (`adynamosa`, `mosa`, ...).
    #[serde(default)]
    pub algorithm: String,
    /// The archive's rule when `--archive` chose one other than the algorithm's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// How the archive became the suite (`plain`, `cost`, `shrink`); empty in summaries older
    /// than the choice.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub minimiser: String,
    /// The search's random seed.
    #[serde(default)]
    pub seed: u64,
    /// The search budget as given (`3000 executions`, `30s`, ...).
    #[serde(default)]
    pub budget: String,
    /// Goals covered by the emitted suite and in all, by kind (`branch`, `line`, ...).
    #[serde(default)]
    pub goals: BTreeMap<String, GoalCount>,
    /// Public callables the harness drives, and why the rest are left out.
    #[serde(default)]
    pub callables: CallableSupport,
    /// Tests the search evaluated, repeats included.
    #[serde(default)]
    pub executions: u64,
    /// `executions` per second of the search phase's wall time.
    #[serde(default)]
    pub executions_per_second: f64,
    /// Of `executions`, tests answered with the result of an earlier run.
    #[serde(default)]
    pub repeats: u64,
    /// Executions whose harness process died, other than by the timeout.
    #[serde(default)]
    pub crashes: u64,
    /// Executions stopped at the wall-clock timeout.
    #[serde(default)]
    pub timeouts: u64,
    /// Tests in the emitted suite.
    #[serde(default)]
    pub tests_emitted: u64,
    /// Sums over the emitted tests of the proxies I1..I7.
    #[serde(default)]
    pub suite_proxies: Vec<u64>,
    /// The sum of `suite_proxies`: the estimated cost aDynaMOSA minimises.
    #[serde(default)]
    pub suite_proxy_total: u64,
    /// Tests verification dropped, with the reason.
    #[serde(default)]
    pub tests_dropped: Vec<DroppedTest>,
    /// Kept tests whose irreproducible assertions became comments, with how many each lost.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub assertions_not_reproducible: BTreeMap<String, u64>,
    /// Items or sites of the crate the instrumenter left without probes.
    #[serde(default)]
    pub uninstrumented: u64,
    /// Wall time per phase.
    #[serde(default)]
    pub seconds: Timings,
    /// The emitted suite's file in the run's output directory.
    #[serde(default)]
    pub output: PathBuf,
    /// The suite's test model (`frugal_generated.model.json`).
    #[serde(default)]
    pub model: PathBuf,
    /// The copy of the suite `--write` put into the crate; `None` without `--write`.
    #[serde(default)]
    pub written_to_crate: Option<PathBuf>,
    /// Module files `--write` appended a home's invocation to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub homes_written: Vec<PathBuf>,
    /// Why the search ended: `budget`, `all-covered` or `stalled`.
    #[serde(default)]
    pub search_stop: String,
    /// What the seed model contributed, in a run that had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeding: Option<Seeding>,
    /// Goals each emitted test covers, in the suite's order.
    #[serde(default)]
    pub tests: Vec<TestGoals>,
    /// Work-dir dumps that could not be written; the suite is unaffected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What confined the crate's code, one line per layer.
    #[serde(default)]
    pub sandbox: Vec<String>,
    /// Whether files outside the run's work dir were really out of the crate code's reach.
    #[serde(default)]
    pub sandbox_fs_confined: bool,
    /// The emitted suite's measured cost (`frugal run` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_cost: Option<MeasuredCost>,
    /// frugal's own mutants the suite kills, with `weak-mutation` goals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationScore>,
    /// The verdict on each of the own suite's survivors (`--kill-survivors`, `mutation.survivors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survivors: Option<SurvivorReport>,
    /// What shrinking the kept tests' cost saved; absent with `--no-shrink` and in summaries
    /// older than shrinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrinking: Option<Shrinking>,
    /// What CI pays for the suite and, beside it, for the crate's own tests (`frugal run
    /// --ci-cost`, `jobs.ci_cost`); absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_cost: Option<CiCostReport>,
    /// Fields this version does not know, kept as stored.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Goals of one kind: covered by the suite, and in all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalCount {
    /// Goals of this kind the emitted suite covers.
    pub covered: u64,
    /// Goals of this kind in all.
    pub total: u64,
}

/// Which public callables the harness can drive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallableSupport {
    /// Public callables the harness drives.
    #[serde(default)]
    pub supported: u64,
    /// Public callables in all, left out ones included.
    #[serde(default)]
    pub total: u64,
    /// Reason -> number of callables left out.
    #[serde(default)]
    pub reasons: BTreeMap<String, u64>,
    /// Every callable left out.
    #[serde(default)]
    pub left_out: Vec<LeftOut>,
}

/// A callable left out: its path, the reason and the piece of its signature behind it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// Path of the callable.
    pub path: String,
    /// A short, stable reason, used to group (`unsafe fn`, `closure parameter`, ...).
    pub reason: String,
    /// The piece of the signature behind the reason, as source text.
    #[serde(default)]
    pub detail: String,
}

/// A test verification (or the seed model's resolution) dropped, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedTest {
    /// The test's name.
    pub name: String,
    /// Why it was dropped.
    pub reason: String,
}

/// Wall time per phase, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Analysing the crate's API and goals.
    #[serde(default)]
    pub analyse: f64,
    /// Instrumenting a copy of the crate.
    #[serde(default)]
    pub instrument: f64,
    /// Building the harness.
    #[serde(default)]
    pub build_harness: f64,
    /// The search.
    #[serde(default)]
    pub search: f64,
    /// Minimising the archive's tests.
    #[serde(default)]
    pub minimise: f64,
    /// Verifying the emitted tests against the uninstrumented crate.
    #[serde(default)]
    pub verify: f64,
}

/// What the previous suite's test model contributed to a seeded run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seeding {
    /// Model tests that still apply to the new build.
    #[serde(default)]
    pub resolved: u64,
    /// Model tests that do not, with the reason (the callable is gone, its signature or a type
    /// changed).
    #[serde(default)]
    pub dropped: Vec<DroppedTest>,
    /// Resolved tests executed before the first generation (the budget may cut them short).
    #[serde(default)]
    pub executed: u64,
    /// Goals the search pursues that the seeds covered before its first generation.
    #[serde(default)]
    pub goals_covered: u64,
}

/// The goals one emitted test covers, its proxies and the mutants it kills.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestGoals {
    /// The `#[test]` fn name.
    pub name: String,
    /// Goal ids the test covers.
    #[serde(default)]
    pub goals: Vec<u32>,
    /// The proxies I1..I7 by name.
    #[serde(default)]
    pub proxies: BTreeMap<String, u64>,
    /// frugal's own mutants it kills (strong mutation), by goal id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kills: Vec<u32>,
}

/// The emitted suite's measured cost beside the proxies' estimate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCost {
    /// Sum over the measured tests, in `unit`; `None` when the measurement failed.
    #[serde(default)]
    pub total: Option<f64>,
    /// The metric, as the profiler names it (`instructions`, `task-clock-ns`, ...).
    #[serde(default)]
    pub unit: String,
    /// Where the figure comes from (`hardware-perf`, `software-perf`, `cachegrind`, ...).
    #[serde(default)]
    pub source: String,
    /// Tests measured.
    #[serde(default)]
    pub tests_measured: u64,
    /// Tests not measured.
    #[serde(default)]
    pub tests_unmeasured: u64,
    /// Wall time the measurement took (its build and the runs), in seconds.
    #[serde(default)]
    pub seconds: f64,
    /// Why there is no figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What the host lacked for the preferred figure (hardware instruction counts) and what was
    /// used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// What CI pays: the generated suite and the crate's own tests, each measured on its own copy
/// of the same crate version (`frugal_profiler::measure_ci_cost`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CiCostReport {
    /// The generated suite (`tests/frugal_generated.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<CiCost>,
    /// The crate's own tests (library, binaries, integration tests; no doc tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<CiCost>,
    /// Why a side is missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Wall seconds the measurement took.
    #[serde(default)]
    pub seconds: f64,
}

/// What CI pays for one suite: its builds, and its runs under `cargo test` and `cargo nextest`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CiCost {
    /// `generated` or `existing`.
    #[serde(default)]
    pub suite: String,
    /// The test targets built and run (`--test frugal_generated`, `--lib`, ...).
    #[serde(default)]
    pub targets: Vec<String>,
    /// `cargo test --no-run` from an empty target dir, dependencies included: wall seconds.
    #[serde(default)]
    pub build_clean_seconds: f64,
    /// The same after a one-line change in the crate's root: wall seconds.
    #[serde(default)]
    pub build_incremental_seconds: f64,
    /// CPU seconds of the clean build.
    #[serde(default)]
    pub build_clean_cpu_seconds: f64,
    /// `cargo test` (a thread per test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cargo_test: Option<RunTimes>,
    /// `cargo nextest run` (a process per test); absent where cargo-nextest is not installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nextest: Option<RunTimes>,
    /// What could not be measured, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Wall and CPU seconds of running a suite, medians over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunTimes {
    /// Median wall seconds.
    #[serde(default)]
    pub wall_seconds: f64,
    /// Median CPU seconds of the command and every process it waited for.
    #[serde(default)]
    pub cpu_seconds: f64,
    /// Runs measured.
    #[serde(default)]
    pub runs: u32,
    /// Every run passed.
    #[serde(default)]
    pub passed: bool,
}

impl RunTimes {
    /// `0.19 s wall, 0.25 s CPU`, with ` (failures)` when a run failed.
    pub fn describe(&self) -> String {
        format!(
            "{:.2} s wall, {:.2} s CPU{}",
            self.wall_seconds,
            self.cpu_seconds,
            if self.passed { "" } else { " (failures)" }
        )
    }
}

/// Shrinking the kept tests' cost after minimisation: moves tried and kept, the estimated
/// instructions before and after (libtest's fixed cost per test included).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shrinking {
    /// Kept tests looked at.
    #[serde(default)]
    pub tests: u64,
    /// Of those, tests made cheaper.
    #[serde(default)]
    pub tests_shrunk: u64,
    /// Candidate tests executed.
    #[serde(default)]
    pub moves_tried: u64,
    /// Candidates kept.
    #[serde(default)]
    pub moves_kept: u64,
    /// Estimated instructions of the kept tests before shrinking.
    #[serde(default)]
    pub estimate_before: f64,
    /// The same after shrinking.
    #[serde(default)]
    pub estimate_after: f64,
    /// Goals the kept tests cover together before shrinking.
    #[serde(default)]
    pub goals_before: u64,
    /// The same after shrinking (equal by construction).
    #[serde(default)]
    pub goals_after: u64,
    /// Wall time of the phase.
    #[serde(default)]
    pub seconds: f64,
    /// The phase's deadline or round limit ended it with moves left.
    #[serde(default)]
    pub cut: bool,
}

/// What the emitted suite does against frugal's own mutants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MutationScore {
    /// frugal's own mutants (ROR, AOR and FBR schemata) in the crate.
    #[serde(default)]
    pub mutants: u64,
    /// Killed by some emitted test: it would fail on the mutated crate.
    #[serde(default)]
    pub killed: u64,
    /// Infected, killed by no emitted test.
    #[serde(default)]
    pub survived: u64,
    /// Infected by no test.
    #[serde(default)]
    pub not_infected: u64,
    /// Infected by an emitted test but not judged: the mutation phase's share of the budget ran
    /// out.
    #[serde(default)]
    pub unjudged: u64,
    /// `killed / mutants`.
    #[serde(default)]
    pub score: f64,
    /// Survivors, `file:line label`.
    #[serde(default)]
    pub survivors: Vec<String>,
    /// Executions the strong-mutation runs took (judging the search's tests and the emitted ones).
    #[serde(default)]
    pub executions: u64,
    /// Their share of all the run's executions, search included.
    #[serde(default)]
    pub share_of_executions: f64,
    /// Their wall time, in seconds.
    #[serde(default)]
    pub seconds: f64,
    /// `executions` per second of `seconds`.
    #[serde(default)]
    pub executions_per_second: f64,
    /// With strong-mutation goals: judgements of one mutant on one test during the search.
    #[serde(default)]
    pub search_judged: u64,
    /// Of `search_judged`, the judgements that killed.
    #[serde(default)]
    pub search_killed: u64,
    /// State observations (what `&mut` calls left behind) of the kept tests.
    #[serde(default)]
    pub state_observed: u64,
    /// Of `state_observed`, those asserted after minimisation.
    #[serde(default)]
    pub state_asserted: u64,
}

/// The verdicts on the own suite's survivors, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurvivorReport {
    /// Survivors of the own suite judged.
    #[serde(default)]
    pub survivors: u64,
    /// Of them, killed by an emitted test.
    #[serde(default)]
    pub killed: u64,
    /// Of them, possibly equivalent: infected but told apart by no emitted test.
    #[serde(default)]
    pub possibly_equivalent: u64,
    /// Of them, not reached by any emitted test.
    #[serde(default)]
    pub not_reached: u64,
    /// Of them, without a mutant of frugal's of the same kind at that place.
    #[serde(default)]
    pub no_counterpart: u64,
    /// Of them, in code the run's features compile out.
    #[serde(default)]
    pub not_compiled: u64,
    /// The first verdicts, killed ones first.
    #[serde(default)]
    pub verdicts: Vec<SurvivorVerdict>,
}

/// A survivor and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurvivorVerdict {
    /// cargo-mutants' name of the survivor (`src/lib.rs:399:35: replace - with + in ...`).
    pub name: String,
    /// What became of it.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// What became of one survivor of the crate's own suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// An emitted test fails on it.
    Killed {
        /// The emitted test that fails on it.
        test: String,
    },
    /// frugal's counterpart is infected but no emitted test tells it apart.
    PossiblyEquivalent,
    /// No emitted test reaches frugal's counterpart.
    NotReached,
    /// frugal has no mutant of this kind here; `reached_by` is a test running its line.
    NoCounterpart {
        /// An emitted test running the survivor's line, if any.
        reached_by: Option<String>,
    },
    /// In code the run's features compile out: no test of this build reaches it.
    NotCompiled,
    /// A verdict a newer engine wrote: kept readable rather than failing the whole summary.
    #[serde(other)]
    Other,
}

/// The emitted suite's profile in brief, or why it could not be profiled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProfileDigest {
    /// Profiling failed: the suite is stored without measured cost.
    Failed {
        /// Why profiling failed.
        error: String,
    },
    /// The suite was profiled.
    Measured {
        /// The figure tests are ranked by (`{"metric": "instructions", "source": ...}`).
        cost_basis: CostBasis,
        /// Why hardware counters were not used, if they were not.
        hardware_unavailable: Option<String>,
        /// Tests measured.
        tests: u64,
        /// Tests and targets found but not measured.
        #[serde(default)]
        not_profiled: Vec<NotProfiled>,
        /// Remarks a reader of the profile needs.
        #[serde(default)]
        notes: Vec<String>,
    },
}

/// The metric and its source, as the profiler names them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostBasis {
    /// The metric (`instructions`, `task-clock-ns`, ...).
    pub metric: String,
    /// Where it comes from (`hardware-perf`, `software-perf`, `cachegrind`, ...).
    pub source: String,
}

/// A test or target the profiler found but did not measure.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotProfiled {
    /// Binary label (`kind:target`) or `doc` for doc tests.
    pub binary: String,
    /// `None` for a whole target.
    pub name: Option<String>,
    /// Why it was not measured.
    pub reason: String,
}

/// The best-suite rule's verdict on the stored suite.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestVerdict {
    /// Whether the suite became the best one of its crate.
    pub replaced: bool,
    /// The rule's reason, for people.
    pub reason: String,
    /// The best suite before this one.
    pub previous: Option<u64>,
}

/// The regression check of the job's commit against the previous suite.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regressions {
    /// Tests whose behaviour changed or that no longer compile.
    pub changed: u32,
    /// The commit the baseline suite was generated at.
    pub baseline_commit: Option<String>,
    /// The suite run as the oracle.
    pub baseline_suite: Option<u64>,
    /// Why there is no report (no earlier suite, or the check failed).
    pub note: Option<String>,
    /// Whether the suite was held back from becoming the best (`regressions.policy = "hold"`).
    pub held: bool,
}

/// cargo-mutants on the crate's own suite before the search (`mutation.survivors`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnMutants {
    /// Mutants the own suite missed, which became the search's targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survivors: Option<u64>,
    /// Why there are none (cargo-mutants missing, its time bound, failing own tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wall time it took, to a tenth of a second.
    #[serde(default)]
    pub seconds: f64,
}

impl RunSummary {
    /// Reads a stored summary; the decoder's error when it is not one (never written by
    /// frugald, or by a version whose shapes this one cannot read).
    pub fn from_stored(v: &serde_json::Value) -> Result<RunSummary, serde_json::Error> {
        serde_json::from_value(v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A summary as frugald stored it before it was typed: every shape it had.
    fn stored() -> serde_json::Value {
        serde_json::from_str(STORED).unwrap()
    }

    const STORED: &str = r#"{
            "pipeline": {
                "krate": "numeric", "algorithm": "adynamosa", "seed": 1, "budget": "3000 executions",
                "goals": {"branch": {"covered": 3, "total": 4}},
                "callables": {"supported": 2, "total": 3, "reasons": {"unsafe fn": 1},
                              "left_out": [{"path": "f", "reason": "unsafe fn", "detail": "unsafe fn f()"}]},
                "executions": 3000, "executions_per_second": 1500.5, "repeats": 10, "crashes": 0,
                "timeouts": 0, "tests_emitted": 2, "suite_proxies": [1, 2, 3, 4, 5, 6, 7],
                "suite_proxy_total": 28, "tests_dropped": [{"name": "t", "reason": "failed"}],
                "uninstrumented": 0,
                "seconds": {"analyse": 0.1, "instrument": 0.2, "build_harness": 3.0,
                            "search": 2.0, "minimise": 0.0, "verify": 4.0},
                "output": "/s/runs/1/frugal_generated.rs", "model": "/s/runs/1/m.json",
                "written_to_crate": null, "search_stop": "budget",
                "seeding": {"resolved": 1, "dropped": [], "executed": 1, "goals_covered": 2},
                "tests": [{"name": "t0", "goals": [0, 1], "proxies": {"loop_cycles": 2}}],
                "sandbox": ["landlock: yes"], "sandbox_fs_confined": true,
                "mutation": {"mutants": 4, "killed": 2, "survived": 1, "not_infected": 1,
                             "unjudged": 0, "score": 0.5, "survivors": ["src/lib.rs:3 x"],
                             "executions": 10, "share_of_executions": 0.1, "seconds": 0.5,
                             "executions_per_second": 20.0, "search_judged": 3,
                             "search_killed": 1, "state_observed": 2, "state_asserted": 1},
                "survivors": {"survivors": 2, "killed": 1, "possibly_equivalent": 0,
                              "not_reached": 0, "no_counterpart": 1, "not_compiled": 1,
                              "verdicts": [{"name": "m1", "verdict": "killed", "test": "t0"},
                                           {"name": "m2", "verdict": "no_counterpart",
                                            "reached_by": null},
                                           {"name": "m3", "verdict": "not_compiled"}]}
            },
            "profile": {"cost_basis": {"metric": "instructions", "source": "hardware-perf"},
                        "hardware_unavailable": null, "tests": 2,
                        "not_profiled": [{"binary": "doc", "name": null, "reason": "doc test"}],
                        "notes": []},
            "best": {"replaced": true, "reason": "first suite", "previous": null},
            "outputs": "/s/runs/1",
            "regressions": {"changed": 0, "baseline_commit": null, "baseline_suite": null,
                            "note": "no earlier suite", "held": false},
            "own_mutants": null,
            "survivors": 0
        }"#;

    #[test]
    fn a_summary_stored_before_versions_reads_and_serves_as_stored() {
        let v = stored();
        let s = RunSummary::from_stored(&v).unwrap();
        assert_eq!(s.version, 0);
        assert_eq!(s.pipeline.goals["branch"].total, 4);
        assert!(matches!(
            s.profile,
            Some(ProfileDigest::Measured { tests: 2, .. })
        ));
        assert!(s.extra.is_empty() && s.pipeline.extra.is_empty(), "{s:?}");
        let mut expected = v;
        expected["version"] = json!(0);
        assert_eq!(serde_json::to_value(&s).unwrap(), expected);
    }

    #[test]
    fn unknown_fields_are_kept_and_failures_read() {
        let v = json!({
            "version": 1,
            "pipeline": {"krate": "a", "a_later_field": [1, 2]},
            "profile": {"error": "no cargo"},
            "own_mutants": {"error": "cargo-mutants missing", "seconds": 0.1},
            "regressions": null,
            "from_the_future": {"x": 1}
        });
        let s = RunSummary::from_stored(&v).unwrap();
        assert_eq!(
            s.profile,
            Some(ProfileDigest::Failed {
                error: "no cargo".into()
            })
        );
        assert_eq!(s.extra["from_the_future"], json!({"x": 1}));
        assert_eq!(s.pipeline.extra["a_later_field"], json!([1, 2]));
        let back = serde_json::to_value(&s).unwrap();
        assert_eq!(back["from_the_future"], v["from_the_future"]);
        assert_eq!(back["pipeline"]["a_later_field"], json!([1, 2]));
        assert_eq!(back["own_mutants"], v["own_mutants"]);
    }
}
