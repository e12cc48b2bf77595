//! `POST /api/chat {message, botId, sessionId?, leadData?, clientId?}` → `{sessionId, aiResponse,
//! visitorToken}`. A new conversation gets a visitor token bound to its bot and session; later
//! messages of that session must bring it back (body `visitorToken` or `X-Visitor-Token`), so
//! knowing a session id is not enough to write into it. A message sent again with its `clientId`
//! is saved and answered once (a first message: `first_messages`; a later one: the session's).

use crate::openapi::{replies, ApiErrors};
use utoipa::ToSchema;

use actix_web::http::header::ContentType;
use actix_web::{web, HttpRequest, HttpResponse};
use parley_engine::chat::resends::CLIENT_ID_CHARS;
use parley_engine::chat::{Engine, VisitorMessage, BUSY};
use parley_store::chat::CustomerInfo;
use serde::Deserialize;
use serde_json::json;

use super::first_messages::Seen;
use crate::auth::caller::{visitor_token, Caller};
use crate::error::{ApiError, ApiResult};
use crate::limits::{ConversationTrip, TOO_MANY_NEW_CONVERSATIONS_FROM_YOU, TOO_MANY_NEW_CONVERSATIONS_ON_BOT};
use crate::state::AppState;
use crate::views::chat as view;
use crate::visitor_guard::{self, CallOrigin};

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendBody {
    #[serde(default)]
    message: String,
    #[serde(default)]
    bot_id: String,
    session_id: Option<String>,
    #[schema(value_type = Option<crate::openapi::entities::LeadData>)]
    lead_data: Option<CustomerInfo>,
    visitor_token: Option<String>,
    /// The client's id for this message: sent again with it (no answer came), it is saved and
    /// answered once. At most 64 characters.
    client_id: Option<String>,
}

/// A visitor's message: starts a conversation (no `sessionId`) or continues one (with its
/// `visitorToken`); answers with the saved message and the bot's reply.
#[utoipa::path(post, path = "/api/chat", tag = "chat", params(("X-Visitor-Token" = Option<String>, Header, description = "Instead of the body's visitorToken"), ("Origin" = Option<String>, Header, description = "The embedding site; checked against the bot's whitelist")), request_body = SendBody, responses((status = 200, description = "Saved and answered", body = replies::ChatReply), ApiErrors))]
pub async fn send(state: web::Data<AppState>, req: HttpRequest, body: web::Json<SendBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    if body.bot_id.trim().is_empty() {
        return Err(ApiError::validation("botId is required"));
    }
    let bot = state.engine.bot_info(&body.bot_id).await?;
    let session_id = body.session_id.filter(|s| !s.is_empty());
    if let Some(session_id) = &session_id {
        body.visitor_token
            .as_deref()
            .or_else(|| visitor_token(&req))
            .and_then(|token| Caller::visitor(&state, token))
            .filter(|v| &v.session_id == session_id && v.bot_id == body.bot_id)
            .ok_or_else(|| ApiError::unauthorized("This conversation needs its visitor token"))?;
    }
    visitor_guard::check(&state, &bot, CallOrigin::of(&req).as_ref(), session_id.as_deref())?;
    let client_id = body.client_id.filter(|id| !id.is_empty());
    if client_id.as_ref().is_some_and(|id| id.chars().count() > CLIENT_ID_CHARS) {
        return Err(ApiError::validation(format!("clientId is too long (the limit is {CLIENT_ID_CHARS} characters)")));
    }
    // A first message sent again: the first call's answer, or busy while it is being answered.
    let mut claim = None;
    if let (None, Some(id)) = (&session_id, &client_id) {
        match state.first_messages.claim(&bot.id, id, body.message.trim(), state.client_ip.of(&req)) {
            Seen::Answered(answer) => return Ok(HttpResponse::Ok().content_type(ContentType::json()).body(answer.to_string())),
            Seen::Answering => return Err(ApiError::unavailable(BUSY)),
            Seen::New(new) => claim = new,
        }
    }
    let message = VisitorMessage { bot_id: body.bot_id.clone(), session_id, text: body.message, lead: body.lead_data, ack_on_save: false, client_id };
    let answer = match claim {
        // A claimed first message is answered on a task of its own, which a caller that gives up
        // (a client's timeout, a closed tab) does not cancel: the conversation is made either
        // way, so its answer must be kept for the repeat, or the repeat would start a second one.
        Some(claim) => actix_web::rt::spawn(async move {
            let answer = answer_visitor(&state, &req, &bot, message).await;
            if let Ok(body) = &answer {
                claim.answered(body);
            }
            answer
        })
        .await
        .map_err(ApiError::internal)??,
        None => answer_visitor(&state, &req, &bot, message).await?,
    };
    Ok(HttpResponse::Ok().content_type(ContentType::json()).body(answer))
}

/// Saves the visitor's message (starting the conversation when it has no session) and answers
/// it; returns the response body.
async fn answer_visitor(state: &AppState, req: &HttpRequest, bot: &parley_engine::chat::BotInfo, message: VisitorMessage) -> ApiResult<String> {
    if message.session_id.is_none() {
        // A message the engine would refuse starts nothing, so it spends none of the budget.
        Engine::check_visitor_message(bot, &message.text, message.lead.as_ref())?;
        new_conversation_budget(state, req, bot).await?;
    }
    let bot_id = message.bot_id.clone();
    let outcome = state.engine.visitor_message(message).await?;
    let token = state.tokens.issue(&outcome.session_id, "visitor", Some(&bot_id))?;
    let ai_response = outcome.reply.as_ref().map(|r| r.content.as_str());
    // The reply's "did you mean" quick replies (also on `reply`), so a caller that reads only
    // `aiResponse` sees them too.
    let suggestions: Vec<String> = outcome.reply.as_ref().and_then(|r| serde_json::from_str(&r.suggestions).ok()).unwrap_or_default();
    let answer = json!({
        "sessionId": outcome.session_id,
        "aiResponse": ai_response,
        "visitorToken": token,
        "message": view::message(&outcome.user_message),
        "reply": outcome.reply.as_deref().map(view::message),
        "agentConnected": outcome.agent_connected,
        "offerHandoff": outcome.offer_handoff,
        "suggestions": suggestions,
    })
    .to_string();
    Ok(answer)
}

/// A new conversation spends one of the owner's plan: it must fit the caller's and the bot's
/// budgets (see `limits::NewConversations`). When the bot's trips, its owner hears about it.
async fn new_conversation_budget(state: &AppState, req: &HttpRequest, bot: &parley_engine::chat::BotInfo) -> ApiResult<()> {
    let too_many = |message: &str| ApiError::new(actix_web::http::StatusCode::TOO_MANY_REQUESTS, "rate_limited", message).retry_after(300);
    match state.new_conversations.allow(state.client_ip.of(req), &bot.id) {
        Ok(()) => Ok(()),
        Err(ConversationTrip::Ip) => Err(too_many(TOO_MANY_NEW_CONVERSATIONS_FROM_YOU)),
        Err(ConversationTrip::Bot { first }) => {
            if first {
                tracing::warn!(bot = %bot.id, "new conversations paused: the bot's budget is used up");
                if let Err(e) = crate::notify::conversation_budget_tripped(state, &bot.id).await {
                    tracing::warn!("telling the owner about the conversation budget: {}", e.message);
                }
            }
            Err(too_many(TOO_MANY_NEW_CONVERSATIONS_ON_BOT))
        }
    }
}
