//! The stored record types. They are storage's own copies, not the search's or the profiler's
//! types: the daemon converts at the boundary, so a change in the engine never changes what is on
//! disk by accident. Adding a field needs `#[serde(default)]`; removing or re-purposing one needs a
//! schema bump and a migration (see `crate::migrate`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map($name)
            }
        }
    };
}

id_type!(
    /// A registered repository.
    RepoId
);
id_type!(
    /// One regeneration run.
    RunId
);
id_type!(
    /// A stored suite.
    SuiteId
);
id_type!(
    /// One test of a stored suite.
    TestRecordId
);
id_type!(
    /// A job of the persisted queue.
    JobId
);

/// A crate of a repository: its package name and its directory relative to the repository root
/// (`""` for a crate at the root). The directory decides which changed files belong to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateEntry {
    /// The crate's package name.
    pub name: String,
    /// The crate's directory relative to the repository root (`""` for the root).
    pub dir: String,
}

/// A registered repository.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepoRecord {
    /// The repository's id.
    pub id: RepoId,
    /// Absolute path of the work tree (or bare repository).
    pub path: String,
    /// The crates frugal generates tests for.
    pub crates: Vec<CrateEntry>,
    /// Cron expression (5, 6 or 7 fields) forcing regeneration of unchanged crates, or `off`
    /// (no scheduled regeneration, not even the default); `None`: the default applies.
    pub schedule: Option<String>,
    /// Whether frugal's git hooks were installed in the repository when it was registered.
    pub hooks_installed: bool,
    /// Unix time in milliseconds.
    pub added_at: u64,
    /// The last commit the poller or a hook saw, to tell a new commit from an old one.
    #[serde(default)]
    pub last_seen_commit: Option<String>,
}

/// Where a run stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum RunStatus {
    /// The run is in progress.
    Running,
    /// The run finished without error.
    Succeeded,
    /// The run ended with an error.
    Failed {
        /// The error, for people.
        error: String,
    },
    /// The run was cancelled before it finished.
    Cancelled,
}

/// Live progress of a run (what the API shows while it runs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunProgress {
    /// Pipeline phase name (`analyze`, `instrument`, `search`, `emit`, `profile`, ...).
    pub phase: String,
    /// Test executions so far in the search phase.
    pub executions: u64,
    /// Goals covered so far.
    pub covered: u32,
    /// Goals in all (deferred goals included).
    pub goals: u32,
}

/// One regeneration run of one crate at one commit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's id.
    pub id: RunId,
    /// The repository of the crate.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The commit the run built, when known.
    pub commit: Option<String>,
    /// Where the run stands.
    pub status: RunStatus,
    /// Unix time in milliseconds.
    pub started: u64,
    /// When the run ended, Unix time in milliseconds; `None` while it runs.
    pub finished: Option<u64>,
    /// The last progress recorded (stored at most about once a second).
    pub progress: RunProgress,
    /// The run's summary as the pipeline wrote it (opaque to storage).
    pub summary_json: Option<serde_json::Value>,
    /// The job that started this run, if any.
    #[serde(default)]
    pub job: Option<JobId>,
    /// The suite this run stored, if any.
    #[serde(default)]
    pub suite: Option<SuiteId>,
}

/// A measured cost on a named basis (e.g. `task-clock-ns/software-perf` or
/// `instructions/cachegrind`). Two costs compare only when their bases are equal: a wall time is
/// never weighed against an instruction count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Names the metric and its source (`metric/source`); costs compare only on the same basis.
    pub basis: String,
    /// The cost, in the basis metric's unit.
    pub value: f64,
}

impl Cost {
    /// A cost of `value` on `basis`.
    pub fn new(basis: impl Into<String>, value: f64) -> Self {
        Cost {
            basis: basis.into(),
            value,
        }
    }
}

/// A set of goal ids, kept sorted and without duplicates.
///
/// Sorted ids rather than a bitmap: suites cover a few hundred to a few thousand goals out of a
/// sparse id space (ids are interned per crate and keep growing as code changes, see
/// [`crate::Store::intern_goals`]), the JSON stays readable, and set operations are linear merges.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<u32>", into = "Vec<u32>")]
pub struct GoalSet(Vec<u32>);

impl GoalSet {
    /// The empty set.
    pub fn new() -> Self {
        GoalSet(Vec::new())
    }

