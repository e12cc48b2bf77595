//! `GET /api/bots/{id}/leads?page=&limit=`: the contact details visitors left with the bot
//! (spec 1 Leads page), newest first, for everyone on the bot's team.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::auth::{BotAccess, ViewBot};
use crate::domain::PageWindow;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::views;

#[derive(Deserialize)]
pub struct Page {
    page: Option<i64>,
    limit: Option<i64>,
}

pub async fn list(state: web::Data<AppState>, access: BotAccess<ViewBot>, q: web::Query<Page>) -> ApiResult<HttpResponse> {
    let PageWindow { page, limit, offset } = PageWindow::new(q.page, q.limit, 50, 500);
    let (rows, total) = state.store.leads_of_bot(&access.bot.id, offset, limit).await?;
    Ok(HttpResponse::Ok().json(json!({
        "leads": rows.iter().map(views::leads::lead).collect::<Vec<_>>(),
        "total": total, "page": page, "limit": limit,
    })))
}
