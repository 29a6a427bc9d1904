//! The HTTP API of `frugald` (axum on tokio): routes under `/v1`, `/healthz` and `/metrics`, the
//! `Host` check and scoped bearer tokens (`auth`), JSON errors, request timeouts and metrics.
//!
//! Owns request parsing and answers; the work behind a route is a storage read or a scheduler
//! call. Every handler that touches the store or runs git or cargo does it on the blocking pool
//! ([`blocking`]), so a slow disk or a large record never stalls the async workers that answer
//! everyone else; lists are pages (`?limit=&after=`, at most `frugal_storage::MAX_PAGE`, the
//! next page's `after` in the `x-frugal-next-after` header) read through the store's indexes.
//!
//! Error answers are JSON `{"error": "..."}`, whoever produced them (a handler, axum's own
//! rejections, the timeout): 400 for a missing or foreign `Host` header (403 for a foreign one),
//! 401 without a valid token where the route's scope needs one (checked before the body is
//! read), 403 for a token of too narrow a scope, 400 for malformed JSON or ids with the parser's
//! reason, 404 for an unknown repository, run or suite, 409 for a duplicate registration, 503
//! when the request timeout ran out.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{MatchedPath, Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use frugal_scheduler::{EnqueueOutcome, Reason, Scheduler, SchedulerError};
use frugal_storage::{
    CrateEntry, JobId, MAX_PAGE, RepoId, RepoRecord, RunId, StoreError, SuiteId, SuiteRecord,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use frugal_cargo::{Cargo, Metadata};

use crate::auth::{self, Auth, Hosts, Scope};
use crate::commits;
use crate::live::Live;
use crate::metrics::{Gauges, Metrics};
use crate::replacement::{self, Replacer};
use crate::runner::job_counts;
use crate::v1;

/// Shared state of the handlers.
pub struct AppState {
    pub sched: Arc<Scheduler>,
    /// The token check (`auth.rs`).
    pub auth: Auth,
    /// Names the `Host` header may give.
    pub hosts: Hosts,
    /// Replacement computations, under `daemon.max_replacements`.
    pub replacer: Replacer,
    /// Longest time a request may take (`http.request_timeout`).
    pub request_timeout: Duration,
    pub live: Live,
    pub metrics: Arc<Metrics>,
    /// Wakes the runner after a trigger, so a job starts without waiting for the next tick.
    pub wake: SyncSender<()>,
    pub stopping: Arc<AtomicBool>,
    /// `Capabilities::report` of the host, probed at startup.
    pub sandbox: Vec<String>,
    /// `sandbox.require`: crate code runs only where the filesystem is confined.
    pub sandbox_required: bool,
    /// `jobs.max_memory`, `jobs.max_processes`: the cgroup of each replacement computation, as
    /// of each job.
    pub job_limits: frugal_sandbox::JobLimits,
    /// Why no crate code may run on this host (`JobEnv::refusal`); `None` when it may.
    pub refusal: Option<String>,
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
    /// The answer's status and message, for the pages' own error type.
    pub(crate) fn into_parts(self) -> (StatusCode, String) {
        (self.status, self.message)
    }

    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
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
            SchedulerError::QueueFull { .. } => {
                ApiError::new(StatusCode::TOO_MANY_REQUESTS, e.to_string())
            }
            SchedulerError::Store(s) => s.into(),
            other => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, other.to_string()),
        }
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// The router with every route and its layers, outermost first: metrics, JSON errors, the
/// `Host` check, the token check, the request timeout.
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
            get(replacement::replacement).post(replacement::replacement),
        )
        .route("/runs", get(list_runs))
        .route("/runs/{id}", get(show_run))
        .route("/suites/{id}", get(show_suite))
        .route("/suites/{id}/source", get(suite_source))
        .route("/jobs", get(list_jobs))
        .route("/tokens", get(auth::list_tokens).post(auth::create_token))
        .route("/tokens/{id}", axum::routing::delete(auth::revoke_token))
        .route("/gc", post(crate::gc::post_gc));
    Router::new()
        .nest(v1::PREFIX, v1)
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .fallback(not_found_route)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            state.request_timeout,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), check_token))
        .layer(middleware::from_fn(check_host))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            check_host_state,
        ))
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state.clone())
        .merge(ui_router(state))
}

