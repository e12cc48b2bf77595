//! `GET /api/bots/{id}/stats`: the Bot Performance panel of the dashboard overview, from the bot's
//! real conversations: messages, conversations, visitors of the last 24 hours, average response
//! time (visitor message → next reply, milliseconds) and resolution rate (percent).

use crate::openapi::{replies, ApiErrors};

use actix_web::{web, HttpResponse};
use parley_store::time::{self, to_rfc3339};
use serde_json::json;

use crate::auth::{BotAccess, ViewBot};
use crate::error::ApiResult;
use crate::state::AppState;

#[utoipa::path(get, path = "/api/bots/{bot_id}/stats", tag = "analytics", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "Bot performance", body = replies::BotStats), ApiErrors))]
pub async fn stats(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let p = state.store.bot_performance(&access.bot.id, time::now()).await?;
    Ok(HttpResponse::Ok().json(json!({
        "botId": access.bot.id,
        "totalMessages": p.total_messages,
        "totalConversations": p.total_conversations,
        "activeUsers": p.active_users,
        "averageResponseTime": p.average_response_ms.map(f64::round),
        "answeredMessages": p.answered,
        "resolutionRate": p.resolution_rate.map(|r| (r * 10.0).round() / 10.0),
        "lastUpdated": p.last_updated.as_ref().map(to_rfc3339),
    })))
}
