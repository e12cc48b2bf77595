//! Retrieval evaluation: recall@1, recall@5 and MRR of BM25 alone, dense alone and the hybrid
//! fusions on a FAQ set with paraphrased questions (benches/data/faq-eval.json); how well the
//! confidence separates answerable from out-of-scope questions; the public sets of
//! benches/data/external (tuning halves choose, reporting halves are reported: see
//! `parley_bench::external`); and query-time cost on a synthetic 100k-chunk index. Prints the
//! tables and writes the same numbers as JSON.
//!
//!   scripts/fetch-model.sh && cargo run --release -p parley-bench --bin retrieval-eval
//!   options: --data PATH  --json PATH (default benches/results/retrieval-eval.json)  --chunks N  --model DIR
//!            --external DIR (default benches/data/external; "none" skips it)
//!            --quick (the public sets' reporting table only: no tuning sweeps, no band)
//!            --tune-only (the public sets' tuning sweeps only: nothing from the reporting halves)
//!            --band-only (only the public sets' "did you mean" band, into
//!            benches/results/retrieval-eval-band.json unless --json says otherwise)

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parley_engine::retrieval::embed::{DEFAULT_MODEL_DIR, MODEL_DIR_ENV};
use parley_engine::retrieval::index::embedding_text;
use parley_engine::retrieval::{
    ChunkRecord, Embedder, Fusion, Hit, HybridIndex, IndexOptions, MiniLmEmbedder, Mode, SourceKind,
};
use parley_bench::did_you_mean;
use parley_bench::external::{self, Half, Memo, Retriever, Task};
use parley_engine::answer::extractive::DEFAULT_THRESHOLDS;
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
    external: Option<PathBuf>,
    band_only: bool,
    /// Skip the tuning sweeps and the band (the reporting table only).
    quick: bool,
    /// The public sets' tuning sweeps alone, so a rule is chosen without seeing a reporting half.
    tune_only: bool,
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
        external: Some(workspace_root().join("benches/data/external")),
        band_only: false,
        quick: false,
        tune_only: false,
    };
    let mut json_given = false;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--data" => args.data = PathBuf::from(value()?),
            "--json" => {
                args.json = PathBuf::from(value()?);
                json_given = true;
            }
            "--band-only" => args.band_only = true,
            "--quick" => args.quick = true,
            "--tune-only" => args.tune_only = true,
            "--chunks" => args.chunks = value()?.parse()?,
            "--model" => args.model = Some(PathBuf::from(value()?)),
            "--external" => {
                let v = value()?;
                args.external = (v != "none").then(|| PathBuf::from(v));
            }
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    if args.band_only && !json_given {
        args.json = workspace_root().join("benches/results/retrieval-eval-band.json");
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
            sentence_embeddings: None,
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
            sentence_embeddings: None,
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
    if args.tune_only {
        let model = load_model(args.model.as_deref()).ok_or("the sweeps need the model (scripts/fetch-model.sh)")?;
        let dir = args.external.clone().ok_or("the sweeps need the public sets (--external DIR)")?;
        external_eval(&dir, Some(&model as &dyn Embedder), Stage::TuneOnly)?;
        return Ok(());
    }
    if args.band_only {
        let model = load_model(args.model.as_deref()).ok_or("the band needs the model (scripts/fetch-model.sh)")?;
        let dir = args.external.clone().ok_or("the band needs the public sets (--external DIR)")?;
        let sets = external::load_dir(&dir)?;
        let memo = Memo::new(&model);
        let tasks = external::tasks(&sets, Some(&memo as &dyn Embedder))?;
        let band = band_eval(&tasks, &memo)?;
        std::fs::write(&args.json, serde_json::to_string_pretty(&band)?)?;
        println!("\nJSON written to {}", args.json.display());
        return Ok(());
    }
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

    let external = match &args.external {
        Some(dir) => external_eval(dir, embedder, if args.quick { Stage::ReportOnly } else { Stage::Full })?,
        None => Value::Null,
    };

    let cost = query_cost(embedder, &answerable, args.chunks)?;
    let report = json!({
        "faq_pairs": set.pairs.len(),
        "questions": answerable.len(),
        "out_of_scope_questions": outside.len(),
        "model": embedder.is_some(),
        "quality": quality,
        "calibration": calibration,
        "external": external,
        "cost": cost,
    });
    std::fs::write(&args.json, serde_json::to_string_pretty(&report)?)?;
    println!("\nJSON written to {}", args.json.display());
    Ok(())
}