    /// Number of goals.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `goal` is in the set.
    pub fn contains(&self, goal: u32) -> bool {
        self.0.binary_search(&goal).is_ok()
    }

    /// The goals in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    /// The goals as a sorted slice without duplicates.
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// How many goals of `self` are not in `other`.
    pub fn count_missing_from(&self, other: &GoalSet) -> usize {
        self.0.iter().filter(|g| !other.contains(**g)).count()
    }

    /// The union of both sets.
    pub fn union(&self, other: &GoalSet) -> GoalSet {
        self.iter().chain(other.iter()).collect()
    }
}

impl From<Vec<u32>> for GoalSet {
    fn from(mut v: Vec<u32>) -> Self {
        v.sort_unstable();
        v.dedup();
        GoalSet(v)
    }
}

impl From<GoalSet> for Vec<u32> {
    fn from(g: GoalSet) -> Self {
        g.0
    }
}

impl FromIterator<u32> for GoalSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        GoalSet::from(iter.into_iter().collect::<Vec<_>>())
    }
}

/// A stored suite: the emitted Rust file plus what it covers and costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    /// The suite's id.
    pub id: SuiteId,
    /// The repository it belongs to.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The commit it was generated at, when known.
    pub commit: Option<String>,
    /// Unix time in milliseconds.
    pub created: u64,
    /// The Rust test file.
    pub source: String,
    /// Goals of the crate at that commit (the denominator of coverage).
    pub goals_total: u32,
    /// Union of the tests' goals.
    pub goals_covered: GoalSet,
    /// Measured cost of the whole suite, `None` when it was not profiled.
    pub total_cost: Option<Cost>,
    /// The search's proxy estimate of the suite's cost (lower is cheaper).
    pub proxy_cost: f64,
    /// Its tests, in the suite's order.
    pub tests: Vec<TestRecordId>,
    /// The run that produced the suite.
    #[serde(default)]
    pub run: Option<RunId>,
    /// The suite's test model (JSON): its tests as operations, so the next search can start
    /// from them without parsing Rust (incremental regeneration).
    #[serde(default)]
    pub model: Option<String>,
    /// frugal's own mutants killed by the suite, when the run had mutant goals
    /// (`search.mutants`); older records have none.
    #[serde(default)]
    pub mutation: Option<MutationFigures>,
}

/// What a suite does against frugal's own mutants (the run summary's `mutation`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutationFigures {
    /// Mutants the suite was judged against.
    pub mutants: u32,
    /// Killed: some test of the suite fails on the mutated crate.
    pub killed: u32,
    /// Infected but killed by no test.
    pub survived: u32,
    /// Mutants no test infected: their state never differed from the original's.
    pub not_infected: u32,
}

/// One test of a stored suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRecord {
    /// The test's id.
    pub id: TestRecordId,
    /// The suite it belongs to.
    pub suite: SuiteId,
    /// The `#[test]` fn name.
    pub name: String,
    /// The goals the test covers.
    pub goals: GoalSet,
    /// Measured cost, `None` when not profiled (never 0 for "unknown").
    pub cost: Option<Cost>,
    /// Proxy figures by name (`I1`..`I7` or longer names), as the search reported them.
    pub proxies: BTreeMap<String, f64>,
}

/// A test as the caller hands it to [`crate::Store::store_suite`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewTest {
    /// The `#[test]` fn name; unique within the suite.
    pub name: String,
    /// The goals the test covers.
    pub goals: GoalSet,
    /// Measured cost, `None` when not profiled.
    pub cost: Option<Cost>,
    /// Proxy figures by name (`I1`..`I7` or longer names), as the search reported them.
    pub proxies: BTreeMap<String, f64>,
}

/// A suite as the caller hands it to [`crate::Store::store_suite`]; storage assigns ids and
/// computes the covered goals as the union of the tests' goals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewSuite {
    /// The repository of the crate.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// The commit it was generated at, when known.
    pub commit: Option<String>,
    /// The Rust test file.
    pub source: String,
    /// Goals of the crate at that commit (the denominator of coverage).
    pub goals_total: u32,
    /// Measured cost of the whole suite, `None` when it was not profiled.
    pub total_cost: Option<Cost>,
    /// The search's proxy estimate of the suite's cost (lower is cheaper).
    pub proxy_cost: f64,
    /// The suite's tests, in order.
    pub tests: Vec<NewTest>,
    /// The run that produced the suite.
    pub run: Option<RunId>,
    /// See [`SuiteRecord::model`].
    pub model: Option<String>,
    /// Never make this suite the best one by the rule: the behaviour it records awaits review
    /// (`regressions.policy = "hold"`); `frugal accept` makes it best.
    pub hold: bool,
    /// See [`SuiteRecord::mutation`].
    pub mutation: Option<MutationFigures>,
}

