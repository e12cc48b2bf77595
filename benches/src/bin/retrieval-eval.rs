//! Retrieval evaluation: recall@1, recall@5 and MRR of BM25 alone, dense alone and the hybrid
//! fusions on a FAQ set with paraphrased questions (benches/data/faq-eval.json); how well the
//! confidence separates answerable from out-of-scope questions; and query-time cost on a
//! synthetic 100k-chunk index. Prints a table and writes the same numbers as JSON.
//!
//!   scripts/fetch-model.sh && cargo run --release -p parley-bench --bin retrieval-eval
//!   options: --data PATH  --json PATH (default benches/results/retrieval-eval.json)  --chunks N  --model DIR

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parley_engine::retrieval::embed::{DEFAULT_MODEL_DIR, MODEL_DIR_ENV};
use parley_engine::retrieval::index::embedding_text;
use parley_engine::retrieval::{
    ChunkRecord, Embedder, Fusion, Hit, HybridIndex, IndexOptions, MiniLmEmbedder, Mode, SourceKind,
};
use serde::Deserialize;
use serde_json::{json, Value};

type Res<T> = Result<T, Box<dyn Error>>;

#[derive(Deserialize)]
struct EvalSet {
    pairs: Vec<Pair>,
    #[serde(default)]
    unanswerable: Vec<String>,
}

#[derive(Deserialize)]
struct Pair {
    question: String,
    answer: String,
    tests: Vec<String>,
}

