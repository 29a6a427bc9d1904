//! The HTTP API of `frugald` (axum on tokio): routes under `/v1`, `/healthz` and `/metrics`,
//! bearer-token auth for state changes, JSON errors, and request metrics.
//!
//! Owns request parsing and answers; the work behind a route is a storage read or a scheduler
//! call. Store reads are sled lookups served from its cache (microseconds), so handlers call
//! them inline; calls that run git or cargo (add, trigger) go to the blocking pool.
//!
//! Error answers are JSON `{"error": "..."}`: 401 without a valid token on POST/DELETE (checked
//! before anything else), 400 for malformed JSON or ids with the parser's reason, 404 for an
//! unknown repository, run or suite, 409 for a duplicate registration.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{MatchedPath, Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use frugal_scheduler::{EnqueueOutcome, Reason, Scheduler, SchedulerError};
use frugal_storage::{CrateEntry, RepoId, RepoRecord, RunId, StoreError, SuiteId, SuiteRecord};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use frugal_cargo::{Cargo, Metadata};

use crate::commits;
use crate::live::Live;
use crate::metrics::{Gauges, Metrics};
use crate::runner::job_counts;
use crate::token;
use crate::v1;

/// Shared state of the handlers.
pub struct AppState {
    pub sched: Arc<Scheduler>,
    pub token: String,
    pub live: Live,
    pub metrics: Arc<Metrics>,
    /// Wakes the runner after a trigger, so a job starts without waiting for the next tick.
    pub wake: SyncSender<()>,
    pub stopping: Arc<AtomicBool>,
    /// `Capabilities::report` of the host, probed at startup.
    pub sandbox: Vec<String>,
    /// Garbage collection (`POST /v1/gc`, and the data of a removed repository).
    pub gc: crate::gc::SharedGc,
}

pub(crate) type Shared = Arc<AppState>;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    pub(crate) fn internal(e: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %e, "request failed");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (
            self.status,
            Json(v1::ErrorBody {
                error: self.message,
            }),
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        r
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound { .. } => ApiError::not_found(e.to_string()),
            StoreError::Invalid(m) => ApiError::new(StatusCode::CONFLICT, m),
            other => ApiError::internal(other),
        }
    }
}

