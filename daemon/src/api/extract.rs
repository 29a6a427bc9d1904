//! The request side of the handlers: the blocking pool every store, git or cargo call runs on,
//! body, id and query parsers, list pages, and the lookups of a repository and its crate.

use axum::Json;
use axum::body::Bytes;
use axum::extract::Query;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_storage::{MAX_PAGE, RepoId, RepoRecord};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{ApiError, ApiResult, AppState};

/// Runs store reads and git or cargo calls on the blocking pool, off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)?
}

/// `?limit=&after=` of a list: at most [`MAX_PAGE`] items (50 by default) after the id `after`
/// in the list's order.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Page {
    pub(crate) limit: Option<usize>,
    pub(crate) after: Option<u64>,
}

pub(crate) const DEFAULT_PAGE: usize = 50;

/// The page size a `?limit=` asks for, checked.
pub(crate) fn page_limit(limit: Option<usize>) -> ApiResult<usize> {
    match limit {
        None => Ok(DEFAULT_PAGE),
        Some(n @ 1..=MAX_PAGE) => Ok(n),
        Some(n) => Err(ApiError::bad_request(format!(
            "limit {n} is outside 1..={MAX_PAGE}; follow x-frugal-next-after for more"
        ))),
    }
}

/// A page as JSON, with the `after` of the next one when this one is full.
pub(crate) fn paged<T: Serialize>(items: Vec<T>, limit: usize, last_id: Option<u64>) -> Response {
    let full = items.len() >= limit;
    let mut r = Json(items).into_response();
    if full
        && let Some(id) = last_id
        && let Ok(v) = HeaderValue::from_str(&id.to_string())
    {
        r.headers_mut().insert(v1::NEXT_AFTER, v);
    }
    r
}

/// Parses a JSON body; an empty body reads as `{}` when the type has defaults for every field.
pub(crate) fn parse_body<T: DeserializeOwned>(body: &Bytes) -> ApiResult<T> {
    let text: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    serde_json::from_slice(text)
        .map_err(|e| ApiError::bad_request(format!("malformed JSON body: {e}")))
}

pub(crate) fn parse_id(what: &str, raw: &str) -> ApiResult<u64> {
    raw.parse::<u64>()
        .map_err(|_| ApiError::bad_request(format!("{what} id `{raw}` is not a number")))
}

pub(crate) fn repo_of(s: &AppState, raw: &str) -> ApiResult<RepoRecord> {
    let id = RepoId(parse_id("repository", raw)?);
    s.sched
        .store()
        .repo(id)?
        .ok_or_else(|| ApiError::not_found(format!("no repository with id {id}")))
}

#[derive(Debug, Deserialize)]
pub(crate) struct CrateQuery {
    #[serde(rename = "crate")]
    pub(crate) krate: Option<String>,
}

/// The crate a request means: the one asked for, or the repository's only crate.
pub(crate) fn crate_of(repo: &RepoRecord, q: &CrateQuery) -> ApiResult<String> {
    match &q.krate {
        Some(k) if repo.crates.iter().any(|c| &c.name == k) => Ok(k.clone()),
        Some(k) => Err(ApiError::not_found(format!(
            "repository {} has no crate `{k}` (it has {})",
            repo.id,
            crate_names(repo)
        ))),
        None if repo.crates.len() == 1 => Ok(repo.crates[0].name.clone()),
        None => Err(ApiError::bad_request(format!(
            "repository {} has several crates ({}): add ?crate=<name>",
            repo.id,
            crate_names(repo)
        ))),
    }
}

pub(crate) fn crate_names(repo: &RepoRecord) -> String {
    repo.crates
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn query<T: DeserializeOwned>(
    q: Result<Query<T>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<T> {
    q.map(|Query(v)| v)
        .map_err(|e| ApiError::bad_request(format!("bad query string: {}", e.body_text())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[test]
    fn an_empty_body_reads_as_defaults_and_bad_json_says_why() {
        let t: v1::Trigger = parse_body(&Bytes::from_static(b"  ")).unwrap();
        assert!(t.commit.is_none());
        let e = parse_body::<v1::Trigger>(&Bytes::from_static(b"{\"commit\": ")).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(
            e.message.starts_with("malformed JSON body: "),
            "{}",
            e.message
        );
    }
}
