//! The first phase of every job: the regression check. The crate's previous suite runs against
//! the job's commit (inside the sandbox, through `frugal_subject::regress`), and what it says
//! is stored with the commit before the new suite is generated, so CI can read it early.
//!
//! Owns the choice of the previous suite and the report record; knows nothing of HTTP. The
//! previous suite is, under `regressions.policy = "hold"`, the best suite (it moves only when
//! changes are accepted or a commit changes nothing), otherwise the newest suite of the nearest
//! ancestor commit that has one (the best suite of that commit when it has several).

use std::path::Path;

use frugal_config::RegressionPolicy;
use frugal_storage::{
    JobRecord, RepoRecord, ReportRecord, Store, SuiteId, SuiteRecord, SuiteSummary, now_ms,
};
use frugal_subject::pipeline;
use frugal_subject::regress::{self, CheckOptions};

/// Ancestors searched for a previous suite: a repository whose last suite is further back is
/// checked from scratch.
const ANCESTOR_LIMIT: usize = 1000;

/// The suite the check runs, if any (see the module docs).
pub fn baseline(
    store: &Store,
    git_dir: &Path,
    repo: &RepoRecord,
    krate: &str,
    commit: &str,
    policy: RegressionPolicy,
) -> anyhow::Result<Option<SuiteRecord>> {
    // Summaries from the crate index, oldest first: only the suite picked is decoded.
    let suites = store.suite_summaries(repo.id, krate)?;
    if suites.is_empty() {
        return Ok(None);
    }
    let best = store.best_id(repo.id, krate)?;
    let pick = |id: SuiteId| -> anyhow::Result<Option<SuiteRecord>> { Ok(store.suite(id)?) };
    if policy == RegressionPolicy::Hold
        && let Some(b) = suites.iter().find(|s| Some(s.id) == best)
        && b.commit.as_deref() != Some(commit)
    {
        return pick(b.id);
    }
    for a in frugal_scheduler::ancestors(git_dir, commit, ANCESTOR_LIMIT)? {
        let at: Vec<&SuiteSummary> = suites
            .iter()
            .filter(|s| s.commit.as_deref() == Some(a.as_str()))
            .collect();
        if let Some(s) = at.iter().find(|s| Some(s.id) == best).or(at.last()) {
            return pick(s.id);
        }
    }
    Ok(None)
}

/// Where a check reads and builds.
pub struct CheckPaths<'a> {
    /// The repository's git directory (its work tree, or this node's mirror of its URL).
    pub git_dir: &'a Path,
    /// The crate in the commit's snapshot.
    pub crate_dir: &'a Path,
    /// The check's build dir.
    pub work: &'a Path,
}

/// Runs the check of `job` on the snapshot at `paths.crate_dir` and stores its report (before
/// returning). A check that cannot run (the crate does not build, the suite does not parse)
/// is a report with a note, never a failed job: generation says the rest.
pub fn check(
    store: &Store,
    repo: &RepoRecord,
    job: &JobRecord,
    commit: &str,
    paths: CheckPaths<'_>,
    policy: RegressionPolicy,
) -> anyhow::Result<(ReportRecord, Option<SuiteRecord>)> {
    let CheckPaths {
        git_dir,
        crate_dir,
        work,
    } = paths;
    // A history git cannot walk (a shallow clone, a rewritten branch) leaves the commit
    // unchecked, with the reason, rather than failing the job.
    let (base, lookup) = match baseline(store, git_dir, repo, &job.krate, commit, policy) {
        Ok(b) => (b, None),
        Err(e) => (
            None,
            Some(format!("could not look for the previous suite: {e:#}")),
        ),
    };
    let mut rec = ReportRecord {
        repo: repo.id,
        krate: job.krate.clone(),
        commit: commit.to_string(),
        created: now_ms(),
        baseline: base.as_ref().map(|s| s.id),
        baseline_commit: base.as_ref().and_then(|s| s.commit.clone()),
        changed: 0,
        report: None,
        note: None,
        suite: None,
        held: false,
        accepted: None,
    };
    match &base {
        None if lookup.is_some() => rec.note = lookup,
        None => rec.note = Some("no earlier suite of this crate to compare with".into()),
        Some(b) => match run_check(crate_dir, work, b) {
            Ok(report) => {
                rec.changed = report.failures() as u32;
                rec.report = Some(serde_json::to_value(&report)?);
            }
            Err(e) => rec.note = Some(format!("the check could not run: {e:#}")),
        },
    }
    store.put_report(&rec)?;
    Ok((rec, base))
}

fn run_check(crate_dir: &Path, work: &Path, base: &SuiteRecord) -> anyhow::Result<regress::Report> {
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let mut opts = CheckOptions::new(&work);
    opts.placement = regress::detect_placement(&base.source);
    opts.sandbox = Some(pipeline::job_policy(crate_dir, &work)?);
    Ok(regress::check(crate_dir, &base.source, &opts)?)
}

/// Records which suite the job stored for the commit and whether it was held back.
pub fn attach_suite(
    store: &Store,
    rec: &mut ReportRecord,
    suite: frugal_storage::SuiteId,
    held: bool,
) -> anyhow::Result<()> {
    rec.suite = Some(suite);
    rec.held = held;
    store.put_report(rec)?;
    Ok(())
}