impl NewTest {
    /// A test covering `goals`, with no measured cost and no proxy figures.
    pub fn new(name: impl Into<String>, goals: GoalSet) -> NewTest {
        NewTest {
            name: name.into(),
            goals,
            cost: None,
            proxies: BTreeMap::new(),
        }
    }
}

impl NewSuite {
    /// The suite of `tests` for `krate` of `repo`: no commit, an empty source, goals total and
    /// proxy cost 0, no measured cost, run, model or mutation figures, not held. Callers set
    /// what they have by struct update (`NewSuite { commit, ..NewSuite::new(..) }`).
    pub fn new(repo: RepoId, krate: impl Into<String>, tests: Vec<NewTest>) -> NewSuite {
        NewSuite {
            repo,
            krate: krate.into(),
            commit: None,
            source: String::new(),
            goals_total: 0,
            total_cost: None,
            proxy_cost: 0.0,
            tests,
            run: None,
            model: None,
            hold: false,
            mutation: None,
        }
    }
}

/// State of a queued job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobState {
    /// Waiting to be claimed.
    Queued,
    /// Claimed by a worker and running; presumed dead once `lease_until` passes.
    Running,
    /// Finished successfully.
    Succeeded,
    /// Finished with an error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl JobState {
    /// Queued or running.
    pub fn is_active(self) -> bool {
        matches!(self, JobState::Queued | JobState::Running)
    }
}

/// A job of the persisted queue. Storage only keeps it; the scheduler gives it meaning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The job's id.
    pub id: JobId,
    /// The repository of the crate.
    pub repo: RepoId,
    /// The crate's package name.
    pub krate: String,
    /// Why the job exists (`hook`, `cron`, `poll`, `api`, ...); the latest trigger wins.
    pub reason: String,
    /// Commit to build; the latest trigger wins.
    pub commit: Option<String>,
    /// Higher runs first.
    pub priority: u8,
    /// Multiplier of the configured search budget (change-aware budgets).
    pub budget_factor: f64,
    /// Where the job stands.
    pub state: JobState,
    /// Unix time in milliseconds.
    pub enqueued_at: u64,
    /// Triggers merged into this job (1 for a fresh job).
    pub triggers: u32,
    /// Times the job was claimed.
    pub attempts: u32,
    /// When it was last claimed, Unix time in milliseconds.
    pub started: Option<u64>,
    /// A running job whose lease ran out is presumed dead.
    pub lease_until: Option<u64>,
    /// When it finished, Unix time in milliseconds.
    pub finished: Option<u64>,
    /// Error text of a failed job, or a note on a finished one.
    pub outcome: Option<String>,
    /// The run it started, once it did.
    pub run: Option<RunId>,
    /// Who queued it, when a token did (`token <id>`): the queue is bounded per token. `None`
    /// for the token file's admin, polls and schedules.
    #[serde(default)]
    pub by: Option<String>,
    /// The frugald node holding the job's lease while it runs (the last one, once it ended):
    /// only the lease holder may renew or finish it.
    #[serde(default)]
    pub node: Option<String>,
}

impl JobRecord {
    /// A fresh job `id` for `krate` of `repo`, queued now for `reason` at `priority`: no
    /// commit, the configured budget (factor 1), one trigger, never claimed, no run and no
    /// queuing token. Callers set what they have by struct update
    /// (`JobRecord { commit, ..JobRecord::new(..) }`).
    pub fn new(
        id: JobId,
        repo: RepoId,
        krate: impl Into<String>,
        reason: impl Into<String>,
        priority: u8,
    ) -> JobRecord {
        JobRecord {
            id,
            repo,
            krate: krate.into(),
            reason: reason.into(),
            commit: None,
            priority,
            budget_factor: 1.0,
            state: JobState::Queued,
            enqueued_at: crate::now_ms(),
            triggers: 1,
            attempts: 0,
            started: None,
            lease_until: None,
            finished: None,
            outcome: None,
            run: None,
            by: None,
            node: None,
        }
    }
}
