//! The `/v1` HTTP API's wire types: what `frugald` answers and what the `frugal` CLI reads.
//!
//! Owns the JSON shapes of API version 1. They are copies of storage records, not the records
//! themselves: a change in `frugal-storage` must not change the API by accident (STYLE.md: the
//! boundary owns its types); frugald converts at its boundary. Adding an optional
//! field is compatible; renaming or removing one needs `/v2`.

use serde::{Deserialize, Serialize};

use crate::summary::RunSummary;

/// Prefix of every versioned route.
pub const PREFIX: &str = "/v1";

/// Header of a full list page naming the `after` of the next one (`?limit=&after=`).
pub const NEXT_AFTER: &str = "x-frugal-next-after";

/// `POST /v1/tokens` (admin).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateToken {
    /// Who or what holds it, e.g. `hooks` or `ci`.
    pub name: String,
    /// `read`, `trigger` or `admin`.
    pub scope: String,
}

/// A scoped token, without its secret (`GET /v1/tokens`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Token {
    /// The token's id, by which it is listed and revoked.
    pub id: u64,
    /// Who or what holds it, e.g. `hooks` or `ci`.
    pub name: String,
    /// What it may do: `read`, `trigger` or `admin`.
    pub scope: String,
    /// When it was made, Unix time in milliseconds.
    pub created_ms: u64,
}

/// A token just made: the only answer that carries its secret.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TokenCreated {
    /// The token's id, name, scope and creation time.
    #[serde(flatten)]
    pub info: Token,
    /// The secret, for `Authorization: Bearer <token>`; the daemon keeps only its hash.
    pub token: String,
}

/// Body of every error answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
}

/// `POST /v1/repos`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRepo {
    /// Absolute path of the repository's work tree (or bare repository).
    pub path: String,
    /// Crates to generate suites for; empty: the daemon asks cargo for the library crates.
    #[serde(default)]
    pub crates: Vec<CrateSpec>,
    /// Cron schedule forcing regeneration, or `off` for none (not even
    /// `scheduler.default_schedule`); absent: the default applies.
    #[serde(default)]
    pub schedule: Option<String>,
    /// Whether the client installed the git hooks.
    #[serde(default)]
    pub hooks_installed: bool,
}

/// A crate of a repository: package name and directory relative to the repository root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrateSpec {
    /// The crate's package name.
    pub name: String,
    /// `""` (or absent) for a crate at the repository root.
    #[serde(default)]
    pub dir: String,
}

/// `POST /v1/repos/{id}/trigger`; every field is optional, and an empty body is fine.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    /// Commit to build; absent: the repository's HEAD.
    #[serde(default)]
    pub commit: Option<String>,
    /// `api` (default: every crate regenerates) or `hook` (only crates the commit changed).
    #[serde(default)]
    pub reason: Option<String>,
}

/// What a trigger queued.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Triggered {
    /// The repository's id.
    pub repo: u64,
    /// The commit considered (the repository's HEAD when the trigger named none).
    pub commit: Option<String>,
    /// The jobs queued or merged into, one per crate that regenerates.
    pub jobs: Vec<TriggeredJob>,
    /// Crates the trigger left alone (unchanged and not forced).
    pub skipped: Vec<String>,
}

/// One job a trigger queued or merged into.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TriggeredJob {
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The job's id.
    pub job: u64,
    /// Merged into a job already queued for the crate.
    pub deduped: bool,
    /// Multiplier of the configured search budget the job runs with (change-aware budgets).
    pub budget_factor: f64,
}

/// A registered repository.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Repo {
    /// The repository's id.
    pub id: u64,
    /// Absolute path of the work tree (or bare repository).
    pub path: String,
    /// The crates frugal generates suites for.
    pub crates: Vec<CrateSpec>,
    /// Cron schedule forcing regeneration of unchanged crates, or `off`; `None`: the default
    /// applies.
    pub schedule: Option<String>,
    /// Whether the git hooks were installed when the repository was added.
    pub hooks_installed: bool,
    /// When it was added, Unix time in milliseconds.
    pub added_ms: u64,
    /// The last commit the poller or a hook saw.
    pub last_seen_commit: Option<String>,
}