/// The web pages, behind the same `Host` checks as the API (DNS rebinding would otherwise
/// reach them through a browser), with their own auth (sessions, `ui::auth`).
fn ui_router(state: Shared) -> Router {
    crate::ui::router(state.clone())
        // As the API's: a page (and the live stream's start) is answered within the request
        // timeout; the stream itself ends on its own (`ui::live`).
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            state.request_timeout,
        ))
        .layer(middleware::from_fn(check_host))
        .layer(middleware::from_fn_with_state(state, check_host_state))
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

/// Refuses a request without the token its route's scope needs (reads only when
/// `daemon.auth_reads`), before its body is read.
async fn check_token(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(MatchedPath::as_str);
    let needed = match scope_of(req.method(), route) {
        None => return next.run(req).await,
        Some(Scope::Read) if !s.auth.reads_need_token() => return next.run(req).await,
        Some(n) => n,
    };
    let peer = req.extensions().get::<Peer>().copied();
    match s
        .auth
        .authorize_from(peer, auth::bearer(req.headers()), needed)
    {
        Ok(_) => {
            // Who asked, for the routes that count by token (the queue's share).
            let holder = auth::bearer(req.headers()).and_then(|t| s.auth.identify(t));
            let mut req = req;
            if let Some((holder, _)) = holder {
                req.extensions_mut().insert(holder);
            }
            next.run(req).await
        }
        Err(denied) => ApiError::from(denied).into_response(),
    }
}

/// Who sent a request, set per connection by the listener: its IP address, or `Local` for the
/// unix socket. What the login rate limit and the per-client connection limit count by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    Ip(std::net::IpAddr),
    Local,
}

/// Marks a request that came over the unix socket: the `Host` check does not apply there (a web
/// page cannot reach a unix socket, and local clients name any host).
#[derive(Clone, Copy, Debug)]
pub struct UnixPeer;

/// Refuses a request whose `Host` header names a host the daemon is not (DNS rebinding: a page
/// whose name now resolves to 127.0.0.1 still sends its own name).
async fn check_host_state(State(s): State<Shared>, req: Request, next: Next) -> Response {
    if req.extensions().get::<UnixPeer>().is_some() {
        return next.run(req).await;
    }
    let host = req
        .headers()
        .get(header::HOST)
        .map(|h| h.to_str().unwrap_or("(not text)"));
    match s.hosts.check(host) {
        Ok(()) => next.run(req).await,
        Err(why) if host.is_none() => ApiError::bad_request(why).into_response(),
        Err(why) => ApiError::new(StatusCode::FORBIDDEN, why).into_response(),
    }
}

/// HTTP/1.1 puts the authority in the request line (`GET http://evil/ HTTP/1.1`) or the `Host`
/// header; hyper moves neither into the other, so an absolute URI with another host is refused
/// here whatever the header says.
async fn check_host(req: Request, next: Next) -> Response {
    match (req.uri().host(), req.headers().get(header::HOST)) {
        (Some(uri_host), Some(h)) if h.to_str().ok().map(auth::host_name) != Some(uri_host) => {
            ApiError::bad_request("the request line and the Host header name different hosts")
                .into_response()
        }
        _ => next.run(req).await,
    }
}

/// Gives every error answer the API's JSON shape, including those axum (405, 415, path
/// rejections) and the timeout (503) produce without one.
async fn json_errors(req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let message = match std::str::from_utf8(&text).map(str::trim) {
        Ok(t) if !t.is_empty() => format!("{reason}: {t}"),
        _ if status == StatusCode::SERVICE_UNAVAILABLE => {
            "the request took longer than http.request_timeout".to_string()
        }
        _ => reason,
    };
    let mut out = ApiError::new(status, message).into_response();
    for name in [header::ALLOW, header::WWW_AUTHENTICATE] {
        if let Some(v) = parts.headers.get(&name) {
            out.headers_mut().insert(name, v.clone());
        }
    }
    out
}

/// Counts requests and their latency by matched route (not raw path: ids would explode labels).
pub(crate) async fn observe(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let t = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let method = req.method().clone();
    let resp = next.run(req).await;
    s.metrics
        .request(&route, method.as_str(), resp.status().as_u16(), t.elapsed());
    resp
}

async fn not_found_route(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route {method} {uri}; the API lives under /v1"))
}

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
struct Page {
    limit: Option<usize>,
    after: Option<u64>,
}

const DEFAULT_PAGE: usize = 50;

