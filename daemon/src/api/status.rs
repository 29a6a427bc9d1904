//! `/healthz`, `/metrics` and `GET /v1/status`: the daemon's own state.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use std::sync::atomic::Ordering;

use super::runs::in_flight;
use super::{ApiResult, Shared, blocking, wire};
use crate::metrics::Gauges;
use crate::runner::job_counts;

pub(crate) async fn healthz() -> Json<v1::Health> {
    Json(v1::Health {
        status: "ok".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

pub(crate) async fn metrics(State(s): State<Shared>) -> ApiResult<Response> {
    let text = blocking(move || {
        let counts = job_counts(s.sched.store())?;
        let g = Gauges {
            repos: s.sched.store().repo_count()?,
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

pub(crate) async fn status(State(s): State<Shared>) -> ApiResult<Json<v1::Status>> {
    blocking(move || {
        let store = s.sched.store();
        let counts = job_counts(store)?;
        let running = in_flight(store, &s.live)?;
        Ok(Json(v1::Status {
            version: env!("CARGO_PKG_VERSION").to_string(),
            uptime_s: s.metrics.uptime().as_secs_f64(),
            repos: store.repo_count()?,
            jobs_queued: counts.get("queued").copied().unwrap_or(0),
            jobs_running: counts.get("running").copied().unwrap_or(0),
            running,
            stopping: s.stopping.load(Ordering::SeqCst),
            sandbox: s.sandbox.clone(),
            node: s.sched.options().node.clone(),
            nodes: store
                .nodes()?
                .iter()
                .map(|n| wire::node(n, frugal_storage::now_ms()))
                .collect(),
        }))
    })
    .await
}