/// Lexical weights, sentence-rank weights, sentence-lift margins and confidence bars tried on
/// the tuning halves.
const LEXICAL_WEIGHTS: [f32; 7] = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2];
const SENTENCE_RANK_WEIGHTS: [f32; 4] = [0.0, 0.25, 0.5, 1.0];
const LIFT_MARGINS: [f32; 7] = [0.0, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2];
const BARS: [f32; 13] = [0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475, 0.5, 0.525, 0.55, 0.575, 0.6];

/// How much of the public-set evaluation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Tuning sweeps, then the reporting halves.
    Full,
    /// The reporting halves alone (`--quick`).
    ReportOnly,
    /// The tuning sweeps alone (`--tune-only`): a rule is chosen without a reporting half seen.
    TuneOnly,
}

fn shape_tag(t: &Task) -> &'static str {
    if t.shape == external::Shape::Answers {
        "1/chunk"
    } else {
        "3/chunk"
    }
}

/// Recall@1 and MRR of one retriever on every task's tuning half.
fn tuning_scores(tasks: &[Task], embedder: Option<&dyn Embedder>, options: IndexOptions, mode: Mode, bar: f32) -> Res<Vec<external::Scores>> {
    tasks
        .iter()
        .map(|t| {
            let index = HybridIndex::build(t.chunks.clone(), embedder, options)?;
            Ok(external::score(&external::run(&index, t, Half::Tune, mode), bar))
        })
        .collect()
}

