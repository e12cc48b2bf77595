//! The seam to the sentence-embedding model: ingestion gives each chunk a dense vector with the
//! same `Embedder` retrieval uses for questions (candle, all-MiniLM-L6-v2). Without one, chunks
//! are stored without vectors and retrieval falls back to BM25.

pub use crate::retrieval::embed::{EmbedError, Embedder};

/// How many texts one `embed` call gets.
pub const EMBED_BATCH: usize = 32;
