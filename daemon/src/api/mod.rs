//! The HTTP API of `frugald` (axum on tokio): routes under `/v1`, `/healthz` and `/metrics`.
//! This module holds the router ([`router`]) and the scope each route needs ([`scope_of`]);
//! one file per resource holds its handlers: `repos` (registration, removal), `jobs` (the
//! queue: the trigger route `POST /v1/repos/{id}/trigger` is [`jobs::trigger`]), `suites`,
//! `runs`, `reports` (a commit's regression report and its acceptance), `tokens`,
//! `replacement`, `gc` and `status` (health, metrics, status). `error` is the error answer,
//! `extract` the request side (the blocking pool, body and id parsers, pages, lookups),
//! `middleware` the layers, `wire` the storage records as `/v1` types.
//!
//! Owns request parsing and answers; the work behind a route is a storage read or a scheduler
//! call. Every handler that touches the store or runs git or cargo does it on the blocking pool
//! ([`blocking`]), so a slow disk or a large record never stalls the async workers that answer
//! everyone else; lists are pages (`?limit=&after=`, at most `frugal_storage::MAX_PAGE`, the
//! next page's `after` in the `x-frugal-next-after` header) read through the store's indexes.
//! Knows nothing of the web pages (`ui`), which call into it; `http.rs` merges the two.
//!
//! Error answers are JSON `{"error": "..."}`, whoever produced them (a handler, axum's own
//! rejections, the timeout): 400 for a missing or foreign `Host` header (403 for a foreign one),
//! 401 without a valid token where the route's scope needs one (checked before the body is
//! read), 403 for a token of too narrow a scope, 400 for malformed JSON or ids with the parser's
//! reason, 404 for an unknown repository, run or suite, 409 for a duplicate registration, 503
//! when the request timeout ran out.

mod error;
mod extract;
mod gc;
pub mod jobs;
pub mod middleware;
mod replacement;
pub mod reports;
pub mod repos;
pub(crate) mod runs;
mod status;
mod suites;
mod tokens;
pub mod wire;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;
use std::time::Duration;

use axum::Router;
use axum::http::{Method, StatusCode};
use axum::middleware as layers;
use axum::routing::{get, post};
use frugal_api::v1;
use frugal_scheduler::Scheduler;

use crate::auth::{Auth, Hosts, Scope};
use crate::live::Live;
use crate::metrics::Metrics;
use crate::replacement::Replacer;

pub use error::{ApiError, ApiResult};
pub(crate) use extract::{CrateQuery, blocking, crate_of, parse_body, parse_id, query, repo_of};

/// Shared state of the handlers.
pub struct AppState {
    /// The queue and the store behind it, shared with the runner.
    pub sched: Arc<Scheduler>,
    /// The token check (`auth.rs`).
    pub auth: Auth,
    /// Names the `Host` header may give.
    pub hosts: Hosts,
    /// Replacement computations, under `daemon.max_replacements`.
    pub replacer: Replacer,
    /// Longest time a request may take (`http.request_timeout`).
    pub request_timeout: Duration,
    /// Progress of the runs in flight, as the runner updates it.
    pub live: Live,
    /// Counters the handlers and the runner add to; `GET /metrics` renders them.
    pub metrics: Arc<Metrics>,
    /// Wakes the runner after a trigger, so a job starts without waiting for the next tick.
    pub wake: SyncSender<()>,
    /// Set once on SIGTERM or SIGINT: triggers are refused from then on.
    pub stopping: Arc<AtomicBool>,
    /// `Capabilities::report` of the host, probed at startup.
    pub sandbox: Vec<String>,
    /// `sandbox.require`: crate code runs only where the filesystem is confined.
    pub sandbox_required: bool,
    /// `jobs.max_memory`, `jobs.max_processes`: the cgroup of each replacement computation, as
    /// of each job.
    pub job_limits: frugal_sandbox::JobLimits,
    /// `jobs.git_hosts`: the hosts a replacement's snapshot may name git dependencies on.
    pub git_hosts: std::sync::Arc<[String]>,
    /// `jobs.uid_range` where in force: a replacement computation holds a uid as a job does.
    pub job_uids: crate::uids::JobUids,
    /// Why no crate code may run on this host (`JobEnv::refusal`); `None` when it may.
    pub refusal: Option<String>,
    /// Garbage collection (`POST /v1/gc`, and the data of a removed repository).
    pub gc: crate::gc::SharedGc,
}

/// The handlers' state as axum holds it: one [`AppState`] for every request.
pub type Shared = Arc<AppState>;

/// The API's router with its layers, outermost first: metrics, JSON errors, the `Host` check,
/// the token check, the request timeout.
pub fn router(state: Shared) -> Router {
    let v1 = Router::new()
        .route("/status", get(status::status))
        .route("/repos", get(repos::list_repos).post(repos::add_repo))
        .route(
            "/repos/{id}",
            get(repos::show_repo).delete(repos::remove_repo),
        )
        .route("/repos/{id}/trigger", post(jobs::trigger))
        .route("/repos/{id}/suites", get(suites::suite_history))
        .route("/repos/{id}/commits/{sha}/report", get(reports::report))
        .route("/repos/{id}/commits/{sha}/accept", post(reports::accept))
        .route("/repos/{id}/suites/best", get(suites::best_suite))
        .route("/repos/{id}/suites/best/source", get(suites::best_source))
        .route(
            "/repos/{id}/replacement",
            get(replacement::replacement).post(replacement::replacement),
        )
        .route("/runs", get(runs::list_runs))
        .route("/runs/{id}", get(runs::show_run))
        .route("/suites/{id}", get(suites::show_suite))
        .route("/suites/{id}/source", get(suites::suite_source))
        .route("/jobs", get(jobs::list_jobs))
        .route(
            "/tokens",
            get(tokens::list_tokens).post(tokens::create_token),
        )
        .route("/tokens/{id}", axum::routing::delete(tokens::revoke_token))
        .route("/gc", post(gc::post_gc));
    Router::new()
        .nest(v1::PREFIX, v1)
        .route("/healthz", get(status::healthz))
        .route("/metrics", get(status::metrics))
        .fallback(error::not_found_route)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            state.request_timeout,
        ))
        .layer(layers::from_fn_with_state(
            state.clone(),
            middleware::check_token,
        ))
        .layer(layers::from_fn(middleware::check_host))
        .layer(layers::from_fn_with_state(
            state.clone(),
            middleware::check_host_state,
        ))
        .layer(layers::from_fn(middleware::json_errors))
        .layer(layers::from_fn_with_state(
            state.clone(),
            middleware::observe,
        ))
        .with_state(state)
}

/// The scope a request needs: `None` for health checks, `read` for other reads, `trigger` to
/// queue work, `admin` for the rest (registration, removal, accepting, tokens, and any method
/// or route the API does not have, so a probe learns nothing without a token).
pub fn scope_of(method: &Method, route: Option<&str>) -> Option<Scope> {
    let read = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    match route {
        Some("/healthz") if read => None,
        Some("/v1/tokens") => Some(Scope::Admin),
        Some("/v1/repos/{id}/trigger" | "/v1/repos/{id}/replacement")
            if *method == Method::POST =>
        {
            Some(Scope::Trigger)
        }
        _ if read => Some(Scope::Read),
        _ => Some(Scope::Admin),
    }
}
