//! `GET /api/chat/bot/{botId}/support-stats`: the agent dashboard's tiles from the bot's real
//! sessions (not fixed figures): queue, active chats, resolved today and in all, average
//! response time to a handoff, satisfaction from the ratings given at resolve.

use crate::openapi::{replies, ApiErrors};

use actix_web::{web, HttpResponse};
use chrono::{Timelike, Utc};
use serde_json::json;

use crate::auth::{BotAccess, ViewBot};
use crate::error::ApiResult;
use crate::state::AppState;

#[utoipa::path(get, path = "/api/chat/bot/{bot_id}/support-stats", tag = "analytics", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "The agent dashboard's tiles", body = replies::SupportStats), ApiErrors))]
pub async fn support_stats(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let now = Utc::now().naive_utc();
    let day_start = now.with_hour(0).and_then(|t| t.with_minute(0)).and_then(|t| t.with_second(0)).and_then(|t| t.with_nanosecond(0)).unwrap_or(now);
    let s = state.store.support_stats(&access.bot.id, day_start).await?;
    Ok(HttpResponse::Ok().json(json!({
        "waiting": s.waiting,
        "activeChats": s.active,
        "resolvedToday": s.resolved_today,
        "totalResolved": s.resolved_total,
        "averageResponseSeconds": s.average_response_secs,
        "answeredHandoffs": s.answered,
        "satisfaction": s.average_rating,
        "ratedSessions": s.rated,
    })))
}
