//! `POST /v1/gc[?dry_run=true]`: one garbage collection pass now (`crate::gc`).

use axum::Json;
use axum::extract::{Query, State};
use frugal_api::v1::GcReport;
use serde::Deserialize;

use super::{ApiError, ApiResult, Shared};

#[derive(Debug, Deserialize)]
pub(crate) struct GcQuery {
    #[serde(default)]
    dry_run: bool,
}

/// `POST /v1/gc[?dry_run=true]`: one pass now (admin: needs the token like every POST).
pub(super) async fn post_gc(
    State(s): State<Shared>,
    q: Result<Query<GcQuery>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<GcReport>> {
    let q = super::query(q)?;
    let (gc, sched, metrics) = (s.gc.clone(), s.sched.clone(), s.metrics.clone());
    let report = tokio::task::spawn_blocking(move || gc.collect(&sched, q.dry_run, &|| {}))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    if !report.dry_run {
        metrics.gc_pass(&report);
    }
    Ok(Json(report))
}
