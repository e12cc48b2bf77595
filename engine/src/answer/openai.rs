//! Answers through any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp) with
//! async-openai: the bot's system prompt plus, for each retrieved source, the sentences that
//! answer (the extractive answerer's selection) under a number the reply cites, streamed token
//! by token, with timeouts so a slow or failing provider never leaves a session stuck.
//!
//! Retries are async-openai's own (its client wraps every request in a retry layer): up to 3
//! retries on 429 (except `insufficient_quota`), 5xx and connection failures, with exponential
//! backoff from 100 ms (capped at 8 s) or the provider's `Retry-After`. Retrying here as well
//! would multiply the attempts, so this module only bounds the total time.

use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
};
use async_openai::Client;
use futures_util::StreamExt;
use tokio::time::{timeout, Instant};

use super::extractive::{answer_text, ConfidenceThresholds, DEFAULT_MAX_CHARS, DEFAULT_THRESHOLDS};
use super::{Answer, AnswerError, AnswerRequest, Answerer, Citation, DeltaSink, Speaker};
use crate::retrieval::Passage;

/// How many earlier turns go into the prompt.
const HISTORY_TURNS: usize = 10;
/// How many retrieved passages go into the prompt.
const PROMPT_PASSAGES: usize = 5;
/// Longest text quoted from one passage: the extractive answerer's reply limit, so the model
/// reads what that answerer would have replied with and five sources stay a short prompt.
const PROMPT_SOURCE_CHARS: usize = DEFAULT_MAX_CHARS;

pub struct OpenAiAnswerer {
    client: Client<OpenAIConfig>,
    model: String,
    /// Longest wait for the response to start, and between two streamed chunks.
    timeout: Duration,
    timeout_secs: u64,
    /// Longest reply one call may generate (`max_completion_tokens`): a bound on what one
    /// visitor message can cost the owner at the provider.
    max_tokens: u32,
    thresholds: ConfidenceThresholds,
}

impl std::fmt::Debug for OpenAiAnswerer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiAnswerer")
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl OpenAiAnswerer {
    pub fn new(llm: &parley_config::LlmSettings) -> Result<Self, AnswerError> {
        if llm.base_url.trim().is_empty() {
            return Err(AnswerError::Config("llm.base_url is empty".into()));
        }
        if llm.model.trim().is_empty() {
            return Err(AnswerError::Config("llm.model is empty".into()));
        }
        let config = OpenAIConfig::new()
            .with_api_base(llm.base_url.trim_end_matches('/'))
            .with_api_key(llm.api_key.clone());
        // The settings refuse an absurd value; clamped here too, as a deadline far enough in
        // the future overflows the clock.
        let timeout_secs = llm.timeout_secs.clamp(1, parley_config::MAX_LLM_TIMEOUT_SECS);
        Ok(Self {
            client: Client::with_config(config),
            model: llm.model.clone(),
            timeout: Duration::from_secs(timeout_secs),
            timeout_secs,
            max_tokens: llm.max_tokens.max(1),
            thresholds: DEFAULT_THRESHOLDS,
        })
    }

    /// Sub-second timeouts, for tests.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self.timeout_secs = timeout.as_secs().max(1);
        self
    }

    fn request(&self, req: &AnswerRequest<'_>) -> CreateChatCompletionRequest {
        let mut messages: Vec<ChatCompletionRequestMessage> = Vec::with_capacity(req.history.len() + 2);
        messages.push(ChatCompletionRequestSystemMessage::from(system_message(req)).into());
        let skip = req.history.len().saturating_sub(HISTORY_TURNS);
        for turn in req.history.iter().skip(skip) {
            messages.push(match turn.speaker {
                Speaker::Visitor => ChatCompletionRequestUserMessage::from(turn.text.as_str()).into(),
                Speaker::Bot | Speaker::Agent => {
                    ChatCompletionRequestAssistantMessage::from(turn.text.as_str()).into()
                }
            });
        }
        messages.push(ChatCompletionRequestUserMessage::from(req.question).into());
        CreateChatCompletionRequest {
            model: self.model.clone(),
            messages,
            stream: Some(true),
            max_completion_tokens: Some(self.max_tokens),
            ..CreateChatCompletionRequest::default()
        }
    }

    /// Opens the stream: the response must start (after the client's retries) within the
    /// timeout.
    async fn open(
        &self,
        request: CreateChatCompletionRequest,
    ) -> Result<async_openai::types::chat::ChatCompletionResponseStream, AnswerError> {
        match timeout(self.timeout, self.client.chat().create_stream(request)).await {
            Err(_) => Err(AnswerError::Timeout(self.timeout_secs)),
            Ok(Ok(stream)) => Ok(stream),
            Ok(Err(e)) => Err(map_error(e)),
        }
    }
}

