//! The one error shape of the API: an HTTP status plus `{"error":{"code","message"}}`.
//! Every handler returns `ApiResult`; store and library errors are mapped here, in one place.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use parley_store::billing::{Limit, BILLING_PATH};
use parley_store::StoreError;
use serde_json::json;

#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Seconds a refused caller should wait (sent as `Retry-After`).
    pub retry_after: Option<u64>,
    /// The plan limit that refused the call: the body then names it and points to /billing.
    pub limit: Option<Limit>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into(), retry_after: None, limit: None }
    }

    /// Tells the caller how long to wait before trying again.
    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }

    /// 422: the input broke a rule; the message is the spec's words.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed", message)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", format!("{what} not found"))
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", message)
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }

    /// 403 `plan_limit`: the plan has no more of `limit`; the body says which and where to
    /// raise it (`"limit": "bots", "upgradeUrl": "/billing"`).
    pub fn plan_limit(limit: Limit, message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::FORBIDDEN, "plan_limit", message);
        e.limit = Some(limit);
        e
    }

    /// 500 with the detail logged, never shown.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!("internal error: {detail}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "Something went wrong on our side")
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if let Some(secs) = self.retry_after {
            response.insert_header((actix_web::http::header::RETRY_AFTER, secs.to_string()));
        }
        match self.limit {
            Some(limit) => response.json(json!({"error": {
                "code": self.code, "message": self.message, "limit": limit.as_str(), "upgradeUrl": BILLING_PATH,
            }})),
            None => response.json(json!({"error": {"code": self.code, "message": self.message}})),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::not_found("Resource"),
            StoreError::Conflict(detail) => ApiError::conflict(detail),
            StoreError::LimitReached(message) => ApiError::validation(message),
            StoreError::Busy(message) => ApiError::unavailable(message),
            StoreError::Unavailable(message) => ApiError::unavailable(message),
            StoreError::Rejected(message) => ApiError::bad_request(message),
            StoreError::Invalid(message) => ApiError::validation(message),
            other => ApiError::internal(other),
        }
    }
}

impl From<parley_engine::chat::EngineError> for ApiError {
    fn from(e: parley_engine::chat::EngineError) -> Self {
        use parley_engine::chat::EngineError as E;
        match e {
            E::NotFound(what) => ApiError::not_found(what),
            E::Forbidden(m) => ApiError::forbidden(m),
            E::Invalid(m) => ApiError::validation(m),
            E::Refused(m) => ApiError::conflict(m),
            E::PlanLimit(limit, m) => ApiError::plan_limit(limit, m),
            E::Store(s) => s.into(),
            E::Gone => ApiError::unavailable("Please try again"),
            E::Busy(m) => ApiError::unavailable(m),
        }
    }
}

/// Turns actix's own extractor failures (bad JSON, oversize bodies, bad query strings) into
/// the API's shape, so a client sees one kind of error everywhere.
pub fn json_config(limit: usize) -> actix_web::web::JsonConfig {
    actix_web::web::JsonConfig::default().limit(limit).error_handler(|err, _req| {
        use actix_web::error::JsonPayloadError as E;
        let api = match &err {
            E::OverflowKnownLength { .. } | E::Overflow { .. } => ApiError::too_large("Request body is too large"),
            E::ContentType => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "Expected a JSON body (Content-Type: application/json)",
            ),
            E::Deserialize(e) => ApiError::bad_request(format!("Invalid JSON: {e}")),
            other => ApiError::bad_request(format!("Invalid request body: {other}")),
        };
        api.into()
    })
}

pub fn query_config() -> actix_web::web::QueryConfig {
    actix_web::web::QueryConfig::default()
        .error_handler(|err, _req| ApiError::bad_request(format!("Invalid query: {err}")).into())
}

pub fn path_config() -> actix_web::web::PathConfig {
    actix_web::web::PathConfig::default()
        .error_handler(|err, _req| ApiError::bad_request(format!("Invalid path: {err}")).into())
}
