//! What a socket keeps between events, and where the engine's events for it go.

use std::sync::{Arc, Mutex};

use parley_engine::chat::{Connection, EngineError, Outgoing, Sink, Who};

use super::guard::{Guarded, SocketGuard};
use crate::realtime::Socket;
use crate::views;

/// A socket's engine connection, the bot it watches, and its allowance.
pub(crate) struct Live {
    pub conn: Connection,
    pub bot: Mutex<Option<String>>,
    pub guard: SocketGuard,
}

impl Guarded for Live {
    fn guard(&self) -> &SocketGuard {
        &self.guard
    }
}

impl Live {
    /// The bot an event is about: the one it names, else the visitor's, else the one this
    /// socket watches (`join-as-agent`).
    pub fn bot_of(&self, named: Option<String>) -> Result<String, EngineError> {
        if let Some(bot) = named.filter(|b| !b.is_empty()) {
            return Ok(bot);
        }
        if let Who::Visitor { bot_id, .. } = &self.conn.who {
            return Ok(bot_id.clone());
        }
        crate::realtime_lock(&self.bot).clone().ok_or_else(|| EngineError::Invalid("botId is required".into()))
    }

    /// The signed-in member behind the socket; visitors may not.
    pub fn user(&self) -> Result<&str, EngineError> {
        match &self.conn.who {
            Who::Member { user_id, .. } => Ok(user_id),
            Who::Visitor { .. } => Err(EngineError::Forbidden("Sign in as a team member for this".into())),
        }
    }
}

/// Writes the engine's events straight to one socket (no hop: the socket's own queue is the
/// bounded one, see `engineio::outbox`). An event is encoded once, by the first socket it
/// reaches, and copied into each socket's frame.
pub(crate) struct SocketSink(pub Socket);

impl Sink for SocketSink {
    fn push(&self, event: &Arc<Outgoing>) {
        if self.0.connected() {
            self.0.emit_json(event.name(), event.encoded(views::events::encode));
        }
    }

    fn close(&self) {
        self.0.disconnect();
    }

    fn has_room(&self) -> bool {
        self.0.has_room(1)
    }
}
