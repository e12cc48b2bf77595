//! Okapi BM25 over chunk text: the lexical half of retrieval. Owns tokenising (lowercase,
//! stopwords, a light suffix stemmer) and an inverted index with per-field weights, so a Q&A
//! pair's question counts more than its answer.

use std::collections::HashMap;

/// BM25 tuning. The defaults are the usual Okapi values.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self { k1: 1.2, b: 0.75 }
    }
}

/// A document as the index sees it: weighted text fields (e.g. a Q&A question at weight 2,
/// its answer at weight 1).
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    pub text: &'a str,
    pub weight: f32,
}

/// One scored document: its position in the input order and its BM25 score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredDoc {
    pub doc: usize,
    pub score: f32,
    /// Share (0..=1) of the query's IDF mass this document contains: a calibrated "how much of
    /// the question does this chunk mention", usable as a confidence where BM25 scores are not.
    pub coverage: f32,
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: f32,
}

/// The inverted index. Built once per bot knowledge version; read-only afterwards.
#[derive(Debug, Default)]
pub struct Bm25Index {
    params: Bm25Params,
    terms: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    idf: Vec<f32>,
    doc_len: Vec<f32>,
    avg_len: f32,
}

impl Bm25Index {
    /// Builds the index over documents given as weighted fields, in order.
    pub fn build<'a, D>(docs: D, params: Bm25Params) -> Self
    where
        D: IntoIterator<Item = Vec<Field<'a>>>,
    {
        let mut terms: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<Posting>> = Vec::new();
        let mut doc_len = Vec::new();
        let mut tf: HashMap<u32, f32> = HashMap::new();
        for (doc, fields) in docs.into_iter().enumerate() {
            tf.clear();
            let mut len = 0.0f32;
            for field in fields {
                for token in tokenize(field.text) {
                    let next = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                    let id = *terms.entry(token).or_insert(next);
                    if id as usize == postings.len() {
                        postings.push(Vec::new());
                    }
                    *tf.entry(id).or_insert(0.0) += field.weight;
                    len += field.weight;
                }
            }
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for (&id, &f) in &tf {
                if let Some(list) = postings.get_mut(id as usize) {
                    list.push(Posting { doc, tf: f });
                }
            }
            doc_len.push(len);
        }
        let n = doc_len.len() as f32;
        let avg_len = if doc_len.is_empty() { 0.0 } else { doc_len.iter().sum::<f32>() / n };
        let idf = postings
            .iter()
            .map(|list| {
                let df = list.len() as f32;
                ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
            })
            .collect();
        Self { params, terms, postings, idf, doc_len, avg_len }
    }

    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The `k` best documents for `query`, best first. Documents sharing no term are left out.
    pub fn search(&self, query: &str, k: usize) -> Vec<ScoredDoc> {
        let n = self.len();
        if n == 0 || k == 0 {
            return Vec::new();
        }
        let mut query_terms = tokenize(query);
        query_terms.sort();
        query_terms.dedup();
        if query_terms.is_empty() {
            return Vec::new();
        }
        // A term the index has never seen is as rare as can be: it still counts against coverage.
        let unseen_idf = ((n as f32 + 0.5) / 0.5 + 1.0).ln();
        let mut total_idf = 0.0f32;
        let mut known: Vec<(usize, f32)> = Vec::with_capacity(query_terms.len());
        for term in &query_terms {
            match self.terms.get(term) {
                Some(&id) => {
                    let idf = self.idf.get(id as usize).copied().unwrap_or(0.0);
                    total_idf += idf;
                    known.push((id as usize, idf));
                }
                None => total_idf += unseen_idf,
            }
        }
        if known.is_empty() || total_idf <= 0.0 {
            return Vec::new();
        }
        let Bm25Params { k1, b } = self.params;
        let avg = if self.avg_len > 0.0 { self.avg_len } else { 1.0 };
        // Dense accumulators: one pass per query term, no hashing in the hot loop.
        let mut scores = vec![0.0f32; n];
        let mut covered = vec![0.0f32; n];
        for (id, idf) in known {
            let Some(list) = self.postings.get(id) else { continue };
            for p in list {
                let d = p.doc as usize;
                let len = self.doc_len.get(d).copied().unwrap_or(avg);
                let norm = k1 * (1.0 - b + b * len / avg);
                if let (Some(s), Some(c)) = (scores.get_mut(d), covered.get_mut(d)) {
                    *s += idf * (p.tf * (k1 + 1.0)) / (p.tf + norm);
                    *c += idf;
                }
            }
        }
        let mut hits: Vec<ScoredDoc> = scores
            .iter()
            .zip(&covered)
            .enumerate()
            .filter(|(_, (s, _))| **s > 0.0)
            .map(|(doc, (&score, &c))| ScoredDoc { doc, score, coverage: c / total_idf })
            .collect();
        top_k(&mut hits, k);
        hits
    }
}

