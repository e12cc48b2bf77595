//! How the extractive answerer replies from a pasted FAQ page: each public set's pairs written
//! as a page (the question on its line, its answer under it, three pairs of one topic per
//! chunk), each question asked as written. Of the questions whose own chunk comes first, it
//! counts the replies that quote the start of the right answer and those that repeat a
//! question of the page instead.
//!
//! `cargo run --release -p parley-bench --example faq_page_answers [--misses] [MODEL_DIR]`
//! (`--misses` also prints each reply that does not quote its answer).

use std::path::PathBuf;

use parley_bench::external::{self, ExternalPair, ExternalSet, Memo};
use parley_engine::answer::extractive::{answer_text, DEFAULT_MAX_CHARS};
use parley_engine::retrieval::sentences;
use parley_engine::retrieval::{ChunkRecord, Embedder, HybridIndex, IndexOptions, MiniLmEmbedder, SourceKind};

const PER_CHUNK: usize = 3;
/// How much of the answer's first sentence a reply must hold to quote it.
const QUOTED_CHARS: usize = 60;

#[derive(Default)]
struct Tally {
    asked: usize,
    chunk_first: usize,
    quotes_answer: usize,
    repeats_question: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let model = PathBuf::from(args.iter().find(|a| !a.starts_with("--")).map_or("data/models/all-MiniLM-L6-v2", String::as_str));
    let embedder = MiniLmEmbedder::load(&model)?;
    let memo = Memo::new(&embedder);
    let sets = external::load_dir(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/external"))?;
    println!("{:<20} {:>7} {:>12} {:>14} {:>17}", "set", "asked", "chunk first", "quotes answer", "repeats question");
    let mut total = Tally::default();
    for set in &sets {
        let t = tally(set, &memo, misses)?;
        println!("{:<20} {:>7} {:>12} {:>14} {:>17}", set.name, t.asked, t.chunk_first, t.quotes_answer, t.repeats_question);
        total.asked += t.asked;
        total.chunk_first += t.chunk_first;
        total.quotes_answer += t.quotes_answer;
        total.repeats_question += t.repeats_question;
    }
    let t = total;
    println!("{:<20} {:>7} {:>12} {:>14} {:>17}", "all", t.asked, t.chunk_first, t.quotes_answer, t.repeats_question);
    Ok(())
}

/// The set as a page cut into chunks of up to three pairs of one topic: (chunks, pairs of each).
fn page(set: &ExternalSet) -> Vec<(ChunkRecord, Vec<&ExternalPair>)> {
    let mut out: Vec<(ChunkRecord, Vec<&ExternalPair>)> = Vec::new();
    for pair in &set.pairs {
        match out.last_mut() {
            Some((_, members)) if members.len() < PER_CHUNK && members.first().is_some_and(|m| m.group == pair.group) => {
                members.push(pair)
            }
            _ => out.push((chunk(&set.name, out.len()), vec![pair])),
        }
    }
    for (chunk, members) in &mut out {
        chunk.content =
            members.iter().map(|p| format!("{}\n{}", p.question.trim(), p.answer.trim())).collect::<Vec<_>>().join("\n");
    }
    out
}

fn chunk(set: &str, n: usize) -> ChunkRecord {
    ChunkRecord {
        id: format!("{set}-{n}"),
        source_id: Some(set.to_string()),
        kind: SourceKind::Text,
        title: String::new(),
        url: None,
        page: None,
        content: String::new(),
        question: None,
        embedding: None,
        sentence_embeddings: None,
    }
}

fn tally(set: &ExternalSet, embedder: &dyn Embedder, misses: bool) -> Result<Tally, Box<dyn std::error::Error>> {
    let page = page(set);
    let chunks: Vec<ChunkRecord> = page.iter().map(|(c, _)| c.clone()).collect();
    let index = HybridIndex::build(chunks, Some(embedder), IndexOptions::default())?;
    let mut t = Tally::default();
    for (expected, (_, members)) in page.iter().enumerate() {
        let vectors = embedder.embed(&members.iter().map(|p| p.question.clone()).collect::<Vec<_>>())?;
        for (pair, vector) in members.iter().zip(&vectors) {
            t.asked += 1;
            let hits = index.search(&pair.question, Some(vector), 1);
            if hits.first().map(|h| h.chunk) != Some(expected) {
                continue;
            }
            t.chunk_first += 1;
            let Some(passage) = index.passages(&hits, Some(vector)).into_iter().next() else { continue };
            let reply = answer_text(&passage, &pair.question, DEFAULT_MAX_CHARS);
            if reply.contains(&opening(&pair.answer)) {
                t.quotes_answer += 1;
            } else if misses {
                println!("  {}: {:?}\n    reply {:?}", set.name, pair.question, reply);
            }
            if members.iter().any(|m| reply.contains(&opening(&m.question))) {
                t.repeats_question += 1;
            }
        }
    }
    Ok(t)
}

/// The start of a text's first sentence, as a reply quoting it would hold it.
fn opening(text: &str) -> String {
    let first = sentences::split(text.trim()).into_iter().next().unwrap_or_default();
    first.chars().take(QUOTED_CHARS).collect()
}
