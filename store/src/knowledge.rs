//! A bot's knowledge: its training sources (PDF, website, text), its Q&A pairs, and the chunks
//! (with embedding vectors) they were cut into. Chunks are the source of truth the retrieval
//! index is built from; `bots.knowledge_version` moves whenever they change, so an index keyed
//! by it knows when it is stale.
//!
//! The list limits (20 sources per list, 50 Q&A pairs) are checked inside the transaction that
//! inserts, after taking the bot's row lock, so concurrent adds cannot go past them.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::{Chunk, KnowledgeSource, QaPair};
use crate::schema::{bots, chunks, knowledge_sources, qa_pairs};
use crate::{new_id, time, Store, StoreError, StoreResult};

/// At most this many sources in each of the PDF, website and text lists (spec §5, §9).
pub const MAX_SOURCES_PER_LIST: i64 = 20;
/// At most this many Q&A pairs per bot.
pub const MAX_QA_PAIRS: i64 = 50;
pub const MAX_TEXT_CHARS: usize = 5000;
pub const MAX_QUESTION_CHARS: usize = 150;
pub const MAX_ANSWER_CHARS: usize = 500;
/// A source's name (a text's title, a PDF's file name): shown in lists and citations.
pub const MAX_SOURCE_NAME_CHARS: usize = 200;

pub const SOURCES_LIMIT_MESSAGE: &str = "Maximum number of sources reached";
pub const QA_LIMIT_MESSAGE: &str = "Maximum number of Q&A pairs reached";

/// The three source lists kept in `knowledge_sources` (Q&A pairs have their own table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    Pdf,
    Website,
    Text,
}

impl SourceKind {
    pub const ALL: [SourceKind; 3] = [SourceKind::Pdf, SourceKind::Website, SourceKind::Text];

    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Pdf => "pdf",
            SourceKind::Website => "website",
            SourceKind::Text => "text",
        }
    }

    pub fn parse(s: &str) -> Option<SourceKind> {
        match s {
            "pdf" => Some(SourceKind::Pdf),
            "website" => Some(SourceKind::Website),
            "text" => Some(SourceKind::Text),
            _ => None,
        }
    }
}

/// `processing -> completed | failed`, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainingStatus {
    Processing,
    Completed,
    Failed,
}

impl TrainingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TrainingStatus::Processing => "processing",
            TrainingStatus::Completed => "completed",
            TrainingStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<TrainingStatus> {
        match s {
            "processing" => Some(TrainingStatus::Processing),
            "completed" => Some(TrainingStatus::Completed),
            "failed" => Some(TrainingStatus::Failed),
            _ => None,
        }
    }
}

/// A source to add; it starts `processing`.
#[derive(Debug, Clone)]
pub struct NewSource {
    pub bot_id: String,
    pub kind: SourceKind,
    pub name: String,
    pub url: Option<String>,
    pub content: Option<String>,
    pub file_path: Option<String>,
    pub size_bytes: Option<i64>,
}

/// A chunk to store for a source or Q&A pair; `position` is its order within it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewChunk {
    pub position: i32,
    pub title: String,
    pub url: Option<String>,
    pub page: Option<i32>,
    pub content: String,
    pub embedding: Option<Vec<f32>>,
    /// The vectors of a passage's sentences, one after the other (see the retrieval's
    /// sentence splitter); `None` for Q&A pairs and one-sentence chunks.
    pub sentence_embeddings: Option<Vec<f32>>,
}

/// A stored chunk with its embedding decoded, as the retrieval index wants it.
#[derive(Debug, Clone, PartialEq)]
pub struct KnowledgeChunk {
    pub id: String,
    pub bot_id: String,
    pub source_id: Option<String>,
    pub qa_id: Option<String>,
    pub position: i32,
    pub title: String,
    pub url: Option<String>,
    pub page: Option<i32>,
    pub content: String,
    pub embedding: Option<Vec<f32>>,
    pub sentence_embeddings: Option<Vec<f32>>,
    pub created_at: NaiveDateTime,
}

/// How many entries each list of the Training page holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceCounts {
    pub pdf: i64,
    pub website: i64,
    pub text: i64,
    pub qa: i64,
}

