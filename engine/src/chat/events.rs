//! What the engine tells live clients. One enum, one place for every event name of spec 2 §7.
//! Events carry domain rows; how they look on the wire is the transport's business (the typed
//! views in `parley-http`), and an `Outgoing` keeps that encoding so it is made once however
//! many connections an event goes to.

use std::sync::{Arc, OnceLock};

use parley_store::chat::CustomerInfo;
use parley_store::models::{ChatMessage, ChatSession};

use crate::ingest::TrainingEvent;

/// Where the engine's events for one live connection go. Called from the actors' threads in
/// the order the events happen; it must not block (a connection that cannot keep up is the
/// transport's to close).
pub trait Sink: Send + Sync {
    fn push(&self, event: &Arc<Outgoing>);
    /// Ends the connection (its user's sessions were revoked). Sinks that cannot, ignore it.
    fn close(&self) {}
    /// Whether one more event fits without filling the connection's queue. A session refuses
    /// new messages as busy while one of its members' queues is this full, so a reader that
    /// falls behind slows its senders instead of being dropped. Sinks without a queue say yes.
    fn has_room(&self) -> bool {
        true
    }
}

/// An event on its way to one or more connections, with its encoding made once for all of
/// them (the first connection to need it does the work).
#[derive(Debug)]
pub struct Outgoing {
    pub event: ServerEvent,
    encoded: OnceLock<String>,
}

impl Outgoing {
    pub fn new(event: ServerEvent) -> Arc<Outgoing> {
        Arc::new(Outgoing { event, encoded: OnceLock::new() })
    }

    pub fn name(&self) -> &'static str {
        self.event.event_name()
    }

    /// The event's payload as `encode` writes it, encoded on the first call only. Every sink of
    /// one transport must pass the same `encode`.
    pub fn encoded(&self, encode: impl FnOnce(&ServerEvent) -> String) -> &str {
        self.encoded.get_or_init(|| encode(&self.event))
    }
}

/// Sessions in a list event, shared by every connection it goes to (and the ack that asked).
pub type SessionList = Arc<[ChatSession]>;

#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    // To agents.
    SupportRequest { session: Arc<ChatSession>, customer_message: String, customer_info: CustomerInfo, timestamp: String },
    CustomerMessage { session_id: String, message: Arc<ChatMessage> },
    SessionTaken { session_id: String, agent_id: String, agent_name: String },
    ActiveSupportSessions { sessions: SessionList },
    AllSessionsUpdate { sessions: SessionList },
    SessionAssigned { session_id: String, session: Arc<ChatSession> },
    CustomerTyping { session_id: String, is_typing: bool },
    // To everyone in a session.
    NewMessage { session_id: String, message: Arc<ChatMessage> },
    MessageDelta { session_id: String, message_id: String, delta: String },
    MessageUpdated { session_id: String, message: Arc<ChatMessage> },
    SessionResolved { session_id: String, resolved_by: String, timestamp: String },
    SessionUpdated { session_id: String, session: Arc<ChatSession> },
    SessionDeleted { session_id: String },
    // To visitors.
    /// `session-updated` as the session's visitor sees it: the transport writes the visitor's
    /// reduced view of the session (no team-only fields).
    VisitorSessionUpdated { session_id: String, session: Arc<ChatSession> },
    SessionJoined { session_id: String },
    /// The bot's last reply could not help (it did not know, or the plan ran out): the chat
    /// offers the visitor a person at once, not only after its usual wait.
    HandoffOffered { session_id: String },
    SupportRequested { message: String },
    /// To the visitor only; `agent_id` is the agent's alias for this session (`alias`), not
    /// their account id.
    AgentJoined { agent_name: String, agent_id: String, message: String },
    AgentTyping { is_typing: bool },
    Error { message: String },
    // To a bot's members: the Training page's live statuses.
    Training { event: TrainingEvent },
    /// To everyone on the bot's team who is connected: a visitor left details, so an open
    /// Leads page reloads (the event names the lead; the page reads it through the API, which
    /// applies the reader's role).
    LeadCaptured { bot_id: String, lead_id: String },
}

impl ServerEvent {
    pub fn event_name(&self) -> &'static str {
        match self {
            ServerEvent::SupportRequest { .. } => "support-request",
            ServerEvent::CustomerMessage { .. } => "customer-message",
            ServerEvent::SessionTaken { .. } => "session-taken",
            ServerEvent::ActiveSupportSessions { .. } => "active-support-sessions",
            ServerEvent::AllSessionsUpdate { .. } => "all-sessions-update",
            ServerEvent::SessionAssigned { .. } => "session-assigned",
            ServerEvent::CustomerTyping { .. } => "customer-typing",
            ServerEvent::NewMessage { .. } => "new-message",
            ServerEvent::MessageDelta { .. } => "message-delta",
            ServerEvent::MessageUpdated { .. } => "message-updated",
            ServerEvent::SessionResolved { .. } => "session-resolved",
            ServerEvent::SessionUpdated { .. } | ServerEvent::VisitorSessionUpdated { .. } => "session-updated",
            ServerEvent::SessionDeleted { .. } => "session-deleted",
            ServerEvent::SessionJoined { .. } => "session-joined",
            ServerEvent::HandoffOffered { .. } => "handoff-offered",
            ServerEvent::SupportRequested { .. } => "support-requested",
            ServerEvent::AgentJoined { .. } => "agent-joined",
            ServerEvent::AgentTyping { .. } => "agent-typing",
            ServerEvent::Error { .. } => "error",
            ServerEvent::Training { .. } => "training-status",
            ServerEvent::LeadCaptured { .. } => "lead-captured",
        }
    }
}
