//! The product's live channel: Socket.IO namespace `/` (with connection state recovery) wired
//! to the chat engine. CONNECT authenticates (`{token}` for members, `{visitorToken}` for
//! visitors, as one `Caller`); each event of spec 2 §7 is a typed handler (`handlers`) answered
//! by an ack (`{success, ...}` or `{success: false, error}`) and, on failure, an `error` event.
//!
//! Strangers can connect, so every socket is bounded (`guard`): a token bucket and an
//! in-flight cap on its events, a length cap on every string it sends, and a disconnect when it
//! keeps being refused.

mod args;
mod conn;
mod guard;
mod handlers;
mod router;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::web;
use parley_engine::chat::{Connection, EngineError, Sink, Who, BUSY};
use serde_json::Value;

pub use args::Args;
pub use guard::TOO_FAST;

use self::conn::{Live, SocketSink};
use self::guard::{Refusal, SocketGuard};
use self::router::{Cx, Router};
use crate::auth::{Caller, CallerError};
use crate::realtime::{AckSender, Admission, ConnectError, RecoveryConfig, Socket, SocketIo};
use crate::state::AppState;
use crate::views::acks::{ErrorEvent, Failure, Reply};

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Builds the Socket.IO server for the product.
pub fn socket_server(state: web::Data<AppState>) -> SocketIo {
    let io = SocketIo::from_settings(&state.settings);
    let recovery = RecoveryConfig {
        max_disconnection: Duration::from_secs(120),
        max_packets: state.settings.realtime.recovery_max_packets.max(1),
        ..RecoveryConfig::default()
    };
    let router = Arc::new(handlers::router());
    io.ns_with_recovery("/", recovery, move |socket, auth| {
        let (state, router) = (state.clone(), router.clone());
        async move { on_connect(state, router, socket, auth).await }
    });
    io
}

/// The socket's caller, from the CONNECT `auth` payload.
async fn identify(state: &AppState, auth: &Value) -> Result<Caller, ConnectError> {
    let bearer = auth.get("token").and_then(Value::as_str);
    let visitor = auth.get("visitorToken").and_then(Value::as_str);
    Caller::identify(state, bearer, visitor).await.map_err(|e| match e {
        CallerError::Missing => ConnectError::new("Authentication required"),
        CallerError::MemberExpired => ConnectError::new("Your session has expired, please sign in again"),
        CallerError::VisitorExpired => ConnectError::new("This conversation has expired"),
        CallerError::Store(_) => ConnectError::new("Please try again"),
    })
}

async fn on_connect(state: web::Data<AppState>, router: Arc<Router>, socket: Socket, auth: Value) -> Result<(), ConnectError> {
    let who = identify(&state, &auth).await?.into_who();
    let sink: Arc<dyn Sink> = Arc::new(SocketSink(socket.clone()));
    let member_token = match &who {
        Who::Member { .. } => auth.get("token").and_then(Value::as_str),
        Who::Visitor { .. } => None,
    };
    let sign_in = member_token.and_then(|t| state.tokens.verify(t, "user")).and_then(|c| c.sid);
    let conn = Connection { id: NEXT_CONN.fetch_add(1, Ordering::Relaxed), who, sink, sign_in };
    state.engine.connect(&conn);
    // A sign-out between the check above and this registration found no connection to close:
    // now that it is registered, a later one will, and this one looks again.
    if let Some(token) = member_token {
        if !matches!(state.tokens.user_of(&state.store, token).await, Ok(Some(_))) {
            state.engine.disconnect(conn.id);
            return Err(ConnectError::new("Your session has expired, please sign in again"));
        }
    }
    let live = Arc::new(Live { conn, bot: Mutex::new(None), guard: SocketGuard::new(&state.settings.realtime) });
    // Admission comes first, on the event's header alone: a refused flood is never decoded
    // and costs no task.
    let live_g = live.clone();
    socket.gate(move |socket, ack| match SocketGuard::admit(&live_g) {
        Ok(ticket) => Admission::Handle { pass: Box::new(ticket), ack },
        Err(Refusal::Busy) => {
            refuse(socket, ack, BUSY);
            Admission::Refused
        }
        Err(Refusal::TooFast { disconnect }) => {
            refuse(socket, ack, TOO_FAST);
            if disconnect {
                tracing::warn!(socket = socket.id(), "disconnecting a socket that kept sending too fast");
                socket.disconnect();
            }
            Admission::Refused
        }
    });
    // One handler for every event (not one closure per event per socket: an idle socket
    // should cost little).
    let (state_e, live_e) = (state.clone(), live.clone());
    socket.on_any(move |socket, mut payload, ack| {
        let (state, live, router) = (state_e.clone(), live_e.clone(), router.clone());
        async move {
            let handler = match payload.args.first() {
                Some(Value::String(name)) => router.handler(name),
                _ => None,
            };
            let result = match handler {
                None => Err(EngineError::Invalid("Unknown event".into())),
                Some(handler) => {
                    payload.args.remove(0);
                    match live.guard.check_text(&payload.args) {
                        Ok(()) => handler(Cx { state, live: live.clone() }, payload.args).await,
                        Err(e) => Err(e),
                    }
                }
            };
            live.guard.settled(matches!(result, Err(EngineError::Busy(_))));
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

/// A refusal before the event is looked at: the ack if one was asked for, else the `error`
/// event (never both, so a flood is not answered twice).
fn refuse(socket: &Socket, ack: Option<AckSender>, message: &str) {
    match ack {
        Some(ack) => ack.send_json(&Failure(message)),
        None => socket.emit_arg("error", &ErrorEvent { message }),
    }
}

fn answer(socket: &Socket, ack: Option<AckSender>, result: Result<Reply, EngineError>) {
    match result {
        // "Busy" is a request to retry, not a failure to show: like the guard's refusals, a
        // sender who asked for an ack gets only the ack, so a backed-up session is not made
        // busier by an error event for each refused message.
        Err(EngineError::Busy(message)) if ack.is_some() => refuse(socket, ack, &message),
        Ok(reply) => {
            if let Some(ack) = ack {
                ack.send_json(&reply);
            }
        }
        Err(e) => {
            let message = public_message(&e);
            socket.emit_arg("error", &ErrorEvent { message: &message });
            if let Some(ack) = ack {
                ack.send_json(&Failure(&message));
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
