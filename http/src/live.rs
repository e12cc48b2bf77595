//! The product's live channel: Socket.IO namespace `/` (with connection state recovery) wired
//! to the chat engine. CONNECT authenticates (`{token}` for members, `{visitorToken}` for
//! visitors); each event of spec 2 §7 becomes one engine call, answered by an ack
//! (`{success, ...}` or `{success: false, error}`) and, on failure, an `error` event.
//!
//! Strangers can connect, so every socket is bounded: a token bucket and an in-flight cap on
//! its events, a length cap on every string it sends, and a disconnect when it keeps being
//! refused (`SocketGuard`).

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::web;
use parley_config::RealtimeSettings;
use parley_engine::chat::{events, Connection, EngineError, Outgoing, ServerEvent, Sink, VisitorMessage, Who, BUSY};
use parley_store::chat::{CustomerInfo, SessionFilter};
use serde_json::{json, Value};

use crate::limits::TokenBucket;
use crate::realtime::{AckSender, ConnectError, Payload, RecoveryConfig, Socket, SocketIo};
use crate::state::AppState;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Most messages a `join-session` ack carries.
const JOIN_HISTORY: i64 = 500;

/// What a socket that sends too much hears.
pub const TOO_FAST: &str = "Too many events, please slow down";

/// Writes the engine's events straight to one socket (no hop: the socket's own queue is the
/// bounded one, see `engineio::outbox`).
struct SocketSink(Socket);

impl Sink for SocketSink {
    fn push(&self, event: &Arc<Outgoing>) {
        if self.0.connected() {
            self.0.emit_json(event.name(), event.payload_json());
        }
    }

    fn close(&self) {
        self.0.disconnect();
    }
}

/// One socket's allowance: a token bucket for its events, how many are being handled, and
/// how many were refused in a row.
struct SocketGuard {
    bucket: Mutex<TokenBucket>,
    in_flight: AtomicUsize,
    refusals: AtomicU32,
    max_in_flight: usize,
    max_refusals: u32,
    max_text: usize,
}

/// An admitted event; dropping it frees its in-flight slot.
struct Ticket(Arc<Live>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.guard.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl SocketGuard {
    fn new(settings: &RealtimeSettings) -> SocketGuard {
        SocketGuard {
            bucket: Mutex::new(TokenBucket::new(settings.socket_events_per_sec, settings.socket_burst)),
            in_flight: AtomicUsize::new(0),
            refusals: AtomicU32::new(0),
            max_in_flight: settings.socket_in_flight.max(1),
            max_refusals: settings.socket_max_refusals.max(1),
            max_text: settings.max_text_chars.max(1),
        }
    }

    /// Admits an event, or says why not. Only going over the rate counts towards a disconnect:
    /// a full in-flight allowance is the server being slow (backpressure), not the client
    /// misbehaving, so it is answered "busy" and the client retries.
    fn admit(&self) -> Result<(), Refusal> {
        if !crate::realtime_lock(&self.bucket).take() {
            let refusals = self.refusals.fetch_add(1, Ordering::AcqRel) + 1;
            return Err(Refusal::TooFast { disconnect: refusals == self.max_refusals });
        }
        self.refusals.store(0, Ordering::Release);
        if self.in_flight.fetch_add(1, Ordering::AcqRel) >= self.max_in_flight {
            self.in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::Busy);
        }
        Ok(())
    }
}

/// Why an event was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// Over the socket's rate; `disconnect` once it has gone on for `max_refusals` in a row.
    TooFast { disconnect: bool },
    /// Too many of the socket's events are being handled already.
    Busy,
}

impl Live {
    fn admit(self: &Arc<Self>) -> Result<Ticket, Refusal> {
        self.guard.admit().map(|()| Ticket(self.clone()))
    }
}

/// What a socket keeps between events: its engine connection, the bot it watches and its
/// allowance.
struct Live {
    conn: Connection,
    bot: Mutex<Option<String>>,
    guard: SocketGuard,
}

/// Builds the Socket.IO server for the product.
pub fn socket_server(state: web::Data<AppState>) -> SocketIo {
    let io = SocketIo::from_settings(&state.settings.realtime);
    let recovery = RecoveryConfig {
        max_disconnection: Duration::from_secs(120),
        max_packets: state.settings.realtime.recovery_max_packets.max(1),
        ..RecoveryConfig::default()
    };
    io.ns_with_recovery("/", recovery, move |socket, auth| {
        let state = state.clone();
        async move { on_connect(state, socket, auth).await }
    });
    io
}

