//! Knowledge ingestion: turning a training source (PDF, website, text, Q&A pair) into stored
//! chunks. Extraction (`pdf`, `html`, `crawl`) -> chunking (`chunk`) -> optional embedding
//! (`embedder`) -> the store, driven by the [`Trainer`] in `pipeline`.

pub mod chunk;
pub mod crawl;
pub mod embedder;
pub mod html;
pub mod inflight;
pub mod pdf;
pub mod pipeline;

pub use chunk::{chunk_sections, ChunkConfig, Section};
pub use crawl::{CrawlReport, CrawlResult, CrawledPage, Crawler};
pub use embedder::{EmbedError, Embedder};
pub use pdf::{extract_pdf_bytes, extract_pdf_file, PdfLimits, PdfText};
pub use pipeline::{EventSink, RetrainSummary, TrainedItem, Trainer, TrainingEvent};

use parley_store::StoreError;

/// Why a source could not be trained. The `Display` text is the human reason stored with a
/// `failed` source, so it is written for the person who added it.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("not a PDF")]
    NotPdf,
    #[error("no extractable text")]
    NoText,
    #[error("file is larger than {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("the PDF could not be read: {0}")]
    BadPdf(String),
    #[error("{what} took longer than {secs} seconds")]
    Timeout { what: &'static str, secs: u64 },
    /// Input refused before anything was stored (the spec's validation message).
    #[error("{0}")]
    Invalid(String),
    /// A list is full (the spec's message).
    #[error("{0}")]
    LimitReached(String),
    /// The crawler refused an address (private, loopback, another site, a bad scheme).
    #[error("refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Fetch(String),
    #[error("embedding failed: {0}")]
    Embed(String),
    #[error("{0}")]
    Io(String),
    #[error("not found")]
    NotFound,
    #[error("store: {0}")]
    Store(StoreError),
}

impl From<StoreError> for IngestError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::LimitReached(m) => IngestError::LimitReached(m),
            StoreError::NotFound => IngestError::NotFound,
            other => IngestError::Store(other),
        }
    }
}

pub type IngestResult<T> = Result<T, IngestError>;
