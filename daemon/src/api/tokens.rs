//! `/v1/tokens` (admin): making, listing and revoking scoped tokens (`frugal token`); the
//! tokens themselves and the check are `crate::auth`'s.

use axum::Json;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_storage::StoreError;

use super::{ApiError, ApiResult, Shared, blocking, parse_body, parse_id, wire};
use crate::auth::Scope;

/// A store error keeps its status; anything else (no randomness for a secret) is internal.
fn answer(e: anyhow::Error) -> ApiError {
    match e.downcast::<StoreError>() {
        Ok(e) => ApiError::from(e),
        Err(e) => ApiError::internal(format!("{e:#}")),
    }
}

pub(super) async fn create_token(
    State(s): State<Shared>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    let req: v1::CreateToken = parse_body(&body)?;
    let scope: Scope = req.scope.parse().map_err(ApiError::bad_request)?;
    let name = req.name.trim().to_string();
    if name.is_empty() || name.len() > 100 {
        return Err(ApiError::bad_request(
            "a token needs a name of 1 to 100 characters (who or what holds it)",
        ));
    }
    let created = blocking(move || {
        let created = s
            .auth
            .create(s.sched.store(), &name, scope)
            .map_err(answer)?;
        Ok(v1::TokenCreated {
            info: wire::token(&created.info),
            token: created.token,
        })
    })
    .await?;
    tracing::info!(token = created.info.id, name = %created.info.name, scope = %scope, "token created");
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

pub(super) async fn list_tokens(State(s): State<Shared>) -> ApiResult<Json<Vec<v1::Token>>> {
    let tokens = blocking(move || Ok(s.sched.store().tokens()?)).await?;
    let mut out: Vec<v1::Token> = tokens.iter().map(wire::token).collect();
    out.sort_by_key(|t| t.id);
    Ok(Json(out))
}

pub(super) async fn revoke_token(
    State(s): State<Shared>,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<StatusCode> {
    let id = parse_id("token", &id)?;
    if blocking(move || s.auth.revoke(s.sched.store(), id).map_err(answer)).await? {
        tracing::info!(token = id, "token revoked");
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found(format!("no token with id {id}")))
    }
}
