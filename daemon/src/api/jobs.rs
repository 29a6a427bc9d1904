//! The queue through the API: `POST /v1/repos/{id}/trigger` queues a job per crate (what hooks,
//! `frugal trigger` and the pages' button call), `GET /v1/jobs` lists them.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_scheduler::{EnqueueOutcome, Reason};
use frugal_storage::JobId;
use std::sync::atomic::Ordering;

use super::extract::{Page, page_limit, paged};
use super::{ApiError, ApiResult, Shared, blocking, parse_body, query, repo_of, wire};
use crate::auth;

pub(crate) async fn trigger(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    holder: Option<axum::Extension<auth::Holder>>,
    body: Bytes,
) -> ApiResult<Response> {
    let by = holder.and_then(|h| s.auth.queue_owner(&h.0));
    let req: v1::Trigger = parse_body(&body)?;
    let reason = match req.reason.as_deref().unwrap_or("api") {
        "api" => Reason::Api,
        "hook" => Reason::Hook,
        other => {
            return Err(ApiError::bad_request(format!(
                "reason `{other}` is not one of api, hook"
            )));
        }
    };
    if s.stopping.load(Ordering::SeqCst) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the daemon is shutting down; trigger again after it restarts",
        ));
    }
    let st = s.clone();
    let raw_id = id.clone();
    let (repo, report) = blocking(move || {
        let repo = repo_of(&st, &raw_id)?;
        // A hand-made trigger regenerates every crate; a hook only what the commit changed.
        let report = st.sched.on_commit_by(
            repo.id,
            req.commit.as_deref(),
            reason,
            |_| reason == Reason::Api,
            by.as_deref(),
        )?;
        Ok((repo, report))
    })
    .await?;
    let _ = s.wake.try_send(());
    let jobs: Vec<v1::TriggeredJob> = report
        .jobs
        .iter()
        .map(|(krate, o)| v1::TriggeredJob {
            krate: krate.clone(),
            job: o.job().0,
            deduped: matches!(o, EnqueueOutcome::Deduped(_)),
            budget_factor: report
                .plan
                .iter()
                .find(|p| &p.krate == krate)
                .and_then(|p| match p.decision {
                    frugal_scheduler::BudgetDecision::Run { budget_factor, .. } => {
                        Some(budget_factor)
                    }
                    _ => None,
                })
                .unwrap_or(1.0),
        })
        .collect();
    let skipped = report
        .plan
        .iter()
        .filter(|p| !jobs.iter().any(|j| j.krate == p.krate))
        .map(|p| p.krate.clone())
        .collect();
    tracing::info!(repo = %id, commit = ?report.commit, reason = reason.as_str(), jobs = jobs.len(), "triggered");
    let body = v1::Triggered {
        repo: repo.id.0,
        commit: report.commit,
        jobs,
        skipped,
    };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

pub(crate) async fn list_jobs(
    State(s): State<Shared>,
    q: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let jobs = blocking(move || Ok(s.sched.store().jobs_page(q.after.map(JobId), limit)?)).await?;
    let last = jobs.last().map(|j| j.id.0);
    Ok(paged(jobs.iter().map(wire::job).collect(), limit, last))
}
