//! A commit's regression reports over HTTP: `GET /v1/repos/{id}/commits/{sha}/report` (what the
//! previous suites said about the commit, per crate) and `POST .../accept` (someone reviewed the
//! behaviour changes; a suite held back by `regressions.policy = "hold"` becomes the best one).
//!
//! Owns the answers only: the reports are written by the job (`job.rs`), stored by
//! `frugal-storage`, and their content is the engine's.

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use frugal_storage::{RepoRecord, ReportRecord};

use frugal_api::v1;

use super::{ApiError, ApiResult, CrateQuery, Shared, blocking, crate_of, query, repo_of, wire};

/// A full commit id as given, or the one git resolves an abbreviation or ref to.
pub(crate) async fn full_commit(s: &Shared, repo: &RepoRecord, given: &str) -> ApiResult<String> {
    let is_full = matches!(given.len(), 40 | 64) && given.bytes().all(|b| b.is_ascii_hexdigit());
    if is_full {
        return Ok(given.to_ascii_lowercase());
    }
    let path = repo.path.clone();
    let mirrors = s.sched.options().mirrors.clone();
    let given = given.to_string();
    tokio::task::spawn_blocking(move || {
        frugal_scheduler::resolve_commit(&mirrors.git_dir(&path)?, &given)
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::from)
}

/// The answer for one commit: its reports and the crates still being worked on.
fn commit_report(
    s: &Shared,
    repo: &RepoRecord,
    commit: &str,
    reports: &[ReportRecord],
) -> ApiResult<v1::CommitReport> {
    let pending = s
        .sched
        .store()
        .active_jobs()?
        .into_iter()
        .filter(|j| j.repo == repo.id && j.commit.as_deref() == Some(commit))
        .map(|j| j.krate)
        .collect();
    Ok(v1::CommitReport {
        repo: repo.id.0,
        commit: commit.to_string(),
        changed: reports.iter().map(|r| r.changed).sum(),
        gates: reports.iter().any(ReportRecord::gates),
        pending,
        crates: reports.iter().map(wire::crate_report).collect(),
    })
}

pub(crate) async fn report(
    State(s): State<Shared>,
    UrlPath((id, sha)): UrlPath<(String, String)>,
) -> ApiResult<Json<v1::CommitReport>> {
    let st = s.clone();
    let repo = blocking(move || repo_of(&st, &id)).await?;
    let commit = full_commit(&s, &repo, &sha).await?;
    let answer = blocking(move || {
        let reports = s.sched.store().reports_of_commit(repo.id, &commit)?;
        commit_report(&s, &repo, &commit, &reports)
    })
    .await?;
    if answer.crates.is_empty() && answer.pending.is_empty() {
        let commit = &answer.commit;
        return Err(ApiError::not_found(format!(
            "no regression report for commit {commit} of repository {}: no job has checked it \
             (run `frugal trigger --commit {commit}`)",
            answer.repo
        )));
    }
    Ok(Json(answer))
}

pub(crate) async fn accept(
    State(s): State<Shared>,
    UrlPath((id, sha)): UrlPath<(String, String)>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<v1::CommitReport>> {
    let q = query(q)?;
    let st = s.clone();
    let repo = blocking(move || repo_of(&st, &id)).await?;
    let commit = full_commit(&s, &repo, &sha).await?;
    blocking(move || accept_blocking(&s, &repo, &commit, &q)).await
}

fn accept_blocking(
    s: &Shared,
    repo: &RepoRecord,
    commit: &str,
    q: &CrateQuery,
) -> ApiResult<Json<v1::CommitReport>> {
    let only = match &q.krate {
        Some(_) => Some(crate_of(repo, q)?),
        None => None,
    };
    let store = s.sched.store();
    let chosen: Vec<ReportRecord> = store
        .reports_of_commit(repo.id, commit)?
        .into_iter()
        .filter(|r| only.as_ref().is_none_or(|k| &r.krate == k))
        .collect();
    if chosen.is_empty() {
        return Err(ApiError::not_found(format!(
            "nothing to accept: no regression report for commit {commit} of repository {}",
            repo.id
        )));
    }
    for r in &chosen {
        let accepted = store.accept_report(repo.id, commit, &r.krate)?;
        if accepted.held
            && let Some(suite) = accepted.suite
        {
            store.set_best(repo.id, &r.krate, suite)?;
        }
        tracing::info!(repo = %repo.id, commit = %commit, krate = %r.krate,
            changed = accepted.changed, held = accepted.held, "behaviour changes accepted");
    }
    let reports = store.reports_of_commit(repo.id, commit)?;
    Ok(Json(commit_report(s, repo, commit, &reports)?))
}