/// The page size a `?limit=` asks for, checked.
fn page_limit(limit: Option<usize>) -> ApiResult<usize> {
    match limit {
        None => Ok(DEFAULT_PAGE),
        Some(n @ 1..=MAX_PAGE) => Ok(n),
        Some(n) => Err(ApiError::bad_request(format!(
            "limit {n} is outside 1..={MAX_PAGE}; follow x-frugal-next-after for more"
        ))),
    }
}

/// A page as JSON, with the `after` of the next one when this one is full.
fn paged<T: Serialize>(items: Vec<T>, limit: usize, last_id: Option<u64>) -> Response {
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

async fn healthz() -> Json<v1::Health> {
    Json(v1::Health {
        status: "ok".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

async fn metrics(State(s): State<Shared>) -> ApiResult<Response> {
    let text = blocking(move || {
        let counts = job_counts(s.sched.store())?;
        let g = Gauges {
            repos: s.sched.store().repo_count(),
            jobs_queued: counts.get("queued").copied().unwrap_or(0),
            jobs_running: counts.get("running").copied().unwrap_or(0),
            runs_live: s.live.runs().len(),
            replacements: s.replacer.in_flight(),
        };
        Ok(s.metrics.render(&g))
    })
    .await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response())
}

async fn status(State(s): State<Shared>) -> ApiResult<Json<v1::Status>> {
    blocking(move || {
        let store = s.sched.store();
        let counts = job_counts(store)?;
        let mut running = Vec::new();
        for id in s.live.runs() {
            if let Some(r) = store.run(id)? {
                running.push(with_live(&s.live, v1::Run::from_record(&r, false)));
            }
        }
        Ok(Json(v1::Status {
            version: env!("CARGO_PKG_VERSION").to_string(),
            uptime_s: s.metrics.uptime().as_secs_f64(),
            repos: store.repo_count(),
            jobs_queued: counts.get("queued").copied().unwrap_or(0),
            jobs_running: counts.get("running").copied().unwrap_or(0),
            running,
            stopping: s.stopping.load(Ordering::SeqCst),
            sandbox: s.sandbox.clone(),
        }))
    })
    .await
}

fn with_live(live: &Live, mut run: v1::Run) -> v1::Run {
    if run.status == "running"
        && let Some(l) = live.get(RunId(run.id))
    {
        run.progress = l.view();
    }
    run
}

async fn list_repos(
    State(s): State<Shared>,
    q: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let repos =
        blocking(move || Ok(s.sched.store().repos_page(q.after.map(RepoId), limit)?)).await?;
    let last = repos.last().map(|r| r.id.0);
    Ok(paged(
        repos.iter().map(v1::Repo::from).collect(),
        limit,
        last,
    ))
}

async fn show_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Json<v1::RepoDetail>> {
    blocking(move || {
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
        let jobs = store
            .active_jobs()?
            .iter()
            .filter(|j| j.repo == repo.id)
            .map(v1::Job::from)
            .collect();
        Ok(Json(v1::RepoDetail {
            repo: v1::Repo::from(&repo),
            best,
            jobs,
        }))
    })
    .await
}

async fn add_repo(State(s): State<Shared>, body: Bytes) -> ApiResult<Response> {
    let req: v1::AddRepo = parse_body(&body)?;
    let sched = s.sched.clone();
    let rec = blocking(move || register(&sched, req)).await?;
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
    let mut names = std::collections::HashSet::new();
    for c in &crates {
        crate::job::check_crate_name(&c.name).map_err(ApiError::bad_request)?;
        if !names.insert(c.name.as_str()) {
            return Err(ApiError::bad_request(format!(
                "crate `{}` is named twice: each crate has its own work dir, named after it",
                c.name
            )));
        }
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
    let out = frugal_scheduler::git_output(
        path,
        frugal_scheduler::git_command(path).args(["rev-parse", "--git-dir"]),
        None,
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
    let (crates, outside) = library_crates(&meta, path);
    if !outside.is_empty() {
        // Path dependencies outside the repository are not its crates: its history does not
        // hold them, so a job could not check them out.
        tracing::info!(path = %path.display(), ?outside, "skipped library crates outside the repository");
    }
    if crates.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{} has no library crate to generate tests for",
            path.display()
        )));
    }
    Ok(crates)
}

/// The library crates under `root` with their directories relative to it, and the names of
/// those outside it (a workspace member `../x` is not part of the repository's history).
fn library_crates(meta: &Metadata, root: &Path) -> (Vec<CrateEntry>, Vec<String>) {
    let mut inside = Vec::new();
    let mut outside = Vec::new();
    for p in meta.packages.iter().filter(|p| p.is_lib()) {
        match p.dir().strip_prefix(root) {
            Ok(d) => inside.push(CrateEntry {
                name: p.name.clone(),
                dir: d.to_string_lossy().into_owned(),
            }),
            Err(_) => outside.push(p.name.clone()),
        }
    }
    (inside, outside)
}

async fn remove_repo(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<StatusCode> {
    blocking(move || {
        let repo = repo_of(&s, &id)?;
        // Queued jobs of a removed repository would fail anyway; running ones end on their own.
        for j in s.sched.store().active_jobs()? {
            if j.repo == repo.id {
                let _ = s.sched.cancel(j.id);
            }
        }
        // Its runs, suites, reports, jobs and directories go with it (`gc::remove_repo`).
        let freed = crate::gc::remove_repo(&s.gc, s.sched.store(), repo.id)
            .map_err(|e| ApiError::internal(format!("{e:#}")))?;
        tracing::info!(repo = %repo.id, path = %repo.path, records = freed.record_count(),
            bytes = freed.bytes_freed, "repository removed with its data");
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

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
    blocking(move || {
        let suite = best_of(&s, &id, &q)?;
        let tests = s.sched.store().suite_tests(&suite)?;
        Ok(Json(v1::Suite::from_record(&suite, true, Some(&tests))))
    })
    .await
}

async fn best_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
    q: Result<Query<CrateQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let suite = blocking(move || best_of(&s, &id, &q)).await?;
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

// Page fields are repeated rather than `#[serde(flatten)]`ed: flattened query fields arrive as
// strings, and numbers would be refused.
#[derive(Debug, Deserialize)]
struct HistoryQuery {
    #[serde(rename = "crate")]
    krate: Option<String>,
    limit: Option<usize>,
    after: Option<u64>,
}

async fn suite_history(
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
            out.push(v1::Suite::from_summary(su, best));
        }
        Ok(out)
    })
    .await?;
    let last = out.last().map(|su| su.id);
    Ok(paged(out, limit, last))
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
    blocking(move || {
        let suite = suite_by_id(&s, &id)?;
        let store = s.sched.store();
        let best = store.best_id(suite.repo, &suite.krate)? == Some(suite.id);
        let tests = store.suite_tests(&suite)?;
        Ok(Json(v1::Suite::from_record(&suite, best, Some(&tests))))
    })
    .await
}

async fn suite_source(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<Response> {
    let suite = blocking(move || suite_by_id(&s, &id)).await?;
    Ok(source_response(&suite))
}

#[derive(Debug, Deserialize)]
struct RunsQuery {
    repo: Option<u64>,
    limit: Option<usize>,
    after: Option<u64>,
}

async fn list_runs(
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
            .map(|r| with_live(&s.live, v1::Run::from_record(r, false)))
            .collect::<Vec<_>>())
    })
    .await?;
    let last = runs.last().map(|r| r.id);
    Ok(paged(runs, limit, last))
}

