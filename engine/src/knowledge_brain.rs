//! The product's `Brain`: for each visitor turn, spend a credit of the owner's plan (given back
//! if no reply comes of it), retrieve
//! from the bot's knowledge (hybrid index, cached per knowledge version), and let the configured
//! answerer (extractive, or an OpenAI-compatible model) compose the reply with its citations.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use parley_store::bots::WidgetConfig;
use parley_store::chat::Citation;
use parley_store::Store;

use crate::answer::{AnswerRequest, Answerer, Speaker, Turn};
use crate::chat::{BotReply, Brain, BrainError, ReplyRequest};
use crate::retrieval::{ChunkRecord, IndexCache, SourceKind};

/// What a visitor is told when the owner's plan has no credits left (no model is called).
pub const NO_CREDITS_REPLY: &str =
    "This assistant has used all of its replies for this month. Please contact the business directly or try again later.";

/// Passages handed to the answerer per question.
const TOP_K: usize = 5;

pub struct KnowledgeBrain {
    store: Store,
    cache: Arc<IndexCache>,
    answerer: Arc<dyn Answerer>,
}

impl KnowledgeBrain {
    pub fn new(store: Store, cache: Arc<IndexCache>, answerer: Arc<dyn Answerer>) -> Self {
        KnowledgeBrain { store, cache, answerer }
    }
}

fn failed(e: impl std::fmt::Display) -> BrainError {
    BrainError(e.to_string())
}

/// The bot's chunks as the index takes them. A Q&A chunk is stored as its question (title) and
/// "question\nanswer" (content); the index wants them apart to weigh the question.
pub async fn load_records(store: &Store, bot_id: &str) -> Result<Vec<ChunkRecord>, parley_store::StoreError> {
    let kinds: HashMap<String, String> = store.all_sources(bot_id).await?.into_iter().map(|s| (s.id, s.kind)).collect();
    let chunks = store.bot_chunks(bot_id).await?;
    Ok(chunks
        .into_iter()
        .map(|c| {
            let (kind, question, content) = if c.qa_id.is_some() {
                let answer = c.content.strip_prefix(&format!("{}\n", c.title)).unwrap_or(&c.content).to_string();
                (SourceKind::Qa, Some(c.title.clone()), answer)
            } else {
                let kind = match c.source_id.as_ref().and_then(|id| kinds.get(id)).map(String::as_str) {
                    Some("pdf") => SourceKind::Pdf,
                    Some("website") => SourceKind::Website,
                    _ => SourceKind::Text,
                };
                (kind, None, c.content.clone())
            };
            ChunkRecord {
                id: c.id,
                source_id: c.source_id.or(c.qa_id),
                kind,
                title: c.title,
                url: c.url,
                page: c.page.and_then(|p| u32::try_from(p).ok()),
                content,
                question,
                embedding: c.embedding,
                sentence_embeddings: c.sentence_embeddings,
            }
        })
        .collect())
}

fn turns(history: &[parley_store::models::ChatMessage], limit: usize) -> Vec<Turn> {
    let start = history.len().saturating_sub(limit);
    history
        .get(start..)
        .unwrap_or_default()
        .iter()
        .filter(|m| !m.is_error)
        .filter_map(|m| {
            let speaker = match m.role.as_str() {
                "user" => Speaker::Visitor,
                "bot" => Speaker::Bot,
                "agent" => Speaker::Agent,
                _ => return None,
            };
            Some(Turn { speaker, text: m.content.clone() })
        })
        .collect()
}

/// A credit spent on a reply being made: given back when dropped before [`HeldCredit::keep`]
/// (an error on the way, or the reply's future dropped at its timeout).
struct HeldCredit {
    store: Store,
    owner_id: String,
    /// The plan period the credit was counted in.
    period_start: chrono::NaiveDateTime,
    kept: bool,
}

impl HeldCredit {
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for HeldCredit {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        let (store, owner_id, period_start) = (self.store.clone(), std::mem::take(&mut self.owner_id), self.period_start);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(owner = %owner_id, "a credit of a failed reply could not be given back (no runtime)");
            return;
        };
        runtime.spawn(async move {
            if let Err(e) = store.release_credit(&owner_id, period_start).await {
                tracing::warn!(owner = %owner_id, "a credit of a failed reply was not given back: {e}");
            }
        });
    }
}

impl Brain for KnowledgeBrain {
    fn reply(&self, request: ReplyRequest) -> BoxFuture<'static, Result<BotReply, BrainError>> {
        let store = self.store.clone();
        let cache = self.cache.clone();
        let answerer = self.answerer.clone();
        Box::pin(async move {
            let bot = &request.bot;
            let Some(period_start) = store.hold_credit(&bot.owner_id).await.map_err(failed)? else {
                (request.deltas)(NO_CREDITS_REPLY.to_string());
                return Ok(BotReply { text: NO_CREDITS_REPLY.into(), citations: Vec::new(), offer_handoff: true, refused: false, suggestions: Vec::new() });
            };
            // Spent first, so concurrent replies cannot go past the plan; given back unless a
            // reply comes of it (the model failed, or the session stopped waiting for it).
            let credit = HeldCredit { store: store.clone(), owner_id: bot.owner_id.clone(), period_start, kept: false };
            let loader_store = store.clone();
            let bot_id = bot.id.clone();
            let index = cache
                .get_or_build(&bot.id, bot.knowledge_version, move || async move { load_records(&loader_store, &bot_id).await })
                .await
                .map_err(failed)?;
            let passages = cache.search(index, &request.question, TOP_K).await.map_err(failed)?;
            let widget = WidgetConfig::from_json(&bot.widget);
            let history = turns(&request.history, usize::try_from(widget.message_history_limit).unwrap_or(100));
            let handover = widget.enable_handover.then_some(widget.handover_message.as_str());
            let deltas = &request.deltas;
            let sink = move |text: &str| deltas(text.to_string());
            let answer = answerer
                .answer(
                    AnswerRequest {
                        system_prompt: &bot.system_prompt,
                        question: &request.question,
                        history: &history,
                        passages: &passages,
                        handover,
                    },
                    &sink,
                )
                .await
                .map_err(failed)?;
            credit.keep();
            Ok(BotReply {
                text: answer.text,
                citations: answer
                    .citations
                    .into_iter()
                    .map(|c| Citation { title: c.title, url: c.url, page: c.page.and_then(|p| i32::try_from(p).ok()), source_id: c.source_id })
                    .collect(),
                offer_handoff: answer.offer_handoff,
                refused: !answer.confident,
                suggestions: answer.suggestions,
            })
        })
    }
}
