//! Sentence embeddings computed in-process on the CPU: all-MiniLM-L6-v2 (a 6-layer BERT) through
//! candle, mean-pooled and L2-normalised to 384 dimensions. Also the byte encoding vectors are
//! stored with (little-endian f32).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config as BertConfig};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// Where `scripts/fetch-model.sh` puts the model by default (relative to the working directory).
pub const DEFAULT_MODEL_DIR: &str = "data/models/all-MiniLM-L6-v2";
/// Overrides the model directory for tests and the bench harness.
pub const MODEL_DIR_ENV: &str = "PARLEY_EMBEDDINGS_MODEL_DIR";

/// Texts longer than this many word pieces are truncated (the model was trained at 256).
const MAX_TOKENS: usize = 256;
/// Texts per forward pass; bigger batches pad more and gain little on two cores.
const BATCH_SIZE: usize = 16;

#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    #[error("embedding model directory {0} is missing {1}")]
    MissingFile(PathBuf, &'static str),
    #[error("embedding model file {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("embedding model config {path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("model: {0}")]
    Model(String),
    #[error("stored vector has {0} bytes, not a multiple of 4")]
    VectorBytes(usize),
}

impl From<candle_core::Error> for EmbedError {
    fn from(e: candle_core::Error) -> Self {
        EmbedError::Model(e.to_string())
    }
}

/// Turns texts into unit-length vectors. Blocking and CPU-heavy: call it from a blocking pool.
pub trait Embedder: Send + Sync {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    fn dims(&self) -> usize;
}

/// all-MiniLM-L6-v2 (or any BERT sentence-transformer laid out the same way) on the CPU.
pub struct MiniLmEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    dims: usize,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder").field("dims", &self.dims).finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads `model.safetensors`, `config.json` and `tokenizer.json` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let file = |name: &'static str| {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(EmbedError::MissingFile(dir.to_path_buf(), name))
            }
        };
        let weights_path = file("model.safetensors")?;
        let config_path = file("config.json")?;
        let tokenizer_path = file("tokenizer.json")?;

        let read = |path: &Path| {
            std::fs::read(path)
                .map_err(|e| EmbedError::Read { path: path.to_path_buf(), message: e.to_string() })
        };
        let config: BertConfig = serde_json::from_slice(&read(&config_path)?)
            .map_err(|e| EmbedError::Config { path: config_path.clone(), message: e.to_string() })?;
        let dims = config.hidden_size;

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        // The shipped tokenizer pads every input to 128; pad a batch to its longest instead.
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..TruncationParams::default() }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;

        let device = Device::Cpu;
        // Tensor by tensor into their own memory (`weights`), not through one 90 MB buffer.
        let vb = VarBuilder::from_tensors(super::weights::read_tensors(&weights_path, &device)?, DType::F32, &device);
        let model = BertModel::load(vb, &config)?;
        Ok(Self { model, tokenizer, device, dims })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inputs: Vec<&str> = texts.to_vec();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let seq_len = encodings.first().map(|e| e.get_ids().len()).unwrap_or(0);
        let rows = encodings.len();
        let mut ids = Vec::with_capacity(rows * seq_len);
        let mut mask = Vec::with_capacity(rows * seq_len);
        for enc in &encodings {
            ids.extend(enc.get_ids().iter().copied());
            mask.extend(enc.get_attention_mask().iter().copied());
        }
        let ids = Tensor::from_vec(ids, (rows, seq_len), &self.device)?;
        let mask = Tensor::from_vec(mask, (rows, seq_len), &self.device)?;
        let type_ids = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?; // (rows, seq, dims)

        // Mean over real tokens only, then unit length (what sentence-transformers does).
        let mask_f = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (rows, seq, 1)
        let summed = hidden.broadcast_mul(&mask_f)?.sum(1)?; // (rows, dims)
        let counts = mask_f.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (rows, 1)
        let mean = summed.broadcast_div(&counts)?;
        let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12f32, f32::MAX)?;
        let unit = mean.broadcast_div(&norms)?;
        Ok(unit.to_vec2::<f32>()?)
    }
}

impl Embedder for MiniLmEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Batch texts of similar length together so little compute goes to padding, then put
        // the vectors back in input order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts.get(i).map(|t| t.len()).unwrap_or(0));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH_SIZE) {
            let batch_texts: Vec<&str> =
                batch.iter().filter_map(|&i| texts.get(i).map(String::as_str)).collect();
            let vectors = self.embed_batch(&batch_texts)?;
            for (&i, v) in batch.iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            }
        }
        Ok(out)
    }

    fn dims(&self) -> usize {
        self.dims
    }
}

/// The model directory to use: `PARLEY_EMBEDDINGS_MODEL_DIR` if set, else the configured one.
pub fn model_dir(configured: &Path) -> PathBuf {
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => configured.to_path_buf(),
    }
}

