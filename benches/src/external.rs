//! The honest half of the retrieval evaluation: public FAQ data that ships inside registry
//! packages (benches/data/external/*.json, made by its convert.py), never written or read by
//! the people who tuned Parley. Each set is split by a hash of the pair's id into a tuning half
//! and a reporting half; weights and thresholds may be chosen on the tuning half only, and the
//! table reports the other half.
//!
//! The task is the one a bot trained on documents faces: the knowledge is the answers, as text
//! (one answer per chunk, or three answers of one topic per chunk, as an owner pastes an FAQ
//! page), and the visitor's question is the publisher's question. Out-of-scope questions are
//! the set's held-out topics (near misses: same field, not covered) and the other sets'
//! questions (another business).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use parley_engine::retrieval::index::sentence_texts;
use parley_engine::retrieval::{ChunkRecord, EmbedError, Embedder, Hit, HybridIndex, IndexOptions, Mode, SourceKind};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct ExternalSet {
    pub name: String,
    pub package: String,
    pub licence: String,
    pub attribution: String,
    pub pairs: Vec<ExternalPair>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExternalPair {
    pub id: String,
    pub group: String,
    pub question: String,
    pub answer: String,
}

/// Which half of a set a pair belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Half {
    Tune,
    Report,
}

impl Half {
    pub fn label(self) -> &'static str {
        match self {
            Half::Tune => "tuning",
            Half::Report => "reporting",
        }
    }
}

/// FNV-1a: a stable hash (unlike std's), so the halves are the same on every run and machine.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

pub fn half_of(id: &str) -> Half {
    if fnv1a(id) & 1 == 0 {
        Half::Tune
    } else {
        Half::Report
    }
}

/// A fifth of a set's topics (when it has ten or more) is held out of its knowledge: their
/// questions are in the set's field but not answered by it.
fn held_out(group: &str, groups: usize) -> bool {
    groups >= 10 && fnv1a(&format!("held-out:{group}")).is_multiple_of(5)
}

/// Loads every `*.json` of `dir` (sorted by name). A file that does not parse is an error
/// naming it.
pub fn load_dir(dir: &Path) -> Result<Vec<ExternalSet>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut sets = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let set: ExternalSet = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if set.pairs.is_empty() {
            return Err(format!("{}: no pairs", path.display()));
        }
        sets.push(set);
    }
    if sets.is_empty() {
        return Err(format!("no *.json sets in {} (see benches/data/external/convert.py)", dir.display()));
    }
    Ok(sets)
}

/// Wraps the model so that a text shared by several shapes is embedded once.
pub struct Memo<'a> {
    inner: &'a dyn Embedder,
    seen: Mutex<HashMap<String, Vec<f32>>>,
}

impl<'a> Memo<'a> {
    pub fn new(inner: &'a dyn Embedder) -> Self {
        Memo { inner, seen: Mutex::new(HashMap::new()) }
    }
}

impl Embedder for Memo<'_> {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let missing: Vec<String> = {
            let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            let mut m: Vec<String> = texts.iter().filter(|t| !seen.contains_key(*t)).cloned().collect();
            m.sort();
            m.dedup();
            m
        };
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing)?;
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            seen.extend(missing.into_iter().zip(vectors));
        }
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        texts
            .iter()
            .map(|t| seen.get(t).cloned().ok_or_else(|| EmbedError::Model("vector missing after embedding".into())))
            .collect()
    }

    fn dims(&self) -> usize {
        self.inner.dims()
    }
}

/// How the knowledge is cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One answer per chunk.
    Answers,
    /// Three answers of one topic per chunk: a many-topic paragraph.
    Paragraphs,
}

impl Shape {
    pub fn label(self) -> &'static str {
        match self {
            Shape::Answers => "one answer per chunk",
            Shape::Paragraphs => "3 answers per chunk",
        }
    }
}

const PER_PARAGRAPH: usize = 3;

/// A question with the chunk that answers it (`None`: out of scope).
pub struct Question {
    pub text: String,
    pub vector: Option<Vec<f32>>,
    pub expected: Option<usize>,
    pub half: Half,
}

/// One set in one shape, ready to index: chunks with stored vectors, in-scope questions and
/// out-of-scope ones.
pub struct Task {
    pub set: String,
    pub shape: Shape,
    pub chunks: Vec<ChunkRecord>,
    pub questions: Vec<Question>,
}