async fn show_run(
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
        Ok(Json(with_live(&s.live, v1::Run::from_record(&run, true))))
    })
    .await
}

async fn list_jobs(
    State(s): State<Shared>,
    q: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let limit = page_limit(q.limit)?;
    let jobs = blocking(move || Ok(s.sched.store().jobs_page(q.after.map(JobId), limit)?)).await?;
    let last = jobs.last().map(|j| j.id.0);
    Ok(paged(jobs.iter().map(v1::Job::from).collect(), limit, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_crates_are_found_with_dirs_relative_to_the_root_and_outsiders_left_out() {
        let meta = serde_json::json!({"packages": [
            {"name": "a", "id": "a", "manifest_path": "/r/Cargo.toml", "targets": [{"name": "a", "kind": ["lib"]}]},
            {"name": "b", "id": "b", "manifest_path": "/r/crates/b/Cargo.toml", "targets": [{"name": "b", "kind": ["rlib", "lib"]}]},
            {"name": "tool", "id": "tool", "manifest_path": "/r/tool/Cargo.toml", "targets": [{"name": "tool", "kind": ["bin"]}]},
            {"name": "dep", "id": "dep", "manifest_path": "/elsewhere/dep/Cargo.toml", "targets": [{"name": "dep", "kind": ["lib"]}]},
        ]});
        let (c, outside) = library_crates(&Metadata::from_json(&meta), Path::new("/r"));
        // A path dependency outside the repository is not one of its crates (it used to be
        // registered with the repository root as its directory).
        assert_eq!(outside, ["dep"]);
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
