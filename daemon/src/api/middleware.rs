//! The API's layers: the token check (scoped, before the body is read), the `Host` checks
//! against DNS rebinding, JSON error bodies for every error answer, and request metrics.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiError, Shared, scope_of};
use crate::auth::{self, Peer, Scope};

/// Refuses a request without the token its route's scope needs (reads only when
/// `daemon.auth_reads`), before its body is read.
pub(crate) async fn check_token(State(s): State<Shared>, req: Request, next: Next) -> Response {
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

/// Marks a request that came over the unix socket: the `Host` check does not apply there (a web
/// page cannot reach a unix socket, and local clients name any host).
#[derive(Clone, Copy, Debug)]
pub struct UnixPeer;

/// Refuses a request whose `Host` header names a host the daemon is not (DNS rebinding: a page
/// whose name now resolves to 127.0.0.1 still sends its own name).
pub(crate) async fn check_host_state(
    State(s): State<Shared>,
    req: Request,
    next: Next,
) -> Response {
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
pub(crate) async fn check_host(req: Request, next: Next) -> Response {
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
pub(crate) async fn json_errors(req: Request, next: Next) -> Response {
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
