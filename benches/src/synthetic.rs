//! Deterministic synthetic workloads: a chunk corpus of any size (Zipf-distributed words from a
//! made-up vocabulary, random unit vectors) for retrieval cost, and text PDFs of any size for
//! extraction cost. The same seed gives the same data every run.

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};
use parley_engine::retrieval::embed::normalize;
use parley_engine::retrieval::{ChunkRecord, SourceKind};

/// Vector size of all-MiniLM-L6-v2.
pub const DIMS: usize = 384;

/// Tiny deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    pub fn unit_vector(&mut self) -> Vec<f32> {
        let mut v: Vec<f32> = (0..DIMS).map(|_| self.unit() - 0.5).collect();
        normalize(&mut v);
        v
    }
}

/// A vocabulary whose words are drawn with Zipf frequencies, as in real text.
pub struct Vocabulary {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Vocabulary {
    pub fn new(rng: &mut Rng, size: usize) -> Vocabulary {
        let syllables = ["ka", "lo", "mi", "ten", "ro", "sha", "vi", "dor", "pe", "lun", "qua", "zi", "bra", "nel", "fo", "gri"];
        let words: Vec<String> = (0..size.max(1))
            .map(|_| (0..2 + rng.below(3)).filter_map(|_| syllables.get(rng.below(syllables.len())).copied()).collect())
            .collect();
        let mut cumulative = Vec::with_capacity(words.len());
        let mut total = 0.0f64;
        for r in 0..words.len() {
            total += 1.0 / (r as f64 + 1.0);
            cumulative.push(total);
        }
        Vocabulary { words, cumulative }
    }

    pub fn word(&self, rng: &mut Rng) -> &str {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.unit() as f64 * total;
        let i = self.cumulative.partition_point(|c| *c < x).min(self.words.len().saturating_sub(1));
        self.words.get(i).map(String::as_str).unwrap_or("")
    }

    pub fn sentence(&self, rng: &mut Rng, words: usize) -> String {
        (0..words).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }
}

/// Words per synthetic sentence: a 40–120-word chunk has 2 to 6 sentences, each with its
/// stored vector, as ingestion stores them.
const SENTENCE_WORDS: usize = 20;

/// `n` website chunks of 40–120 words in sentences, with stored chunk and sentence vectors, and
/// `queries` four-word questions with vectors. (Sentence vectors come from a second generator,
/// so the words and chunk vectors are those the corpus had before sentences were scored.)
pub fn corpus(n: usize, queries: usize) -> (Vec<ChunkRecord>, Vec<(String, Vec<f32>)>) {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut sentence_rng = Rng::new(0x5851_F42D_4C95_7F2D);
    let vocab = Vocabulary::new(&mut rng, 30_000);
    let chunks = (0..n)
        .map(|i| {
            let len = 40 + rng.below(80);
            let words = vocab.sentence(&mut rng, len);
            let words: Vec<&str> = words.split(' ').collect();
            let sentences: Vec<String> = words.chunks(SENTENCE_WORDS).map(|s| format!("{}.", s.join(" "))).collect();
            let sentence_embeddings: Vec<f32> = if sentences.len() >= 2 {
                sentences.iter().flat_map(|_| sentence_rng.unit_vector()).collect()
            } else {
                Vec::new()
            };
            ChunkRecord {
                id: format!("c{i}"),
                source_id: None,
                kind: SourceKind::Website,
                title: String::new(),
                url: None,
                page: None,
                content: sentences.join(" "),
                question: None,
                embedding: Some(rng.unit_vector()),
                sentence_embeddings: Some(sentence_embeddings).filter(|v| !v.is_empty()),
            }
        })
        .collect();
    let queries = (0..queries).map(|_| (vocab.sentence(&mut rng, 4), rng.unit_vector())).collect();
    (chunks, queries)
}

/// A text PDF of about `target_bytes` (Helvetica pages of 40 lines of words).
pub fn text_pdf(target_bytes: usize) -> Result<Vec<u8>, lopdf::Error> {
    let mut rng = Rng::new(42);
    let vocab = Vocabulary::new(&mut rng, 5_000);
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut kids: Vec<Object> = Vec::new();
    let mut approx = 0usize;
    while approx < target_bytes {
        let mut ops = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 10.into()]),
            Operation::new("Td", vec![50.into(), 750.into()]),
            Operation::new("TL", vec![12.into()]),
        ];
        for _ in 0..40 {
            let line = vocab.sentence(&mut rng, 12);
            approx += line.len() + 8;
            ops.push(Operation::new("Tj", vec![Object::string_literal(line)]));
            ops.push(Operation::new("T*", vec![]));
        }
        ops.push(Operation::new("ET", vec![]));
        let content_id = doc.add_object(Stream::new(dictionary! {}, Content { operations: ops }.encode()?));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id, "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }));
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out)?;
    Ok(out)
}
