//! Retrieval over a bot's knowledge: BM25, in-process sentence embeddings, the hybrid index,
//! the per-node cache of built indexes, and the thread that embeds visitors' questions in batches.

pub mod bm25;
pub mod embed;
pub mod index;
pub mod query_batch;
pub mod sentences;
pub mod weights;

pub use embed::{decode_vector, encode_vector, load_embedder, EmbedError, Embedder, MiniLmEmbedder};
pub use index::{
    ChunkRecord, Fusion, Hit, HybridIndex, IndexCache, IndexOptions, Mode, Passage, RetrievalError,
    SourceKind, UnitScore,
};
