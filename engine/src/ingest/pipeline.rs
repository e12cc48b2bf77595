//! The [`Trainer`]: takes a source from `processing` to `completed` (its chunks stored, the
//! bot's knowledge version moved) or `failed` (with the reason a person can act on). Adding
//! validates and stores the source; training runs the extraction (PDF on the blocking pool,
//! websites crawled), chunking and optional embedding, then writes the chunks in one
//! transaction. Every status change is reported through the [`EventSink`], which the HTTP layer
//! turns into a live event.

use std::path::Path;
use std::sync::Arc;

use parley_config::{CrawlerSettings, Settings};
use parley_store::knowledge::{
    NewChunk, NewSource, SourceKind, TrainingStatus, MAX_ANSWER_CHARS, MAX_QUESTION_CHARS, MAX_SOURCE_NAME_CHARS, MAX_TEXT_CHARS,
};
use parley_store::models::{KnowledgeSource, QaPair};
use parley_store::{Store, StoreError};

use super::chunk::{chunk_sections, ChunkConfig, Section, TextChunk};
use super::crawl::{parse_start_url, CrawlReport, Crawler};
use super::embedder::{Embedder, EMBED_BATCH};
use super::inflight::InFlight;
use super::pdf::{extract_pdf_file, PdfLimits};
use super::{IngestError, IngestResult};

/// Which entry of the Training page an event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrainedItem {
    Source(String),
    Qa(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum TrainingEvent {
    /// A source or pair changed status; `reason` is set for `failed`.
    Status { bot_id: String, item: TrainedItem, status: TrainingStatus, reason: Option<String> },
    /// A website source read one more page.
    PageFetched { bot_id: String, source_id: String, url: String, title: String },
    /// The bot's chunks changed; retrieval indexes older than `version` are stale.
    KnowledgeChanged { bot_id: String, version: i64 },
}

/// Where training events go. Called from the training task; must not block.
pub type EventSink = Arc<dyn Fn(TrainingEvent) + Send + Sync>;

/// How a batch of training went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetrainSummary {
    pub completed: usize,
    pub failed: usize,
}

impl RetrainSummary {
    fn add(&mut self, status: TrainingStatus) {
        match status {
            TrainingStatus::Completed => self.completed += 1,
            TrainingStatus::Failed => self.failed += 1,
            TrainingStatus::Processing => {}
        }
    }
}

/// Cheap to clone; clone it into the task that trains.
#[derive(Clone)]
pub struct Trainer {
    store: Store,
    embedder: Option<Arc<dyn Embedder>>,
    events: Option<EventSink>,
    crawler: CrawlerSettings,
    pdf: PdfLimits,
    chunking: ChunkConfig,
    /// Shared by every clone: one run per source or pair at a time.
    inflight: Arc<InFlight>,
    /// Shared by every clone: sources trained at once (`training.max_concurrent`), so a burst
    /// of uploads or crawls cannot take every core and the memory they need.
    slots: Arc<tokio::sync::Semaphore>,
    /// Shared by every clone: one batch of texts is embedded at a time. The model already uses
    /// every core for one batch, so running more at once only adds threads that each keep
    /// their own working memory: a bot created with 25 Q&A pairs (the demo bot) trained them
    /// on 25 blocking threads at once, and the server held 490 MB instead of about 230 MB after.
    /// Taken per batch, so a pair added during a long upload waits one batch, not the upload.
    embedding: Arc<tokio::sync::Semaphore>,
}

/// Sources trained at once: `configured`, or one per core.
fn training_slots(configured: usize) -> usize {
    if configured > 0 {
        configured
    } else {
        std::thread::available_parallelism().map(usize::from).unwrap_or(2)
    }
}

impl Trainer {
    /// How many sources may be trained at once now (for tests and diagnostics).
    pub fn free_training_slots(&self) -> usize {
        self.slots.available_permits()
    }