/// `GET /v1/repos/{id}`: the repository with, per crate, its best suite and active jobs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepoDetail {
    /// The repository itself.
    #[serde(flatten)]
    pub repo: Repo,
    /// The best suite of each crate.
    pub best: Vec<CrateBest>,
    /// The repository's active jobs (queued or running).
    pub jobs: Vec<Job>,
}

/// The best suite of one crate, if any.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CrateBest {
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// Its best suite; `None` before one was stored.
    pub suite: Option<Suite>,
}

/// A job of the queue.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    /// The job's id.
    pub id: u64,
    /// The repository's id.
    pub repo: u64,
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub state: String,
    /// Why the job exists (`hook`, `cron`, `poll`, `api`, ...); the latest trigger wins.
    pub reason: String,
    /// Commit to build; the latest trigger wins.
    pub commit: Option<String>,
    /// Higher runs first.
    pub priority: u8,
    /// Multiplier of the configured search budget (change-aware budgets).
    pub budget_factor: f64,
    /// Times the job was claimed.
    pub attempts: u32,
    /// Triggers merged into the job (1 for a fresh job).
    pub triggers: u32,
    /// When it was queued, Unix time in milliseconds.
    pub enqueued_ms: u64,
    /// Error text of a failed job, or a note on a finished one.
    pub outcome: Option<String>,
    /// The run it started, once it did.
    pub run: Option<u64>,
    /// The node holding its lease while it runs (the last one, once it ended).
    #[serde(default)]
    pub node: Option<String>,
}

/// Live progress of a running run (from memory), or the last one stored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Progress {
    /// `queued`, `snapshot`, `analyse`, `instrument`, `build-harness`, `search`, `minimise`,
    /// `verify`, `profile`, `store`.
    pub phase: String,
    /// Search generation, when searching.
    pub generation: u64,
    /// Test executions so far in the search.
    pub executions: u64,
    /// Goals covered so far.
    pub covered: u32,
    /// Goals in all.
    pub goals: u32,
    /// Share of the search budget spent, 0..1.
    pub search_fraction: f64,
    /// Seconds since the run started.
    pub elapsed_s: f64,
    /// Whether this is the in-memory live state (false: the last state stored).
    pub live: bool,
}

/// A regeneration run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// The run's id.
    pub id: u64,
    /// The repository's id.
    pub repo: u64,
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The commit the run built, when known.
    pub commit: Option<String>,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// The error of a failed run.
    pub error: Option<String>,
    /// When it started, Unix time in milliseconds.
    pub started_ms: u64,
    /// When it ended, Unix time in milliseconds; `None` while it runs.
    pub finished_ms: Option<u64>,
    /// The job that started it, if any.
    pub job: Option<u64>,
    /// The suite it stored, if any.
    pub suite: Option<u64>,
    /// Its progress: live while it runs, else the last stored.
    pub progress: Progress,
    /// The pipeline's summary, the profile digest and the best-suite verdict (`show` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<RunSummary>,
    /// Why a stored summary could not be read as this version's [`RunSummary`] (`show` only):
    /// the run has one, and a client is told so instead of seeing none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_unreadable: Option<String>,
}

/// A measured cost on a named basis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cost {
    /// Names the metric and its source (`metric/source`); costs compare only on the same basis.
    pub basis: String,
    /// The cost, in the basis metric's unit.
    pub value: f64,
}

/// What a suite does against frugal's own mutants.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Mutation {
    /// Mutants the suite was judged against.
    pub mutants: u32,
    /// Some test of the suite fails on the mutated crate.
    pub killed: u32,
    /// Infected, killed by no test.
    pub survived: u32,
    /// Mutants no test infected.
    pub not_infected: u32,
}

