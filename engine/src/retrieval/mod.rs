//! Retrieval over a bot's knowledge: BM25, in-process sentence embeddings, the hybrid index
//! and the per-node cache of built indexes.

pub mod bm25;
pub mod embed;
pub mod index;
pub mod sentences;

pub use embed::{decode_vector, encode_vector, load_embedder, EmbedError, Embedder, MiniLmEmbedder};
pub use index::{
    ChunkRecord, Fusion, Hit, HybridIndex, IndexCache, IndexOptions, Mode, Passage, RetrievalError,
    SourceKind, UnitScore,
};
