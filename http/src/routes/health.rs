//! `GET /api/health`: the server is up and its database answers.

use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::state::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/health", web::get().to(health));
}

async fn health(state: web::Data<AppState>) -> HttpResponse {
    match state.store.ping().await {
        Ok(()) => HttpResponse::Ok().json(json!({"status": "ok", "database": "ok"})),
        Err(e) => {
            tracing::error!("health check: database: {e}");
            HttpResponse::ServiceUnavailable().json(json!({"status": "degraded", "database": "error"}))
        }
    }
}