/// A stored suite (its source is a separate download).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Suite {
    /// The suite's id.
    pub id: u64,
    /// The repository's id.
    pub repo: u64,
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The commit it was generated at, when known.
    pub commit: Option<String>,
    /// When it was stored, Unix time in milliseconds.
    pub created_ms: u64,
    /// Goals of the crate at that commit (the denominator of coverage).
    pub goals_total: u32,
    /// Goals the suite covers.
    pub goals_covered: usize,
    /// Measured cost of the whole suite; `None` when it was not profiled.
    pub total_cost: Option<Cost>,
    /// The search's proxy estimate of the suite's cost (lower is cheaper).
    pub proxy_cost: f64,
    /// Number of tests.
    pub test_count: usize,
    /// The run that produced it.
    pub run: Option<u64>,
    /// Whether it is the best suite of its crate.
    pub is_best: bool,
    /// frugal's own mutants the suite kills, when its run had mutant goals (`search.mutants`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<Mutation>,
    /// Per-test figures (`show` and `best` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<Vec<Test>>,
}

/// One test of a stored suite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Test {
    /// The `#[test]` fn name.
    pub name: String,
    /// Interned goal ids the test covers.
    pub goals: Vec<u32>,
    /// Measured cost; `None` when not profiled.
    pub cost: Option<Cost>,
}

/// `GET /v1/repos/{id}/replacement[?crate=&metric=cpu|instructions|wall|memory&cover=own|all]`:
/// the cheapest mix of the crate's own tests and its best suite's tests covering every goal the
/// own suite covers. A GET answers what is stored or in flight (404 when nothing was started);
/// `POST` with the same query (trigger scope) starts the computation (202, `computing`) or
/// retries a failed one, and answers a stored one as is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplacementAnswer {
    /// `computing`, `ready` or `failed`.
    pub status: String,
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The generated suite the replacement draws from (the crate's best).
    pub suite: u64,
    /// The cost metric minimised: `cpu`, `instructions`, `wall` or `memory`.
    pub metric: String,
    /// The goals to cover: `own` (the own suite's) or `all` (also the generated tests').
    pub cover: String,
    /// The stored `frugal_replace::Replacement` JSON when ready (passed through as stored, so
    /// the engine's report and the API do not change each other by accident).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<serde_json::Value>,
    /// Why it failed (a goal of the own suite lost on verification is a failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `GET /v1/status`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Status {
    /// The daemon's version.
    pub version: String,
    /// Seconds since the daemon started.
    pub uptime_s: f64,
    /// Registered repositories.
    pub repos: usize,
    /// Jobs waiting in the queue.
    pub jobs_queued: usize,
    /// Jobs running.
    pub jobs_running: usize,
    /// Runs in flight, with live progress.
    pub running: Vec<Run>,
    /// Whether the daemon is shutting down (no new jobs start).
    pub stopping: bool,
    /// What the host confines of a job's processes and what it lacks, one line per layer
    /// (`frugal_sandbox::Capabilities::report`).
    #[serde(default)]
    pub sandbox: Vec<String>,
    /// The node that answered (its `store.node_id`).
    #[serde(default)]
    pub node: String,
    /// Every frugald sharing the store (one on sled), with its heartbeat and jobs.
    #[serde(default)]
    pub nodes: Vec<Node>,
}

/// One frugald of a fleet, in [`Status::nodes`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Its id.
    pub id: String,
    /// Where its API listens, when it said.
    pub addr: Option<String>,
    /// Its frugald version.
    pub version: String,
    /// When it started, Unix time in milliseconds.
    pub started_ms: u64,
    /// Its last heartbeat, Unix time in milliseconds.
    pub heartbeat_ms: u64,
    /// Seconds since that heartbeat, as the answering node saw it.
    pub heartbeat_age_s: f64,
    /// Whether the heartbeat is recent (within 3 × the lease renewal period, 10 s); a node that
    /// is not alive has died or lost the store, and its jobs run again elsewhere once their
    /// leases end.
    pub alive: bool,
    /// The jobs it runs.
    pub jobs: Vec<u64>,
}

