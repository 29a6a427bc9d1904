//! The API's error answer: a status and a message, sent as `{"error": "..."}` (`v1::ErrorBody`),
//! and how the store's, the scheduler's and the token check's errors map to statuses.

use axum::Json;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use frugal_api::v1;
use frugal_scheduler::SchedulerError;
use frugal_storage::StoreError;

use crate::auth::Denied;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub(super) status: StatusCode,
    pub(super) message: String,
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
            other if other.is_unavailable() => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the store is unavailable; retry in a few seconds ({other})"),
            ),
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

impl From<Denied> for ApiError {
    fn from(d: Denied) -> ApiError {
        ApiError::new(d.status(), d.to_string())
    }
}

/// What a handler returns: its answer, or an error the API sends as JSON with its status.
pub type ApiResult<T> = Result<T, ApiError>;

pub(super) async fn not_found_route(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route {method} {uri}; the API lives under /v1"))
}
