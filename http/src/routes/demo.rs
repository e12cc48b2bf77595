//! `GET /api/demo`: the bot the landing page embeds (public), or none when the server runs with
//! `PARLEY_DEMO_BOT=off` (the page then shows screenshots).

use crate::openapi::{replies, ApiErrors};

use actix_web::{web, HttpResponse};
use serde_json::json;
use utoipa::OpenApi;

use crate::state::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/demo", web::get().to(demo));
}

#[utoipa::path(get, path = "/api/demo", tag = "demo", responses((status = 200, description = "The landing page's demo bot", body = replies::Demo), ApiErrors))]
async fn demo(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(json!({"enabled": state.demo_bot.is_some(), "botId": state.demo_bot}))
}

#[derive(OpenApi)]
#[openapi(paths(demo), tags((name = "demo", description = "The landing page's live demo")))]
pub struct Api;