/// The public sets: choose the fusion's lexical weight, the sentence rank weight and lift
/// margin, and the passage bar on the tuning halves (mean MRR among the choices at or above
/// plain dense recall@1 on every task, then mean answered-right minus false answers), then
/// report the reporting halves for BM25, plain dense, dense with sentences, the product
/// default, and the tuned choice.
fn external_eval(dir: &Path, embedder: Option<&dyn Embedder>, stage: Stage) -> Res<Value> {
    let sets = external::load_dir(dir)?;
    println!("\npublic FAQ sets ({}):", dir.display());
    for s in &sets {
        println!("  {}: {} pairs from {}, {} ({})", s.name, s.pairs.len(), s.package, s.attribution, s.licence);
    }
    let memo = embedder.map(Memo::new);
    let tasks = external::tasks(&sets, memo.as_ref().map(|m| m as &dyn Embedder))?;
    let default = IndexOptions::default();
    let plain = IndexOptions { sentences: false, ..default };
    let bar = DEFAULT_THRESHOLDS.passage;
    let tune = embedder.is_some() && stage != Stage::ReportOnly;

    // 1. Tuning halves only. The rule (issue 21): the default must be at least plain dense
    // recall@1 on every domain. So a candidate qualifies only if its recall@1 is at or above
    // plain dense (chunk vectors) on every task's tuning half; among those the best mean MRR
    // wins (ties keep the earlier: smaller margin, then smaller weights). Lexical 0 with
    // sentence rank 0 ranks exactly as plain dense, so some candidate always qualifies.
    let mut best: Option<(f64, IndexOptions)> = None;
    let mut dense_tune = Vec::new();
    if tune {
        dense_tune = tuning_scores(&tasks, embedder, plain, Mode::Dense, bar)?;
        println!("\ntuning halves: mean MRR, mean recall@1 and tasks under plain dense recall@1, by sentence-lift margin, sentence rank and lexical weight (hybrid)");
        for m in LIFT_MARGINS {
            // Without a sentence rank the margin changes nothing: swept once, at margin 0.
            for s in SENTENCE_RANK_WEIGHTS.into_iter().filter(|s| *s > 0.0 || m == 0.0) {
                for w in LEXICAL_WEIGHTS {
                    let options = IndexOptions {
                        fusion: Fusion::DenseLed { lexical_weight: w },
                        sentence_rank_weight: s,
                        sentence_lift_margin: m,
                        ..default
                    };
                    let got = tuning_scores(&tasks, embedder, options, Mode::Hybrid, bar)?;
                    let under: Vec<String> = tasks
                        .iter()
                        .zip(got.iter().zip(&dense_tune))
                        .filter(|(_, (g, d))| g.recall_at_1 + 1e-9 < d.recall_at_1)
                        .map(|(t, _)| format!("{} {}", t.set, shape_tag(t)))
                        .collect();
                    let n = tasks.len().max(1) as f64;
                    let mrr = got.iter().map(|g| g.mrr).sum::<f64>() / n;
                    let r1 = got.iter().map(|g| g.recall_at_1).sum::<f64>() / n;
                    println!(
                        "  margin {m:<6} sentences {s:<5} lexical {w:<6} MRR {mrr:.4} recall@1 {r1:.4} under dense: {}",
                        if under.is_empty() { "none".to_string() } else { under.join(", ") }
                    );
                    if under.is_empty() && best.is_none_or(|(b, _)| mrr > b + 1e-9) {
                        best = Some((mrr, options));
                    }
                }
            }
        }
    }
    let tuned = best.map(|(_, o)| o).unwrap_or(default);
    let tuned_weight = match tuned.fusion {
        Fusion::DenseLed { lexical_weight } => lexical_weight,
        _ => 0.0,
    };
    let mut tuned_bar = bar;
    let mut tuning_rows = Vec::new();
    if tune {
        let runs: Vec<_> = tasks
            .iter()
            .map(|t| {
                HybridIndex::build(t.chunks.clone(), embedder, tuned).map(|index| external::run(&index, t, Half::Tune, Mode::Hybrid))
            })
            .collect::<Result<_, _>>()?;
        println!("\ntuning halves: passage bar (answered right - out-of-scope answered, mean over tasks)");
        let mut best_bar: Option<(f64, f32)> = None;
        for b in BARS {
            let gain = runs.iter().map(|r| {
                let s = external::score(r, b);
                s.answered_right - s.false_answers
            }).sum::<f64>() / runs.len().max(1) as f64;
            println!("  {b:.3}: {gain:.4}");
            if best_bar.is_none_or(|(g, _)| gain > g + 1e-9) {
                best_bar = Some((gain, b));
            }
        }
        tuned_bar = best_bar.map(|(_, b)| b).unwrap_or(bar);

        // Per task, for the record: plain dense, the product default and the tuned choice.
        let product = tuning_scores(&tasks, embedder, default, Mode::Hybrid, bar)?;
        let chosen = tuning_scores(&tasks, embedder, tuned, Mode::Hybrid, bar)?;
        println!("\ntuning halves, recall@1 per task: plain dense / default / tuned");
        for (t, ((d, p), c)) in tasks.iter().zip(dense_tune.iter().zip(&product).zip(&chosen)) {
            println!("  {:<18} {} ({:>3} q)  {:.3} / {:.3} / {:.3}", t.set, shape_tag(t), d.questions, d.recall_at_1, p.recall_at_1, c.recall_at_1);
            tuning_rows.push(json!({"set": t.set, "knowledge": t.shape.label(), "half": Half::Tune.label(), "questions": d.questions,
                "dense_recall_at_1": d.recall_at_1, "default_recall_at_1": p.recall_at_1, "tuned_recall_at_1": c.recall_at_1}));
        }
    }
    println!(
        "\nchosen on the tuning halves: dense-led lexical weight {tuned_weight}, sentence rank weight {}, \
         sentence-lift margin {}, passage bar {tuned_bar}; the product's: {:?}, sentence rank weight {}, \
         sentence-lift margin {}, passage bar {bar}",
        tuned.sentence_rank_weight, tuned.sentence_lift_margin, default.fusion, default.sentence_rank_weight, default.sentence_lift_margin
    );
    if stage == Stage::TuneOnly {
        return Ok(json!({"tuning": tuning_rows}));
    }

    // 2. Reporting halves.
    // The default of 2026-11-22, before sentences were scored, for the before/after.
    let before = IndexOptions { sentences: false, fusion: Fusion::DenseLed { lexical_weight: 0.2 }, ..default };
    let mut retrievers = vec![
        (Retriever { name: "bm25", mode: Mode::Lexical, options: plain }, bar),
        (Retriever { name: "dense (chunks)", mode: Mode::Dense, options: plain }, bar),
        (Retriever { name: "dense, sentence ranks", mode: Mode::Dense, options: IndexOptions { sentence_rank_weight: 1.0, ..default } }, bar),
        (Retriever { name: "before (l=0.2, chunks)", mode: Mode::Hybrid, options: before }, bar),
        // The fused default of 2026-11-25 to 2026-12-02 (sentence lift and lexical tie-break),
        // kept for the record of what the many-topic shape gave up (README).
        (Retriever { name: "fused (l=0.02, sentence rank 0.5)", mode: Mode::Hybrid, options: IndexOptions { fusion: Fusion::DenseLed { lexical_weight: 0.02 }, sentence_rank_weight: 0.5, ..default } }, bar),
        (Retriever { name: "default", mode: Mode::Hybrid, options: default }, bar),
    ];
    if format!("{:?}", tuned.fusion) != format!("{:?}", default.fusion)
        || tuned.sentence_rank_weight != default.sentence_rank_weight
        || tuned.sentence_lift_margin != default.sentence_lift_margin
        || tuned_bar != bar
    {
        retrievers.push((Retriever { name: "tuned", mode: Mode::Hybrid, options: tuned }, tuned_bar));
    }
    let mut rows = Vec::new();
    for t in &tasks {
        print_task_header(t);
        for (r, bar) in &retrievers {
            let bar = *bar;
            if embedder.is_none() && r.mode != Mode::Lexical {
                continue;
            }
            let index = HybridIndex::build(t.chunks.clone(), embedder, r.options)?;
            let half = Half::Report;
            let s = external::score(&external::run(&index, t, half, r.mode), bar);
            println!(
                "{:<34} {:>9.3} {:>7.3} {:>9.3} {:>14.3}",
                r.name, s.recall_at_1, s.mrr, s.refused, s.false_answers
            );
            rows.push(json!({
                "set": t.set, "knowledge": t.shape.label(), "half": half.label(), "retriever": r.name,
                "questions": s.questions, "out_of_scope_questions": s.out_of_scope,
                "recall_at_1": s.recall_at_1, "mrr": s.mrr, "refused": s.refused,
                "answered_right": s.answered_right, "false_answers": s.false_answers, "bar": bar,
            }));
        }
    }
    // The rule, checked on the reporting halves: each retriever's recall@1 against plain
    // dense on every task.
    let r1 = |set: &str, knowledge: &str, name: &str| {
        rows.iter()
            .find(|r| r["set"] == set && r["knowledge"] == knowledge && r["retriever"] == name)
            .and_then(|r| r["recall_at_1"].as_f64())
    };
    let mut rule = Vec::new();
    if embedder.is_some() {
        println!("\nreporting halves: recall@1 at or above plain dense on every task?");
        for (r, _) in retrievers.iter().filter(|(r, _)| r.mode == Mode::Hybrid) {
            let under: Vec<String> = tasks
                .iter()
                .filter_map(|t| {
                    let (k, d) = (r1(&t.set, t.shape.label(), r.name)?, r1(&t.set, t.shape.label(), "dense (chunks)")?);
                    (k + 1e-9 < d).then(|| format!("{} ({}): {k:.3} < {d:.3}", t.set, t.shape.label()))
                })
                .collect();
            println!("  {:<34} {}", r.name, if under.is_empty() { "yes".to_string() } else { format!("no: {}", under.join("; ")) });
            // The same per domain, its knowledge shapes pooled (mean recall@1 over them).
            let mut domains: Vec<&str> = tasks.iter().map(|t| t.set.as_str()).collect();
            domains.sort_unstable();
            domains.dedup();
            let mean_r1 = |set: &str, name: &str| {
                let got: Vec<f64> = tasks.iter().filter(|t| t.set == set).filter_map(|t| r1(&t.set, t.shape.label(), name)).collect();
                (!got.is_empty()).then(|| got.iter().sum::<f64>() / got.len() as f64)
            };
            let under_pooled: Vec<String> = domains
                .iter()
                .filter_map(|set| {
                    let (k, d) = (mean_r1(set, r.name)?, mean_r1(set, "dense (chunks)")?);
                    (k + 1e-9 < d).then(|| format!("{set}: {k:.3} < {d:.3}"))
                })
                .collect();
            println!("  {:<34} per domain, shapes pooled: {}", "", if under_pooled.is_empty() { "yes".to_string() } else { format!("no: {}", under_pooled.join("; ")) });
            rule.push(json!({"retriever": r.name, "at_or_above_dense_everywhere": under.is_empty(), "under": under,
                "at_or_above_dense_per_domain_pooled": under_pooled.is_empty(), "under_pooled": under_pooled}));
        }
    }
    let band = match memo.as_ref().filter(|_| stage == Stage::Full) {
        Some(m) => band_eval(&tasks, m)?,
        None => Value::Null,
    };
    Ok(json!({
        "did_you_mean": band,
        "sets": sets.iter().map(|s| json!({"name": s.name, "pairs": s.pairs.len(), "package": s.package, "licence": s.licence, "attribution": s.attribution})).collect::<Vec<_>>(),
        "tuned": {"lexical_weight": tuned_weight, "sentence_rank_weight": tuned.sentence_rank_weight,
            "sentence_lift_margin": tuned.sentence_lift_margin, "passage_bar": tuned_bar},
        "product": {"fusion": format!("{:?}", default.fusion), "sentence_rank_weight": default.sentence_rank_weight,
            "sentence_lift_margin": default.sentence_lift_margin, "passage_bar": bar},
        "tuning": tuning_rows,
        "rule": rule,
        "rows": rows,
    }))
}

