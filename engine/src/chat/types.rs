//! The chat engine's vocabulary: connection ids and identities, what a caller sends and gets
//! back, the settings, and the errors. Shared by the actors, the registry and the service.

use std::sync::Arc;
use std::time::Duration;

use parley_store::chat::CustomerInfo;
use parley_store::models::ChatMessage;
use parley_store::StoreError;

use super::events::Sink;

pub type ConnId = u64;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The caller may not do this (role, or a visitor outside their session).
    #[error("{0}")]
    Forbidden(String),
    /// The input breaks a rule; the message says which, in the spec's words.
    #[error("{0}")]
    Invalid(String),
    /// Not possible in the session's current state.
    #[error("{0}")]
    Refused(String),
    /// The bot owner's plan has no more of this limit this period; the message is for the
    /// visitor, the limit for the owner's screens (which point to /billing).
    #[error("{1}")]
    PlanLimit(parley_store::billing::Limit, String),
    #[error("store: {0}")]
    Store(StoreError),
    #[error("the session stopped before answering")]
    Gone,
    /// A queue on the way is full; the client should retry in a moment.
    #[error("{0}")]
    Busy(String),
}

impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => EngineError::NotFound("Session"),
            StoreError::Busy(m) => EngineError::Busy(m),
            other => EngineError::Store(other),
        }
    }
}

/// Who a live connection is.
#[derive(Debug, Clone, PartialEq)]
pub enum Who {
    /// A website visitor, bound by their visitor token to one session of one bot.
    Visitor { session_id: String, bot_id: String },
    /// A signed-in team member.
    Member { user_id: String, name: String },
}

#[derive(Clone)]
pub struct Connection {
    pub id: ConnId,
    pub who: Who,
    pub sink: Arc<dyn Sink>,
    /// A member's sign-in the connection was opened with (their token's session id), so that
    /// signing out of that session ends this connection too.
    pub sign_in: Option<String>,
}

#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Longest a reply may take before the visitor gets the error bubble.
    pub reply_timeout: Duration,
    /// Arbiters (threads) the session actors are spread over; 0 = the caller's arbiter.
    pub arbiters: usize,
    /// Messages a session actor's mailbox holds before senders are told to retry.
    pub session_mailbox: usize,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings { reply_timeout: Duration::from_secs(60), arbiters: 2, session_mailbox: 256 }
    }
}

/// What a full queue answers (the client retries).
pub const BUSY: &str = parley_store::BUSY;

/// What taking or resolving a session already resolved answers.
pub const ALREADY_RESOLVED: &str = "This session is already resolved";

/// A visitor's message, from the chat call or the live channel.
#[derive(Debug, Clone, Default)]
pub struct VisitorMessage {
    pub bot_id: String,
    /// `None` starts a new session.
    pub session_id: Option<String>,
    pub text: String,
    pub lead: Option<CustomerInfo>,
    /// Return once the message is saved; the reply follows as a `new-message` event.
    pub ack_on_save: bool,
    /// The client's id for the message: a resend with the same id in the same session is
    /// answered with the message saved the first time (see `resends.rs`).
    pub client_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    pub session_id: String,
    pub user_message: Arc<ChatMessage>,
    /// The bot's reply; `None` when an agent has the conversation.
    pub reply: Option<Arc<ChatMessage>>,
    pub agent_connected: bool,
    pub offer_handoff: bool,
}

/// What a `request-human-support` did.
#[derive(Debug, Clone)]
pub struct SupportAsked {
    pub session: Arc<parley_store::models::ChatSession>,
    /// False when the conversation was already waiting for a person: the details were updated,
    /// but no note was added and nobody was told again (so a repeated request cannot flood the
    /// team's screens or mailboxes).
    pub new: bool,
}

/// Longest message an agent may send or edit into a conversation, in characters.
pub const AGENT_TEXT_CHARS: usize = 10_000;
