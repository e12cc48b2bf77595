//! Where a bot's replies come from, as the session actor sees it: one call per visitor turn,
//! given the bot, the question and the recent history, streaming text through `deltas`.
//! The knowledge issue's retrieval + answerers implement it; tests use their own.

use futures_util::future::BoxFuture;
use parley_store::chat::Citation;
use parley_store::models::{Bot, ChatMessage};

pub type DeltaSink = Box<dyn Fn(String) + Send + Sync>;

pub struct ReplyRequest {
    pub bot: Bot,
    pub session_id: String,
    pub question: String,
    /// Earlier messages of the session, oldest first (the question is not among them).
    pub history: Vec<ChatMessage>,
    /// Called with each piece of text as it is produced.
    pub deltas: DeltaSink,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BotReply {
    pub text: String,
    pub citations: Vec<Citation>,
    /// The answer is not confident: the chat should offer a human when handover is on.
    pub offer_handoff: bool,
    /// The knowledge did not cover the question ("I don't know"): counted in the analytics
    /// with the question, so the owner sees what to train next.
    pub refused: bool,
    /// "Did you mean" quick replies (a near miss): saved with the message, shown as chips.
    pub suggestions: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BrainError(pub String);

pub trait Brain: Send + Sync + 'static {
    fn reply(&self, request: ReplyRequest) -> BoxFuture<'static, Result<BotReply, BrainError>>;
}
