//! Storage records as the `/v1` wire types (`frugal_api::v1`): the one place the daemon turns
//! what it stores into what it answers, so neither side changes the other by accident.

use frugal_api::summary::RunSummary;
use frugal_api::v1::{
    CrateReport, CrateSpec, Job, Mutation, Progress, Repo, Run, Suite, Test, Token,
};
use frugal_storage::{
    CrateEntry, JobRecord, RepoRecord, ReportRecord, RunProgress, RunRecord, RunStatus,
    SuiteRecord, SuiteSummary, TestRecord, TokenRecord,
};

/// A scoped token, without its secret.
pub fn token(t: &TokenRecord) -> Token {
    Token {
        id: t.id,
        name: t.name.clone(),
        scope: t.scope.clone(),
        created_ms: t.created,
    }
}

/// A registered repository.
pub fn repo(r: &RepoRecord) -> Repo {
    Repo {
        id: r.id.0,
        path: r.path.clone(),
        crates: r.crates.iter().map(crate_spec).collect(),
        schedule: r.schedule.clone(),
        hooks_installed: r.hooks_installed,
        added_ms: r.added_at,
        last_seen_commit: r.last_seen_commit.clone(),
    }
}

/// A crate of a repository.
pub fn crate_spec(c: &CrateEntry) -> CrateSpec {
    CrateSpec {
        name: c.name.clone(),
        dir: c.dir.clone(),
    }
}

/// A job of the queue.
pub fn job(j: &JobRecord) -> Job {
    Job {
        id: j.id.0,
        repo: j.repo.0,
        krate: j.krate.clone(),
        state: serde_json::to_value(j.state)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        reason: j.reason.clone(),
        commit: j.commit.clone(),
        priority: j.priority,
        budget_factor: j.budget_factor,
        attempts: j.attempts,
        triggers: j.triggers,
        enqueued_ms: j.enqueued_at,
        outcome: j.outcome.clone(),
        run: j.run.map(|r| r.0),
        node: j.node.clone(),
    }
}

/// The last progress a run stored.
pub fn progress(p: &RunProgress) -> Progress {
    Progress {
        phase: p.phase.clone(),
        executions: p.executions,
        covered: p.covered,
        goals: p.goals,
        ..Progress::default()
    }
}

/// The view of a stored run; `detail` includes the summary. A stored summary this frugald
/// cannot read is left out rather than failing the answer (it was never one frugald wrote).
pub fn run(r: &RunRecord, detail: bool) -> Run {
    let (status, error) = match &r.status {
        RunStatus::Running => ("running", None),
        RunStatus::Succeeded => ("succeeded", None),
        RunStatus::Failed { error } => ("failed", Some(error.clone())),
        RunStatus::Cancelled => ("cancelled", None),
    };
    let summary = detail
        .then_some(r.summary_json.as_ref())
        .flatten()
        .map(RunSummary::from_stored);
    Run {
        id: r.id.0,
        repo: r.repo.0,
        krate: r.krate.clone(),
        commit: r.commit.clone(),
        status: status.to_string(),
        error,
        started_ms: r.started,
        finished_ms: r.finished,
        job: r.job.map(|j| j.0),
        suite: r.suite.map(|s| s.0),
        progress: progress(&r.progress),
        summary: summary.as_ref().and_then(|s| s.as_ref().ok()).cloned(),
        summary_unreadable: summary
            .and_then(Result::err)
            .map(|e| format!("the stored run summary does not decode: {e}")),
    }
}

/// A stored suite, with its per-test figures when `tests` is given.
pub fn suite(s: &SuiteRecord, is_best: bool, tests: Option<&[TestRecord]>) -> Suite {
    let mut out = suite_summary(&SuiteSummary::of(s), is_best);
    out.tests = tests.map(|ts| ts.iter().map(test).collect());
    out
}

/// The view of a suite in a list (no per-test figures).
pub fn suite_summary(s: &SuiteSummary, is_best: bool) -> Suite {
    Suite {
        id: s.id.0,
        repo: s.repo.0,
        krate: s.krate.clone(),
        commit: s.commit.clone(),
        created_ms: s.created,
        goals_total: s.goals_total,
        goals_covered: s.goals_covered,
        total_cost: s.total_cost.as_ref().map(cost),
        proxy_cost: s.proxy_cost,
        test_count: s.test_count,
        run: s.run.map(|r| r.0),
        is_best,
        mutation: s.mutation.as_ref().map(|m| Mutation {
            mutants: m.mutants,
            killed: m.killed,
            survived: m.survived,
            not_infected: m.not_infected,
        }),
        tests: None,
    }
}

fn cost(c: &frugal_storage::Cost) -> frugal_api::v1::Cost {
    frugal_api::v1::Cost {
        basis: c.basis.clone(),
        value: c.value,
    }
}

/// One test of a stored suite.
pub fn test(t: &TestRecord) -> Test {
    Test {
        name: t.name.clone(),
        goals: t.goals.as_slice().to_vec(),
        cost: t.cost.as_ref().map(cost),
    }
}

/// The regression check of one crate at one commit.
pub fn crate_report(r: &ReportRecord) -> CrateReport {
    CrateReport {
        krate: r.krate.clone(),
        baseline_suite: r.baseline.map(|s| s.0),
        baseline_commit: r.baseline_commit.clone(),
        changed: r.changed,
        accepted_ms: r.accepted,
        suite: r.suite.map(|s| s.0),
        held: r.held,
        note: r.note.clone(),
        report: r.report.clone(),
        created_ms: r.created,
    }
}

/// How old a node's heartbeat may be for it to count as alive (it beats every second).
const NODE_ALIVE: u64 = 10_000;

/// A node's record as `/v1/status` lists it, its heartbeat's age seen at `now` (Unix ms).
pub fn node(n: &frugal_storage::NodeRecord, now: u64) -> frugal_api::v1::Node {
    let age = now.saturating_sub(n.heartbeat);
    frugal_api::v1::Node {
        id: n.id.clone(),
        addr: n.addr.clone(),
        version: n.version.clone(),
        started_ms: n.started,
        heartbeat_ms: n.heartbeat,
        heartbeat_age_s: age as f64 / 1000.0,
        alive: age <= NODE_ALIVE,
        jobs: n.jobs.iter().map(|j| j.0).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_storage::{RepoId, RunId, RunProgress};
    use serde_json::json;

    fn stored(summary: serde_json::Value) -> RunRecord {
        RunRecord {
            id: RunId(7),
            repo: RepoId(1),
            krate: "k".into(),
            commit: None,
            status: RunStatus::Succeeded,
            started: 0,
            finished: Some(1),
            progress: RunProgress::default(),
            summary_json: Some(summary),
            job: None,
            suite: None,
        }
    }

    /// A stored summary this version cannot decode is said to be there and unreadable, with
    /// the decoder's reason, instead of the run showing none; a readable one is typed.
    #[test]
    fn an_undecodable_summary_is_reported_not_dropped() {
        let bad = run(&stored(json!({"pipeline": {"executions": "many"}})), true);
        assert!(bad.summary.is_none());
        let why = bad.summary_unreadable.expect("the reason is served");
        assert!(
            why.contains("does not decode") && why.contains("\"many\""),
            "{why}"
        );
        let good = run(
            &stored(json!({"version": 1, "pipeline": {"executions": 5}})),
            true,
        );
        assert_eq!(good.summary.map(|s| s.pipeline.executions), Some(5));
        assert!(good.summary_unreadable.is_none());
        // Lists carry no summary, readable or not.
        assert!(run(&stored(json!(3)), false).summary_unreadable.is_none());
    }
}
