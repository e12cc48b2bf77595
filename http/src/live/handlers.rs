//! One handler per event of spec 2 §7, each with the arguments it takes. Argument structs
//! declare their fields in the positional order older clients use.

use std::sync::Arc;

use parley_engine::chat::events::SessionList;
use parley_engine::chat::{EngineError, Outgoing, ServerEvent, VisitorMessage, Who};
use parley_store::chat::{CustomerInfo, SessionFilter};
use serde::de::IgnoredAny;
use serde::Deserialize;

use super::args::Args;
use super::router::{Cx, Router};
use crate::views::acks::Reply;

/// Most messages a `join-session` ack carries.
const JOIN_HISTORY: i64 = 500;

/// Most sessions a list event carries.
const LIST_LIMIT: i64 = 500;

/// The product's events.
pub(crate) fn router() -> Router {
    Router::default()
        .on("join-session", join_session)
        .on("join-as-agent", join_as_agent)
        .on("leave-as-agent", leave_as_agent)
        .on("request-human-support", request_human_support)
        .on("leave-details", leave_details)
        .on("take-session", take_session)
        .on("send-message", send_message)
        .on("typing-start", |cx, args| typing(cx, args, Some(true)))
        .on("typing-stop", |cx, args| typing(cx, args, Some(false)))
        .on("typing", |cx, args| typing(cx, args, None))
        .on("resolve-session", resolve_session)
        .on("get-active-sessions", |cx, args| list(cx, args, SessionFilter::SupportQueue))
        .on("get-all-sessions", |cx, args| list(cx, args, SessionFilter::Open))
        .on("get-agent-sessions", |cx, args| list(cx, args, SessionFilter::AssignedTo))
        .on("transfer-session", transfer_session)
        .on("update-agent-status", update_agent_status)
}

