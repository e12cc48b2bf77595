//! Writes the public evaluation tasks' vectors and BM25 candidates to a directory, so retrieval
//! rules can be explored offline (numpy) without rebuilding: per task, `<set>-<shape>.json`
//! (chunks' text, sentence counts, sentences and BM25 words, whole and per embedded sentence;
//! questions with their text, expected chunk, half, BM25 candidates and words) and
//! `<set>-<shape>.f32` (little-endian vectors: each chunk's whole vector then its sentences',
//! chunk by chunk, then each question's).
//!
//! `cargo run --release -p parley-bench --example dump_public_vectors -- OUT_DIR [MODEL_DIR]`

use std::io::Write;
use std::path::PathBuf;

use parley_bench::external::{self, Memo, Shape};
use parley_engine::retrieval::bm25::{Bm25Index, Field};
use parley_engine::retrieval::{Embedder, IndexOptions, MiniLmEmbedder};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().ok_or("usage: dump_public_vectors OUT_DIR [MODEL_DIR]")?);
    let model = PathBuf::from(args.next().unwrap_or_else(|| "data/models/all-MiniLM-L6-v2".into()));
    std::fs::create_dir_all(&out)?;
    let embedder = MiniLmEmbedder::load(&model)?;
    let memo = Memo::new(&embedder);
    let sets = external::load_dir(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/external"))?;
    let tasks = external::tasks(&sets, Some(&memo as &dyn Embedder))?;
    let options = IndexOptions::default();
    for t in &tasks {
        let shape = if t.shape == Shape::Answers { "1" } else { "3" };
        let mut bin = std::io::BufWriter::new(std::fs::File::create(out.join(format!("{}-{shape}.f32", t.set)))?);
        let mut put = |v: &[f32]| -> std::io::Result<()> {
            for x in v {
                bin.write_all(&x.to_le_bytes())?;
            }
            Ok(())
        };
        let mut chunks = Vec::new();
        for c in &t.chunks {
            put(c.embedding.as_deref().unwrap_or_default())?;
            let sentences = c.sentence_embeddings.as_deref().unwrap_or_default();
            put(sentences)?;
            let texts = parley_engine::retrieval::sentences::embedded_sentences(&c.content);
            let words: Vec<Vec<String>> = texts.iter().map(|s| parley_engine::retrieval::bm25::tokenize(s)).collect();
            chunks.push(json!({"sentences": sentences.len() / embedder.dims(), "chars": c.content.len(), "content": c.content, "texts": texts, "words": words, "all_words": parley_engine::retrieval::bm25::tokenize(&c.content)}));
        }
        let bm25 = Bm25Index::build(
            t.chunks.iter().map(|c| vec![Field { text: c.content.as_str(), weight: 1.0 }]),
            options.bm25,
        );
        let mut questions = Vec::new();
        for q in &t.questions {
            put(q.vector.as_deref().unwrap_or_default())?;
            let hits: Vec<_> = bm25.search(&q.text, options.candidates).iter().map(|h| json!([h.doc, h.coverage])).collect();
            questions.push(json!({"text": q.text, "expected": q.expected, "tune": q.half == external::Half::Tune, "bm25": hits, "words": parley_engine::retrieval::bm25::tokenize(&q.text)}));
        }
        bin.flush()?;
        let meta = json!({"set": t.set, "shape": shape, "dims": embedder.dims(), "chunks": chunks, "questions": questions});
        std::fs::write(out.join(format!("{}-{shape}.json", t.set)), serde_json::to_vec(&meta)?)?;
        println!("{} {shape}/chunk: {} chunks, {} questions", t.set, t.chunks.len(), t.questions.len());
    }
    Ok(())
}