/// Keeps the `k` highest-scoring entries, sorted best first (ties by document order).
pub(crate) fn top_k(hits: &mut Vec<ScoredDoc>, k: usize) {
    let by_score = |a: &ScoredDoc, b: &ScoredDoc| {
        b.score.total_cmp(&a.score).then_with(|| a.doc.cmp(&b.doc))
    };
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, by_score);
        hits.truncate(k);
    }
    hits.sort_by(by_score);
}

/// Lowercased, stemmed, stopword-free tokens of `text`. Letters and digits make words;
/// everything else separates them (so "e-mail" is "e" + "mail", and "o'clock" stays whole
/// only in the sense that the apostrophe splits it the same way for queries and chunks).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            if !is_stopword(word) {
                out.push(stem(word));
            }
            word.clear();
        }
    };
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            word.extend(ch.to_lowercase());
        } else if ch == '\'' || ch == '\u{2019}' {
            // "don't", "customer's": drop the apostrophe and what follows is kept in the word,
            // so possessives collapse onto the stem below.
            continue;
        } else {
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A light English suffix stemmer (plural, -ing, -ed, -ly and a few derivational endings).
/// Deliberately conservative: it only needs to make the query and the chunk agree.
pub fn stem(word: &str) -> String {
    let len = word.chars().count();
    if len <= 3 || !word.is_ascii() {
        return word.to_string();
    }
    let w = word;
    let strip = |suffix: &str, add: &str| -> Option<String> {
        let base = w.strip_suffix(suffix)?;
        if base.len() < 3 {
            return None;
        }
        Some(format!("{base}{add}"))
    };
    let ends_double = |s: &str| {
        let mut tail = s.bytes().rev();
        matches!((tail.next(), tail.next()), (Some(a), Some(b)) if a == b && !matches!(a, b'l' | b's' | b'z'))
    };
    let undouble = |s: String| -> String {
        if ends_double(&s) {
            let mut s = s;
            s.pop();
            s
        } else {
            s
        }
    };
    // Order matters: longest, most specific suffixes first.
    if let Some(s) = strip("ational", "ate") {
        return s;
    }
    if let Some(s) = strip("ization", "ize") {
        return s;
    }
    if let Some(s) = strip("fulness", "ful") {
        return s;
    }
    if let Some(s) = strip("iveness", "ive") {
        return s;
    }
    if let Some(s) = strip("ements", "") {
        return s;
    }
    if let Some(s) = strip("ement", "") {
        return s;
    }
    if let Some(s) = strip("ments", "") {
        return s;
    }
    if let Some(s) = strip("ment", "") {
        return s;
    }
    if let Some(s) = strip("ies", "y") {
        return s;
    }
    if let Some(s) = strip("ied", "y") {
        return s;
    }
    if let Some(s) = strip("ily", "y") {
        return s;
    }
    if let Some(s) = strip("ings", "") {
        return trim_e_less(undouble(s));
    }
    if let Some(s) = strip("ing", "") {
        return trim_e_less(undouble(s));
    }
    if let Some(s) = strip("edly", "") {
        return trim_e_less(undouble(s));
    }
    if let Some(s) = strip("ed", "") {
        return trim_e_less(undouble(s));
    }
    if let Some(s) = strip("ly", "") {
        return s;
    }
    if let Some(s) = strip("sses", "ss") {
        return s;
    }
    if let Some(s) = strip("xes", "x").or_else(|| strip("ches", "ch")).or_else(|| strip("shes", "sh")) {
        return s;
    }
    if w.ends_with("ss") || w.ends_with("us") || w.ends_with("is") {
        return w.to_string();
    }
    if let Some(s) = strip("s", "") {
        return trim_e_less(s);
    }
    trim_e_less(w.to_string())
}

/// Drops a final silent "e" so "charge", "charges", "charged" and "charging" meet at "charg".
fn trim_e_less(s: String) -> String {
    if s.len() > 3 && s.ends_with('e') && !s.ends_with("ee") {
        let mut s = s;
        s.pop();
        s
    } else {
        s
    }
}

fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

// Sorted (binary search). Common English function words; question words like "how" and "when"
// are stopwords too, as every FAQ question has them, and so are greetings and courtesies
// ("hi", "please", "thanks"), which would otherwise dilute a question's coverage.
const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "dont", "down", "during", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "hello", "her", "here", "hers", "herself",
    "hey", "hi", "him", "himself", "his", "how", "i", "if", "im", "in", "into", "is", "it", "its",
    "itself", "ive", "just", "me", "might", "more", "most", "must", "my", "myself", "of", "off",
    "ok", "okay", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over",
    "own", "please", "same", "she", "should", "so", "some", "such", "than", "thank", "thanks",
    "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "you", "your", "yours", "yourself", "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&'static str]) -> Bm25Index {
        Bm25Index::build(
            texts.iter().map(|t| vec![Field { text: t, weight: 1.0 }]),
            Bm25Params::default(),
        )
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn tokenize_lowercases_stems_and_drops_stopwords() {
        assert_eq!(tokenize("How do I return the Shoes?"), vec!["return", "sho"]);
        assert_eq!(tokenize("charges charged charging charge"), vec!["charg"; 4]);
        assert_eq!(tokenize("Deliveries delivery"), vec!["delivery", "delivery"]);
        assert_eq!(tokenize("shipping shipped ships"), vec!["ship", "ship", "ship"]);
        assert_eq!(tokenize("customer's address"), vec!["customer", "address"]);
        assert_eq!(tokenize("Zürich €50"), vec!["zürich", "50"]);
    }

    #[test]
    fn ranks_the_document_with_the_rare_term_first() {
        let index = docs(&[
            "We ship to most countries in Europe.",
            "Refunds are issued to the original payment method within 5 days.",
            "Our store opens at 9am and closes at 6pm.",
        ]);
        let hits = index.search("when will my refund arrive", 3);
        assert_eq!(hits.first().map(|h| h.doc), Some(1));
        assert_eq!(hits.len(), 1, "documents without a shared term are left out");
    }

    #[test]
    fn coverage_measures_the_share_of_the_query_found() {
        let index = docs(&["refund policy for damaged items", "gift cards never expire"]);
        let full = index.search("refund damaged", 1);
        let half = index.search("refund zebra", 1);
        assert!((full[0].coverage - 1.0).abs() < 1e-6);
        assert!(half[0].coverage < 0.6, "an unseen word counts against coverage");
    }

    #[test]
    fn field_weights_favour_the_weighted_field() {
        let index = Bm25Index::build(
            vec![
                vec![Field { text: "cancel subscription", weight: 2.0 }, Field { text: "Go to settings.", weight: 1.0 }],
                vec![Field { text: "billing overview", weight: 2.0 }, Field { text: "You can cancel your subscription any time.", weight: 1.0 }],
            ],
            Bm25Params::default(),
        );
        let hits = index.search("cancel subscription", 2);
        assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn top_k_is_sorted_and_bounded() {
        let texts: Vec<String> = (0..1000).map(|i| format!("item {i} widget {}", "widget ".repeat(i % 7))).collect();
        let index = Bm25Index::build(
            texts.iter().map(|t| vec![Field { text: t.as_str(), weight: 1.0 }]),
            Bm25Params::default(),
        );
        let hits = index.search("widget", 10);
        assert_eq!(hits.len(), 10);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(index.search("", 10).is_empty());
        assert!(index.search("widget", 0).is_empty());
    }
}
