//! What the engine tells live clients. One enum, one place for every event name of spec 2 §7;
//! the transport turns an `Outgoing` into a Socket.IO emit of `event_name()` with `payload()`.

use std::sync::{Arc, OnceLock};

use parley_store::chat::CustomerInfo;
use parley_store::models::{ChatMessage, ChatSession};
use parley_store::time::to_rfc3339;
use serde_json::{json, Value};

/// Where the engine's events for one live connection go. Called from the actors' threads in
/// the order the events happen; it must not block (a connection that cannot keep up is the
/// transport's to close).
pub trait Sink: Send + Sync {
    fn push(&self, event: &Arc<Outgoing>);
    /// Ends the connection (its user's sessions were revoked). Sinks that cannot, ignore it.
    fn close(&self) {}
}

/// An event on its way to one or more connections, its payload serialized once for all of
/// them (the first connection to need it does the work).
#[derive(Debug)]
pub struct Outgoing {
    pub event: ServerEvent,
    payload_json: OnceLock<String>,
}

impl Outgoing {
    pub fn new(event: ServerEvent) -> Arc<Outgoing> {
        Arc::new(Outgoing { event, payload_json: OnceLock::new() })
    }

    pub fn name(&self) -> &'static str {
        self.event.event_name()
    }

    /// The payload as JSON text.
    pub fn payload_json(&self) -> &str {
        self.payload_json.get_or_init(|| self.event.payload().to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    // To agents.
    SupportRequest { session: Value, customer_message: String, customer_info: CustomerInfo, timestamp: String },
    CustomerMessage { session_id: String, message: Value },
    SessionTaken { session_id: String, agent_id: String, agent_name: String },
    ActiveSupportSessions { sessions: Vec<Value> },
    AllSessionsUpdate { sessions: Vec<Value> },
    SessionAssigned { session_id: String, session: Value },
    CustomerTyping { session_id: String, is_typing: bool },
    // To everyone in a session.
    NewMessage { session_id: String, message: Value },
    MessageDelta { session_id: String, message_id: String, delta: String },
    MessageUpdated { session_id: String, message: Value },
    SessionResolved { session_id: String, resolved_by: String, timestamp: String },
    SessionUpdated { session_id: String, session: Value },
    SessionDeleted { session_id: String },
    // To visitors.
    SessionJoined { session_id: String },
    SupportRequested { message: String },
    AgentJoined { agent_name: String, agent_id: String, message: String },
    AgentTyping { is_typing: bool },
    Error { message: String },
    // To a bot's members: the Training page's live statuses.
    Training { payload: Value },
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
            ServerEvent::SessionUpdated { .. } => "session-updated",
            ServerEvent::SessionDeleted { .. } => "session-deleted",
            ServerEvent::SessionJoined { .. } => "session-joined",
            ServerEvent::SupportRequested { .. } => "support-requested",
            ServerEvent::AgentJoined { .. } => "agent-joined",
            ServerEvent::AgentTyping { .. } => "agent-typing",
            ServerEvent::Error { .. } => "error",
            ServerEvent::Training { .. } => "training-status",
        }
    }

    pub fn payload(&self) -> Value {
        match self {
            ServerEvent::SupportRequest { session, customer_message, customer_info, timestamp } => json!({
                "sessionId": session["_id"], "session": session, "customerMessage": customer_message,
                "customerInfo": customer_info, "timestamp": timestamp,
            }),
            ServerEvent::CustomerMessage { session_id, message } => json!({"sessionId": session_id, "message": message}),
            ServerEvent::SessionTaken { session_id, agent_id, agent_name } => {
                json!({"sessionId": session_id, "agentId": agent_id, "agentName": agent_name})
            }
            ServerEvent::ActiveSupportSessions { sessions } => json!({"sessions": sessions}),
            ServerEvent::AllSessionsUpdate { sessions } => json!({"sessions": sessions}),
            ServerEvent::SessionAssigned { session_id, session } => json!({"sessionId": session_id, "session": session}),
            ServerEvent::CustomerTyping { session_id, is_typing } => json!({"sessionId": session_id, "isTyping": is_typing}),
            ServerEvent::NewMessage { session_id, message } => json!({"sessionId": session_id, "message": message}),
            ServerEvent::MessageDelta { session_id, message_id, delta } => {
                json!({"sessionId": session_id, "messageId": message_id, "delta": delta})
            }
            ServerEvent::MessageUpdated { session_id, message } => json!({"sessionId": session_id, "message": message}),
            ServerEvent::SessionResolved { session_id, resolved_by, timestamp } => {
                json!({"sessionId": session_id, "resolvedBy": resolved_by, "timestamp": timestamp})
            }
            ServerEvent::SessionUpdated { session_id, session } => json!({"sessionId": session_id, "session": session}),
            ServerEvent::SessionDeleted { session_id } => json!({"sessionId": session_id}),
            ServerEvent::SessionJoined { session_id } => json!({"sessionId": session_id}),
            ServerEvent::SupportRequested { message } => json!({"message": message}),
            ServerEvent::AgentJoined { agent_name, agent_id, message } => {
                json!({"agentName": agent_name, "agentId": agent_id, "message": message})
            }
            ServerEvent::AgentTyping { is_typing } => json!({"isTyping": is_typing}),
            ServerEvent::Error { message } => json!({"message": message}),
            ServerEvent::Training { payload } => payload.clone(),
        }
    }
}

