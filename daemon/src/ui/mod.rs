//! The web pages of `frugald` under `/ui`: repositories, a crate's history (coverage and cost
//! over commits), a commit's regression report, a suite, the runs in flight (live through
//! server-sent events), a coverage badge, and the forms that act (log in, trigger, accept).
//!
//! Rendered on the server with maud; charts are SVG drawn here (`chart`), source is
//! highlighted here (`highlight`), and the only script (`static/live.js`) is compiled into the
//! binary, so the pages work offline and without JavaScript except for the live updates.
//!
//! Auth follows the API through one function, [`auth`]: a token entered once on `/ui/login`
//! opens a server-side session (`session`) named by an HttpOnly, SameSite=Strict cookie; forms
//! carry the session's CSRF token. Read pages need a session only when reads need a token.

mod badge;
mod chart;
mod commit;
mod highlight;
mod history;
mod live;
mod repos;
mod session;
mod suite;

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use frugal_storage::StoreError;
use maud::{DOCTYPE, Markup, html};

use crate::api::{AppState, Shared};
use crate::auth::Peer;
use crate::auth::{Denied, Holder, Scope};

pub(crate) use session::{Need, Viewer};

/// What a token allows, in the API's terms (scopes `read`, `trigger`, `admin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scopes {
    /// May read; true of every valid token.
    pub read: bool,
    /// May queue work (trigger, replacement).
    pub trigger: bool,
    /// May do everything else.
    pub admin: bool,
}

impl Scopes {
    /// What a token of API scope `scope` allows.
    pub fn of(scope: Scope) -> Scopes {
        Scopes {
            read: true,
            trigger: scope >= Scope::Trigger,
            admin: scope >= Scope::Admin,
        }
    }

    /// Everything: what the admin token allows.
    pub const ALL: Scopes = Scopes {
        read: true,
        trigger: true,
        admin: true,
    };
}

/// The one place the pages ask whether a token is good and what it grants: the API's scoped
/// check (`auth::Auth::identify`), so a session holds what its token holds (scopes nest:
/// admin covers trigger covers read). Returns who holds it, which the session keeps to ask
/// again on each request ([`scopes_now`]).
/// A login from `peer` counts against the API's limit on wrong tokens.
pub fn auth(
    s: &AppState,
    peer: Option<Peer>,
    given: &str,
) -> Result<Option<(Holder, Scopes)>, Denied> {
    let found = s.auth.identify_from(peer, given)?;
    Ok(found.map(|(holder, scope)| (holder, Scopes::of(scope))))
}

/// What `holder`'s token grants now; `None` once it was revoked.
pub fn scopes_now(s: &AppState, holder: &Holder) -> Option<Scopes> {
    s.auth.scope_now(holder).map(Scopes::of)
}

/// Whether read pages need a session, as `daemon.auth_reads` says for the API.
pub fn reads_need_token(s: &AppState) -> bool {
    s.auth.reads_need_token()
}

/// State of the pages: the API's state plus the sessions of logged-in browsers.
#[derive(Clone)]
pub(crate) struct Ui {
    pub app: Shared,
    pub sessions: Arc<session::Sessions>,
}

/// The `/ui` routes (and the badge), with their own state; merged into the API's router.
pub fn router(app: Shared) -> Router {
    let ui = Ui {
        app: app.clone(),
        sessions: Arc::new(session::Sessions::new(app.sched.store())),
    };
    Router::new()
        .route("/ui", get(repos::page))
        .route("/ui/", get(repos::page))
        .route("/ui/login", get(session::login_page).post(session::login))
        .route("/ui/logout", post(session::logout))
        .route("/ui/live", get(live::page))
        .route("/ui/live/events", get(live::events))
        .route("/ui/repos/{id}/trigger", post(repos::trigger))
        .route("/ui/repos/{id}/badge.svg", get(badge::badge))
        .route("/ui/repos/{id}/crates/{krate}", get(history::page))
        .route("/ui/repos/{id}/commits/{sha}", get(commit::page))
        .route("/ui/repos/{id}/commits/{sha}/accept", post(commit::accept))
        .route("/ui/suites/{id}", get(suite::page))
        .route("/ui/suites/{id}/source", get(suite::source))
        .route("/ui/static/style.css", get(style))
        .route("/ui/static/live.js", get(script))
        .layer(middleware::from_fn(security_headers))
        // Pages count in /metrics by route like the API's requests.
        .layer(middleware::from_fn_with_state(
            app,
            crate::api::middleware::observe,
        ))
        .with_state(ui)
}

/// Pages load nothing from elsewhere and run only the bundled script; no page may be framed.
async fn security_headers(req: Request, next: Next) -> Response {
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             form-action 'self'; frame-ancestors 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    r
}

