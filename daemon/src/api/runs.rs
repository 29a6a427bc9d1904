//! `/v1/runs` and `/v1/runs/{id}`: regeneration runs, with the live progress of those in
//! flight and, for one run, its typed summary (`frugal_api::summary`).

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use axum::response::Response;
use frugal_api::v1;
use frugal_storage::{RepoId, RunId};
use serde::Deserialize;

use super::extract::{page_limit, paged};
use super::{ApiError, ApiResult, Shared, blocking, parse_id, query, wire};
use crate::live::Live;

pub(crate) fn with_live(live: &Live, mut run: v1::Run) -> v1::Run {
    if run.status == "running"
        && let Some(l) = live.get(RunId(run.id))
    {
        run.progress = l.view();
    }
    run
}

/// Runs in flight: this node's with live progress from memory and, on a store the fleet
/// shares, the other nodes' with the progress they last wrote (at most a second old).
pub(crate) fn in_flight(
    store: &frugal_storage::Store,
    live: &Live,
) -> frugal_storage::Result<Vec<v1::Run>> {
    let mine = live.runs();
    let mut runs = Vec::new();
    for id in &mine {
        if let Some(r) = store.run(*id)? {
            runs.push(with_live(live, wire::run(&r, false)));
        }
    }
    if store.is_shared() {
        // The other nodes' runs, as their heartbeats name them: one read of the node records
        // and one of the runs, however long the history.
        let mut theirs: Vec<frugal_storage::RunId> = Vec::new();
        for n in store.nodes()? {
            theirs.extend(n.runs.iter().filter(|r| !mine.contains(r)));
        }
        for r in store.runs_with_ids(&theirs)? {
            if r.status == frugal_storage::RunStatus::Running {
                runs.push(wire::run(&r, false));
            }
        }
    }
    Ok(runs)
}

#[derive(Debug, Deserialize)]
pub(crate) struct RunsQuery {
    repo: Option<u64>,
    limit: Option<usize>,
    after: Option<u64>,
}

pub(crate) async fn list_runs(
    State(s): State<Shared>,
    q: Result<Query<RunsQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let runs = blocking(move || {
        let store = s.sched.store();
        let repo = q.repo.map(RepoId);
        if let Some(id) = repo
            && store.repo(id)?.is_none()
        {
            return Err(ApiError::not_found(format!("no repository with id {id}")));
        }
        let runs = store.runs_page(repo, q.after.map(RunId), limit)?;
        Ok(runs
            .iter()
            .map(|r| with_live(&s.live, wire::run(r, false)))
            .collect::<Vec<_>>())
    })
    .await?;
    let last = runs.last().map(|r| r.id);
    Ok(paged(runs, limit, last))
}

pub(crate) async fn show_run(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::Run>> {
    let id = RunId(parse_id("run", &id)?);
    blocking(move || {
        let run = s
            .sched
            .store()
            .run(id)?
            .ok_or_else(|| ApiError::not_found(format!("no run with id {id}")))?;
        Ok(Json(with_live(&s.live, wire::run(&run, true))))
    })
    .await
}