#[async_trait::async_trait]
impl Answerer for OpenAiAnswerer {
    async fn answer(&self, req: AnswerRequest<'_>, sink: &dyn DeltaSink) -> Result<Answer, AnswerError> {
        let request = self.request(&req);
        let mut stream = self.open(request).await?;
        // A stream that keeps trickling is bounded too: never a stuck session.
        let deadline = Instant::now() + self.timeout.saturating_mul(5);
        let mut text = String::new();
        loop {
            let wait = self.timeout.min(deadline.saturating_duration_since(Instant::now()));
            let next = match timeout(wait, stream.next()).await {
                Err(_) => return Err(AnswerError::Timeout(self.timeout_secs)),
                Ok(next) => next,
            };
            let chunk = match next {
                None => break,
                Some(Ok(chunk)) => chunk,
                Some(Err(e)) => return Err(map_stream_error(e)),
            };
            for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
                if let Some(delta) = choice.delta.content.filter(|d| !d.is_empty()) {
                    sink.delta(&delta);
                    text.push_str(&delta);
                }
            }
        }
        if text.trim().is_empty() {
            return Err(AnswerError::Empty);
        }
        let prompt_passages = req.passages.get(..req.passages.len().min(PROMPT_PASSAGES)).unwrap_or(&[]);
        let best = self.thresholds.best(prompt_passages);
        let confident = best.is_some();
        let mut citations = cited(&text, prompt_passages);
        if citations.is_empty() {
            citations.extend(best.map(Citation::from));
        }
        // No "did you mean" here: confidence is known only after the model has answered, and
        // its reply to a near question is usually a fair answer or its own clarifying question.
        Ok(Answer { text, citations, confident, offer_handoff: !confident && req.handover.is_some(), suggestions: Vec::new() })
    }

    fn name(&self) -> &'static str {
        "openai"
    }
}

fn system_message(req: &AnswerRequest<'_>) -> String {
    let mut s = String::new();
    if !req.system_prompt.trim().is_empty() {
        s.push_str(req.system_prompt.trim());
        s.push_str("\n\n");
    }
    s.push_str(
        "You are a customer-support assistant. Answer the visitor's question using only the \
         knowledge below: for each numbered source, the sentences of it that best match the \
         question. If they do not contain the answer, say you don't know yet instead of \
         guessing. Keep answers short and friendly. When you use a source, cite it by its \
         number in square brackets, like [1].\n\nKnowledge:\n",
    );
    let passages = req.passages.get(..req.passages.len().min(PROMPT_PASSAGES)).unwrap_or(&[]);
    for (i, p) in passages.iter().enumerate() {
        s.push_str(&knowledge_entry(i + 1, p, req.question));
    }
    if passages.is_empty() {
        s.push_str("\n(no relevant knowledge was found)\n");
    }
    s
}

/// One source of the prompt as `[n]`, its label, and what of it answers the question. `n` is
/// the passage's position among the prompt's passages, which is how [`cited`] maps it back.
fn knowledge_entry(n: usize, p: &Passage, question: &str) -> String {
    let text = answer_text(p, question, PROMPT_SOURCE_CHARS);
    match &p.question {
        // A pair's question tells the model which question the answer is for.
        Some(q) => format!("\n[{n}] {}\nQ: {}\nA: {text}\n", source_label(p), q.trim()),
        None => format!("\n[{n}] {}\n{text}\n", source_label(p)),
    }
}

fn source_label(p: &Passage) -> String {
    let mut label = if p.title.is_empty() { "Untitled".to_string() } else { p.title.clone() };
    if let Some(url) = &p.url {
        label.push_str(&format!(" ({url})"));
    }
    if let Some(page) = p.page {
        label.push_str(&format!(", page {page}"));
    }
    label
}

