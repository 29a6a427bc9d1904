//! Browser sessions of the pages: the token is entered once on `/ui/login`, checked through
//! [`super::auth`], and never stored in the browser. The browser keeps only a random session id
//! in an HttpOnly, SameSite=Strict cookie scoped to `/ui`; the server keeps who holds the
//! session's token (never its secret) and its CSRF token, which every form sends back in a
//! hidden field. Each request asks the token store what that token grants now: a revoked
//! token's session ends at its next request, not 12 hours later.
//!
//! Decision: sessions live in memory. A restart logs everyone out, which costs one login and
//! keeps no secret on disk; the map is bounded so a flood of logins cannot grow it. A fleet's
//! nodes share the store instead (PostgreSQL), so a session opened on one node holds on every
//! node and a logout ends it everywhere: sessions are then kept in the store by the SHA-256 of
//! their id (never the id itself), read on every request.

use std::collections::HashMap;
use std::io::Read;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use maud::html;
use serde::Deserialize;

use super::{Scopes, Ui, UiError, UiResult, layout};
use crate::auth::Holder;
use crate::auth::Peer;
use crate::token;
use frugal_storage::{SessionRecord, Store};
use sha2::{Digest, Sha256};

/// Name of the session cookie.
pub const COOKIE: &str = "frugal_session";
/// How long a session lasts after login (the cookie itself ends with the browser session).
const LIFETIME: Duration = Duration::from_secs(12 * 3600);
/// Sessions kept at most; the oldest goes first.
const MAX_SESSIONS: usize = 1024;

/// One logged-in browser.
#[derive(Clone, Debug)]
struct Session {
    holder: Holder,
    csrf: String,
    created: Instant,
}

/// The sessions of logged-in browsers, by session id: in memory, or in a store the fleet
/// shares.
#[derive(Default)]
pub struct Sessions {
    local: Mutex<HashMap<String, Session>>,
    shared: Option<Store>,
}

/// Runs a store call from an async handler: on frugald's multi-threaded runtime the worker
/// steps aside while it blocks (PostgreSQL's client blocks the thread).
fn blocking_here<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

fn id_hash(id: &str) -> [u8; 32] {
    Sha256::digest(id.as_bytes()).into()
}