impl From<SchedulerError> for ApiError {
    fn from(e: SchedulerError) -> Self {
        match e {
            SchedulerError::NoSuchRepo(_) => ApiError::not_found(e.to_string()),
            SchedulerError::BadCommit { .. } => ApiError::bad_request(e.to_string()),
            SchedulerError::Store(s) => s.into(),
            other => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, other.to_string()),
        }
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// The router with every route, the auth check and the metrics layer.
pub fn router(state: Shared) -> Router {
    let v1 = Router::new()
        .route("/status", get(status))
        .route("/repos", get(list_repos).post(add_repo))
        .route("/repos/{id}", get(show_repo).delete(remove_repo))
        .route("/repos/{id}/trigger", post(trigger))
        .route("/repos/{id}/suites", get(suite_history))
        .route("/repos/{id}/commits/{sha}/report", get(commits::report))
        .route("/repos/{id}/commits/{sha}/accept", post(commits::accept))
        .route("/repos/{id}/suites/best", get(best_suite))
        .route("/repos/{id}/suites/best/source", get(best_source))
        .route(
            "/repos/{id}/replacement",
            get(crate::replacement::get_replacement),
        )
        .route("/runs", get(list_runs))
        .route("/runs/{id}", get(show_run))
        .route("/suites/{id}", get(show_suite))
        .route("/suites/{id}/source", get(suite_source))
        .route("/jobs", get(list_jobs))
        .route("/gc", post(crate::gc::post_gc));
    Router::new()
        .nest(v1::PREFIX, v1)
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .fallback(not_found_route)
        .layer(middleware::from_fn_with_state(state.clone(), auth))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// Requires the bearer token on every method that changes state.
async fn auth(State(s): State<Shared>, req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(t) if token::matches(&s.token, t) => next.run(req).await,
        Some(_) => ApiError::new(StatusCode::UNAUTHORIZED, "the bearer token is wrong").into_response(),
        None => ApiError::new(
            StatusCode::UNAUTHORIZED,
            "this request changes state and needs `Authorization: Bearer <token>` (the token is in daemon.token_file)",
        )
        .into_response(),
    }
}

/// Counts requests and their latency by matched route (not raw path: ids would explode labels).
async fn observe(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let t = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let method = req.method().to_string();
    let resp = next.run(req).await;
    s.metrics
        .request(&route, &method, resp.status().as_u16(), t.elapsed());
    resp
}

async fn not_found_route(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route {method} {uri}; the API lives under /v1"))
}

/// Parses a JSON body; an empty body reads as `{}` when the type has defaults for every field.
fn parse_body<T: DeserializeOwned>(body: &Bytes) -> ApiResult<T> {
    let text: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    serde_json::from_slice(text)
        .map_err(|e| ApiError::bad_request(format!("malformed JSON body: {e}")))
}

fn parse_id(what: &str, raw: &str) -> ApiResult<u64> {
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

async fn healthz() -> Json<v1::Health> {
    Json(v1::Health {
        status: "ok".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

async fn metrics(State(s): State<Shared>) -> Response {
    let counts = job_counts(s.sched.store());
    let g = Gauges {
        repos: s.sched.store().repos().map(|r| r.len()).unwrap_or(0),
        jobs_queued: counts.get("queued").copied().unwrap_or(0),
        jobs_running: counts.get("running").copied().unwrap_or(0),
        runs_live: s.live.runs().len(),
    };
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        s.metrics.render(&g),
    )
        .into_response()
}

async fn status(State(s): State<Shared>) -> ApiResult<Json<v1::Status>> {
    let store = s.sched.store();
    let counts = job_counts(store);
    let mut running = Vec::new();
    for id in s.live.runs() {
        if let Some(r) = store.run(id)? {
            running.push(with_live(&s.live, v1::Run::from_record(&r, false)));
        }
    }
    Ok(Json(v1::Status {
        version: env!("CARGO_PKG_VERSION").to_string(),
        uptime_s: s.metrics.uptime().as_secs_f64(),
        repos: store.repos()?.len(),
        jobs_queued: counts.get("queued").copied().unwrap_or(0),
        jobs_running: counts.get("running").copied().unwrap_or(0),
        running,
        stopping: s.stopping.load(Ordering::SeqCst),
        sandbox: s.sandbox.clone(),
    }))
}

fn with_live(live: &Live, mut run: v1::Run) -> v1::Run {
    if run.status == "running"
        && let Some(l) = live.get(RunId(run.id))
    {
        run.progress = l.view();
    }
    run
}

async fn list_repos(State(s): State<Shared>) -> ApiResult<Json<Vec<v1::Repo>>> {
    let repos = s.sched.store().repos()?;
    Ok(Json(repos.iter().map(v1::Repo::from).collect()))
}

async fn show_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::RepoDetail>> {
    let repo = repo_of(&s, &id)?;
    let store = s.sched.store();
    let mut best = Vec::new();
    for c in &repo.crates {
        let suite = store
            .best(repo.id, &c.name)?
            .map(|b| v1::Suite::from_record(&b, true, None));
        best.push(v1::CrateBest {
            krate: c.name.clone(),
            suite,
        });
    }
    let jobs = s
        .sched
        .active()?
        .iter()
        .filter(|j| j.repo == repo.id)
        .map(v1::Job::from)
        .collect();
    Ok(Json(v1::RepoDetail {
        repo: v1::Repo::from(&repo),
        best,
        jobs,
    }))
}

async fn add_repo(State(s): State<Shared>, body: Bytes) -> ApiResult<Response> {
    let req: v1::AddRepo = parse_body(&body)?;
    let sched = s.sched.clone();
    let rec = tokio::task::spawn_blocking(move || register(&sched, req))
        .await
        .map_err(ApiError::internal)??;
    tracing::info!(repo = %rec.id, path = %rec.path, crates = rec.crates.len(), "repository registered");
    Ok((StatusCode::CREATED, Json(v1::Repo::from(&rec))).into_response())
}

/// Validates and stores a registration (blocking: runs git and cargo).
pub fn register(sched: &Scheduler, req: v1::AddRepo) -> ApiResult<RepoRecord> {
    let path = PathBuf::from(req.path.trim());
    if !path.is_absolute() {
        return Err(ApiError::bad_request(format!(
            "path `{}` must be absolute (the daemon's working directory is not yours)",
            req.path
        )));
    }
    let path = path
        .canonicalize()
        .map_err(|e| ApiError::bad_request(format!("repository path {}: {e}", path.display())))?;
    git_check(&path)?;
    let crates = if req.crates.is_empty() {
        discover_crates(&path)?
    } else {
        req.crates
            .iter()
            .map(|c| CrateEntry {
                name: c.name.trim().to_string(),
                dir: c
                    .dir
                    .trim()
                    .trim_start_matches("./")
                    .trim_end_matches('/')
                    .to_string(),
            })
            .collect()
    };
    for c in &crates {
        crate_dir_inside(&path, &c.name, &c.dir)?;
    }
    if let Some(s) = &req.schedule {
        frugal_scheduler::CronSchedule::parse(s)
            .map_err(|e| ApiError::bad_request(format!("schedule `{s}`: {e}")))?;
    }
    let mut rec = sched
        .store()
        .add_repo(&path.to_string_lossy(), crates, req.schedule.clone())?;
    if req.hooks_installed {
        rec.hooks_installed = true;
        sched.store().put_repo(&rec)?;
    }
    Ok(rec)
}

/// A crate dir must stay inside the repository: relative, no `..`, and (when the work tree has
/// it) not a symlink leading out. Jobs check the snapshot of each commit again.
fn crate_dir_inside(repo: &Path, name: &str, dir: &str) -> ApiResult<()> {
    crate::job::check_crate_dir(dir)
        .map_err(|e| ApiError::bad_request(format!("crate `{name}`: {e}")))?;
    if let Ok(real) = repo.join(dir).canonicalize()
        && !real.starts_with(repo)
    {
        return Err(ApiError::bad_request(format!(
            "crate `{name}`: crate dir `{dir}` resolves to {} outside the repository",
            real.display()
        )));
    }
    Ok(())
}

fn git_check(path: &Path) -> ApiResult<()> {
    let out = frugal_sandbox::output_in_group(
        frugal_scheduler::git_command(path).args(["rev-parse", "--git-dir"]),
        frugal_scheduler::GIT_TIMEOUT,
    )
    .map_err(ApiError::internal)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{} is not a git repository: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Library crates of the workspace at `path`, with their directories relative to it.
fn discover_crates(path: &Path) -> ApiResult<Vec<CrateEntry>> {
    let manifest = path.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(ApiError::bad_request(format!(
            "{} has no Cargo.toml at its root: name the crates and their directories",
            path.display()
        )));
    }
    let meta = Metadata::read(&Cargo::new(), &manifest)
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let crates = library_crates(&meta, path);
    if crates.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{} has no library crate to generate tests for",
            path.display()
        )));
    }
    Ok(crates)
}

