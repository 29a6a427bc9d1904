//! `/v1/suites/{id}` and a repository's suites: the best one per crate (what CI downloads),
//! the history of its suites, each suite's figures and source.

use axum::Json;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_storage::{SuiteId, SuiteRecord};
use serde::Deserialize;

use super::extract::{page_limit, paged};
use super::{
    ApiError, ApiResult, AppState, CrateQuery, Shared, blocking, crate_of, parse_id, query,
    repo_of, wire,
};

pub(crate) fn best_of(s: &AppState, id: &str, q: &CrateQuery) -> ApiResult<SuiteRecord> {
    let repo = repo_of(s, id)?;
    let krate = crate_of(&repo, q)?;
    s.sched.store().best(repo.id, &krate)?.ok_or_else(|| {
        ApiError::not_found(format!(
            "repository {} has no suite for crate `{krate}` yet (see /v1/runs?repo={})",
            repo.id, repo.id
        ))
    })
}

pub(crate) async fn best_suite(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<v1::Suite>> {
    let q = query(q)?;
    blocking(move || {
        let suite = best_of(&s, &id, &q)?;
        let tests = s.sched.store().suite_tests(&suite)?;
        Ok(Json(wire::suite(&suite, true, Some(&tests))))
    })
    .await
}

pub(crate) async fn best_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let suite = blocking(move || best_of(&s, &id, &q)).await?;
    Ok(source_response(&suite))
}

pub(crate) fn source_response(suite: &SuiteRecord) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/x-rust; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"frugal_generated.rs\"; suite={}",
        suite.id
    )) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    if let Ok(v) = HeaderValue::from_str(&suite.id.to_string()) {
        headers.insert("x-frugal-suite", v);
    }
    (headers, suite.source.clone()).into_response()
}

// Page fields are repeated rather than `#[serde(flatten)]`ed: flattened query fields arrive as
// strings, and numbers would be refused.

#[derive(Debug, Deserialize)]
pub(crate) struct HistoryQuery {
    #[serde(rename = "crate")]
    krate: Option<String>,
    limit: Option<usize>,
    after: Option<u64>,
}

pub(crate) async fn suite_history(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<HistoryQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let out = blocking(move || {
        let repo = repo_of(&s, &id)?;
        let store = s.sched.store();
        let krate = match &q.krate {
            Some(k) => Some(crate_of(
                &repo,
                &CrateQuery {
                    krate: Some(k.clone()),
                },
            )?),
            None => None,
        };
        let suites = store.suites_page(repo.id, krate.as_deref(), q.after.map(SuiteId), limit)?;
        let mut out = Vec::with_capacity(suites.len());
        for su in &suites {
            let best = store.best_id(repo.id, &su.krate)? == Some(su.id);
            out.push(wire::suite_summary(su, best));
        }
        Ok(out)
    })
    .await?;
    let last = out.last().map(|su| su.id);
    Ok(paged(out, limit, last))
}

pub(crate) fn suite_by_id(s: &AppState, raw: &str) -> ApiResult<SuiteRecord> {
    let id = SuiteId(parse_id("suite", raw)?);
    s.sched
        .store()
        .suite(id)?
        .ok_or_else(|| ApiError::not_found(format!("no suite with id {id}")))
}

pub(crate) async fn show_suite(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::Suite>> {
    blocking(move || {
        let suite = suite_by_id(&s, &id)?;
        let store = s.sched.store();
        let best = store.best_id(suite.repo, &suite.krate)? == Some(suite.id);
        let tests = store.suite_tests(&suite)?;
        Ok(Json(wire::suite(&suite, best, Some(&tests))))
    })
    .await
}

pub(crate) async fn suite_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Response> {
    let suite = blocking(move || suite_by_id(&s, &id)).await?;
    Ok(source_response(&suite))
}