impl SourceCounts {
    pub fn of(&self, kind: SourceKind) -> i64 {
        match kind {
            SourceKind::Pdf => self.pdf,
            SourceKind::Website => self.website,
            SourceKind::Text => self.text,
        }
    }
}

/// Embedding vectors are stored as little-endian `f32` bytes.
pub fn encode_embedding(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The inverse of [`encode_embedding`]; `None` when the length is not a whole number of floats.
pub fn decode_embedding(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

impl KnowledgeChunk {
    fn from_row(row: Chunk) -> StoreResult<KnowledgeChunk> {
        let embedding = match row.embedding {
            Some(bytes) => Some(decode_embedding(&bytes).ok_or_else(|| {
                StoreError::Corrupt(format!("chunk {}: embedding of {} bytes", row.id, bytes.len()))
            })?),
            None => None,
        };
        let sentence_embeddings = match row.sentence_embeddings {
            Some(bytes) => Some(decode_embedding(&bytes).ok_or_else(|| {
                StoreError::Corrupt(format!("chunk {}: sentence embeddings of {} bytes", row.id, bytes.len()))
            })?),
            None => None,
        };
        Ok(KnowledgeChunk {
            id: row.id,
            bot_id: row.bot_id,
            source_id: row.source_id,
            qa_id: row.qa_id,
            position: row.position,
            title: row.title,
            url: row.url,
            page: row.page,
            content: row.content,
            embedding,
            sentence_embeddings,
            created_at: row.created_at,
        })
    }
}

fn chunk_rows(
    bot_id: &str,
    source_id: Option<&str>,
    qa_id: Option<&str>,
    new: Vec<NewChunk>,
) -> Vec<Chunk> {
    let now = time::now();
    new.into_iter()
        .map(|c| Chunk {
            id: new_id(),
            bot_id: bot_id.to_string(),
            source_id: source_id.map(str::to_string),
            qa_id: qa_id.map(str::to_string),
            position: c.position,
            title: c.title,
            url: c.url,
            page: c.page,
            content: c.content,
            embedding: c.embedding.as_deref().map(encode_embedding),
            created_at: now,
            sentence_embeddings: c.sentence_embeddings.as_deref().map(encode_embedding),
        })
        .collect()
}

/// Inside a transaction: takes the bot's row lock (a no-op update, which on SQLite also takes
/// the write lock up front) so that checks made after it see every committed add. `NotFound`
/// when the bot does not exist.
macro_rules! lock_bot {
    ($conn:ident, $bot_id:expr) => {{
        let n = diesel::update(bots::table.find($bot_id))
            .set(bots::knowledge_version.eq(bots::knowledge_version))
            .execute($conn)
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
    }};
}

macro_rules! bump_version {
    ($conn:ident, $bot_id:expr) => {{
        // No RETURNING: SQLite's needs a diesel feature; inside the transaction the read
        // that follows sees this write.
        diesel::update(bots::table.find($bot_id))
            .set(bots::knowledge_version.eq(bots::knowledge_version + 1))
            .execute($conn)
            .await?;
        bots::table.find($bot_id).select(bots::knowledge_version).first::<i64>($conn).await?
    }};
}

impl Store {
    /// Adds a source in `processing`, unless its list already holds
    /// [`MAX_SOURCES_PER_LIST`] (then `LimitReached("Maximum number of sources reached")`).
    pub async fn add_source(&self, new: NewSource) -> StoreResult<KnowledgeSource> {
        let now = time::now();
        let row = KnowledgeSource {
            id: new_id(),
            bot_id: new.bot_id,
            kind: new.kind.as_str().to_string(),
            name: new.name,
            status: TrainingStatus::Processing.as_str().to_string(),
            error: None,
            url: new.url,
            content: new.content,
            file_path: new.file_path,
            size_bytes: new.size_bytes,
            pages: None,
            created_at: now,
            updated_at: now,
        };
        db_tx!(self, |conn| async move {
            lock_bot!(conn, &row.bot_id);
            let count: i64 = knowledge_sources::table
                .filter(knowledge_sources::bot_id.eq(&row.bot_id))
                .filter(knowledge_sources::kind.eq(&row.kind))
                .count()
                .get_result(conn)
                .await?;
            if count >= MAX_SOURCES_PER_LIST {
                return Err(StoreError::LimitReached(SOURCES_LIMIT_MESSAGE.to_string()));
            }
            diesel::insert_into(knowledge_sources::table).values(&row).execute(conn).await?;
            Ok(row)
        })
    }

    /// One list of a bot's sources, oldest first.
    pub async fn sources(&self, bot_id: &str, kind: SourceKind) -> StoreResult<Vec<KnowledgeSource>> {
        db_run!(self, |conn| knowledge_sources::table
            .filter(knowledge_sources::bot_id.eq(bot_id))
            .filter(knowledge_sources::kind.eq(kind.as_str()))
            .order((knowledge_sources::created_at.asc(), knowledge_sources::id.asc()))
            .load::<KnowledgeSource>(conn)
            .await)
        .map_err(Into::into)
    }

    /// Every source of a bot, all lists, oldest first.
    pub async fn all_sources(&self, bot_id: &str) -> StoreResult<Vec<KnowledgeSource>> {
        db_run!(self, |conn| knowledge_sources::table
            .filter(knowledge_sources::bot_id.eq(bot_id))
            .order((knowledge_sources::created_at.asc(), knowledge_sources::id.asc()))
            .load::<KnowledgeSource>(conn)
            .await)
        .map_err(Into::into)
    }

    pub async fn source(&self, source_id: &str) -> StoreResult<Option<KnowledgeSource>> {
        db_run!(self, |conn| knowledge_sources::table
            .find(source_id)
            .first::<KnowledgeSource>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    /// Deletes a source of the bot with its chunks; `NotFound` when the bot has no such source.
    /// Moves the knowledge version.
    pub async fn delete_source(&self, bot_id: &str, source_id: &str) -> StoreResult<KnowledgeSource> {
        db_tx!(self, owned(bot_id, source_id), |conn| async move {
            let source: KnowledgeSource = knowledge_sources::table
                .find(source_id)
                .filter(knowledge_sources::bot_id.eq(bot_id))
                .first(conn)
                .await?;
            diesel::delete(chunks::table.filter(chunks::source_id.eq(source_id))).execute(conn).await?;
            diesel::delete(knowledge_sources::table.find(source_id)).execute(conn).await?;
            bump_version!(conn, bot_id);
            Ok(source)
        })
    }

    /// Sets a source's status; `reason` is the human text shown for `failed` (cleared
    /// otherwise). Chunks are left as they are: see [`Store::fail_source`] and
    /// [`Store::replace_source_chunks`] for the transitions that touch the index.
    pub async fn set_source_status(
        &self,
        source_id: &str,
        status: TrainingStatus,
        reason: Option<&str>,
    ) -> StoreResult<()> {
        let reason = if status == TrainingStatus::Failed { reason } else { None };
        let now = time::now();
        let n = db_run!(self, |conn| diesel::update(knowledge_sources::table.find(source_id))
            .set((
                knowledge_sources::status.eq(status.as_str()),
                knowledge_sources::error.eq(reason),
                knowledge_sources::updated_at.eq(now),
            ))
            .execute(conn)
            .await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Marks a source `failed` with its reason and takes its chunks out of the index, since a
    /// failed source is not part of what the bot knows. Returns the knowledge version.
    pub async fn fail_source(&self, source_id: &str, reason: &str) -> StoreResult<i64> {
        let now = time::now();
        db_tx!(self, owned(source_id, reason), |conn| async move {
            let bot_id: String = knowledge_sources::table
                .find(source_id)
                .select(knowledge_sources::bot_id)
                .first(conn)
                .await?;
            diesel::update(knowledge_sources::table.find(source_id))
                .set((
                    knowledge_sources::status.eq(TrainingStatus::Failed.as_str()),
                    knowledge_sources::error.eq(reason),
                    knowledge_sources::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            let removed =
                diesel::delete(chunks::table.filter(chunks::source_id.eq(source_id))).execute(conn).await?;
            if removed > 0 {
                Ok(bump_version!(conn, &bot_id))
            } else {
                Ok(bots::table.find(&bot_id).select(bots::knowledge_version).first::<i64>(conn).await?)
            }
        })
    }

    /// Replaces every chunk of a source with `new` and marks it `completed` (with its page
    /// count, for PDFs), all in one transaction: a source is completed exactly when its text is
    /// indexed. Moves the knowledge version and returns it.
    pub async fn replace_source_chunks(
        &self,
        source_id: &str,
        new: Vec<NewChunk>,
        pages: Option<i32>,
    ) -> StoreResult<i64> {
        let now = time::now();
        db_tx!(self, owned(source_id), |conn| async move {
            let bot_id: String = knowledge_sources::table
                .find(source_id)
                .select(knowledge_sources::bot_id)
                .first(conn)
                .await?;
            let rows = chunk_rows(&bot_id, Some(source_id), None, new);
            diesel::delete(chunks::table.filter(chunks::source_id.eq(source_id))).execute(conn).await?;
            // One row per statement: diesel cannot batch-insert rows with nullable columns on
            // SQLite; inside one transaction this stays fast on both backends.
            for row in &rows {
                diesel::insert_into(chunks::table).values(row).execute(conn).await?;
            }
            diesel::update(knowledge_sources::table.find(source_id))
                .set((
                    knowledge_sources::status.eq(TrainingStatus::Completed.as_str()),
                    knowledge_sources::error.eq(None::<String>),
                    knowledge_sources::pages.eq(pages),
                    knowledge_sources::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(bump_version!(conn, &bot_id))
        })
    }

    /// Adds a Q&A pair in `processing`, unless the bot has [`MAX_QA_PAIRS`] already (then
    /// `LimitReached("Maximum number of Q&A pairs reached")`).
    pub async fn add_qa_pair(&self, bot_id: &str, question: &str, answer: &str) -> StoreResult<QaPair> {
        let now = time::now();
        let row = QaPair {
            id: new_id(),
            bot_id: bot_id.to_string(),
            question: question.to_string(),
            answer: answer.to_string(),
            status: TrainingStatus::Processing.as_str().to_string(),
            error: None,
            created_at: now,
            updated_at: now,
        };
        db_tx!(self, |conn| async move {
            lock_bot!(conn, &row.bot_id);
            let count: i64 = qa_pairs::table
                .filter(qa_pairs::bot_id.eq(&row.bot_id))
                .count()
                .get_result(conn)
                .await?;
            if count >= MAX_QA_PAIRS {
                return Err(StoreError::LimitReached(QA_LIMIT_MESSAGE.to_string()));
            }
            diesel::insert_into(qa_pairs::table).values(&row).execute(conn).await?;
            Ok(row)
        })
    }

    /// A bot's Q&A pairs, oldest first.
    pub async fn qa_pairs(&self, bot_id: &str) -> StoreResult<Vec<QaPair>> {
        db_run!(self, |conn| qa_pairs::table
            .filter(qa_pairs::bot_id.eq(bot_id))
            .order((qa_pairs::created_at.asc(), qa_pairs::id.asc()))
            .load::<QaPair>(conn)
            .await)
        .map_err(Into::into)
    }

    pub async fn qa_pair(&self, qa_id: &str) -> StoreResult<Option<QaPair>> {
        db_run!(self, |conn| qa_pairs::table.find(qa_id).first::<QaPair>(conn).await.optional())
            .map_err(Into::into)
    }

    /// Changes a pair's text and puts it back to `processing` (its chunk is re-made by the
    /// trainer).
    pub async fn update_qa_pair(&self, bot_id: &str, qa_id: &str, question: &str, answer: &str) -> StoreResult<QaPair> {
        let now = time::now();
        db_tx!(self, owned(bot_id, qa_id, question, answer), |conn| async move {
            let n = diesel::update(qa_pairs::table.find(qa_id).filter(qa_pairs::bot_id.eq(bot_id)))
                .set((
                    qa_pairs::question.eq(question),
                    qa_pairs::answer.eq(answer),
                    qa_pairs::status.eq(TrainingStatus::Processing.as_str()),
                    qa_pairs::error.eq(None::<String>),
                    qa_pairs::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            Ok(qa_pairs::table.find(qa_id).first::<QaPair>(conn).await?)
        })
    }

    /// Deletes a pair of the bot with its chunk; moves the knowledge version.
    pub async fn delete_qa_pair(&self, bot_id: &str, qa_id: &str) -> StoreResult<QaPair> {
        db_tx!(self, owned(bot_id, qa_id), |conn| async move {
            let pair: QaPair =
                qa_pairs::table.find(qa_id).filter(qa_pairs::bot_id.eq(bot_id)).first(conn).await?;
            diesel::delete(chunks::table.filter(chunks::qa_id.eq(qa_id))).execute(conn).await?;
            diesel::delete(qa_pairs::table.find(qa_id)).execute(conn).await?;
            bump_version!(conn, bot_id);
            Ok(pair)
        })
    }

    /// Sets a pair's status; `error` is the reason for `failed` (cleared otherwise).
    pub async fn set_qa_status(&self, qa_id: &str, status: TrainingStatus, error: Option<&str>) -> StoreResult<()> {
        let now = time::now();
        let error = error.filter(|_| status == TrainingStatus::Failed);
        let n = db_run!(self, |conn| diesel::update(qa_pairs::table.find(qa_id))
            .set((qa_pairs::status.eq(status.as_str()), qa_pairs::error.eq(error), qa_pairs::updated_at.eq(now)))
            .execute(conn)
            .await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Marks a Q&A pair `failed` with `reason` and removes its chunks, in one transaction, so a
    /// pair shown as failed does not go on answering with what it said before (an edit whose
    /// new text could not be embedded). Moves the knowledge version when a chunk went, and
    /// returns the version.
    pub async fn fail_qa(&self, qa_id: &str, reason: &str) -> StoreResult<i64> {
        let now = time::now();
        db_tx!(self, owned(qa_id, reason), |conn| async move {
            let bot_id: String = qa_pairs::table.find(qa_id).select(qa_pairs::bot_id).first(conn).await?;
            diesel::update(qa_pairs::table.find(qa_id))
                .set((
                    qa_pairs::status.eq(TrainingStatus::Failed.as_str()),
                    qa_pairs::error.eq(reason),
                    qa_pairs::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            let removed = diesel::delete(chunks::table.filter(chunks::qa_id.eq(qa_id))).execute(conn).await?;
            if removed > 0 {
                Ok(bump_version!(conn, &bot_id))
            } else {
                Ok(bots::table.find(&bot_id).select(bots::knowledge_version).first::<i64>(conn).await?)
            }
        })
    }

    /// Replaces a Q&A pair's chunks and marks it `completed`, in one transaction; moves the
    /// knowledge version and returns it.
    pub async fn replace_qa_chunks(&self, qa_id: &str, new: Vec<NewChunk>) -> StoreResult<i64> {
        let now = time::now();
        db_tx!(self, owned(qa_id), |conn| async move {
            let bot_id: String = qa_pairs::table.find(qa_id).select(qa_pairs::bot_id).first(conn).await?;
            let rows = chunk_rows(&bot_id, None, Some(qa_id), new);
            diesel::delete(chunks::table.filter(chunks::qa_id.eq(qa_id))).execute(conn).await?;
            // One row per statement: diesel cannot batch-insert rows with nullable columns on
            // SQLite; inside one transaction this stays fast on both backends.
            for row in &rows {
                diesel::insert_into(chunks::table).values(row).execute(conn).await?;
            }
            diesel::update(qa_pairs::table.find(qa_id))
                .set((
                    qa_pairs::status.eq(TrainingStatus::Completed.as_str()),
                    qa_pairs::error.eq(None::<String>),
                    qa_pairs::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(bump_version!(conn, &bot_id))
        })
    }

    /// Every chunk of a bot with its embedding, in a stable order (sources and pairs by id,
    /// then position), for building the retrieval index.
    pub async fn bot_chunks(&self, bot_id: &str) -> StoreResult<Vec<KnowledgeChunk>> {
        let rows = db_run!(self, |conn| chunks::table
            .filter(chunks::bot_id.eq(bot_id))
            .order((chunks::source_id.asc(), chunks::qa_id.asc(), chunks::position.asc(), chunks::id.asc()))
            .load::<Chunk>(conn)
            .await)?;
        rows.into_iter().map(KnowledgeChunk::from_row).collect()
    }

    /// Chunks of one source, by position.
    pub async fn source_chunks(&self, source_id: &str) -> StoreResult<Vec<KnowledgeChunk>> {
        let rows = db_run!(self, |conn| chunks::table
            .filter(chunks::source_id.eq(source_id))
            .order((chunks::position.asc(), chunks::id.asc()))
            .load::<Chunk>(conn)
            .await)?;
        rows.into_iter().map(KnowledgeChunk::from_row).collect()
    }

    /// The bot's knowledge version (moves on every change of its chunks).
    pub async fn knowledge_version(&self, bot_id: &str) -> StoreResult<i64> {
        db_run!(self, |conn| bots::table.find(bot_id).select(bots::knowledge_version).first::<i64>(conn).await)
            .map_err(Into::into)
    }

    /// Moves the knowledge version without changing chunks (a forced index rebuild).
    pub async fn bump_knowledge_version(&self, bot_id: &str) -> StoreResult<i64> {
        db_tx!(self, owned(bot_id), |conn| async move {
            let v: i64 = bump_version!(conn, bot_id);
            Ok(v)
        })
    }

    /// How many entries each list of the bot holds.
    pub async fn source_counts(&self, bot_id: &str) -> StoreResult<SourceCounts> {
        db_run!(self, |conn| {
            let by_kind: Vec<(String, i64)> = knowledge_sources::table
                .filter(knowledge_sources::bot_id.eq(bot_id))
                .group_by(knowledge_sources::kind)
                .select((knowledge_sources::kind, diesel::dsl::count_star()))
                .load(conn)
                .await?;
            let qa: i64 = qa_pairs::table.filter(qa_pairs::bot_id.eq(bot_id)).count().get_result(conn).await?;
            let mut counts = SourceCounts { qa, ..SourceCounts::default() };
            for (kind, n) in by_kind {
                match SourceKind::parse(&kind) {
                    Some(SourceKind::Pdf) => counts.pdf = n,
                    Some(SourceKind::Website) => counts.website = n,
                    Some(SourceKind::Text) => counts.text = n,
                    None => {}
                }
            }
            Ok::<_, StoreError>(counts)
        })
    }

    /// Sources left `processing` (by a crash or a stop mid-training), oldest first.
    pub async fn unfinished_sources(&self) -> StoreResult<Vec<KnowledgeSource>> {
        db_run!(self, |conn| knowledge_sources::table
            .filter(knowledge_sources::status.eq(TrainingStatus::Processing.as_str()))
            .order((knowledge_sources::created_at.asc(), knowledge_sources::id.asc()))
            .load::<KnowledgeSource>(conn)
            .await)
        .map_err(Into::into)
    }

    /// Q&A pairs left `processing`, oldest first.
    pub async fn unfinished_qa_pairs(&self) -> StoreResult<Vec<QaPair>> {
        db_run!(self, |conn| qa_pairs::table
            .filter(qa_pairs::status.eq(TrainingStatus::Processing.as_str()))
            .order((qa_pairs::created_at.asc(), qa_pairs::id.asc()))
            .load::<QaPair>(conn)
            .await)
        .map_err(Into::into)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn embeddings_round_trip_as_little_endian_floats() {
        let v = vec![0.0f32, -1.5, 3.25, f32::MAX];
        let bytes = encode_embedding(&v);
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[4..8], &(-1.5f32).to_le_bytes());
        assert_eq!(decode_embedding(&bytes).unwrap(), v);
        assert!(decode_embedding(&[1, 2, 3]).is_none());
    }

    #[test]
    fn kinds_and_statuses_parse_what_they_print() {
        for k in SourceKind::ALL {
            assert_eq!(SourceKind::parse(k.as_str()), Some(k));
        }
        for s in [TrainingStatus::Processing, TrainingStatus::Completed, TrainingStatus::Failed] {
            assert_eq!(TrainingStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(SourceKind::parse("qa"), None);
    }
}