async fn identify(state: &AppState, auth: &Value) -> Result<Who, ConnectError> {
    if let Some(token) = auth.get("token").and_then(Value::as_str) {
        let user = state
            .tokens
            .user_of(&state.store, token)
            .await
            .map_err(|_| ConnectError::new("Please try again"))?
            .ok_or_else(|| ConnectError::new("Your session has expired, please sign in again"))?;
        let name = if user.name.is_empty() { user.email.clone() } else { user.name.clone() };
        return Ok(Who::Member { user_id: user.id, name });
    }
    if let Some(token) = auth.get("visitorToken").and_then(Value::as_str) {
        let claims = state.tokens.verify(token, "visitor").ok_or_else(|| ConnectError::new("This conversation has expired"))?;
        let bot_id = claims.bot.ok_or_else(|| ConnectError::new("This conversation has expired"))?;
        return Ok(Who::Visitor { session_id: claims.sub, bot_id });
    }
    Err(ConnectError::new("Authentication required"))
}

async fn on_connect(state: web::Data<AppState>, socket: Socket, auth: Value) -> Result<(), ConnectError> {
    let who = identify(&state, &auth).await?;
    let sink: Arc<dyn Sink> = Arc::new(SocketSink(socket.clone()));
    let conn = Connection { id: NEXT_CONN.fetch_add(1, Ordering::Relaxed), who, sink };
    state.engine.connect(&conn);
    let live = Arc::new(Live { conn, bot: Mutex::new(None), guard: SocketGuard::new(&state.settings.realtime) });
    // One handler for every event (not one closure per event per socket: an idle socket
    // should cost little).
    let (state_e, live_e) = (state.clone(), live.clone());
    socket.on_any(move |socket, mut payload, ack| {
        let (state, live) = (state_e.clone(), live_e.clone());
        // Admitted before the event's task starts, so a refused flood costs no work.
        let admitted = live.admit();
        async move {
            let ticket = match admitted {
                Ok(ticket) => ticket,
                Err(Refusal::Busy) => return refuse(&socket, ack, BUSY),
                Err(Refusal::TooFast { disconnect }) => {
                    refuse(&socket, ack, TOO_FAST);
                    if disconnect {
                        tracing::warn!(socket = socket.id(), "disconnecting a socket that kept sending too fast");
                        socket.disconnect();
                    }
                    return;
                }
            };
            let name = match payload.args.first() {
                Some(Value::String(name)) => EVENTS.iter().copied().find(|e| e == name),
                _ => None,
            };
            let result = match name {
                None => Err(EngineError::Invalid("Unknown event".into())),
                Some(event) => {
                    payload.args.remove(0);
                    match check_text(&payload.args, live.guard.max_text) {
                        Ok(()) => handle(&state, &live, event, &payload).await,
                        Err(e) => Err(e),
                    }
                }
            };
            drop(ticket);
            answer(&socket, ack, result);
        }
    });
    let (state_d, live_d) = (state.clone(), live.clone());
    socket.on_disconnect(move |_, _| {
        let (state, live) = (state_d.clone(), live_d.clone());
        async move { state.engine.disconnect(live.conn.id) }
    });
    Ok(())
}

const EVENTS: &[&str] = &[
    "join-session",
    "join-as-agent",
    "leave-as-agent",
    "request-human-support",
    "leave-details",
    "take-session",
    "send-message",
    "typing-start",
    "typing-stop",
    "typing",
    "resolve-session",
    "get-active-sessions",
    "get-all-sessions",
    "get-agent-sessions",
    "transfer-session",
    "update-agent-status",
];

/// A refusal before the event is looked at: the ack if one was asked for, else the `error`
/// event (never both, so a flood is not answered twice).
fn refuse(socket: &Socket, ack: Option<AckSender>, message: &str) {
    match ack {
        Some(ack) => ack.send(vec![json!({"success": false, "error": message})]),
        None => socket.emit("error", vec![json!({"message": message})]),
    }
}

/// Every string in an event's arguments (keys too) within `max` characters.
fn check_text(args: &[Value], max: usize) -> Result<(), EngineError> {
    fn within(v: &Value, max: usize) -> bool {
        match v {
            Value::String(s) => s.len() <= max || s.chars().count() <= max,
            Value::Array(items) => items.iter().all(|i| within(i, max)),
            Value::Object(map) => map.iter().all(|(k, v)| k.chars().count() <= max && within(v, max)),
            _ => true,
        }
    }
    if args.iter().all(|a| within(a, max)) {
        Ok(())
    } else {
        Err(EngineError::Invalid(format!("Text is too long (the limit is {max} characters)")))
    }
}