/// The passages the reply cites as `[n]`, in first-cited order, without duplicates.
fn cited(text: &str, passages: &[Passage]) -> Vec<Citation> {
    let mut out: Vec<Citation> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find(']') else { break };
        let inner = after.get(..close).unwrap_or("");
        for part in inner.split(',') {
            if let Ok(n) = part.trim().parse::<usize>() {
                if let Some(p) = n.checked_sub(1).and_then(|i| passages.get(i)) {
                    let c = Citation::from(p);
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    out
}

fn map_error(e: OpenAIError) -> AnswerError {
    match e {
        OpenAIError::ApiError(api) => {
            AnswerError::Provider { status: api.status_code.as_u16(), message: api.api_error.message }
        }
        OpenAIError::Reqwest(e) if e.is_timeout() => AnswerError::Transport(format!("timed out: {e}")),
        OpenAIError::Reqwest(e) => AnswerError::Transport(e.to_string()),
        other => AnswerError::Stream(other.to_string()),
    }
}

fn map_stream_error(e: OpenAIError) -> AnswerError {
    match e {
        OpenAIError::ApiError(api) => {
            AnswerError::Provider { status: api.status_code.as_u16(), message: api.api_error.message }
        }
        other => AnswerError::Stream(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::{SourceKind, UnitScore};

    fn passage(n: u32) -> Passage {
        Passage {
            chunk_id: format!("c{n}"),
            source_id: Some(format!("s{n}")),
            kind: SourceKind::Pdf,
            title: format!("Manual {n}"),
            url: None,
            page: Some(n),
            content: format!("Fact number {n}."),
            question: None,
            score: 1.0,
            confidence: 0.8,
            units: Vec::new(),
        }
    }

    #[test]
    fn citations_follow_the_bracketed_numbers() {
        let ps = vec![passage(1), passage(2), passage(3)];
        let c = cited("See [2] and [1, 2]; not [9] or [x] or [].", &ps);
        assert_eq!(c.iter().map(|c| c.page).collect::<Vec<_>>(), vec![Some(2), Some(1)]);
        assert!(cited("no markers [unclosed", &ps).is_empty());
    }

    /// A website paragraph on four topics, with unit scores as retrieval gives them for a
    /// question about delivery and returns: sentences 0 and 2 score best.
    fn paragraph() -> Passage {
        let u = |first, len, score| UnitScore { first, len, score };
        Passage {
            chunk_id: "about".into(),
            source_id: Some("site".into()),
            kind: SourceKind::Website,
            title: "About us".into(),
            url: Some("https://shop.example/about".into()),
            page: None,
            content: "Orders ship within 2 days. Our Leeds store opens at 9 am. Returns are free \
                      for 30 days. Gift cards never expire."
                .into(),
            question: None,
            score: 1.0,
            confidence: 0.6,
            units: vec![u(0, 1, 0.62), u(1, 1, 0.1), u(2, 1, 0.6), u(3, 1, 0.05), u(0, 2, 0.4), u(1, 2, 0.3), u(2, 2, 0.35)],
        }
    }

    fn qa_pair() -> Passage {
        Passage {
            kind: SourceKind::Qa,
            title: "FAQ".into(),
            question: Some("Do you ship abroad?".into()),
            content: "Yes, to 40 countries. Duties are shown at checkout.".into(),
            page: None,
            ..passage(9)
        }
    }

    #[test]
    fn the_prompt_quotes_the_selected_sentences_numbered_as_the_citations_read_them() {
        let ps = vec![paragraph(), passage(2), qa_pair()];
        let req = AnswerRequest { system_prompt: "", question: "How fast is shipping, and can I return things?", history: &[], passages: &ps, handover: None };
        let system = system_message(&req);
        // The paragraph's two answering sentences, in their order, not its other topics.
        assert!(system.contains("\n[1] About us (https://shop.example/about)\nOrders ship within 2 days. Returns are free for 30 days.\n"), "{system}");
        assert!(!system.contains("Leeds") && !system.contains("Gift cards"), "{system}");
        assert!(system.contains("\n[2] Manual 2, page 2\nFact number 2.\n"), "{system}");
        // A Q&A pair keeps its whole answer, under its question.
        assert!(system.contains("\n[3] FAQ\nQ: Do you ship abroad?\nA: Yes, to 40 countries. Duties are shown at checkout.\n"), "{system}");
        assert!(system.contains("using only the knowledge below") && system.contains("say you don't know yet"));
        // The numbers the model was shown are the ones `cited` reads back.
        let c = cited("Returns take 30 days [1]; abroad too [3].", &ps);
        assert_eq!(c, vec![Citation::from(&ps[0]), Citation::from(&ps[2])]);
        assert_eq!(c[0].url.as_deref(), Some("https://shop.example/about"));

        let none = AnswerRequest { passages: &[], ..req };
        assert!(system_message(&none).ends_with("(no relevant knowledge was found)\n"));
    }

    #[test]
    fn the_prompt_carries_the_system_prompt_passages_and_recent_history() {
        let settings = parley_config::LlmSettings {
            answerer: "openai".into(),
            base_url: "http://127.0.0.1:9/v1/".into(),
            model: "m".into(),
            api_key: String::new(),
            timeout_secs: 5,
            max_tokens: 256,
        };
        let answerer = OpenAiAnswerer::new(&settings).unwrap();
        let history: Vec<super::super::Turn> = (0..15)
            .map(|i| super::super::Turn { speaker: if i % 2 == 0 { Speaker::Visitor } else { Speaker::Bot }, text: format!("turn {i}") })
            .collect();
        let ps = vec![passage(1)];
        let req = AnswerRequest { system_prompt: "You are Shopbot.", question: "Q?", history: &history, passages: &ps, handover: None };
        let body = serde_json::to_value(answerer.request(&req)).unwrap();
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1 + HISTORY_TURNS + 1);
        let system = messages[0]["content"].as_str().unwrap();
        assert!(system.starts_with("You are Shopbot."));
        assert!(system.contains("[1] Manual 1, page 1\nFact number 1."));
        assert_eq!(messages[1]["content"], "turn 5");
        assert_eq!(messages[1]["role"], "assistant");
        assert_eq!(messages[11]["role"], "user");
        assert_eq!(messages[11]["content"], "Q?");
        assert_eq!(body["stream"], true);
    }
}
