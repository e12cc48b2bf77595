//! The messages the chat actors take, and what they answer. Defined apart from the actors so
//! that neither actor imports the other: each depends on these types and on [`Peers`], never on
//! the other actor or the registry.

use std::sync::Arc;

use actix::prelude::*;
use parley_store::chat::NewMessage;
use parley_store::models::{ChatMessage, ChatSession};
use tokio::sync::oneshot;

use super::events::{ServerEvent, Sink};
use super::types::{ConnId, EngineError, SupportAsked, TurnOutcome};

// ---------------------------------------------------------------------------------------------
// To a session actor.

#[derive(Clone)]
pub struct Member {
    pub sink: Arc<dyn Sink>,
    /// `None` for the visitor; the user id for an agent or team member.
    pub user_id: Option<String>,
}

/// A visitor's message. Answered when the turn is over (with the AI's reply, or at once when an
/// agent has the conversation).
#[derive(Message)]
#[rtype(result = "()")]
pub struct VisitorSays {
    pub text: String,
    /// The widget's own id for the message, so that a resend is not saved twice (`resends.rs`).
    pub client_id: Option<String>,
    /// Answer as soon as the message is saved (the live channel), not after the bot's reply.
    pub ack_on_save: bool,
    pub reply: oneshot::Sender<Result<TurnOutcome, EngineError>>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Join {
    pub conn: ConnId,
    pub member: Member,
    /// Answered once the member is in; dropped unanswered when the actor retired first.
    pub joined: oneshot::Sender<()>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Leave(pub ConnId);

/// The visitor asks for a human. Saved first (the session row and a system note), then the
/// visitor hears `support-requested` and the bot's agents `support-request`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RequestSupport {
    pub message: String,
    pub info: parley_store::chat::CustomerInfo,
    pub handover_message: String,
    pub reply: oneshot::Sender<Result<SupportAsked, EngineError>>,
}

/// The bot actor decided this agent won the take: note it, tell the visitor.
#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentAssigned {
    pub agent_id: String,
    pub agent_name: String,
    pub note: String,
    /// Told once the session is with the agent, so the take is answered only then: a visitor
    /// message after the answer must reach the agent, never the bot.
    pub applied: Option<tokio::sync::oneshot::Sender<()>>,
}

/// A message from an agent (or a system note), saved then shown to the session.
#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentSays {
    pub message: NewMessage,
    /// The dashboard's own id for the message, so that a resend is not saved twice.
    pub client_id: Option<String>,
    pub reply: oneshot::Sender<Result<Arc<ChatMessage>, EngineError>>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Typing {
    pub from_visitor: bool,
    pub is_typing: bool,
}

/// Resolve: saved (with `resolvedAt`, rating, the agent's private notes and the note `Session
/// resolved by {name}`), then everyone hears `session-resolved`; the visitor is back with the bot.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Resolve {
    pub resolved_by: String,
    pub rating: Option<i32>,
    pub notes: Option<String>,
    pub reply: oneshot::Sender<Result<Arc<ChatSession>, EngineError>>,
}

/// The stored session changed outside the actor (status, priority, marks): tell the session's
/// members. `status_changed`: its status was set, so the mode is read again from the row; any
/// other change leaves the mode alone, since the row was read before this message arrived and a
/// support request or a resolve the actor applied meanwhile would otherwise be undone.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Reload {
    pub session: Arc<ChatSession>,
    pub status_changed: bool,
}

/// The agent who had the session may no longer handle it, and it waits for another (stored
/// already): reload as `Reload` does, and save and show a note saying so.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Requeued(pub Arc<ChatSession>);

/// Tell the session's members something that happened elsewhere (an edited message, deletion).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Tell(pub ServerEvent);

/// [`Tell`], and the bot's online agents too, each connection once.
#[derive(Message)]
#[rtype(result = "()")]
pub struct TellTeam(pub ServerEvent);

// ---------------------------------------------------------------------------------------------
// To a bot actor.

#[derive(Clone)]
pub struct OnlineAgent {
    pub user_id: String,
    pub name: String,
    pub status: String,
    pub can_take: bool,
    pub sink: std::sync::Arc<dyn Sink>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TakeOutcome {
    pub won: bool,
    pub session: Arc<ChatSession>,
}

/// Something every online agent of the bot should hear.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ToAgents(pub ServerEvent);

/// [`ToAgents`] from a session that already told its own team members: the connections in
/// `told` are skipped, so an agent who follows the session and the bot hears it once.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ToOtherAgents {
    pub event: ServerEvent,
    pub told: Vec<ConnId>,
}

/// Something only one member's connections on the bot should hear (`session-assigned`: the
/// session is now theirs).
#[derive(Message)]
#[rtype(result = "()")]
pub struct ToUser {
    pub user_id: String,
    pub event: ServerEvent,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentOnline {
    pub conn: ConnId,
    pub agent: OnlineAgent,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentOffline(pub ConnId);

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentStatus {
    pub conn: ConnId,
    pub status: String,
}

/// A member's role on the bot changed: their online entries may now take sessions, or not.
#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentRole {
    pub user_id: String,
    pub can_take: bool,
}

/// Online agents who may take sessions: (user id, name, status).
#[derive(Message)]
#[rtype(result = "Vec<(String, String, String)>")]
pub struct ListAgents;

/// An agent asks for a session. Handled one at a time per bot, and decided by the store's
/// conditional update, so exactly one of any number of racing agents wins.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Take {
    pub session_id: String,
    pub agent_id: String,
    pub agent_name: String,
    pub reply: oneshot::Sender<Result<TakeOutcome, EngineError>>,
}
