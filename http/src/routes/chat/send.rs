//! `POST /api/chat {message, botId, sessionId?, leadData?}` → `{sessionId, aiResponse,
//! visitorToken}`. A new conversation gets a visitor token bound to its bot and session; later
//! messages of that session must bring it back (body `visitorToken` or `X-Visitor-Token`), so
//! knowing a session id is not enough to write into it.

use actix_web::{web, HttpRequest, HttpResponse};
use parley_engine::chat::VisitorMessage;
use parley_store::chat::CustomerInfo;
use serde::Deserialize;
use serde_json::json;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendBody {
    #[serde(default)]
    message: String,
    #[serde(default)]
    bot_id: String,
    session_id: Option<String>,
    lead_data: Option<CustomerInfo>,
    visitor_token: Option<String>,
}

pub async fn send(state: web::Data<AppState>, req: HttpRequest, body: web::Json<SendBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    if body.bot_id.trim().is_empty() {
        return Err(ApiError::validation("botId is required"));
    }
    check_origin_and_rate(&state, &req, &body.bot_id, body.session_id.as_deref()).await?;
    let session_id = body.session_id.filter(|s| !s.is_empty());
    if let Some(session_id) = &session_id {
        let token = body
            .visitor_token
            .or_else(|| req.headers().get("x-visitor-token").and_then(|v| v.to_str().ok()).map(str::to_string))
            .ok_or_else(|| ApiError::unauthorized("This conversation needs its visitor token"))?;
        let claims = state
            .tokens
            .verify(&token, "visitor")
            .filter(|c| &c.sub == session_id && c.bot.as_deref() == Some(body.bot_id.as_str()))
            .ok_or_else(|| ApiError::unauthorized("This conversation needs its visitor token"))?;
        let _ = claims;
    }
    let outcome = state
        .engine
        .visitor_message(VisitorMessage { bot_id: body.bot_id.clone(), session_id, text: body.message, lead: body.lead_data, ack_on_save: false })
        .await?;
    let token = state.tokens.issue(&outcome.session_id, "visitor", Some(&body.bot_id))?;
    let ai_response = outcome.reply.as_ref().and_then(|r| r["content"].as_str()).map(str::to_string);
    Ok(HttpResponse::Ok().json(json!({
        "sessionId": outcome.session_id,
        "aiResponse": ai_response,
        "visitorToken": token,
        "message": outcome.user_message,
        "reply": outcome.reply,
        "agentConnected": outcome.agent_connected,
        "offerHandoff": outcome.offer_handoff,
    })))
}

/// The bot's whitelist and rate limit: a call from a site not on the whitelist is refused, and
/// a visitor sending faster than a person types waits (`crate::embedding::RATE_LIMITED`).
async fn check_origin_and_rate(state: &AppState, req: &HttpRequest, bot_id: &str, session_id: Option<&str>) -> ApiResult<()> {
    let Some(bot) = state.store.bot_by_id(bot_id).await? else { return Ok(()) };
    let settings = state.store.bot_settings(&bot.id).await?;
    if let Some(origin) = req.headers().get(actix_web::http::header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let own = req.connection_info();
        let own_origin = format!("{}://{}", own.scheme(), own.host());
        if !crate::embedding::origin_allowed(&settings, origin, &own_origin) {
            return Err(ApiError::forbidden("This assistant is not available on this website"));
        }
    }
    let widget = parley_store::bots::WidgetConfig::from_json(&bot.widget);
    // Per conversation: starting conversations is bounded by the plan's conversation limit.
    if let (true, Some(session)) = (widget.enable_rate_limit, session_id) {
        if !state.visitor_limiter.allow(session) {
            return Err(ApiError::new(actix_web::http::StatusCode::TOO_MANY_REQUESTS, "rate_limited", crate::embedding::RATE_LIMITED));
        }
    }
    Ok(())
}
