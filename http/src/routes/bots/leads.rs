//! `GET /api/bots/{id}/leads?page=&limit=`: the contact details visitors left with the bot
//! (spec 1 Leads page), newest first, for everyone on the bot's team.

use crate::openapi::{replies, ApiErrors};
use utoipa::IntoParams;

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::auth::{BotAccess, ViewBot};
use crate::domain::PageWindow;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::views;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Page {
    page: Option<i64>,
    limit: Option<i64>,
}

#[utoipa::path(get, path = "/api/bots/{bot_id}/leads", tag = "leads", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), Page), responses((status = 200, description = "Newest first", body = replies::Leads), ApiErrors))]
pub async fn list(state: web::Data<AppState>, access: BotAccess<ViewBot>, q: web::Query<Page>) -> ApiResult<HttpResponse> {
    let PageWindow { page, limit, offset } = PageWindow::new(q.page, q.limit, 50, 500);
    let (rows, total) = state.store.leads_of_bot(&access.bot.id, offset, limit).await?;
    Ok(HttpResponse::Ok().json(json!({
        "leads": rows.iter().map(views::leads::lead).collect::<Vec<_>>(),
        "total": total, "page": page, "limit": limit,
    })))
}