struct Args {
    data: PathBuf,
    json: PathBuf,
    chunks: usize,
    model: Option<PathBuf>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse_args() -> Res<Args> {
    let mut args = Args {
        data: workspace_root().join("benches/data/faq-eval.json"),
        json: workspace_root().join("benches/results/retrieval-eval.json"),
        chunks: 100_000,
        model: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--data" => args.data = PathBuf::from(value()?),
            "--json" => args.json = PathBuf::from(value()?),
            "--chunks" => args.chunks = value()?.parse()?,
            "--model" => args.model = Some(PathBuf::from(value()?)),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    Ok(args)
}

fn load_model(explicit: Option<&Path>) -> Option<MiniLmEmbedder> {
    let candidates: Vec<PathBuf> = match explicit {
        Some(dir) => vec![dir.to_path_buf()],
        None => {
            let mut c = Vec::new();
            if let Some(dir) = std::env::var_os(MODEL_DIR_ENV).filter(|d| !d.is_empty()) {
                c.push(PathBuf::from(dir));
            }
            c.push(PathBuf::from(DEFAULT_MODEL_DIR));
            c.push(workspace_root().join(DEFAULT_MODEL_DIR));
            c
        }
    };
    for dir in candidates {
        match MiniLmEmbedder::load(&dir) {
            Ok(m) => {
                println!("model: {}", dir.display());
                return Some(m);
            }
            Err(e) => eprintln!("model: {e}"),
        }
    }
    println!("model: none (run scripts/fetch-model.sh); dense rows are skipped");
    None
}

#[derive(Default, Clone, Copy)]
struct Scores {
    r1: f64,
    r5: f64,
    mrr: f64,
}

fn score(ranks: &[Option<usize>]) -> Scores {
    let n = ranks.len().max(1) as f64;
    let mut s = Scores::default();
    for r in ranks {
        if let Some(r) = *r {
            if r == 0 {
                s.r1 += 1.0;
            }
            if r < 5 {
                s.r5 += 1.0;
            }
            s.mrr += 1.0 / (r as f64 + 1.0);
        }
    }
    Scores { r1: s.r1 / n, r5: s.r5 / n, mrr: s.mrr / n }
}

struct Query {
    text: String,
    vector: Option<Vec<f32>>,
    expected: Option<usize>,
}

fn faq_chunks(set: &EvalSet) -> Vec<ChunkRecord> {
    set.pairs
        .iter()
        .enumerate()
        .map(|(i, p)| ChunkRecord {
            id: format!("qa-{i}"),
            source_id: Some("faq".into()),
            kind: SourceKind::Qa,
            title: "FAQ".into(),
            url: None,
            page: None,
            content: p.answer.clone(),
            question: Some(p.question.clone()),
            embedding: None,
        })
        .collect()
}

/// The same knowledge as plain passages (each answer a text chunk, no question), as a bot
/// trained on documents and web pages sees it.
fn passage_chunks(set: &EvalSet) -> Vec<ChunkRecord> {
    set.pairs
        .iter()
        .enumerate()
        .map(|(i, p)| ChunkRecord {
            id: format!("passage-{i}"),
            source_id: Some("help".into()),
            kind: SourceKind::Text,
            title: String::new(),
            url: None,
            page: None,
            content: p.answer.clone(),
            question: None,
            embedding: None,
        })
        .collect()
}

/// Stores each chunk's vector as ingestion does.
fn embed_chunks(chunks: &mut [ChunkRecord], embedder: Option<&dyn Embedder>) -> Res<()> {
    if let Some(e) = embedder {
        let texts: Vec<String> = chunks.iter().map(embedding_text).collect();
        for (c, v) in chunks.iter_mut().zip(e.embed(&texts)?) {
            c.embedding = Some(v);
        }
    }
    Ok(())
}

const THRESHOLDS: [f32; 11] = [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75];

/// Does the top hit's confidence separate right answers from out-of-scope questions? For each
/// threshold: the share of questions answered right, answered wrong, and of out-of-scope
/// questions answered (the extractive answerer answers only at or above its threshold).
fn calibrate(label: &str, index: &HybridIndex, answerable: &[Query], outside: &[Query]) -> Value {
    let (ranks, tops) = run_queries(index, answerable, Mode::Hybrid);
    let (_, out_tops) = run_queries(index, outside, Mode::Hybrid);
    println!("\nconfidence threshold ({label}): answered right / answered wrong / out-of-scope answered");
    let conf = |h: &Option<Hit>| h.map(|h| h.confidence()).unwrap_or(0.0);
    let n = answerable.len().max(1) as f64;
    let mut rows = Vec::new();
    for t in THRESHOLDS {
        let right = ranks.iter().zip(&tops).filter(|(r, h)| **r == Some(0) && conf(h) >= t).count() as f64 / n;
        let wrong = ranks.iter().zip(&tops).filter(|(r, h)| **r != Some(0) && conf(h) >= t).count() as f64 / n;
        let out = out_tops.iter().filter(|h| conf(h) >= t).count() as f64 / outside.len().max(1) as f64;
        println!("  {t:.2}: {right:>6.3} {wrong:>6.3} {out:>6.3}");
        rows.push(json!({"threshold": t, "answered_right": right, "answered_wrong": wrong, "out_of_scope_answered": out}));
    }
    json!({"retriever": label, "rows": rows})
}

fn run_queries(index: &HybridIndex, queries: &[Query], mode: Mode) -> (Vec<Option<usize>>, Vec<Option<Hit>>) {
    let mut ranks = Vec::new();
    let mut tops = Vec::new();
    for q in queries {
        let hits = index.search_mode(&q.text, q.vector.as_deref(), 10, mode);
        if let Some(expected) = q.expected {
            ranks.push(hits.iter().position(|h| h.chunk == expected));
        }
        tops.push(hits.first().copied());
    }
    (ranks, tops)
}

fn main() -> Res<()> {
    let args = parse_args()?;
    let set: EvalSet = serde_json::from_str(&std::fs::read_to_string(&args.data)?)?;
    let model = load_model(args.model.as_deref());
    let embedder: Option<&dyn Embedder> = model.as_ref().map(|m| m as &dyn Embedder);

    // Chunks carry stored vectors (question + answer), as ingestion stores them.
    let mut chunks = faq_chunks(&set);
    embed_chunks(&mut chunks, embedder)?;
    let mut passages = passage_chunks(&set);
    embed_chunks(&mut passages, embedder)?;
    let mut answerable = Vec::new();
    for (i, p) in set.pairs.iter().enumerate() {
        for t in &p.tests {
            answerable.push(Query { text: t.clone(), vector: None, expected: Some(i) });
        }
    }
    let mut outside: Vec<Query> =
        set.unanswerable.iter().map(|t| Query { text: t.clone(), vector: None, expected: None }).collect();
    if let Some(e) = embedder {
        for list in [&mut answerable, &mut outside] {
            let texts: Vec<String> = list.iter().map(|q| q.text.clone()).collect();
            for (q, v) in list.iter_mut().zip(e.embed(&texts)?) {
                q.vector = Some(v);
            }
        }
    }
    println!(
        "\nFAQ set: {} pairs, {} paraphrased questions, {} out-of-scope questions\n",
        set.pairs.len(),
        answerable.len(),
        outside.len()
    );

    // Configurations compared; the product default is IndexOptions::default().
    let default = IndexOptions::default();
    let mut configs: Vec<(String, Mode, IndexOptions)> = vec![
        ("bm25".into(), Mode::Lexical, default),
        ("dense".into(), Mode::Dense, default),
    ];
    for w in [0.3f32, 0.5, 0.6, 0.7, 0.8, 0.9] {
        configs.push((format!("hybrid blend w={w}"), Mode::Hybrid, IndexOptions { fusion: Fusion::Blend { dense_weight: w }, ..default }));
    }
    for w in [0.02f32, 0.05, 0.1, 0.15, 0.2, 0.3] {
        configs.push((format!("hybrid dense-led l={w}"), Mode::Hybrid, IndexOptions { fusion: Fusion::DenseLed { lexical_weight: w }, ..default }));
    }
    for k in [10.0f32, 60.0] {
        configs.push((format!("hybrid rrf k={k}"), Mode::Hybrid, IndexOptions { fusion: Fusion::Rrf { k }, ..default }));
    }
    configs.push(("hybrid (default)".into(), Mode::Hybrid, default));

    let mut quality = Vec::new();
    for (shape, knowledge) in [("Q&A pairs", &chunks), ("passages", &passages)] {
        println!("\nknowledge as {shape}");
        println!("{:<26} {:>9} {:>9} {:>7}", "retriever", "recall@1", "recall@5", "MRR");
        println!("{}", "-".repeat(54));
        for (name, mode, options) in &configs {
            if embedder.is_none() && *mode != Mode::Lexical {
                continue;
            }
            let index = HybridIndex::build(knowledge.clone(), embedder, *options)?;
            let (ranks, _) = run_queries(&index, &answerable, *mode);
            let s = score(&ranks);
            println!("{name:<26} {:>9.3} {:>9.3} {:>7.3}", s.r1, s.r5, s.mrr);
            quality.push(json!({"knowledge": shape, "retriever": name, "recall_at_1": s.r1, "recall_at_5": s.r5, "mrr": s.mrr}));
        }
    }

    let mut calibration = Vec::new();
    let without_vectors = |qs: &[Query]| -> Vec<Query> {
        qs.iter().map(|q| Query { text: q.text.clone(), vector: None, expected: q.expected }).collect()
    };
    if embedder.is_some() {
        let qa = HybridIndex::build(chunks.clone(), embedder, default)?;
        calibration.push(calibrate("Q&A pairs, hybrid", &qa, &answerable, &outside));
        let docs = HybridIndex::build(passages.clone(), embedder, default)?;
        calibration.push(calibrate("passages, hybrid", &docs, &answerable, &outside));
    }
    let mut bare = chunks.clone();
    bare.iter_mut().for_each(|c| c.embedding = None);
    let lexical = HybridIndex::build(bare, None, default)?;
    calibration.push(calibrate("Q&A pairs, bm25 only", &lexical, &without_vectors(&answerable), &without_vectors(&outside)));

    let cost = query_cost(embedder, &answerable, args.chunks)?;
    let report = json!({
        "faq_pairs": set.pairs.len(),
        "questions": answerable.len(),
        "out_of_scope_questions": outside.len(),
        "model": embedder.is_some(),
        "quality": quality,
        "calibration": calibration,
        "cost": cost,
    });
    std::fs::write(&args.json, serde_json::to_string_pretty(&report)?)?;
    println!("\nJSON written to {}", args.json.display());
    Ok(())
}

fn stats(mut samples: Vec<Duration>) -> Value {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples.get(i).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    };
    json!({"median_ms": at(0.5), "p95_ms": at(0.95), "runs": samples.len()})
}

fn query_cost(embedder: Option<&dyn Embedder>, questions: &[Query], n_chunks: usize) -> Res<Value> {
    let mut out = serde_json::Map::new();
    println!("\nquery-time cost ({n_chunks} synthetic chunks, 384-d vectors)");
    if let Some(e) = embedder {
        let mut samples = Vec::new();
        for q in questions.iter().take(60) {
            let t = Instant::now();
            e.embed(std::slice::from_ref(&q.text))?;
            samples.push(t.elapsed());
        }
        let s = stats(samples);
        println!("  embed one question        median {:>8.2} ms  p95 {:>8.2} ms", s["median_ms"].as_f64().unwrap_or(0.0), s["p95_ms"].as_f64().unwrap_or(0.0));
        out.insert("embed_question".into(), s);
    }

    let (chunks, queries) = parley_bench::synthetic::corpus(n_chunks, 50);
    let t = Instant::now();
    let index = HybridIndex::build(chunks, None, IndexOptions::default())?;
    let build = t.elapsed();
    println!("  build index               {:>8.0} ms", build.as_secs_f64() * 1000.0);
    out.insert("build_ms".into(), json!(build.as_secs_f64() * 1000.0));
    for (name, mode) in [("bm25", Mode::Lexical), ("dense", Mode::Dense), ("hybrid", Mode::Hybrid)] {
        let mut samples = Vec::new();
        for (text, v) in &queries {
            let t = Instant::now();
            let hits = index.search_mode(text, Some(v), 10, mode);
            samples.push(t.elapsed());
            std::hint::black_box(hits);
        }
        let s = stats(samples);
        println!("  search {name:<18} median {:>8.2} ms  p95 {:>8.2} ms", s["median_ms"].as_f64().unwrap_or(0.0), s["p95_ms"].as_f64().unwrap_or(0.0));
        out.insert(format!("search_{name}"), s);
    }
    out.insert("chunks".into(), json!(n_chunks));
    Ok(Value::Object(out))
}