/// A message as clients see it (spec 2 §3 "Message").
pub fn message_view(m: &ChatMessage) -> Value {
    let sources: Value = serde_json::from_str(&m.sources).unwrap_or_else(|_| json!([]));
    json!({
        "_id": m.id,
        "id": m.id,
        "sessionId": m.session_id,
        "seq": m.seq,
        "role": m.role,
        "sender": m.role,
        "content": m.content,
        "timestamp": to_rfc3339(&m.created_at),
        "isAgent": m.is_agent,
        "agentName": if m.is_agent { m.sender_name.clone() } else { None },
        "senderName": m.sender_name,
        "isError": m.is_error,
        "sources": sources,
        "editedAt": m.edited_at.as_ref().map(to_rfc3339),
    })
}

/// The title shown when a session has none (spec 2 §9: 'Chat Session' + last 6 of the id).
pub fn fallback_title(id: &str) -> String {
    let tail: String = id.chars().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
    format!("Chat Session {tail}")
}

/// A session as lists show it (spec 1 "Sessions list", spec 2 §3 "Chat session").
pub fn session_view(s: &ChatSession) -> Value {
    let tags: Value = serde_json::from_str(&s.tags).unwrap_or_else(|_| json!([]));
    json!({
        "_id": s.id,
        "id": s.id,
        "botId": s.bot_id,
        "title": if s.title.is_empty() { fallback_title(&s.id) } else { s.title.clone() },
        "name": s.customer_name,
        "status": s.status,
        "priority": s.priority,
        "tags": tags,
        "needsHumanSupport": s.needs_human_support,
        "assignedAgent": s.assigned_agent_id.as_ref().map(|id| json!({"_id": id, "id": id, "name": s.assigned_agent_name})),
        "customerName": s.customer_name,
        "customerEmail": s.customer_email,
        "customerPhone": s.customer_phone,
        "customerCompany": s.customer_company,
        "humanSupportRequestedAt": s.human_support_requested_at.as_ref().map(to_rfc3339),
        "resolvedAt": s.resolved_at.as_ref().map(to_rfc3339),
        "resolvedBy": s.resolved_by,
        "rating": s.rating,
        "feedback": s.feedback,
        "isPinned": s.is_pinned,
        "isStarred": s.is_starred,
        "messageCount": s.message_count,
        "lastMessage": s.last_message,
        "timestamp": to_rfc3339(&s.updated_at),
        "createdAt": to_rfc3339(&s.created_at),
        "updatedAt": to_rfc3339(&s.updated_at),
    })
}
