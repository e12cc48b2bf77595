//! The seam to the sentence-embedding model: ingestion calls it to give each chunk a dense
//! vector; the retrieval side implements it (candle, all-MiniLM-L6-v2). Without one, chunks are
//! stored without vectors and retrieval falls back to BM25.

/// Why embedding failed, in words for the source's failure reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct EmbedError(pub String);

/// Turns texts into vectors, one per text, in order, all of the same dimension. Called on a
/// blocking pool thread (it may be CPU-heavy) with batches of at most [`EMBED_BATCH`] texts.
pub trait Embedder: Send + Sync {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// How many texts one `embed` call gets.
pub const EMBED_BATCH: usize = 32;
