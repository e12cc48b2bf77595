//! Answerers: turn a visitor's question plus retrieved passages into a reply, streamed through a
//! sink. `extractive` needs nothing; `openai` talks to any OpenAI-compatible endpoint.

pub mod extractive;
pub mod openai;
pub mod suggest;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::retrieval::Passage;

pub use extractive::ExtractiveAnswerer;
pub use openai::OpenAiAnswerer;

/// The bubble the visitor sees when answering fails (the spec's text).
pub const ERROR_BUBBLE: &str = "Sorry, I encountered an error processing your request.";

/// A source the reply relied on, as the widget shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
}

impl From<&Passage> for Citation {
    fn from(p: &Passage) -> Self {
        Citation { title: p.title.clone(), url: p.url.clone(), page: p.page, source_id: p.source_id.clone() }
    }
}

/// Who said a line of the conversation so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    Visitor,
    Bot,
    Agent,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub speaker: Speaker,
    pub text: String,
}

/// Everything an answerer needs for one reply.
#[derive(Debug, Clone, Copy)]
pub struct AnswerRequest<'a> {
    /// The bot's system prompt (its persona and rules), possibly empty.
    pub system_prompt: &'a str,
    pub question: &'a str,
    /// Recent turns, oldest first, not including `question`.
    pub history: &'a [Turn],
    /// Retrieved passages, best first.
    pub passages: &'a [Passage],
    /// The bot's handover message when human handover is enabled; `None` when it is off.
    pub handover: Option<&'a str>,
}

/// The finished reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub text: String,
    pub citations: Vec<Citation>,
    /// Whether the knowledge really covered the question.
    pub confident: bool,
    /// The UI should offer the human handoff now (not confident, nothing to suggest, and
    /// handover is on).
    pub offer_handoff: bool,
    /// "Did you mean" quick replies: questions or source titles near the visitor's question,
    /// when none was close enough to answer (see [`suggest`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
}

/// Receives the reply as it is produced. Deltas concatenate to the final text.
pub trait DeltaSink: Send + Sync {
    fn delta(&self, text: &str);
}

impl<F: Fn(&str) + Send + Sync> DeltaSink for F {
    fn delta(&self, text: &str) {
        self(text)
    }
}

impl DeltaSink for tokio::sync::mpsc::UnboundedSender<String> {
    fn delta(&self, text: &str) {
        // A closed receiver means the visitor left; the answer still completes and is saved.
        let _ = self.send(text.to_string());
    }
}

/// A sink that drops everything (for callers that only want the final answer).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSink;

impl DeltaSink for NoSink {
    fn delta(&self, _text: &str) {}
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum AnswerError {
    #[error("the language model did not answer within {0} s")]
    Timeout(u64),
    #[error("the language model returned HTTP {status}: {message}")]
    Provider { status: u16, message: String },
    #[error("could not reach the language model: {0}")]
    Transport(String),
    #[error("the language model's stream broke off: {0}")]
    Stream(String),
    #[error("the language model returned an empty reply")]
    Empty,
    #[error("answerer setting: {0}")]
    Config(String),
}

impl AnswerError {
    /// What the visitor is shown: always the spec's error bubble; details go to the log.
    pub fn user_message(&self) -> &'static str {
        ERROR_BUBBLE
    }
}

#[async_trait::async_trait]
pub trait Answerer: Send + Sync {
    /// Produces the reply, sending it through `sink` as it is generated.
    async fn answer(&self, request: AnswerRequest<'_>, sink: &dyn DeltaSink) -> Result<Answer, AnswerError>;

    /// A short name for logs ("extractive", "openai").
    fn name(&self) -> &'static str;
}

/// The answerer chosen by `llm.answerer`.
pub fn from_settings(llm: &parley_config::LlmSettings) -> Result<Arc<dyn Answerer>, AnswerError> {
    match llm.answerer.as_str() {
        "" | "extractive" => Ok(Arc::new(ExtractiveAnswerer::default())),
        "openai" => Ok(Arc::new(OpenAiAnswerer::new(llm)?)),
        other => Err(AnswerError::Config(format!(
            "llm.answerer is {other:?}; expected \"extractive\" or \"openai\""
        ))),
    }
}