async fn style() -> Response {
    static_asset("text/css; charset=utf-8", include_str!("static/style.css"))
}

async fn script() -> Response {
    static_asset(
        "text/javascript; charset=utf-8",
        include_str!("static/live.js"),
    )
}

fn static_asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        body,
    )
        .into_response()
}

/// An error page.
#[derive(Debug)]
pub(crate) struct UiError {
    status: StatusCode,
    message: String,
}

impl UiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> UiError {
        UiError {
            status,
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> UiError {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    pub fn internal(e: impl std::fmt::Display) -> UiError {
        tracing::error!(error = %e, "page failed");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl From<crate::api::ApiError> for UiError {
    fn from(e: crate::api::ApiError) -> Self {
        let (status, message) = e.into_parts();
        UiError::new(status, message)
    }
}

/// Runs a page's storage reads and rendering on the blocking pool: sled reads block, and the
/// async workers they would hold also serve the API and ping the watchdog.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> UiResult<T> + Send + 'static,
) -> UiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(UiError::internal)?
}

impl From<StoreError> for UiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound { .. } => UiError::not_found(e.to_string()),
            other => UiError::internal(other),
        }
    }
}

impl IntoResponse for UiError {
    fn into_response(self) -> Response {
        let title = self.status.canonical_reason().unwrap_or("Error");
        let body = html! {
            h1 { (self.status.as_u16()) " " (title) }
            p.error role="alert" { (self.message) }
            @if self.status == StatusCode::UNAUTHORIZED || self.status == StatusCode::FORBIDDEN {
                p { a href="/ui/login" { "Log in with the API token" } }
            }
            p { a href="/ui" { "Back to the repositories" } }
        };
        (self.status, layout(title, None, body)).into_response()
    }
}

pub(crate) type UiResult<T> = Result<T, UiError>;

/// The page for an API answer that refused: its status and the `{"error"}` it gave.
pub(crate) async fn from_api(r: Response) -> UiError {
    let status = r.status();
    let bytes = axum::body::to_bytes(r.into_body(), 64 * 1024)
        .await
        .unwrap_or_default();
    let message = serde_json::from_slice::<frugal_api::v1::ErrorBody>(&bytes)
        .map(|b| b.error)
        .unwrap_or_else(|_| format!("the request was refused ({status})"));
    UiError::new(status, message)
}

/// A whole page: header with navigation, the body, and the login state.
pub(crate) fn layout(title: &str, viewer: Option<&Viewer>, body: Markup) -> Html<String> {
    layout_with(title, viewer, body, html! {})
}

/// [`layout`] with extra elements in `<head>` (the live page's script).
pub(crate) fn layout_with(
    title: &str,
    viewer: Option<&Viewer>,
    body: Markup,
    head: Markup,
) -> Html<String> {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · frugal" }
                link rel="stylesheet" href="/ui/static/style.css";
                (head)
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header {
                    nav aria-label="Main" {
                        a.brand href="/ui" { "frugal" }
                        a href="/ui" { "Repositories" }
                        a href="/ui/live" { "Live" }
                        (login_state(viewer))
                    }
                }
                main #main tabindex="-1" { (body) }
            }
        }
    };
    Html(page.into_string())
}

fn login_state(viewer: Option<&Viewer>) -> Markup {
    match viewer.and_then(Viewer::csrf) {
        Some(csrf) => html! {
            form.inline method="post" action="/ui/logout" {
                input type="hidden" name="csrf" value=(csrf);
                button type="submit" { "Log out" }
            }
        },
        None => html! { a href="/ui/login" { "Log in" } },
    }
}

/// The hidden CSRF field of a form (empty without a session: the action is then refused).
pub(crate) fn csrf_field(viewer: &Viewer) -> Markup {
    html! { input type="hidden" name="csrf" value=(viewer.csrf().unwrap_or_default()); }
}

/// A commit id shortened for display.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// A Unix time in milliseconds as `YYYY-MM-DD HH:MM UTC`.
pub(crate) fn when(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(ms as i64)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "?".to_string())
}

/// A cost figure with its basis, compact (`1.2e6 instructions`).
pub(crate) fn cost_text(value: f64, basis: &str) -> String {
    let metric = basis.split('/').next().unwrap_or(basis);
    let (v, unit) = match metric {
        m if m.ends_with("-ns") => (value / 1e6, format!("ms ({m})")),
        m => (value, m.to_string()),
    };
    format!("{} {unit}", figure(v))
}

/// A number with three significant digits, without exponent for everyday sizes.
pub(crate) fn figure(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1e7 {
        format!("{v:.2e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A share as a percentage with one decimal.
pub(crate) fn percent(part: usize, whole: u32) -> String {
    if whole == 0 {
        return "–".to_string();
    }
    format!("{:.1}%", 100.0 * part as f64 / f64::from(whole))
}
