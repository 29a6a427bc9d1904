//! `/v1/repos/{id}/replacement`: the routes' answers. A GET only reads (the stored result,
//! `computing` while one is in flight, else 404); `POST` (trigger scope) starts the computation
//! on the capped pool (`crate::replacement`), which owns the work and its directories.

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_replace::{CostMetric, CoverTarget};
use frugal_storage::{RepoRecord, Store, SuiteRecord};
use serde::Deserialize;

use super::{ApiError, ApiResult, Shared, blocking, query};
use crate::replacement::{Busy, Computation, Key, QUEUE, cover_name};

/// Query of the routes.
#[derive(Debug, Deserialize)]
pub struct ReplacementQuery {
    #[serde(rename = "crate")]
    krate: Option<String>,
    metric: Option<String>,
    cover: Option<String>,
}

/// What a request names: the repository, crate, best suite, metric and cover target.
struct Target {
    repo: RepoRecord,
    krate: String,
    suite: SuiteRecord,
    metric: CostMetric,
    cover: CoverTarget,
}

impl Target {
    fn cover_name(&self) -> &'static str {
        cover_name(self.cover)
    }

    fn key(&self) -> Key {
        (
            self.repo.id.0,
            self.krate.clone(),
            self.suite.id.0,
            self.metric.name().into(),
            self.cover_name().into(),
        )
    }

    fn answer(&self, status: &str) -> v1::ReplacementAnswer {
        v1::ReplacementAnswer {
            status: status.into(),
            krate: self.krate.clone(),
            suite: self.suite.id.0,
            metric: self.metric.name().into(),
            cover: self.cover_name().into(),
            replacement: None,
            error: None,
        }
    }

    fn stored(&self, store: &Store) -> ApiResult<Option<v1::ReplacementAnswer>> {
        let rec = store.replacement(
            self.repo.id,
            &self.krate,
            self.suite.id,
            self.metric.name(),
            self.cover_name(),
        )?;
        Ok(rec.map(|rec| {
            let mut body = self.answer(if rec.error.is_some() {
                "failed"
            } else {
                "ready"
            });
            body.replacement = rec.replacement;
            body.error = rec.error;
            body
        }))
    }
}

/// Resolves the request's target (blocking: reads the store).
fn target(store: &Store, raw_id: &str, q: &ReplacementQuery) -> ApiResult<Target> {
    let metric: CostMetric = q
        .metric
        .as_deref()
        .unwrap_or("cpu")
        .parse()
        .map_err(ApiError::bad_request)?;
    let cover: CoverTarget = q
        .cover
        .as_deref()
        .unwrap_or("own")
        .parse()
        .map_err(ApiError::bad_request)?;
    let id: u64 = raw_id
        .parse()
        .map_err(|e| ApiError::bad_request(format!("bad repository id `{raw_id}`: {e}")))?;
    let repo = store
        .repo(frugal_storage::RepoId(id))?
        .ok_or_else(|| ApiError::not_found(format!("no repository {id}")))?;
    let krate = crate_of(&repo, q.krate.as_deref())?;
    let suite = store.best(repo.id, &krate)?.ok_or_else(|| {
        ApiError::not_found(format!(
            "repository {id} has no suite for crate `{krate}` yet: a replacement draws from it"
        ))
    })?;
    Ok(Target {
        repo,
        krate,
        suite,
        metric,
        cover,
    })
}

fn reply(status: StatusCode, body: v1::ReplacementAnswer) -> Response {
    (status, Json(body)).into_response()
}

/// The route, both methods: `GET` reads ([`read`]), `POST` (trigger scope) starts ([`start`]).
pub async fn replacement(
    method: axum::http::Method,
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<ReplacementQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    blocking(move || {
        let t = target(s.sched.store(), &id, &q)?;
        if method == axum::http::Method::POST {
            start(&s, &t)
        } else {
            read(&s, &t)
        }
    })
    .await
}

/// The stored replacement, or `computing` while one is in flight; never starts one.
fn read(s: &Shared, t: &Target) -> ApiResult<Response> {
    // In flight first: a failure being retried is `computing`, not its old failure.
    if s.replacer.is_in_flight(&t.key()) {
        return Ok(reply(StatusCode::ACCEPTED, t.answer("computing")));
    }
    if let Some(body) = t.stored(s.sched.store())? {
        return Ok(reply(StatusCode::OK, body));
    }
    Err(ApiError::not_found(format!(
        "no replacement of suite {} ({}, cover {}) has been computed: POST to this URL with \
         a trigger token starts it (`frugal replace --repo`)",
        t.suite.id,
        t.metric.name(),
        t.cover_name()
    )))
}

/// Starts the computation unless it is stored (a failure is retried) or already in flight.
fn start(s: &Shared, t: &Target) -> ApiResult<Response> {
    // Before anything is queued: a replacement builds and runs the crate's own tests.
    if let Some(refusal) = &s.refusal {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            refusal.clone(),
        ));
    }
    let store = s.sched.store();
    if let Some(body) = t.stored(store)?
        && body.status == "ready"
    {
        return Ok(reply(StatusCode::OK, body));
    }
    let job = Computation {
        store: store.clone(),
        repo: t.repo.clone(),
        krate: t.krate.clone(),
        suite: t.suite.clone(),
        metric: t.metric,
        cover: t.cover,
        require_confinement: s.sandbox_required,
        limits: s.job_limits,
        git_hosts: s.git_hosts.clone(),
        mirrors: s.sched.options().mirrors.clone(),
        uids: s.job_uids.clone(),
    };
    match s.replacer.submit(t.key(), move || job.run()) {
        Ok(_) => Ok(reply(StatusCode::ACCEPTED, t.answer("computing"))),
        Err(Busy) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{} replacement computations are queued or running (daemon.max_replacements \
                 threads, {QUEUE} waiting at most): retry later",
                s.replacer.in_flight()
            ),
        )),
    }
}

fn crate_of(repo: &RepoRecord, asked: Option<&str>) -> ApiResult<String> {
    match asked {
        Some(k) if repo.crates.iter().any(|c| c.name == k) => Ok(k.to_string()),
        Some(k) => Err(ApiError::not_found(format!(
            "repository {} has no crate `{k}`",
            repo.id
        ))),
        None => repo
            .crates
            .first()
            .map(|c| c.name.clone())
            .ok_or_else(|| ApiError::not_found(format!("repository {} has no crate", repo.id))),
    }
}