/// `GET /healthz`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Health {
    /// `ok` whenever the daemon answers.
    pub status: String,
    /// The daemon's version.
    pub version: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_repo_reads_crates_with_and_without_dir() {
        let a: AddRepo =
            serde_json::from_str(r#"{"path":"/r","crates":[{"name":"a"},{"name":"b","dir":"x"}]}"#)
                .unwrap();
        assert_eq!(a.crates[0].dir, "");
        assert_eq!(a.crates[1].dir, "x");
    }

    #[test]
    fn add_repo_rejects_unknown_fields_so_typos_are_reported() {
        let e = serde_json::from_str::<AddRepo>(r#"{"path":"/r","crate":"a"}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `crate`"), "{e}");
    }
}

/// `GET /v1/repos/{id}/commits/{sha}/report`: what the previous suites said about a commit, one
/// entry per crate checked; `POST .../accept` answers the same shape after accepting.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CommitReport {
    /// The repository's id.
    pub repo: u64,
    /// Full commit id.
    pub commit: String,
    /// Tests whose behaviour changed or that no longer compile, over all crates.
    pub changed: u32,
    /// Whether CI should fail: behaviour changed and nobody accepted it.
    pub gates: bool,
    /// Crates with a job still queued or running for this commit (their report may follow).
    pub pending: Vec<String>,
    /// One report per crate checked.
    pub crates: Vec<CrateReport>,
}

/// The regression check of one crate at one commit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CrateReport {
    /// The crate's package name.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The suite run as the oracle and the commit it was generated at.
    pub baseline_suite: Option<u64>,
    /// The commit the baseline suite was generated at.
    pub baseline_commit: Option<String>,
    /// Tests whose behaviour changed or that no longer compile.
    pub changed: u32,
    /// When the changes were accepted (`frugal accept`), Unix milliseconds.
    pub accepted_ms: Option<u64>,
    /// The suite the same job stored for this commit.
    pub suite: Option<u64>,
    /// Whether that suite was held back from becoming the best one (`regressions.policy =
    /// "hold"`) until the changes are accepted.
    pub held: bool,
    /// Why there is no report: no earlier suite, or the check failed.
    pub note: Option<String>,
    /// The engine's report (`frugal_subject::regress::Report`): each test's outcome, the
    /// expected and actual values of changed behaviour, the test bodies.
    pub report: Option<serde_json::Value>,
    /// When the check ran, Unix time in milliseconds.
    pub created_ms: u64,
}

/// `POST /v1/gc[?dry_run=true]`: what a garbage collection pass deleted (or, dry, would
/// delete), and `frugal gc`'s report for the CLI's cache dirs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GcReport {
    /// Whether nothing was deleted (the report says what would have been).
    pub dry_run: bool,
    /// Store records by kind (`suites`, `tests`, `replacements`, `runs`, `jobs`, `reports`,
    /// `other`).
    pub records: std::collections::BTreeMap<String, u64>,
    /// Directories deleted, with their size and why.
    pub dirs: Vec<FreedDir>,
    /// Bytes the deleted directories held.
    pub bytes_freed: u64,
    /// Bytes the budgeted directories take after the pass.
    pub bytes_kept: u64,
    /// The budget they were held to, if any.
    pub budget: Option<u64>,
    /// How long the pass took, in milliseconds.
    pub took_ms: u64,
}

impl GcReport {
    /// Store records deleted, all kinds together.
    pub fn record_count(&self) -> u64 {
        self.records.values().sum()
    }
}

/// One directory a garbage collection pass deleted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreedDir {
    /// The directory.
    pub path: String,
    /// Bytes on disk it held.
    pub bytes: u64,
    /// Why it was (or, dry, would be) deleted.
    pub reason: String,
}
