//! The whole HTTP surface the listeners serve: the API's router (`api`) and the web pages'
//! (`ui`), each behind its own layers. Kept apart from both so neither knows the other's
//! router: the pages call the API's handlers, the API knows nothing of the pages.

use axum::Router;
use axum::http::StatusCode;
use axum::middleware;

use crate::api::{self, Shared};

/// Every route: the API's, then the pages'.
pub fn router(state: Shared) -> Router {
    api::router(state.clone()).merge(ui_router(state))
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
        .layer(middleware::from_fn(api::middleware::check_host))
        .layer(middleware::from_fn_with_state(
            state,
            api::middleware::check_host_state,
        ))
}