    pub fn new(store: Store, settings: &Settings) -> Trainer {
        Trainer {
            store,
            embedder: None,
            events: None,
            crawler: settings.crawler.clone(),
            pdf: PdfLimits {
                max_bytes: settings.uploads.max_pdf_bytes as u64,
                max_decompressed: settings.training.max_pdf_decompressed_bytes,
                ..PdfLimits::default()
            },
            chunking: ChunkConfig::default(),
            inflight: Arc::new(InFlight::default()),
            slots: Arc::new(tokio::sync::Semaphore::new(training_slots(settings.training.max_concurrent))),
            embedding: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }

    /// Chunks get dense vectors from `embedder` (stored as little-endian f32 bytes).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Trainer {
        self.embedder = Some(embedder);
        self
    }

    pub fn with_events(mut self, sink: EventSink) -> Trainer {
        self.events = Some(sink);
        self
    }

    pub fn with_crawler_settings(mut self, crawler: CrawlerSettings) -> Trainer {
        self.crawler = crawler;
        self
    }

    pub fn with_pdf_limits(mut self, limits: PdfLimits) -> Trainer {
        self.pdf = limits;
        self
    }

    pub fn with_chunking(mut self, chunking: ChunkConfig) -> Trainer {
        self.chunking = chunking;
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn emit(&self, event: TrainingEvent) {
        if let Some(sink) = &self.events {
            sink(event);
        }
    }

    fn emit_status(&self, bot_id: &str, item: TrainedItem, status: TrainingStatus, reason: Option<String>) {
        self.emit(TrainingEvent::Status { bot_id: bot_id.to_string(), item, status, reason });
    }

    // ---- adding: validate, store in `processing`; the caller then trains (usually spawned) ----

    /// A custom text (at most 5000 characters). `name` defaults to the text's start.
    pub async fn add_text(&self, bot_id: &str, name: Option<&str>, content: &str) -> IngestResult<KnowledgeSource> {
        let content = content.trim();
        if content.is_empty() {
            return Err(IngestError::Invalid("Text is required".into()));
        }
        if content.chars().count() > MAX_TEXT_CHARS {
            return Err(IngestError::Invalid(format!("Text must be at most {MAX_TEXT_CHARS} characters")));
        }
        let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) if n.chars().count() > MAX_SOURCE_NAME_CHARS => {
                return Err(IngestError::Invalid(format!("Title must be at most {MAX_SOURCE_NAME_CHARS} characters")));
            }
            Some(n) => n.to_string(),
            None => {
                let start: String = content.chars().take(50).collect();
                start.split_whitespace().collect::<Vec<_>>().join(" ")
            }
        };
        let source = self
            .store
            .add_source(NewSource {
                bot_id: bot_id.to_string(),
                kind: SourceKind::Text,
                name,
                url: None,
                content: Some(content.to_string()),
                file_path: None,
                size_bytes: Some(content.len() as i64),
            })
            .await?;
        self.emit_status(bot_id, TrainedItem::Source(source.id.clone()), TrainingStatus::Processing, None);
        Ok(source)
    }

    /// An uploaded PDF already saved at `file_path` (the file is kept for re-training).
    pub async fn add_pdf(&self, bot_id: &str, name: &str, file_path: &Path, size_bytes: u64) -> IngestResult<KnowledgeSource> {
        if size_bytes > self.pdf.max_bytes {
            return Err(IngestError::Invalid("File size must be less than 10MB".into()));
        }
        let source = self
            .store
            .add_source(NewSource {
                bot_id: bot_id.to_string(),
                kind: SourceKind::Pdf,
                // The browser sends the file's own name; a long one is shortened, not refused.
                name: name.chars().take(MAX_SOURCE_NAME_CHARS).collect(),
                url: None,
                content: None,
                file_path: Some(file_path.to_string_lossy().into_owned()),
                size_bytes: Some(i64::try_from(size_bytes).unwrap_or(i64::MAX)),
            })
            .await?;
        self.emit_status(bot_id, TrainedItem::Source(source.id.clone()), TrainingStatus::Processing, None);
        Ok(source)
    }

    /// A website to crawl from `url` (a missing scheme means https).
    pub async fn add_website(&self, bot_id: &str, url: &str) -> IngestResult<KnowledgeSource> {
        let url = parse_start_url(url)?;
        let source = self
            .store
            .add_source(NewSource {
                bot_id: bot_id.to_string(),
                kind: SourceKind::Website,
                name: url.to_string(),
                url: Some(url.to_string()),
                content: None,
                file_path: None,
                size_bytes: None,
            })
            .await?;
        self.emit_status(bot_id, TrainedItem::Source(source.id.clone()), TrainingStatus::Processing, None);
        Ok(source)
    }

    /// A Q&A pair (question at most 150 characters, answer at most 500, both required).
    pub async fn add_qa(&self, bot_id: &str, question: &str, answer: &str) -> IngestResult<QaPair> {
        let (question, answer) = validate_qa(question, answer)?;
        let pair = self.store.add_qa_pair(bot_id, &question, &answer).await?;
        self.emit_status(bot_id, TrainedItem::Qa(pair.id.clone()), TrainingStatus::Processing, None);
        Ok(pair)
    }

    /// Starts training a source on the runtime and returns at once.
    pub fn spawn_source(&self, source_id: String) -> tokio::task::JoinHandle<IngestResult<TrainingStatus>> {
        let trainer = self.clone();
        tokio::spawn(async move { logged(&source_id, trainer.train_source(&source_id).await) })
    }

    pub fn spawn_qa(&self, qa_id: String) -> tokio::task::JoinHandle<IngestResult<TrainingStatus>> {
        let trainer = self.clone();
        tokio::spawn(async move { logged(&qa_id, trainer.train_qa(&qa_id).await) })
    }

    // ---- training ----

    /// Extracts, chunks, embeds and stores one source, leaving it `completed` or `failed`.
    /// Problems with the source itself end as `Ok(Failed)` with the reason stored; `Err` is
    /// for the store failing (or the source having been deleted meanwhile). While the source
    /// is already being trained this returns `Processing` at once and that run goes once more.
    pub async fn train_source(&self, source_id: &str) -> IngestResult<TrainingStatus> {
        let Some(mut claim) = self.inflight.claim(format!("source:{source_id}")) else {
            return Ok(TrainingStatus::Processing);
        };
        loop {
            let status = self.train_source_once(source_id).await?;
            if !claim.run_again() {
                return Ok(status);
            }
        }
    }

    async fn train_source_once(&self, source_id: &str) -> IngestResult<TrainingStatus> {
        // Waits its turn; the source stays `processing` meanwhile.
        let _slot = self.slots.acquire().await.map_err(|e| IngestError::Io(format!("training stopped: {e}")))?;
        let source = self.store.source(source_id).await?.ok_or(IngestError::NotFound)?;
        let item = TrainedItem::Source(source.id.clone());
        let outcome = match self.prepare_source(&source).await {
            Ok((chunks, pages)) => match self.embed(chunks, true).await {
                Ok(chunks) => Ok((chunks, pages)),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        match outcome {
            Ok((chunks, pages)) => {
                let version = match self.store.replace_source_chunks(&source.id, chunks, pages).await {
                    Ok(version) => version,
                    Err(StoreError::NotFound) => return Err(IngestError::NotFound),
                    // Not left `processing` until a restart: failed, with what to do.
                    Err(e) => {
                        tracing::warn!(source = %source.id, "saving a trained source failed: {e}");
                        let version = self.store.fail_source(&source.id, NOT_SAVED).await?;
                        self.emit_status(&source.bot_id, item, TrainingStatus::Failed, Some(NOT_SAVED.into()));
                        self.emit(TrainingEvent::KnowledgeChanged { bot_id: source.bot_id.clone(), version });
                        return Ok(TrainingStatus::Failed);
                    }
                };
                self.emit_status(&source.bot_id, item, TrainingStatus::Completed, None);
                self.emit(TrainingEvent::KnowledgeChanged { bot_id: source.bot_id.clone(), version });
                Ok(TrainingStatus::Completed)
            }
            Err(IngestError::Store(e)) => Err(IngestError::Store(e)),
            Err(e) => {
                let reason = e.to_string();
                tracing::info!(source = %source.id, kind = %source.kind, %reason, "training failed");
                let version = self.store.fail_source(&source.id, &reason).await?;
                self.emit_status(&source.bot_id, item, TrainingStatus::Failed, Some(reason));
                self.emit(TrainingEvent::KnowledgeChanged { bot_id: source.bot_id.clone(), version });
                Ok(TrainingStatus::Failed)
            }
        }
    }

    /// The chunks of a source (and its page count, for a PDF).
    async fn prepare_source(&self, source: &KnowledgeSource) -> IngestResult<(Vec<TextChunk>, Option<i32>)> {
        let (sections, pages) = match SourceKind::parse(&source.kind) {
            Some(SourceKind::Text) => {
                let text = source.content.clone().unwrap_or_default();
                (vec![Section { title: source.name.clone(), url: None, page: None, text }], None)
            }
            Some(SourceKind::Pdf) => {
                let path = source.file_path.as_deref().ok_or_else(|| IngestError::Io("the uploaded file is missing".into()))?;
                let pdf = extract_pdf_file(Path::new(path), self.pdf).await?;
                let sections = pdf
                    .pages
                    .into_iter()
                    .map(|(n, text)| Section {
                        title: source.name.clone(),
                        url: None,
                        page: Some(i32::try_from(n).unwrap_or(i32::MAX)),
                        text,
                    })
                    .collect();
                (sections, Some(i32::try_from(pdf.page_count).unwrap_or(i32::MAX)))
            }
            Some(SourceKind::Website) => {
                let url = source.url.as_deref().unwrap_or(&source.name);
                let crawler = Crawler::new(&self.crawler)?;
                let (bot_id, source_id, events) = (source.bot_id.clone(), source.id.clone(), self.events.clone());
                let mut report = move |r: CrawlReport| {
                    if let (CrawlReport::Fetched { url, title }, Some(sink)) = (&r, &events) {
                        sink(TrainingEvent::PageFetched {
                            bot_id: bot_id.clone(),
                            source_id: source_id.clone(),
                            url: url.clone(),
                            title: title.clone(),
                        });
                    }
                };
                let result = crawler.crawl(url, &mut report).await?;
                let count = i32::try_from(result.pages.len()).unwrap_or(i32::MAX);
                let sections = result
                    .pages
                    .into_iter()
                    .map(|p| Section { title: p.title, url: Some(p.url.to_string()), page: None, text: p.text })
                    .collect();
                (sections, Some(count))
            }
            None => return Err(IngestError::Invalid(format!("unknown source kind {:?}", source.kind))),
        };
        // Chunking a crawl's or a PDF's text is CPU work: the blocking pool, not a worker.
        let chunking = self.chunking;
        let chunks = tokio::task::spawn_blocking(move || chunk_sections(&sections, chunking))
            .await
            .map_err(|e| IngestError::Io(format!("chunking stopped: {e}")))?;
        if chunks.is_empty() {
            return Err(IngestError::NoText);
        }
        if chunks.len() > MAX_CHUNKS_PER_SOURCE {
            return Err(IngestError::Invalid(format!(
                "This source holds more text than one source may ({} passages; at most {MAX_CHUNKS_PER_SOURCE}, about 8 MB of text). Split it into smaller sources.",
                chunks.len()
            )));
        }
        Ok((chunks, pages))
    }

    /// Gives each chunk its vector when an embedder is set (on the blocking pool, in batches),
    /// and with `sentences` (passages, not Q&A pairs) a vector per sentence of a chunk of
    /// several, so retrieval can match a question to one sentence without embedding at query
    /// time.
    async fn embed(&self, chunks: Vec<TextChunk>, sentences: bool) -> IngestResult<Vec<NewChunk>> {
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; chunks.len()];
        let mut sentence_vectors: Vec<Option<Vec<f32>>> = vec![None; chunks.len()];
        if let Some(embedder) = &self.embedder {
            // Per chunk: its text, then its sentences; one flat list so batches stay full.
            let mut texts: Vec<String> = Vec::new();
            let mut counts: Vec<usize> = Vec::with_capacity(chunks.len());
            for c in &chunks {
                texts.push(c.content.clone());
                let own: Vec<&str> =
                    if sentences { crate::retrieval::sentences::embedded_sentences(&c.content) } else { Vec::new() };
                counts.push(own.len());
                texts.extend(own.into_iter().map(str::to_string));
            }
            let mut computed: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
            for batch in texts.chunks(EMBED_BATCH) {
                let _turn = self.embedding.acquire().await.map_err(|e| IngestError::Embed(format!("embedding stopped: {e}")))?;
                let (embedder, batch) = (Arc::clone(embedder), batch.to_vec());
                let got = tokio::task::spawn_blocking(move || {
                    let got = embedder.embed(&batch).map_err(|e| IngestError::Embed(e.to_string()))?;
                    if got.len() != batch.len() {
                        return Err(IngestError::Embed(format!("{} vectors for {} texts", got.len(), batch.len())));
                    }
                    Ok(got)
                })
                .await
                .map_err(|e| IngestError::Embed(format!("the embedding task stopped: {e}")))??;
                computed.extend(got);
            }
            let mut computed = computed.into_iter();
            for ((own, slot), sentence_slot) in counts.into_iter().zip(&mut vectors).zip(&mut sentence_vectors) {
                *slot = computed.next();
                if own > 0 {
                    let flat: Vec<f32> = computed.by_ref().take(own).flatten().collect();
                    *sentence_slot = Some(flat);
                }
            }
        }
        Ok(chunks
            .into_iter()
            .zip(vectors.into_iter().zip(sentence_vectors))
            .map(|(c, (embedding, sentence_embeddings))| NewChunk {
                position: c.position,
                title: c.title,
                url: c.url,
                page: c.page,
                content: c.content,
                embedding,
                sentence_embeddings,
            })
            .collect())
    }

    /// Makes a pair's one chunk (question and answer together) and marks it `completed`, or
    /// `failed` with the reason stored. Folded like [`Trainer::train_source`].
    pub async fn train_qa(&self, qa_id: &str) -> IngestResult<TrainingStatus> {
        let Some(mut claim) = self.inflight.claim(format!("qa:{qa_id}")) else {
            return Ok(TrainingStatus::Processing);
        };
        loop {
            let status = self.train_qa_once(qa_id).await?;
            if !claim.run_again() {
                return Ok(status);
            }
        }
    }

    async fn train_qa_once(&self, qa_id: &str) -> IngestResult<TrainingStatus> {
        let pair = self.store.qa_pair(qa_id).await?.ok_or(IngestError::NotFound)?;
        let item = TrainedItem::Qa(pair.id.clone());
        let chunk = TextChunk {
            position: 0,
            title: pair.question.clone(),
            url: None,
            page: None,
            content: format!("{}\n{}", pair.question, pair.answer),
        };
        match self.embed(vec![chunk], false).await {
            Ok(chunks) => {
                let version = match self.store.replace_qa_chunks(&pair.id, chunks).await {
                    Ok(version) => version,
                    Err(StoreError::NotFound) => return Err(IngestError::NotFound),
                    Err(e) => {
                        tracing::warn!(qa = %pair.id, "saving a trained Q&A pair failed: {e}");
                        let version = self.store.fail_qa(&pair.id, NOT_SAVED).await?;
                        self.emit_status(&pair.bot_id, item, TrainingStatus::Failed, Some(NOT_SAVED.into()));
                        self.emit(TrainingEvent::KnowledgeChanged { bot_id: pair.bot_id.clone(), version });
                        return Ok(TrainingStatus::Failed);
                    }
                };
                self.emit_status(&pair.bot_id, item, TrainingStatus::Completed, None);
                self.emit(TrainingEvent::KnowledgeChanged { bot_id: pair.bot_id.clone(), version });
                Ok(TrainingStatus::Completed)
            }
            Err(e) => {
                // Its old chunk goes too: a pair shown as failed answers nothing.
                let reason = e.to_string();
                let version = self.store.fail_qa(&pair.id, &reason).await?;
                self.emit_status(&pair.bot_id, item, TrainingStatus::Failed, Some(reason));
                self.emit(TrainingEvent::KnowledgeChanged { bot_id: pair.bot_id.clone(), version });
                Ok(TrainingStatus::Failed)
            }
        }
    }

    /// Re-trains everything a bot knows: every source goes back to `processing` and is
    /// extracted again (websites are re-crawled), every Q&A pair re-made. One at a time, so a
    /// re-train does not flood the machine.
    /// A re-train requested while one runs for the bot is folded into one more pass after it.
    pub async fn retrain_bot(&self, bot_id: &str) -> IngestResult<RetrainSummary> {
        let Some(mut claim) = self.inflight.claim(format!("bot:{bot_id}")) else {
            return Ok(RetrainSummary::default());
        };
        loop {
            let summary = self.retrain_bot_once(bot_id).await?;
            if !claim.run_again() {
                return Ok(summary);
            }
        }
    }

    async fn retrain_bot_once(&self, bot_id: &str) -> IngestResult<RetrainSummary> {
        let sources = self.store.all_sources(bot_id).await?;
        let pairs = self.store.qa_pairs(bot_id).await?;
        for s in &sources {
            self.store.set_source_status(&s.id, TrainingStatus::Processing, None).await?;
            self.emit_status(bot_id, TrainedItem::Source(s.id.clone()), TrainingStatus::Processing, None);
        }
        for p in &pairs {
            self.store.set_qa_status(&p.id, TrainingStatus::Processing, None).await?;
            self.emit_status(bot_id, TrainedItem::Qa(p.id.clone()), TrainingStatus::Processing, None);
        }
        // One that cannot be finished (the database failing) does not keep the rest waiting.
        let mut summary = RetrainSummary::default();
        for s in sources {
            match self.train_source(&s.id).await {
                Ok(status) => summary.add(status),
                Err(IngestError::NotFound) => {} // deleted meanwhile
                Err(e) => tracing::warn!(source = %s.id, "re-training a source did not finish: {e}"),
            }
        }
        for p in pairs {
            match self.train_qa(&p.id).await {
                Ok(status) => summary.add(status),
                Err(IngestError::NotFound) => {}
                Err(e) => tracing::warn!(qa = %p.id, "re-training a Q&A pair did not finish: {e}"),
            }
        }
        Ok(summary)
    }

    /// At start-up: trains again whatever a crash or stop left `processing`. A source that can
    /// no longer be trained (its file gone, say) ends `failed` with the reason.
    pub async fn resume_unfinished(&self) -> IngestResult<RetrainSummary> {
        let mut summary = RetrainSummary::default();
        for s in self.store.unfinished_sources().await? {
            tracing::info!(source = %s.id, bot = %s.bot_id, "resuming training left unfinished");
            match self.train_source(&s.id).await {
                Ok(status) => summary.add(status),
                Err(IngestError::NotFound) => {}
                Err(e) => return Err(e),
            }
        }
        for p in self.store.unfinished_qa_pairs().await? {
            match self.train_qa(&p.id).await {
                Ok(status) => summary.add(status),
                Err(IngestError::NotFound) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(summary)
    }
}

/// Most chunks one source may make (about 8 MB of text at the default chunk size): a PDF or a
/// crawl past it would hold the server's memory and CPU for its vectors, and fails instead.
const MAX_CHUNKS_PER_SOURCE: usize = 10_000;

/// What a source or pair that was read but could not be saved says (the database failed).
const NOT_SAVED: &str = "The trained text could not be saved (the database did not answer in time). Retrain to try again.";

/// A training run spawned on its own (its caller does not wait): an error the source could not
/// record as its status goes to the log.
fn logged(item: &str, outcome: IngestResult<TrainingStatus>) -> IngestResult<TrainingStatus> {
    if let Err(e) = &outcome {
        if !matches!(e, IngestError::NotFound) {
            tracing::warn!(item, "training did not finish: {e}");
        }
    }
    outcome
}

/// The spec's Q&A rules; returns the trimmed pair.
pub fn validate_qa(question: &str, answer: &str) -> IngestResult<(String, String)> {
    let (q, a) = (question.trim(), answer.trim());
    if q.is_empty() || a.is_empty() {
        return Err(IngestError::Invalid("Question and answer are required".into()));
    }
    if q.chars().count() > MAX_QUESTION_CHARS {
        return Err(IngestError::Invalid(format!("Question must be at most {MAX_QUESTION_CHARS} characters")));
    }
    if a.chars().count() > MAX_ANSWER_CHARS {
        return Err(IngestError::Invalid(format!("Answer must be at most {MAX_ANSWER_CHARS} characters")));
    }
    Ok((q.to_string(), a.to_string()))
}