fn answer(socket: &Socket, ack: Option<AckSender>, result: Result<Value, EngineError>) {
    match result {
        Ok(mut value) => {
            if let Value::Object(map) = &mut value {
                map.insert("success".into(), Value::Bool(true));
            }
            if let Some(ack) = ack {
                ack.send(vec![value]);
            }
        }
        Err(e) => {
            let message = public_message(&e);
            socket.emit("error", vec![json!({"message": message})]);
            if let Some(ack) = ack {
                ack.send(vec![json!({"success": false, "error": message})]);
            }
        }
    }
}

fn public_message(e: &EngineError) -> String {
    match e {
        EngineError::Store(inner) => {
            tracing::error!("live channel: {inner}");
            "Something went wrong on our side".into()
        }
        EngineError::Gone => "Please try again".into(),
        EngineError::Busy(message) => message.clone(),
        other => other.to_string(),
    }
}

/// An argument by name from an object first argument, or by position (the old client sends
/// both shapes).
fn arg(payload: &Payload, index: usize, name: &str) -> Option<Value> {
    match payload.args.first() {
        Some(Value::Object(map)) => map.get(name).cloned(),
        _ => payload.args.get(index).cloned(),
    }
}

fn text_arg(payload: &Payload, index: usize, name: &str) -> Option<String> {
    arg(payload, index, name).and_then(|v| v.as_str().map(str::to_string))
}

fn required(payload: &Payload, index: usize, name: &str) -> Result<String, EngineError> {
    text_arg(payload, index, name).filter(|s| !s.is_empty()).ok_or_else(|| EngineError::Invalid(format!("{name} is required")))
}

fn bot_of(live: &Live, payload: &Payload) -> Result<String, EngineError> {
    if let Some(bot) = text_arg(payload, 0, "botId").filter(|b| !b.is_empty()) {
        return Ok(bot);
    }
    if let Who::Visitor { bot_id, .. } = &live.conn.who {
        return Ok(bot_id.clone());
    }
    crate::realtime_lock(&live.bot).clone().ok_or_else(|| EngineError::Invalid("botId is required".into()))
}

fn user_of(live: &Live) -> Result<&str, EngineError> {
    match &live.conn.who {
        Who::Member { user_id, .. } => Ok(user_id),
        Who::Visitor { .. } => Err(EngineError::Forbidden("Sign in as a team member for this".into())),
    }
}

