//! `GET /api/health`: the server is up and its database answers.

use actix_web::{web, HttpResponse};
use serde_json::json;
use utoipa::OpenApi;

use crate::openapi::replies;

use crate::state::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/health", web::get().to(health));
}

#[derive(OpenApi)]
#[openapi(paths(health), tags((name = "health", description = "Is the server up")))]
pub struct Api;

/// The server is up and its database answers.
#[utoipa::path(get, path = "/api/health", tag = "health", responses(
    (status = 200, description = "Up", body = replies::Health),
    (status = 503, description = "The database does not answer", body = replies::Health),
))]
async fn health(state: web::Data<AppState>) -> HttpResponse {
    match state.store.ping().await {
        Ok(()) => HttpResponse::Ok().json(json!({"status": "ok", "database": "ok"})),
        Err(e) => {
            tracing::error!("health check: database: {e}");
            HttpResponse::ServiceUnavailable().json(json!({"status": "degraded", "database": "error"}))
        }
    }
}