/// The "did you mean" band (`parley_bench::did_you_mean`) with the product's retrieval and
/// passage bar: each margin on the tuning halves, the margin chosen there, then the reporting
/// halves.
fn band_eval(tasks: &[Task], embedder: &dyn Embedder) -> Res<Value> {
    let bar = DEFAULT_THRESHOLDS.passage;
    let mut tune: Vec<Vec<did_you_mean::Band>> = Vec::new();
    let mut report: Vec<Vec<did_you_mean::Band>> = Vec::new();
    for t in tasks {
        let index = HybridIndex::build(t.chunks.clone(), Some(embedder), IndexOptions::default())?;
        let (a, b) = (did_you_mean::ask(&index, t, Half::Tune), did_you_mean::ask(&index, t, Half::Report));
        tune.push(did_you_mean::MARGINS.iter().map(|m| did_you_mean::band(&a, bar, *m)).collect());
        report.push(did_you_mean::MARGINS.iter().map(|m| did_you_mean::band(&b, bar, *m)).collect());
    }
    let print = |label: &str, bands: &[Vec<did_you_mean::Band>]| {
        println!("\n{label} halves: did-you-mean band under the passage bar {bar} (per task: refused in scope -> right one suggested / any suggested; refused out of scope -> suggested)");
        for (m, margin) in did_you_mean::MARGINS.iter().enumerate() {
            let cells: Vec<String> = tasks
                .iter()
                .zip(bands)
                .filter_map(|(t, b)| b.get(m).map(|b| (t, b)))
                .map(|(t, b)| {
                    format!(
                        "{} {}: {}->{:.2}/{:.2} out {}->{:.2}",
                        t.set,
                        if t.shape == external::Shape::Answers { "1/chunk" } else { "3/chunk" },
                        b.refused,
                        b.right_suggested,
                        b.suggested,
                        b.out_refused,
                        b.out_suggested
                    )
                })
                .collect();
            println!("  margin {margin:<5} {}", cells.join(" | "));
        }
    };
    print("tuning", &tune);
    let chosen = did_you_mean::choose(&tune);
    println!("\nchosen on the tuning halves: near margin {chosen:?} (the product's: {})", parley_engine::answer::suggest::NEAR_MARGIN);
    print("reporting", &report);
    let rows = |half: Half, bands: &[Vec<did_you_mean::Band>]| -> Vec<Value> {
        tasks
            .iter()
            .zip(bands)
            .flat_map(|(t, b)| {
                did_you_mean::MARGINS.iter().zip(b).map(move |(m, b)| {
                    json!({"set": t.set, "knowledge": t.shape.label(), "half": half.label(), "margin": m,
                        "refused": b.refused, "right_suggested": b.right_suggested, "suggested": b.suggested,
                        "out_of_scope_refused": b.out_refused, "out_of_scope_suggested": b.out_suggested})
                })
            })
            .collect()
    };
    let all_rows = [rows(Half::Tune, &tune), rows(Half::Report, &report)].concat();
    Ok(json!({
        "bar": bar,
        "chosen_margin": chosen,
        "product_margin": parley_engine::answer::suggest::NEAR_MARGIN,
        "rows": all_rows,
    }))
}

fn print_task_header(t: &Task) {
    let inside = t.questions.iter().filter(|q| q.half == Half::Report && q.expected.is_some()).count();
    let outside = t.questions.iter().filter(|q| q.half == Half::Report && q.expected.is_none()).count();
    println!(
        "\n{} — {} ({} chunks), reporting half: {} questions, {} out of scope",
        t.set,
        t.shape.label(),
        t.chunks.len(),
        inside,
        outside
    );
    println!("{:<34} {:>9} {:>7} {:>9} {:>14}", "retriever", "recall@1", "MRR", "refused", "false answers");
    println!("{}", "-".repeat(77));
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
