//! `GET /api/chat/bot/{botId}/support-stats`: the agent dashboard's tiles from the bot's real
//! sessions (not fixed figures): queue, active chats, resolved today and in all, average
//! response time to a handoff, satisfaction from the ratings given at resolve.

use crate::openapi::{replies, ApiErrors};

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

use crate::auth::{BotAccess, ViewBot};
use crate::chart_range::ViewerZone;
use crate::error::ApiResult;
use crate::state::AppState;

#[derive(Deserialize, IntoParams)]
pub struct StatsQuery {
    /// The viewer's time zone (`Europe/Paris` or `+02:00`; UTC when absent): "resolved today"
    /// counts from their midnight.
    tz: Option<String>,
}

#[utoipa::path(get, path = "/api/chat/bot/{bot_id}/support-stats", tag = "analytics", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), StatsQuery), responses((status = 200, description = "The agent dashboard's tiles", body = replies::SupportStats), ApiErrors))]
pub async fn support_stats(state: web::Data<AppState>, access: BotAccess<ViewBot>, q: web::Query<StatsQuery>) -> ApiResult<HttpResponse> {
    let day_start = ViewerZone::parse(q.tz.as_deref())?.day_start(parley_store::time::now());
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
        // The spec's names for the same figures (spec 2 §3, Agent stats).
        "pendingQueue": s.waiting,
        "averageResponseTime": s.average_response_secs,
        "customerSatisfaction": s.average_rating,
    })))
}