fn holder_text(h: &Holder) -> String {
    match h {
        Holder::TokenFile => "token-file".to_string(),
        Holder::Stored(hash) => hash.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

fn holder_of(text: &str) -> Option<Holder> {
    if text == "token-file" {
        return Some(Holder::TokenFile);
    }
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    Some(Holder::Stored(bytes.try_into().ok()?))
}

impl Sessions {
    /// Sessions for the pages over `store`: in the store when a fleet shares it, else here.
    pub fn new(store: &Store) -> Sessions {
        Sessions {
            local: Mutex::default(),
            shared: store.is_shared().then(|| store.clone()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.local.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens a session and returns its id.
    fn open(&self, holder: Holder) -> std::io::Result<String> {
        let id = random_hex()?;
        let session = Session {
            holder,
            csrf: random_hex()?,
            created: Instant::now(),
        };
        if let Some(store) = &self.shared {
            let now = frugal_storage::now_ms();
            let rec = SessionRecord {
                holder: holder_text(&session.holder),
                csrf: session.csrf.clone(),
                created: now,
            };
            blocking_here(|| {
                let _ = store.prune_sessions(now.saturating_sub(LIFETIME.as_millis() as u64));
                store.put_session(&id_hash(&id), &rec)
            })
            .map_err(std::io::Error::other)?;
            return Ok(id);
        }
        let mut map = self.lock();
        map.retain(|_, s| s.created.elapsed() < LIFETIME);
        if map.len() >= MAX_SESSIONS
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.created)
                .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
        map.insert(id.clone(), session);
        Ok(id)
    }

    fn get(&self, id: &str) -> Option<Session> {
        if let Some(store) = &self.shared {
            let rec = blocking_here(|| store.session(&id_hash(id))).ok()??;
            let age = frugal_storage::now_ms().saturating_sub(rec.created);
            let age = Duration::from_millis(age);
            if age >= LIFETIME {
                return None;
            }
            return Some(Session {
                holder: holder_of(&rec.holder)?,
                csrf: rec.csrf,
                created: Instant::now().checked_sub(age).unwrap_or_else(Instant::now),
            });
        }
        let map = self.lock();
        map.get(id)
            .filter(|s| s.created.elapsed() < LIFETIME)
            .cloned()
    }

    fn close(&self, id: &str) {
        if let Some(store) = &self.shared {
            let _ = blocking_here(|| store.remove_session(&id_hash(id)));
        }
        self.lock().remove(id);
    }
}

/// 32 random bytes as hex: session ids and CSRF tokens.
fn random_hex() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What a request may do, and why a page shows a form or a login link.
#[derive(Clone, Debug, Default)]
pub struct Viewer {
    session: Option<Current>,
    reads_need_token: bool,
}

/// A live session as one request sees it: its scopes are what its token grants now.
#[derive(Clone, Debug)]
struct Current {
    id: String,
    csrf: String,
    scopes: Scopes,
    holder: Holder,
}

/// What an action needs, in scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A read page (needs a session only when reads need a token).
    Read,
    /// Queue jobs.
    Trigger,
    /// Accept behaviour changes: an administrator's or a CI trigger token's decision.
    Accept,
}

impl Viewer {
    /// The viewer of a request: its session, if the cookie names a live one whose token is
    /// still valid. A session whose token was revoked is closed here.
    pub fn of(ui: &Ui, jar: &CookieJar) -> Viewer {
        let session = jar.get(COOKIE).and_then(|c| {
            let id = c.value();
            let s = ui.sessions.get(id)?;
            let Some(scopes) = super::scopes_now(&ui.app, &s.holder) else {
                ui.sessions.close(id);
                tracing::info!("ui session closed: its token was revoked");
                return None;
            };
            Some(Current {
                id: id.to_string(),
                csrf: s.csrf,
                scopes,
                holder: s.holder,
            })
        });
        Viewer {
            session,
            reads_need_token: super::reads_need_token(&ui.app),
        }
    }

    /// Who holds the session's token, when logged in.
    pub fn holder(&self) -> Option<&Holder> {
        self.session.as_ref().map(|s| &s.holder)
    }

    /// The session's CSRF token, when logged in.
    pub fn csrf(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.csrf.as_str())
    }

    pub fn may(&self, need: Need) -> bool {
        let scopes = self.session.as_ref().map(|s| s.scopes);
        match (need, scopes) {
            (Need::Read, None) => !self.reads_need_token,
            (Need::Read, Some(s)) => s.read || !self.reads_need_token,
            (Need::Trigger, Some(s)) => s.trigger || s.admin,
            // As the API: accepting a change moves what CI gates on, an admin's decision.
            (Need::Accept, Some(s)) => s.admin,
            (_, None) => false,
        }
    }

    /// Refuses a read page to a viewer who may not read it.
    pub fn require_read(&self) -> UiResult<()> {
        if self.may(Need::Read) {
            Ok(())
        } else {
            Err(UiError::new(
                StatusCode::UNAUTHORIZED,
                "reading needs a token here (daemon.auth_reads): log in first",
            ))
        }
    }

    /// Checks an action's form: a session allowing `need`, and its CSRF token.
    pub fn require_action(&self, need: Need, csrf: &str) -> UiResult<()> {
        let Some(expected) = self.csrf() else {
            return Err(UiError::new(
                StatusCode::UNAUTHORIZED,
                "this action needs the API token: log in first (it is in daemon.token_file)",
            ));
        };
        if !token::matches(expected, csrf) {
            return Err(UiError::new(
                StatusCode::FORBIDDEN,
                "the form's CSRF token does not match your session: reload the page and retry",
            ));
        }
        if !self.may(need) {
            return Err(UiError::new(
                StatusCode::FORBIDDEN,
                "your token does not allow this action",
            ));
        }
        Ok(())
    }
}

/// A form is refused when the browser says it came from another site (`Origin` present and not
/// this host): a second line of defence after SameSite cookies and CSRF tokens.
pub fn same_origin(headers: &HeaderMap) -> UiResult<()> {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    match (origin, host) {
        (None, _) | (Some("null"), None) => Ok(()),
        (Some(o), Some(h)) if o.split_once("://").is_some_and(|(_, rest)| rest == h) => Ok(()),
        _ => Err(UiError::new(
            StatusCode::FORBIDDEN,
            "the form was sent from another site",
        )),
    }
}

#[derive(Debug, Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

/// Only a path of these pages is a place to go back to after login (no open redirect).
fn local_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if n.starts_with("/ui") && !n.contains('\\') && !n.chars().any(char::is_control) =>
        {
            n.to_string()
        }
        _ => "/ui".to_string(),
    }
}

pub async fn login_page(
    State(ui): State<Ui>,
    jar: CookieJar,
    Query(q): Query<NextQuery>,
) -> Response {
    let viewer = Viewer::of(&ui, &jar);
    login_form(
        &viewer,
        &local_next(q.next.as_deref()),
        None,
        StatusCode::OK,
    )
}

fn login_form(viewer: &Viewer, next: &str, error: Option<&str>, status: StatusCode) -> Response {
    let body = html! {
        h1 { "Log in" }
        @if viewer.csrf().is_some() {
            p { "You are logged in. Logging in again replaces the session." }
        }
        @if let Some(e) = error { p.error role="alert" { (e) } }
        p { "Actions (trigger, accept) need the API token, the one in " code { "daemon.token_file" }
            ". It is checked once; the browser then keeps only a session cookie." }
        form.stack method="post" action="/ui/login" {
            input type="hidden" name="next" value=(next);
            label for="token" { "API token" }
            input #token type="password" name="token" autocomplete="current-password" required;
            button type="submit" { "Log in" }
        }
    };
    (status, layout("Log in", Some(viewer), body)).into_response()
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    token: String,
    next: Option<String>,
}