/// A text argument that must be given and not empty.
fn required(value: String, name: &str) -> Result<String, EngineError> {
    if value.is_empty() {
        Err(EngineError::Invalid(format!("{name} is required")))
    } else {
        Ok(value)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionArgs {
    session_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BotArgs {
    #[serde(default)]
    bot_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JoinSession {
    session_id: String,
    /// The old client's second argument (`join-session (sessionId, botId)`). The session knows
    /// its bot; this only keeps the position, so `afterSeq` can follow it.
    #[serde(default, rename = "botId")]
    _bot_id: Option<IgnoredAny>,
    /// Only messages after this one (a reconnected client fills what it missed).
    #[serde(default)]
    after_seq: Option<i64>,
}

async fn join_session(cx: Cx, Args(a): Args<JoinSession>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    cx.state.engine.join_session(&cx.live.conn, &session_id).await?;
    // The conversation so far (after `afterSeq` when given): a reloaded chat restores it, a
    // reconnected client fills what it missed.
    let session = cx.state.store.session(&session_id).await?.ok_or(EngineError::NotFound("Session"))?;
    let messages = cx.state.store.messages(&session_id, a.after_seq.unwrap_or(0), JOIN_HISTORY).await?;
    let for_visitor = matches!(cx.live.conn.who, Who::Visitor { .. });
    Ok(Reply::Joined { session: Box::new(session), messages, for_visitor })
}

async fn join_as_agent(cx: Cx, Args(a): Args<BotArgs>) -> Result<Reply, EngineError> {
    let bot_id = cx.live.bot_of(a.bot_id)?;
    let queue = cx.state.engine.join_as_agent(&cx.live.conn, &bot_id).await?;
    if let Who::Member { user_id, .. } = &cx.live.conn.who {
        // The team list's "last active"; a failed note is no reason to refuse the join.
        if let Err(e) = cx.state.store.touch_member(&bot_id, user_id).await {
            tracing::warn!("noting last active: {e}");
        }
    }
    *crate::realtime_lock(&cx.live.bot) = Some(bot_id);
    Ok(Reply::Sessions(queue))
}

async fn leave_as_agent(cx: Cx, Args(a): Args<BotArgs>) -> Result<Reply, EngineError> {
    let bot_id = cx.live.bot_of(a.bot_id)?;
    cx.state.engine.leave_as_agent(&cx.live.conn, &bot_id).await?;
    let mut watched = crate::realtime_lock(&cx.live.bot);
    if watched.as_deref() == Some(bot_id.as_str()) {
        *watched = None;
    }
    Ok(Reply::BotId(bot_id))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestSupport {
    session_id: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    customer_info: Option<CustomerInfo>,
    /// The same as `customerInfo`, by its other name.
    #[serde(default)]
    lead_data: Option<CustomerInfo>,
}

async fn request_human_support(cx: Cx, Args(a): Args<RequestSupport>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let message = a.message.unwrap_or_default();
    let info = a.customer_info.or(a.lead_data).unwrap_or_default();
    let customer = [info.name.clone(), info.email.clone()].into_iter().flatten().filter(|s| !s.trim().is_empty()).collect::<Vec<_>>().join(", ");
    let who = &cx.live.conn.who;
    let asked = cx.state.engine.request_support(who, &session_id, &message, info).await?;
    let session = asked.session;
    // Nobody online to hear it: the bot's agents are told by mail (those who want it), once
    // per request; asking again while already waiting mails nobody.
    if let Who::Visitor { bot_id, .. } = who {
        if asked.new && cx.state.engine.agents_online(bot_id) == 0 {
            let customer = if customer.is_empty() { "a visitor".to_string() } else { customer };
            if let Err(e) = crate::notify::support_request_unanswered(&cx.state, bot_id, &customer, &message).await {
                tracing::warn!("support request mail: {}", e.message);
            }
        }
        return Ok(Reply::VisitorSession(session));
    }
    Ok(Reply::Session(session))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LeaveDetails {
    session_id: String,
    #[serde(default)]
    lead_data: Option<CustomerInfo>,
    /// The same as `leadData`, by its other name.
    #[serde(default)]
    customer_info: Option<CustomerInfo>,
}

async fn leave_details(cx: Cx, Args(a): Args<LeaveDetails>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let info = a.lead_data.or(a.customer_info).unwrap_or_default();
    cx.state.engine.leave_details(&cx.live.conn.who, &session_id, info).await?;
    Ok(Reply::Empty)
}

async fn take_session(cx: Cx, Args(a): Args<SessionArgs>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let outcome = cx.state.engine.take_session(&cx.live.conn.who, &session_id).await?;
    if !outcome.won {
        return Err(EngineError::Refused("Failed to take session".into()));
    }
    cx.state.engine.join_session(&cx.live.conn, &session_id).await?;
    Ok(Reply::Session(outcome.session))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendMessage {
    session_id: String,
    #[serde(default)]
    message: Option<String>,
    /// The old client's third argument (`send-message (sessionId, message, isAgent)`). Who is
    /// an agent is known from the caller's token, never from this flag; it only keeps the
    /// position.
    #[serde(default, rename = "isAgent")]
    _is_agent: Option<IgnoredAny>,
    /// The same as `message`, by its other name.
    #[serde(default)]
    text: Option<String>,
    /// The widget's id for this message: sent again (Retry) with the same id, it is not saved
    /// twice.
    #[serde(default)]
    client_id: Option<String>,
}

async fn send_message(cx: Cx, Args(a): Args<SendMessage>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let text = a.message.or(a.text).unwrap_or_default();
    let engine = &cx.state.engine;
    match &cx.live.conn.who {
        Who::Visitor { bot_id, session_id: own } => {
            if own != &session_id {
                return Err(EngineError::NotFound("Session"));
            }
            let bot = engine.bot_info(bot_id).await?;
            crate::visitor_guard::check(&cx.state, &bot, None, Some(&session_id))?;
            let outcome = engine
                .visitor_message(VisitorMessage { bot_id: bot_id.clone(), session_id: Some(session_id), text, lead: None, ack_on_save: true, client_id: a.client_id })
                .await?;
            Ok(Reply::Message { message: outcome.user_message, agent_connected: Some(outcome.agent_connected) })
        }
        who @ Who::Member { .. } => {
            let message = engine.agent_message(who, &session_id, &text, a.client_id.as_deref()).await?;
            Ok(Reply::Message { message, agent_connected: None })
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypingArgs {
    session_id: String,
    #[serde(default)]
    is_typing: Option<bool>,
}

/// `typing-start`, `typing-stop`, and `typing` with `isTyping`.
async fn typing(cx: Cx, Args(a): Args<TypingArgs>, fixed: Option<bool>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let is_typing = fixed.or(a.is_typing).unwrap_or(false);
    cx.state.engine.typing(&cx.live.conn.who, &session_id, is_typing).await?;
    Ok(Reply::Empty)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResolveSession {
    session_id: String,
    #[serde(default)]
    rating: Option<i64>,
    #[serde(default)]
    feedback: Option<String>,
    /// The same as `feedback`, by its other name.
    #[serde(default)]
    notes: Option<String>,
}

async fn resolve_session(cx: Cx, Args(a): Args<ResolveSession>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    // A number too large for a rating is refused like any other out-of-range one, not dropped.
    let rating = a.rating.map(|r| i32::try_from(r).unwrap_or(i32::MAX));
    // The spec's resolve "feedback" is the agent's (the agent dashboard calls it notes).
    let session = cx.state.engine.resolve(&cx.live.conn.who, &session_id, rating, a.feedback.or(a.notes)).await?;
    Ok(Reply::Session(session))
}

/// `get-active-sessions` (the support queue; also sent as `active-support-sessions`),
/// `get-all-sessions` (open ones; also sent as `all-sessions-update`) and
/// `get-agent-sessions` (the caller's).
async fn list(cx: Cx, Args(a): Args<BotArgs>, filter: SessionFilter) -> Result<Reply, EngineError> {
    let bot_id = cx.live.bot_of(a.bot_id)?;
    let (sessions, _) = cx.state.engine.sessions(cx.live.user()?, &bot_id, filter, None, Default::default(), 0, LIST_LIMIT).await?;
    let sessions: SessionList = sessions.into();
    let event = match filter {
        SessionFilter::SupportQueue => Some(ServerEvent::ActiveSupportSessions { sessions: Arc::clone(&sessions) }),
        SessionFilter::Open => Some(ServerEvent::AllSessionsUpdate { sessions: Arc::clone(&sessions) }),
        _ => None,
    };
    if let Some(event) = event {
        cx.live.conn.sink.push(&Outgoing::new(event));
    }
    Ok(Reply::Sessions(sessions))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TransferSession {
    session_id: String,
    target_agent_id: String,
    #[serde(default)]
    reason: Option<String>,
}

async fn transfer_session(cx: Cx, Args(a): Args<TransferSession>) -> Result<Reply, EngineError> {
    let session_id = required(a.session_id, "sessionId")?;
    let target = required(a.target_agent_id, "targetAgentId")?;
    let reason = a.reason.unwrap_or_default();
    Ok(Reply::Session(cx.state.engine.transfer(&cx.live.conn.who, &session_id, &target, &reason).await?))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentStatus {
    status: String,
}

async fn update_agent_status(cx: Cx, Args(a): Args<AgentStatus>) -> Result<Reply, EngineError> {
    let status = required(a.status, "status")?;
    cx.live.user()?;
    cx.state.engine.set_agent_status(&cx.live.conn, &status)?;
    Ok(Reply::Status(status))
}