async fn handle(state: &AppState, live: &Live, event: &str, p: &Payload) -> Result<Value, EngineError> {
    let engine = &state.engine;
    let who = &live.conn.who;
    match event {
        "join-session" => {
            let session_id = required(p, 0, "sessionId")?;
            engine.join_session(&live.conn, &session_id).await?;
            // The conversation so far (after `afterSeq` when given): a reloaded chat restores
            // it, a reconnected client fills what it missed.
            let session = state.store.session(&session_id).await?.ok_or(EngineError::NotFound("Session"))?;
            let after = arg(p, 1, "afterSeq").and_then(|v| v.as_i64()).unwrap_or(0);
            let messages = state.store.messages(&session_id, after, JOIN_HISTORY).await?;
            Ok(json!({
                "sessionId": session_id,
                "session": events::session_view(&session),
                "messages": messages.iter().map(events::message_view).collect::<Vec<_>>(),
            }))
        }
        "join-as-agent" => {
            let bot_id = bot_of(live, p)?;
            let queue = engine.join_as_agent(&live.conn, &bot_id).await?;
            if let Who::Member { user_id, .. } = who {
                // The team list's "last active"; a failed note is no reason to refuse the join.
                if let Err(e) = state.store.touch_member(&bot_id, user_id).await {
                    tracing::warn!("noting last active: {e}");
                }
            }
            *crate::realtime_lock(&live.bot) = Some(bot_id);
            Ok(json!({"sessions": queue}))
        }
        "leave-as-agent" => {
            let bot_id = bot_of(live, p)?;
            engine.leave_as_agent(&live.conn, &bot_id).await?;
            let mut watched = crate::realtime_lock(&live.bot);
            if watched.as_deref() == Some(bot_id.as_str()) {
                *watched = None;
            }
            Ok(json!({"botId": bot_id}))
        }
        "request-human-support" => {
            let session_id = required(p, 0, "sessionId")?;
            let message = text_arg(p, 1, "message").unwrap_or_default();
            let info = arg(p, 2, "customerInfo")
                .or_else(|| arg(p, 2, "leadData"))
                .and_then(|v| serde_json::from_value::<CustomerInfo>(v).ok())
                .unwrap_or_default();
            let customer = [info.name.clone(), info.email.clone()].into_iter().flatten().filter(|s| !s.trim().is_empty()).collect::<Vec<_>>().join(", ");
            let session = engine.request_support(who, &session_id, &message, info).await?;
            // Nobody online to hear it: the bot's agents are told by mail (those who want it).
            if let Who::Visitor { bot_id, .. } = who {
                if engine.agents_online(bot_id) == 0 {
                    let customer = if customer.is_empty() { "a visitor".to_string() } else { customer };
                    if let Err(e) = crate::notify::support_request_unanswered(state, bot_id, &customer, &message).await {
                        tracing::warn!("support request mail: {}", e.message);
                    }
                }
            }
            Ok(json!({"session": session}))
        }
        "leave-details" => {
            let session_id = required(p, 0, "sessionId")?;
            let info = arg(p, 1, "leadData")
                .or_else(|| arg(p, 1, "customerInfo"))
                .and_then(|v| serde_json::from_value::<CustomerInfo>(v).ok())
                .unwrap_or_default();
            engine.leave_details(who, &session_id, info).await?;
            Ok(json!({}))
        }
        "take-session" => {
            let session_id = required(p, 0, "sessionId")?;
            let outcome = engine.take_session(who, &session_id).await?;
            if !outcome.won {
                return Err(EngineError::Refused("Failed to take session".into()));
            }
            engine.join_session(&live.conn, &session_id).await?;
            Ok(json!({"session": outcome.session}))
        }
        "send-message" => {
            let session_id = required(p, 0, "sessionId")?;
            let text = text_arg(p, 1, "message").or_else(|| text_arg(p, 1, "text")).unwrap_or_default();
            match who {
                Who::Visitor { bot_id, session_id: own } => {
                    if own != &session_id {
                        return Err(EngineError::NotFound("Session"));
                    }
                    let bot = engine.bot_info(bot_id).await?;
                    crate::visitor_guard::check(state, &bot, None, Some(&session_id)).map_err(|refusal| EngineError::Refused(refusal.message().into()))?;
                    let outcome = engine
                        .visitor_message(VisitorMessage { bot_id: bot_id.clone(), session_id: Some(session_id), text, lead: None, ack_on_save: true })
                        .await?;
                    Ok(json!({"message": outcome.user_message, "agentConnected": outcome.agent_connected}))
                }
                Who::Member { .. } => Ok(json!({"message": engine.agent_message(who, &session_id, &text).await?})),
            }
        }
        "typing-start" | "typing-stop" | "typing" => {
            let session_id = required(p, 0, "sessionId")?;
            let is_typing = match event {
                "typing-start" => true,
                "typing-stop" => false,
                _ => arg(p, 1, "isTyping").and_then(|v| v.as_bool()).unwrap_or(false),
            };
            engine.typing(who, &session_id, is_typing).await?;
            Ok(json!({}))
        }
        "resolve-session" => {
            let session_id = required(p, 0, "sessionId")?;
            let rating = arg(p, 1, "rating").and_then(|v| v.as_i64()).and_then(|r| i32::try_from(r).ok());
            let feedback = text_arg(p, 2, "feedback").or_else(|| text_arg(p, 2, "notes"));
            Ok(json!({"session": engine.resolve(who, &session_id, rating, feedback).await?}))
        }
        "get-active-sessions" => {
            let bot_id = bot_of(live, p)?;
            let (sessions, _) = engine.sessions(user_of(live)?, &bot_id, SessionFilter::SupportQueue, None, 0, 500).await?;
            live.conn.sink.push(&Outgoing::new(ServerEvent::ActiveSupportSessions { sessions: sessions.clone() }));
            Ok(json!({"sessions": sessions}))
        }
        "get-all-sessions" => {
            let bot_id = bot_of(live, p)?;
            let (sessions, _) = engine.sessions(user_of(live)?, &bot_id, SessionFilter::Open, None, 0, 500).await?;
            live.conn.sink.push(&Outgoing::new(ServerEvent::AllSessionsUpdate { sessions: sessions.clone() }));
            Ok(json!({"sessions": sessions}))
        }
        "get-agent-sessions" => {
            let bot_id = bot_of(live, p)?;
            let (sessions, _) = engine.sessions(user_of(live)?, &bot_id, SessionFilter::AssignedTo, None, 0, 500).await?;
            Ok(json!({"sessions": sessions}))
        }
        "transfer-session" => {
            let session_id = required(p, 0, "sessionId")?;
            let target = required(p, 1, "targetAgentId")?;
            let reason = text_arg(p, 2, "reason").unwrap_or_default();
            Ok(json!({"session": engine.transfer(who, &session_id, &target, &reason).await?}))
        }
        "update-agent-status" => {
            let status = required(p, 0, "status")?;
            user_of(live)?;
            engine.set_agent_status(&live.conn, &status)?;
            Ok(json!({"status": status}))
        }
        _ => Err(EngineError::Invalid(format!("Unknown event {event}"))),
    }
}