pub async fn login(
    State(ui): State<Ui>,
    jar: CookieJar,
    headers: HeaderMap,
    peer: Option<axum::Extension<Peer>>,
    Form(f): Form<LoginForm>,
) -> UiResult<Response> {
    same_origin(&headers)?;
    let next = local_next(f.next.as_deref());
    let identified = match super::auth(&ui.app, peer.map(|p| p.0), &f.token) {
        Ok(identified) => identified,
        Err(throttled) => {
            tracing::info!("ui login refused: too many wrong tokens from this client");
            let viewer = Viewer::of(&ui, &jar);
            let why = throttled.to_string();
            return Ok(login_form(
                &viewer,
                &next,
                Some(&why),
                StatusCode::TOO_MANY_REQUESTS,
            ));
        }
    };
    let Some((holder, _)) = identified else {
        tracing::info!("ui login refused: wrong token");
        let viewer = Viewer::of(&ui, &jar);
        return Ok(login_form(
            &viewer,
            &next,
            Some("That token is not valid."),
            StatusCode::UNAUTHORIZED,
        ));
    };
    if let Some(old) = jar.get(COOKIE) {
        ui.sessions.close(old.value());
    }
    let id = ui.sessions.open(holder).map_err(UiError::internal)?;
    let cookie = Cookie::build((COOKIE, id))
        .path("/ui")
        .http_only(true)
        .same_site(SameSite::Strict)
        .build();
    Ok((jar.add(cookie), Redirect::to(&next)).into_response())
}

#[derive(Debug, Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

pub async fn logout(
    State(ui): State<Ui>,
    jar: CookieJar,
    headers: HeaderMap,
    Form(f): Form<CsrfForm>,
) -> UiResult<Response> {
    same_origin(&headers)?;
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_action(Need::Read, &f.csrf)?;
    if let Some(s) = &viewer.session {
        ui.sessions.close(&s.id);
    }
    let gone = Cookie::build((COOKIE, "")).path("/ui").build();
    Ok((jar.remove(gone), Redirect::to("/ui")).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn viewer(scopes: Option<Scopes>, reads_need_token: bool) -> Viewer {
        Viewer {
            session: scopes.map(|scopes| Current {
                id: "id".to_string(),
                csrf: "c".repeat(64),
                scopes,
                holder: Holder::TokenFile,
            }),
            reads_need_token,
        }
    }

    #[test]
    fn actions_need_a_session_and_its_csrf_token() {
        let anon = viewer(None, false);
        assert!(anon.may(Need::Read));
        assert!(!anon.may(Need::Trigger));
        assert_eq!(
            anon.require_action(Need::Trigger, "").unwrap_err().status,
            StatusCode::UNAUTHORIZED
        );
        let user = viewer(Some(Scopes::ALL), false);
        assert_eq!(
            user.require_action(Need::Trigger, "wrong")
                .unwrap_err()
                .status,
            StatusCode::FORBIDDEN
        );
        assert!(user.require_action(Need::Trigger, &"c".repeat(64)).is_ok());
    }

    #[test]
    fn scopes_decide_reads_and_actions() {
        let read_only = Scopes {
            read: true,
            trigger: false,
            admin: false,
        };
        assert!(!viewer(None, true).may(Need::Read));
        assert!(viewer(Some(read_only), true).may(Need::Read));
        assert!(!viewer(Some(read_only), true).may(Need::Trigger));
        assert!(!viewer(Some(read_only), true).may(Need::Accept));
        let hook = Scopes {
            read: true,
            trigger: true,
            admin: false,
        };
        assert!(viewer(Some(hook), true).may(Need::Trigger));
        assert!(!viewer(Some(hook), true).may(Need::Accept));
    }

    #[test]
    fn login_goes_back_only_to_pages_of_this_site() {
        assert_eq!(local_next(Some("/ui/live")), "/ui/live");
        assert_eq!(local_next(Some("https://evil.example/")), "/ui");
        assert_eq!(local_next(Some("//evil.example/ui")), "/ui");
        assert_eq!(local_next(Some("/ui\r\nSet-Cookie: x")), "/ui");
        assert_eq!(local_next(None), "/ui");
    }

    #[test]
    fn forms_from_another_site_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:7878".parse().unwrap());
        assert!(same_origin(&h).is_ok());
        h.insert(header::ORIGIN, "http://127.0.0.1:7878".parse().unwrap());
        assert!(same_origin(&h).is_ok());
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(same_origin(&h).is_err());
    }

    #[test]
    fn sessions_are_bounded_and_closable() {
        let s = Sessions::default();
        let id = s.open(Holder::TokenFile).unwrap();
        assert!(s.get(&id).is_some());
        s.close(&id);
        assert!(s.get(&id).is_none());
        for _ in 0..MAX_SESSIONS + 5 {
            s.open(Holder::TokenFile).unwrap();
        }
        assert!(s.lock().len() <= MAX_SESSIONS);
    }
}