/// Builds the tasks of every set and shape; vectors (chunk, sentence, question) are computed
/// with `embedder` as ingestion would store them.
pub fn tasks(sets: &[ExternalSet], embedder: Option<&dyn Embedder>) -> Result<Vec<Task>, EmbedError> {
    let mut out = Vec::new();
    for (si, set) in sets.iter().enumerate() {
        let mut groups: Vec<&str> = set.pairs.iter().map(|p| p.group.as_str()).collect();
        groups.sort_unstable();
        groups.dedup();
        let kept: Vec<&ExternalPair> = set.pairs.iter().filter(|p| !held_out(&p.group, groups.len())).collect();
        // Out of scope: held-out topics of this set, and the questions of the other sets.
        let mut outside: Vec<&ExternalPair> = set.pairs.iter().filter(|p| held_out(&p.group, groups.len())).collect();
        for (oi, other) in sets.iter().enumerate() {
            if oi != si {
                outside.extend(other.pairs.iter());
            }
        }
        for shape in [Shape::Answers, Shape::Paragraphs] {
            let mut chunks: Vec<ChunkRecord> = Vec::new();
            let mut chunk_of: HashMap<&str, usize> = HashMap::new();
            let mut i = 0;
            while i < kept.len() {
                let take = match shape {
                    Shape::Answers => 1,
                    Shape::Paragraphs => {
                        let group = kept.get(i).map(|p| p.group.as_str());
                        kept.iter().skip(i).take(PER_PARAGRAPH).take_while(|p| Some(p.group.as_str()) == group).count()
                    }
                };
                let members: Vec<&ExternalPair> = kept.iter().skip(i).take(take.max(1)).copied().collect();
                for p in &members {
                    chunk_of.insert(p.id.as_str(), chunks.len());
                }
                chunks.push(ChunkRecord {
                    id: format!("{}-{}", set.name, chunks.len()),
                    source_id: Some(set.name.clone()),
                    kind: SourceKind::Text,
                    title: String::new(),
                    url: None,
                    page: None,
                    content: members.iter().map(|p| p.answer.trim()).collect::<Vec<_>>().join(" "),
                    question: None,
                    embedding: None,
                    sentence_embeddings: None,
                });
                i += take.max(1);
            }
            if let Some(e) = embedder {
                let texts: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
                for (c, v) in chunks.iter_mut().zip(e.embed(&texts)?) {
                    c.embedding = Some(v);
                }
                // All sentences in one call (full batches), then back to their chunks.
                let per_chunk: Vec<Vec<String>> = chunks.iter().map(sentence_texts).collect();
                let flat: Vec<String> = per_chunk.iter().flatten().cloned().collect();
                let mut vectors = e.embed(&flat)?.into_iter();
                for (c, sentences) in chunks.iter_mut().zip(&per_chunk) {
                    if !sentences.is_empty() {
                        c.sentence_embeddings = Some(vectors.by_ref().take(sentences.len()).flatten().collect());
                    }
                }
            }
            let mut questions: Vec<Question> = kept
                .iter()
                .map(|p| Question {
                    text: p.question.clone(),
                    vector: None,
                    expected: chunk_of.get(p.id.as_str()).copied(),
                    half: half_of(&p.id),
                })
                .collect();
            questions.extend(outside.iter().map(|p| Question {
                text: p.question.clone(),
                vector: None,
                expected: None,
                half: half_of(&p.id),
            }));
            if let Some(e) = embedder {
                let texts: Vec<String> = questions.iter().map(|q| q.text.clone()).collect();
                for (q, v) in questions.iter_mut().zip(e.embed(&texts)?) {
                    q.vector = Some(v);
                }
            }
            out.push(Task { set: set.name.clone(), shape, chunks, questions });
        }
    }
    Ok(out)
}

/// What one retriever scored on one half of one task.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scores {
    pub questions: usize,
    pub out_of_scope: usize,
    pub recall_at_1: f64,
    pub mrr: f64,
    /// In-scope questions whose best hit is under the bar (the bot says it does not know).
    pub refused: f64,
    /// In-scope questions answered (best hit at or over the bar) from the right chunk.
    pub answered_right: f64,
    /// Out-of-scope questions answered anyway.
    pub false_answers: f64,
}

/// The best hit's confidence for each question of `half` (and the rank of the right chunk).
pub fn run(index: &HybridIndex, task: &Task, half: Half, mode: Mode) -> Vec<(Option<usize>, Option<Hit>, bool)> {
    task.questions
        .iter()
        .filter(|q| q.half == half)
        .map(|q| {
            let hits = index.search_mode(&q.text, q.vector.as_deref(), 10, mode);
            let rank = q.expected.and_then(|e| hits.iter().position(|h| h.chunk == e));
            (rank, hits.first().copied(), q.expected.is_some())
        })
        .collect()
}

/// Scores of a run at confidence bar `bar`.
pub fn score(results: &[(Option<usize>, Option<Hit>, bool)], bar: f32) -> Scores {
    let conf = |h: &Option<Hit>| h.map(|h| h.confidence()).unwrap_or(0.0);
    let inside: Vec<_> = results.iter().filter(|r| r.2).collect();
    let outside: Vec<_> = results.iter().filter(|r| !r.2).collect();
    let n = inside.len().max(1) as f64;
    let m = outside.len().max(1) as f64;
    Scores {
        questions: inside.len(),
        out_of_scope: outside.len(),
        recall_at_1: inside.iter().filter(|r| r.0 == Some(0)).count() as f64 / n,
        mrr: inside.iter().filter_map(|r| r.0).map(|r| 1.0 / (r as f64 + 1.0)).sum::<f64>() / n,
        refused: inside.iter().filter(|r| conf(&r.1) < bar).count() as f64 / n,
        answered_right: inside.iter().filter(|r| r.0 == Some(0) && conf(&r.1) >= bar).count() as f64 / n,
        false_answers: outside.iter().filter(|r| conf(&r.1) >= bar).count() as f64 / m,
    }
}

/// A retriever of the table: a search mode over an index built with options.
#[derive(Debug, Clone, Copy)]
pub struct Retriever {
    pub name: &'static str,
    pub mode: Mode,
    pub options: IndexOptions,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_stable_and_about_even() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        let tune = (0..1000).filter(|i| half_of(&format!("pair-{i}")) == Half::Tune).count();
        assert!((400..600).contains(&tune), "{tune}");
    }
}