fn library_crates(meta: &Metadata, root: &Path) -> Vec<CrateEntry> {
    meta.packages
        .iter()
        .filter(|p| p.is_lib())
        .map(|p| CrateEntry {
            name: p.name.clone(),
            dir: p
                .dir()
                .strip_prefix(root)
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
        .collect()
}

async fn remove_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<StatusCode> {
    let repo = repo_of(&s, &id)?;
    // Queued jobs of a removed repository would fail anyway; running ones end on their own.
    for j in s.sched.active()? {
        if j.repo == repo.id {
            let _ = s.sched.cancel(j.id);
        }
    }
    // Its runs, suites, reports, jobs and directories go with it (`gc::remove_repo`).
    let (gc, sched, id) = (s.gc.clone(), s.sched.clone(), repo.id);
    let freed = tokio::task::spawn_blocking(move || crate::gc::remove_repo(&gc, sched.store(), id))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    tracing::info!(repo = %repo.id, path = %repo.path, records = freed.record_count(),
        bytes = freed.bytes_freed, "repository removed with its data");
    Ok(StatusCode::NO_CONTENT)
}

async fn trigger(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult<Response> {
    let req: v1::Trigger = parse_body(&body)?;
    let repo = repo_of(&s, &id)?;
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
    let sched = s.sched.clone();
    let commit = req.commit.clone();
    let report = tokio::task::spawn_blocking(move || {
        // A hand-made trigger regenerates every crate; a hook only what the commit changed.
        sched.on_commit(repo.id, commit.as_deref(), reason, |_| {
            reason == Reason::Api
        })
    })
    .await
    .map_err(ApiError::internal)??;
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

fn crate_names(repo: &RepoRecord) -> String {
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

fn best_of(s: &AppState, id: &str, q: &CrateQuery) -> ApiResult<SuiteRecord> {
    let repo = repo_of(s, id)?;
    let krate = crate_of(&repo, q)?;
    s.sched.store().best(repo.id, &krate)?.ok_or_else(|| {
        ApiError::not_found(format!(
            "repository {} has no suite for crate `{krate}` yet (see /v1/runs?repo={})",
            repo.id, repo.id
        ))
    })
}

async fn best_suite(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<v1::Suite>> {
    let q = query(q)?;
    let suite = best_of(&s, &id, &q)?;
    let tests = s.sched.store().suite_tests(&suite)?;
    Ok(Json(v1::Suite::from_record(&suite, true, Some(&tests))))
}

async fn best_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let suite = best_of(&s, &id, &q)?;
    Ok(source_response(&suite))
}

fn source_response(suite: &SuiteRecord) -> Response {
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

async fn suite_history(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Vec<v1::Suite>>> {
    let q = query(q)?;
    let repo = repo_of(&s, &id)?;
    let store = s.sched.store();
    let krate = match &q.krate {
        Some(_) => Some(crate_of(&repo, &q)?),
        None => None,
    };
    let mut suites = store.suites(repo.id, krate.as_deref())?;
    suites.reverse();
    let mut out = Vec::with_capacity(suites.len());
    for su in &suites {
        let best = store.best_id(repo.id, &su.krate)? == Some(su.id);
        out.push(v1::Suite::from_record(su, best, None));
    }
    Ok(Json(out))
}

fn suite_by_id(s: &AppState, raw: &str) -> ApiResult<SuiteRecord> {
    let id = SuiteId(parse_id("suite", raw)?);
    s.sched
        .store()
        .suite(id)?
        .ok_or_else(|| ApiError::not_found(format!("no suite with id {id}")))
}

async fn show_suite(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::Suite>> {
    let suite = suite_by_id(&s, &id)?;
    let store = s.sched.store();
    let best = store.best_id(suite.repo, &suite.krate)? == Some(suite.id);
    let tests = store.suite_tests(&suite)?;
    Ok(Json(v1::Suite::from_record(&suite, best, Some(&tests))))
}

async fn suite_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Response> {
    Ok(source_response(&suite_by_id(&s, &id)?))
}

#[derive(Debug, Deserialize)]
struct RunsQuery {
    repo: Option<u64>,
    limit: Option<usize>,
}

async fn list_runs(
    State(s): State<Shared>,
    q: Result<Query<RunsQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<Vec<v1::Run>>> {
    let q = query(q)?;
    let store = s.sched.store();
    let repos: Vec<RepoId> = match q.repo {
        Some(r) => {
            let id = RepoId(r);
            if store.repo(id)?.is_none() {
                return Err(ApiError::not_found(format!("no repository with id {id}")));
            }
            vec![id]
        }
        None => store.repos()?.into_iter().map(|r| r.id).collect(),
    };
    let mut runs = Vec::new();
    for r in repos {
        runs.extend(store.runs(r, None)?);
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.id));
    runs.truncate(q.limit.unwrap_or(50));
    Ok(Json(
        runs.iter()
            .map(|r| with_live(&s.live, v1::Run::from_record(r, false)))
            .collect(),
    ))
}

async fn show_run(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::Run>> {
    let id = RunId(parse_id("run", &id)?);
    let run = s
        .sched
        .store()
        .run(id)?
        .ok_or_else(|| ApiError::not_found(format!("no run with id {id}")))?;
    Ok(Json(with_live(&s.live, v1::Run::from_record(&run, true))))
}

async fn list_jobs(State(s): State<Shared>) -> ApiResult<Json<Vec<v1::Job>>> {
    let mut jobs = s.sched.jobs()?;
    jobs.reverse();
    jobs.truncate(200);
    Ok(Json(jobs.iter().map(v1::Job::from).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_crates_are_found_with_dirs_relative_to_the_root() {
        let meta = serde_json::json!({"packages": [
            {"name": "a", "id": "a", "manifest_path": "/r/Cargo.toml", "targets": [{"name": "a", "kind": ["lib"]}]},
            {"name": "b", "id": "b", "manifest_path": "/r/crates/b/Cargo.toml", "targets": [{"name": "b", "kind": ["rlib", "lib"]}]},
            {"name": "tool", "id": "tool", "manifest_path": "/r/tool/Cargo.toml", "targets": [{"name": "tool", "kind": ["bin"]}]},
        ]});
        let c = library_crates(&Metadata::from_json(&meta), Path::new("/r"));
        assert_eq!(
            c,
            vec![
                CrateEntry {
                    name: "a".into(),
                    dir: "".into()
                },
                CrateEntry {
                    name: "b".into(),
                    dir: "crates/b".into()
                },
            ]
        );
    }

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