/// Loads the embedder named by the settings, or `None` (announced once, at warn level) when the
/// directory is not set or the model cannot be loaded: Parley then retrieves with BM25 alone.
pub fn load_embedder(settings: &parley_config::EmbeddingSettings) -> Option<Arc<dyn Embedder>> {
    let dir = model_dir(&settings.model_dir);
    if dir.as_os_str().is_empty() {
        tracing::warn!("embeddings.model_dir is empty: retrieval uses BM25 only");
        return None;
    }
    match MiniLmEmbedder::load(&dir) {
        Ok(model) => {
            tracing::info!(dir = %dir.display(), dims = model.dims(), "sentence-embedding model loaded");
            Some(Arc::new(model))
        }
        Err(e) => {
            tracing::warn!(
                error = %e,
                "no sentence-embedding model (run scripts/fetch-model.sh): retrieval uses BM25 only"
            );
            None
        }
    }
}

/// A vector as stored: little-endian f32s, 4 bytes each.
pub fn encode_vector(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`encode_vector`].
pub fn decode_vector(bytes: &[u8]) -> Result<Vec<f32>, EmbedError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(EmbedError::VectorBytes(bytes.len()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Dot product; equal to cosine similarity for the unit vectors this module produces.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight running sums: a single float sum must be added in order, which keeps the compiler
    // from using SIMD; independent lanes let it (dense search over 100k chunks is this loop).
    const LANES: usize = 8;
    let n = a.len().min(b.len());
    let (a, b) = (a.get(..n).unwrap_or_default(), b.get(..n).unwrap_or_default());
    let body = n - n % LANES;
    let mut lanes = [0.0f32; LANES];
    for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += x * y;
        }
    }
    let tail: f32 = a.iter().zip(b).skip(body).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// Scales `v` to unit length in place (vectors from elsewhere may not be normalised).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// The model for tests: `PARLEY_EMBEDDINGS_MODEL_DIR` or the default path (relative to the
    /// workspace root). `None` skips the test with a note.
    pub(crate) fn model() -> Option<MiniLmEmbedder> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = match std::env::var_os(MODEL_DIR_ENV) {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => root.join(DEFAULT_MODEL_DIR),
        };
        if !dir.join("model.safetensors").is_file() {
            eprintln!("skipped: no model in {} (run scripts/fetch-model.sh)", dir.display());
            return None;
        }
        Some(MiniLmEmbedder::load(&dir).unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_plain_sum_at_every_length() {
        for n in [0usize, 1, 7, 8, 9, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-4, "n = {n}");
        }
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[1.0, 1.0]), 3.0, "the shorter length counts");
    }

    #[test]
    fn vectors_round_trip_as_little_endian_bytes() {
        let v = vec![0.0f32, 1.5, -2.25, f32::MIN_POSITIVE, 1e30];
        let bytes = encode_vector(&v);
        assert_eq!(bytes.len(), 20);
        assert_eq!(&bytes[4..8], &1.5f32.to_le_bytes());
        assert_eq!(decode_vector(&bytes).unwrap(), v);
        assert!(matches!(decode_vector(&bytes[..7]), Err(EmbedError::VectorBytes(7))));
    }

    #[test]
    fn a_missing_model_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = MiniLmEmbedder::load(dir.path()).unwrap_err();
        assert!(matches!(err, EmbedError::MissingFile(_, "model.safetensors")));
        let settings = parley_config::EmbeddingSettings { model_dir: dir.path().to_path_buf() };
        if std::env::var_os(MODEL_DIR_ENV).is_none() {
            assert!(load_embedder(&settings).is_none());
        }
    }

    fn test_model() -> Option<MiniLmEmbedder> {
        super::test_support::model()
    }

    #[test]
    fn embeddings_are_unit_length_and_capture_paraphrase() {
        let Some(model) = test_model() else { return };
        assert_eq!(model.dims(), 384);
        let texts: Vec<String> = [
            "How long does shipping take?",
            "When will my parcel arrive?",
            "Can I pay with a credit card?",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let v = model.embed(&texts).unwrap();
        assert_eq!(v.len(), 4);
        for row in &v {
            assert_eq!(row.len(), 384);
            let norm: f32 = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
        }
        let same = dot(&v[0], &v[1]);
        let other = dot(&v[0], &v[2]);
        assert!(same > other + 0.2, "paraphrase {same} vs unrelated {other}");
    }

    #[test]
    fn batching_does_not_change_the_vectors() {
        let Some(model) = test_model() else { return };
        let texts: Vec<String> = (0..40)
            .map(|i| format!("question number {i} about {}", "returns and refunds ".repeat(i % 5)))
            .collect();
        let all = model.embed(&texts).unwrap();
        for (i, text) in texts.iter().enumerate().step_by(7) {
            let one = model.embed(std::slice::from_ref(text)).unwrap();
            assert!(dot(&one[0], &all[i]) > 0.999, "text {i} differs when padded in a batch");
        }
    }

    #[test]
    fn matches_sentence_transformers_reference_values() {
        // First components of all-MiniLM-L6-v2 for "This is an example sentence", as produced by
        // sentence-transformers (the model card's example); a loose tolerance for float order.
        let Some(model) = test_model() else { return };
        let v = model.embed(&["This is an example sentence".to_string()]).unwrap();
        let expected = [0.0677, 0.0634, 0.0488];
        for (got, want) in v[0].iter().zip(expected) {
            assert!((got - want).abs() < 0.01, "got {got}, want {want}");
        }
    }
}
