//! The default answerer: no language model. Replies with the matching Q&A answer verbatim, or
//! the one to three sentences of the best passage that answer the question (picked by their
//! sentence vectors, else by the question's words), and says honestly when nothing matches.

use super::suggest::{self, DID_YOU_MEAN, NEAR_MARGIN};
use super::{Answer, AnswerError, AnswerRequest, Answerer, Citation, DeltaSink};
use crate::retrieval::bm25::tokenize;
use crate::retrieval::sentences::{self, split as split_sentences};
use crate::retrieval::{Passage, SourceKind, UnitScore};

/// Below these retrieval confidences the knowledge is taken not to cover the question. Chosen
/// with `retrieval-eval` (2026-11-22, both FAQ sets in benches/data, dense-led hybrid): a Q&A
/// pair at 0.5 answers 51% (adversarial paraphrases) and 84% (natural questions) right while
/// answering 8% and 0% of out-of-scope questions; 0.45 lets a third of out-of-scope questions
/// through. A passage's vector is of a longer, broader text, so its similarities run lower:
/// at 0.4 passages answer 46% / 75% right and 8% / 0% out of scope (0.5 would refuse a fifth
/// of the questions they answer right). A support bot should rather say it does not know and
/// offer a human than answer from the wrong entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceThresholds {
    pub qa: f32,
    pub passage: f32,
}

pub const DEFAULT_THRESHOLDS: ConfidenceThresholds = ConfidenceThresholds { qa: 0.5, passage: 0.4 };

impl Default for ConfidenceThresholds {
    fn default() -> Self {
        DEFAULT_THRESHOLDS
    }
}

/// How many of the best hits may supply the answer: a confident passage ranked just below a
/// Q&A pair that is not confident still answers.
pub const ANSWER_CANDIDATES: usize = 3;

impl ConfidenceThresholds {
    pub fn for_kind(&self, kind: SourceKind) -> f32 {
        match kind {
            SourceKind::Qa => self.qa,
            SourceKind::Pdf | SourceKind::Website | SourceKind::Text => self.passage,
        }
    }

    pub fn is_confident(&self, passage: &Passage) -> bool {
        passage.confidence >= self.for_kind(passage.kind)
    }

    /// The best-ranked passage, among the first few, that clears its kind's threshold.
    pub fn best<'a>(&self, passages: &'a [Passage]) -> Option<&'a Passage> {
        passages.iter().take(ANSWER_CANDIDATES).find(|p| self.is_confident(p))
    }
}

/// Longest passage answer, in characters (sentences are dropped, or one sentence cut, to fit).
pub const DEFAULT_MAX_CHARS: usize = 600;
/// The most sentences one FAQ question is written in (seen: three, in the SQLite FAQ); a longer
/// run of questions is a list of them.
const MAX_QUESTION_SENTENCES: usize = 3;

/// Most sentences a passage answer quotes: a visitor asked one thing.
pub const MAX_ANSWER_SENTENCES: usize = 3;

/// A sentence scoring within this of the best unit also answers (two sentences that each say
/// part of it); further down, it is about something else. Cosine units for the model.
const JOIN_MARGIN: f32 = 0.05;

/// A best sentence shorter than this that does not end like a sentence is a heading
/// ("Returns:", "Opening hours"); the sentence after it carries the content.
const HEADING_CHARS: usize = 40;

/// Said when the knowledge has no good match.
pub const NOT_KNOWN_YET: &str =
    "I don't know that yet — it isn't covered in what I've been taught so far.";

#[derive(Debug, Clone, Copy)]
pub struct ExtractiveAnswerer {
    pub thresholds: ConfidenceThresholds,
    pub max_chars: usize,
    /// Candidates this close under their bar are offered as "did you mean" (0 turns it off).
    pub near_margin: f32,
}

impl Default for ExtractiveAnswerer {
    fn default() -> Self {
        Self { thresholds: DEFAULT_THRESHOLDS, max_chars: DEFAULT_MAX_CHARS, near_margin: NEAR_MARGIN }
    }
}

impl ExtractiveAnswerer {
    /// The reply without streaming (the trait method streams it as one delta).
    pub fn compose(&self, request: &AnswerRequest<'_>) -> Answer {
        let best = self.thresholds.best(request.passages);
        match best {
            Some(p) => {
                let text = answer_text(p, request.question, self.max_chars);
                Answer { text, citations: vec![Citation::from(p)], confident: true, offer_handoff: false, suggestions: Vec::new() }
            }
            None => {
                // Still a refusal (`confident: false`: counted and logged as unanswered), but
                // one the visitor can get past with a click, so no handoff yet.
                let suggestions = suggest::suggestions(&self.thresholds, self.near_margin, request.passages);
                if !suggestions.is_empty() {
                    return Answer { text: DID_YOU_MEAN.into(), citations: Vec::new(), confident: false, offer_handoff: false, suggestions };
                }
                let text = match request.handover {
                    Some(handover) if !handover.trim().is_empty() => {
                        format!("{NOT_KNOWN_YET} {}", handover.trim())
                    }
                    _ => format!("{NOT_KNOWN_YET} Could you rephrase your question?"),
                };
                Answer { text, citations: Vec::new(), confident: false, offer_handoff: request.handover.is_some(), suggestions: Vec::new() }
            }
        }
    }
}

#[async_trait::async_trait]
impl Answerer for ExtractiveAnswerer {
    async fn answer(&self, request: AnswerRequest<'_>, sink: &dyn DeltaSink) -> Result<Answer, AnswerError> {
        let answer = self.compose(&request);
        sink.delta(&answer.text);
        Ok(answer)
    }

    fn name(&self) -> &'static str {
        "extractive"
    }
}

/// What of `passage` answers `question`: a Q&A pair's whole answer (the owner wrote it for
/// that question), else [`answer_sentences`]. The OpenAI answerer puts the same text in its
/// prompt, so both answerers work from one selection.
pub fn answer_text(passage: &Passage, question: &str, max_chars: usize) -> String {
    match passage.kind {
        SourceKind::Qa => passage.content.trim().to_string(),
        SourceKind::Pdf | SourceKind::Website | SourceKind::Text => answer_sentences(passage, question, max_chars),
    }
}

/// The one to three sentences of `passage` that best answer `question`, in their original
/// order: the best-scoring sentence or two-sentence window, plus any sentence scoring nearly as
/// well, plus the next sentence when the pick is only a heading. Scores are the passage's unit
/// similarities from retrieval when it has them, else the share of the question's words.
pub fn answer_sentences(passage: &Passage, question: &str, max_chars: usize) -> String {
    let mut all = split_sentences(&passage.content);
    if all.len() <= 1 {
        return excerpt(&passage.content, question, max_chars);
    }
    let scores = if passage.units.is_empty() { lexical_units(&all, question) } else { passage.units.clone() };
    let Some(best) = scores
        .iter()
        .filter(|u| u.first + u.len <= all.len())
        .max_by(|a, b| a.score.total_cmp(&b.score).then(b.len.cmp(&a.len)).then(b.first.cmp(&a.first)))
        .copied()
    else {
        return excerpt(&passage.content, question, max_chars);
    };
    if best.score <= 0.0 {
        // Nothing in the passage mentions the question (it matched on its title): its start.
        return excerpt(&passage.content, question, max_chars);
    }
    // (sentence index, its own score); the best unit's sentences first.
    let single = |i: usize| scores.iter().find(|u| u.len == 1 && u.first == i).map_or(best.score, |u| u.score);
    let mut chosen: Vec<(usize, f32)> = (best.first..best.first + best.len).map(|i| (i, single(i))).collect();
    // Extras are statements: a question near the best (an FAQ's own, above its answer) answers
    // nothing.
    let mut others: Vec<&UnitScore> = scores
        .iter()
        .filter(|u| u.len == 1 && !chosen.iter().any(|(i, _)| *i == u.first))
        .filter(|u| all.get(u.first).is_some_and(|s| !sentences::asks(s)))
        .collect();
    others.sort_by(|a, b| b.score.total_cmp(&a.score));
    for u in others {
        if chosen.len() >= MAX_ANSWER_SENTENCES || u.score < best.score - JOIN_MARGIN {
            break;
        }
        chosen.push((u.first, u.score));
    }
    if let Some(answer) = answer_after_question(&all, best) {
        // A pasted FAQ page: the pick is (or ends in) one of its questions, which a paraphrase
        // matches best, and the reply is the answer written under it, not the question again
        // (nor its "A:" label).
        if let Some(first) = all.get_mut(answer.start) {
            *first = without_answer_label(first);
        }
        chosen = answer.map(|i| (i, best.score)).collect();
    }
    let chars = |chosen: &[(usize, f32)]| -> usize {
        chosen.iter().filter_map(|(i, _)| all.get(*i)).map(|s| s.chars().count() + 1).sum()
    };
    let heading = best.len == 1
        && all.get(best.first).is_some_and(|s| s.chars().count() < HEADING_CHARS && !s.ends_with(['.', '!', '?']));
    let next = best.first + 1;
    if heading && next < all.len() && !chosen.iter().any(|(i, _)| *i == next) {
        // It replaces the weakest extra, if the answer is full.
        if chosen.len() >= MAX_ANSWER_SENTENCES {
            chosen.pop();
        }
        chosen.push((next, best.score));
    }
    // Too long: drop the weakest extra sentences, then cut what is left.
    chosen.sort_by(|a, b| b.1.total_cmp(&a.1));
    while chosen.len() > 1 && chars(&chosen) > max_chars + 1 {
        chosen.pop();
    }
    chosen.sort_by_key(|(i, _)| *i);
    let text = chosen.iter().filter_map(|(i, _)| all.get(*i).copied()).collect::<Vec<_>>().join(" ");
    excerpt(&text, question, max_chars)
}

/// When the unit `best` holds a question (the last one in it) with sentences after it, the
/// sentences that answer it: those that follow, up to the next question, at most
/// [`MAX_ANSWER_SENTENCES`]. A question asked in up to [`MAX_QUESTION_SENTENCES`] sentences
/// ("Which machines run it? Where do I get it?") is answered after its last; a longer run of
/// questions is a list of them (a page's contents), with no answer under any one.
fn answer_after_question(all: &[&str], best: UnitScore) -> Option<std::ops::Range<usize>> {
    let asks = |i: usize| all.get(i).is_some_and(|s| sentences::asks(s));
    let asked = (best.first..best.first + best.len).rev().find(|&i| asks(i))?;
    let run_start = (0..=asked).rev().take_while(|&i| asks(i)).last().unwrap_or(asked);
    let start = (asked + 1..all.len()).find(|&i| !asks(i))?;
    if start - run_start > MAX_QUESTION_SENTENCES {
        return None;
    }
    let limit = all.len().min(start + MAX_ANSWER_SENTENCES);
    let end = (start..limit).find(|&i| asks(i)).unwrap_or(limit);
    (end > start).then_some(start..end)
}

/// An FAQ answer without the label some pages put before it ("A: …", "Answer: …").
fn without_answer_label(sentence: &str) -> &str {
    for label in ["answer:", "a:"] {
        let labelled = sentence.get(..label.len()).is_some_and(|head| head.eq_ignore_ascii_case(label));
        let rest = sentence.get(label.len()..).unwrap_or_default().trim_start();
        if labelled && !rest.is_empty() {
            return rest;
        }
    }
    sentence
}

/// Units scored by the share of the question's (stemmed, non-stopword) words they contain:
/// the stand-in for sentence vectors when Parley runs without the model.
fn lexical_units(all: &[&str], question: &str) -> Vec<UnitScore> {
    let mut wanted = tokenize(question);
    wanted.sort();
    wanted.dedup();
    let per_sentence: Vec<Vec<String>> = all.iter().map(|s| tokenize(s)).collect();
    sentences::units(all.len())
        .into_iter()
        .map(|u| {
            let found = wanted
                .iter()
                .filter(|w| per_sentence.get(u.first..u.first + u.len).is_some_and(|ss| ss.iter().any(|t| t.contains(*w))))
                .count();
            // A window must earn its second sentence: the same words in one sentence win.
            let score = found as f32 / wanted.len().max(1) as f32 - 0.01 * (u.len as f32 - 1.0);
            UnitScore { first: u.first, len: u.len, score }
        })
        .collect()
}

/// The passage itself when short enough; otherwise the run of whole sentences (at most
/// `max_chars`) that mentions the question's words most, marked with ellipses where cut.
pub fn excerpt(content: &str, question: &str, max_chars: usize) -> String {
    let content = content.trim();
    let sentences = split_sentences(content);
    // A passage's answer is at most three sentences, however short they are.
    if content.chars().count() <= max_chars && sentences.len() <= MAX_ANSWER_SENTENCES {
        return content.to_string();
    }
    let wanted: Vec<String> = tokenize(question);
    let score = |s: &str| -> usize {
        let toks = tokenize(s);
        wanted.iter().filter(|w| toks.contains(w)).count()
    };
    let scores: Vec<usize> = sentences.iter().map(|s| score(s)).collect();

    // Best window of consecutive sentences that fits, by summed score (earliest on ties).
    let mut best: Option<(usize, usize, usize)> = None; // (score, start, end exclusive)
    for start in 0..sentences.len() {
        let mut len = 0usize;
        let mut total = 0usize;
        let mut end = start;
        while let Some(s) = sentences.get(end) {
            let l = s.chars().count() + usize::from(end > start);
            if len + l > max_chars || end - start >= MAX_ANSWER_SENTENCES {
                break;
            }
            len += l;
            total += scores.get(end).copied().unwrap_or(0);
            end += 1;
        }
        if end > start && best.is_none_or(|(b, _, _)| total > b) {
            best = Some((total, start, end));
        }
    }
    match best {
        Some((_, start, end)) => {
            let body = sentences.get(start..end).map(|s| s.join(" ")).unwrap_or_default();
            let mut out = String::new();
            if start > 0 {
                out.push_str("… ");
            }
            out.push_str(&body);
            if end < sentences.len() {
                out.push_str(" …");
            }
            out
        }
        // Not even one sentence fits: cut at a word boundary.
        None => {
            let mut out: String = content.chars().take(max_chars).collect();
            if let Some(space) = out.rfind(char::is_whitespace) {
                out.truncate(space);
            }
            out.push_str(" …");
            out
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::NoSink;
    use crate::retrieval::{ChunkRecord, HybridIndex, IndexOptions};

    fn request<'a>(question: &'a str, passages: &'a [Passage], handover: Option<&'a str>) -> AnswerRequest<'a> {
        AnswerRequest { system_prompt: "", question, history: &[], passages, handover }
    }

    /// A text source's chunk (its id is its source's too).
    fn text_chunk(id: &str, title: &str, content: &str) -> ChunkRecord {
        ChunkRecord {
            id: id.into(),
            source_id: Some(id.into()),
            kind: SourceKind::Text,
            title: title.into(),
            url: None,
            page: None,
            content: content.into(),
            question: None,
            embedding: None,
            sentence_embeddings: None,
        }
    }

    fn faq() -> Vec<ChunkRecord> {
        let qa = |id: &str, q: &str, a: &str| ChunkRecord {
            id: id.into(),
            source_id: Some("faq-source".into()),
            kind: SourceKind::Qa,
            title: "Store FAQ".into(),
            url: None,
            page: None,
            content: a.into(),
            question: Some(q.into()),
            embedding: None,
            sentence_embeddings: None,
        };
        vec![
            qa("1", "How long does delivery take?", "Standard delivery takes 3 to 5 working days within the UK."),
            qa("2", "What is your returns policy?", "You can return unworn items within 30 days for a full refund."),
            qa("3", "Do you ship internationally?", "Yes, we ship to 40 countries; duties are shown at checkout."),
            qa("4", "How do I reset my password?", "Click 'Forgot password' on the sign-in page and follow the email link."),
            qa("5", "Which payment methods do you accept?", "Visa, Mastercard, American Express, PayPal and Apple Pay."),
        ]
    }

    #[tokio::test]
    async fn answers_a_reworded_question_with_the_exact_qa_answer_bm25_only() {
        let index = HybridIndex::build(faq(), None, IndexOptions::default()).unwrap();
        let question = "what's the policy on returning items?";
        let passages = index.passages(&index.search(question, None, 5), None);
        let streamed = std::sync::Mutex::new(String::new());
        let sink = |d: &str| streamed.lock().unwrap().push_str(d);
        let answer = ExtractiveAnswerer::default().answer(request(question, &passages, None), &sink).await.unwrap();
        assert_eq!(answer.text, "You can return unworn items within 30 days for a full refund.");
        assert_eq!(*streamed.lock().unwrap(), answer.text);
        assert!(answer.confident);
        assert_eq!(answer.citations, vec![Citation { title: "Store FAQ".into(), url: None, page: None, source_id: Some("faq-source".into()) }]);
    }

    #[tokio::test]
    async fn answers_a_paraphrase_with_no_shared_words_through_the_model() {
        let Some(model) = crate::retrieval::embed::test_support::model() else { return };
        let index = HybridIndex::build(faq(), Some(&model), IndexOptions::default()).unwrap();
        let question = "when will my parcel get here?";
        let qv = crate::retrieval::Embedder::embed(&model, &[question.to_string()]).unwrap().remove(0);
        let passages = index.passages(&index.search(question, Some(&qv), 5), Some(&qv));
        let answer = ExtractiveAnswerer::default().answer(request(question, &passages, None), &NoSink).await.unwrap();
        assert_eq!(answer.text, "Standard delivery takes 3 to 5 working days within the UK.");
        assert!(answer.confident);

        // Retrieved first, but below the confidence bar: a known miss of the current scoring
        // (confidence 0.39), so the bot says it does not know rather than guess.
        let question = "can I settle the bill with Amex?";
        let qv = crate::retrieval::Embedder::embed(&model, &[question.to_string()]).unwrap().remove(0);
        let passages = index.passages(&index.search(question, Some(&qv), 5), Some(&qv));
        assert_eq!(passages[0].content, "Visa, Mastercard, American Express, PayPal and Apple Pay.");
        let answer = ExtractiveAnswerer::default().answer(request(question, &passages, None), &NoSink).await.unwrap();
        assert!(!answer.confident, "{:?}", passages.iter().map(|p| p.confidence).collect::<Vec<_>>());

        let question = "what is the airspeed velocity of an unladen swallow";
        let qv = crate::retrieval::Embedder::embed(&model, &[question.to_string()]).unwrap().remove(0);
        let passages = index.passages(&index.search(question, Some(&qv), 5), Some(&qv));
        let handover = "Let me connect you with a human agent who can better assist you.";
        let answer = ExtractiveAnswerer::default().answer(request(question, &passages, Some(handover)), &NoSink).await.unwrap();
        assert!(!answer.confident, "{passages:?}");
        assert!(answer.offer_handoff);
    }

    fn passage(kind: SourceKind, content: &str, confidence: f32) -> Passage {
        Passage {
            chunk_id: content.into(),
            source_id: Some(content.into()),
            kind,
            title: "Help".into(),
            url: None,
            page: None,
            content: content.into(),
            question: (kind == SourceKind::Qa).then(|| "Q?".into()),
            score: confidence,
            confidence,
            units: Vec::new(),
        }
    }

    #[test]
    fn each_kind_of_knowledge_has_its_own_confidence_bar() {
        let a = ExtractiveAnswerer::default();
        let unsure_pair = passage(SourceKind::Qa, "A pair's answer.", 0.45);
        let sure_text = passage(SourceKind::Text, "A passage that answers.", 0.45);
        assert!(!a.compose(&request("q", std::slice::from_ref(&unsure_pair), None)).confident, "a pair needs 0.5");
        let answer = a.compose(&request("q", std::slice::from_ref(&sure_text), None));
        assert!(answer.confident, "a passage needs 0.4");
        // The pair ranked first is not sure; the passage just below it is, and answers.
        let answer = a.compose(&request("q", &[unsure_pair.clone(), sure_text.clone()], None));
        assert_eq!((answer.text.as_str(), answer.confident), ("A passage that answers.", true));
        let far_down = [unsure_pair.clone(), unsure_pair.clone(), unsure_pair, sure_text];
        assert!(!a.compose(&request("q", &far_down, None)).confident, "only the first few hits may answer");
    }

    #[test]
    fn just_under_the_bar_the_bot_asks_did_you_mean_instead_of_refusing() {
        let a = ExtractiveAnswerer::default();
        let handover = Some("Let me connect you with a human agent.");
        let pair = |q: &str, confidence: f32| Passage { question: Some(q.into()), ..passage(SourceKind::Qa, q, confidence) };
        let bar = DEFAULT_THRESHOLDS.qa;

        // Near: the pairs' questions as suggestions, still a refusal, no handoff yet.
        let m = a.near_margin;
        let near = [pair("How long does delivery take?", bar - m * 0.4), pair("Do you ship abroad?", bar - m * 0.8)];
        let answer = a.compose(&request("when does it come", &near, handover));
        assert_eq!(answer.text, suggest::DID_YOU_MEAN);
        assert_eq!(answer.suggestions, vec!["How long does delivery take?", "Do you ship abroad?"]);
        assert!(!answer.confident && !answer.offer_handoff && answer.citations.is_empty());

        // Far: the plain refusal and the handoff, as before.
        let far = [pair("How long does delivery take?", bar - m - 0.05)];
        let answer = a.compose(&request("what is the meaning of life", &far, handover));
        assert!(answer.text.starts_with(NOT_KNOWN_YET), "{}", answer.text);
        assert!(answer.suggestions.is_empty() && answer.offer_handoff && !answer.confident);

        // Confident: the answer itself, nothing suggested.
        let sure = [pair("How long does delivery take?", bar + 0.01)];
        let answer = a.compose(&request("how long is delivery", &sure, handover));
        assert_eq!(answer.text, "How long does delivery take?");
        assert!(answer.confident && answer.suggestions.is_empty());

        // Suggestions are optional in the JSON: absent when empty.
        let json = serde_json::to_value(&answer).unwrap();
        assert!(json.get("suggestions").is_none(), "{json}");
        let json = serde_json::to_value(a.compose(&request("q", &near, None))).unwrap();
        assert_eq!(json["suggestions"][0], "How long does delivery take?");
    }

    #[tokio::test]
    async fn a_policy_question_is_answered_from_a_text_passage() {
        let Some(model) = crate::retrieval::embed::test_support::model() else { return };
        let text = |id: &str, content: &str| text_chunk(id, "Shop policies", content);
        let docs = vec![
            text("returns", "Returns: unworn items can be sent back within 30 days of delivery for a full refund. Sale items are final."),
            text("delivery", "Delivery: orders ship from our Leeds warehouse and arrive in 3 to 5 working days."),
            text("about", "We are a family business making outdoor clothing since 1982."),
        ];
        let index = HybridIndex::build(docs, Some(&model), IndexOptions::default()).unwrap();
        for question in ["What is your return policy?", "can I send something back?"] {
            let qv = crate::retrieval::Embedder::embed(&model, &[question.to_string()]).unwrap().remove(0);
            let passages = index.passages(&index.search(question, Some(&qv), 5), Some(&qv));
            let answer = ExtractiveAnswerer::default().answer(request(question, &passages, None), &NoSink).await.unwrap();
            assert!(answer.confident, "{question}: {:?}", passages.iter().map(|p| (&p.chunk_id, p.confidence)).collect::<Vec<_>>());
            assert!(answer.text.starts_with("Returns: unworn items"), "{question}: {}", answer.text);
        }
    }

    #[test]
    fn says_it_does_not_know_and_offers_a_human_only_when_handover_is_on() {
        let a = ExtractiveAnswerer::default();
        let handover = "Let me connect you with a human agent who can better assist you.";
        let with = a.compose(&request("anything", &[], Some(handover)));
        assert!(!with.confident && with.offer_handoff);
        assert_eq!(with.text, format!("{NOT_KNOWN_YET} {handover}"));
        let without = a.compose(&request("anything", &[], None));
        assert!(!without.confident && !without.offer_handoff);
        assert!(without.text.starts_with(NOT_KNOWN_YET));
        assert!(without.citations.is_empty());
    }

    #[test]
    fn long_passages_are_cut_to_the_relevant_sentences() {
        let filler = "Our company has a long history of craftsmanship. ".repeat(20);
        let content = format!("{filler}Gift cards never expire and can be used online. {filler}");
        let p = Passage {
            chunk_id: "c".into(),
            source_id: Some("s".into()),
            kind: SourceKind::Website,
            title: "About".into(),
            url: Some("https://shop.example/about".into()),
            page: None,
            content,
            question: None,
            score: 1.0,
            confidence: 0.9,
            units: Vec::new(),
        };
        let answer = ExtractiveAnswerer::default().compose(&request("do gift cards expire?", std::slice::from_ref(&p), None));
        assert_eq!(answer.text, "Gift cards never expire and can be used online.");
        assert_eq!(answer.citations[0].url.as_deref(), Some("https://shop.example/about"));
        assert_eq!(excerpt("Short.", "x", 600), "Short.");
        // Short sentences, many of them: still three at most, the ones the question names.
        assert_eq!(excerpt("One. Two. Three. Four hours. Five.", "hours?", 600), "… Two. Three. Four hours. …");
        assert_eq!(excerpt("Open daily. Closed Sundays. Call us. Hours vary.", "x", 600), "Open daily. Closed Sundays. Call us. …");
        let one_long_word_run = "a".repeat(50) + " " + &"b".repeat(700);
        assert!(excerpt(&one_long_word_run, "x", 100).ends_with(" …"));
    }

    /// A shop's one-paragraph "about us" text: several topics in one chunk, as an owner pastes it.
    const SHOP_PARAGRAPH: &str = "Orders placed before 2 pm ship the same day and arrive within 3 working days. \
        You can return any unused item within 30 days of delivery for a full refund. \
        Our Leeds store is open Monday to Saturday from 9 am to 6 pm. \
        Gift cards are sold in the store and online and never expire. \
        The workshop repairs flat tyres while you wait, usually in 20 minutes, and services bikes within two days.";

    fn shop_index(model: &dyn crate::retrieval::Embedder) -> HybridIndex {
        let chunk = ChunkRecord {
            id: "about".into(),
            source_id: Some("about-page".into()),
            kind: SourceKind::Website,
            title: "About our shop".into(),
            url: Some("https://shop.example/about".into()),
            page: None,
            content: SHOP_PARAGRAPH.into(),
            question: None,
            embedding: None,
            sentence_embeddings: None,
        };
        let other = ChunkRecord {
            id: "history".into(),
            content: "We started as a family business in 1982 and still build our own frames.".into(),
            url: Some("https://shop.example/history".into()),
            ..chunk.clone()
        };
        HybridIndex::build(vec![chunk, other], Some(model), IndexOptions::default()).unwrap()
    }

    fn ask(index: &HybridIndex, model: &dyn crate::retrieval::Embedder, question: &str) -> (Answer, Vec<Passage>) {
        let qv = model.embed(&[question.to_string()]).unwrap().remove(0);
        let passages = index.passages(&index.search(question, Some(&qv), 5), Some(&qv));
        (ExtractiveAnswerer::default().compose(&request(question, &passages, None)), passages)
    }

    #[test]
    fn a_question_about_one_topic_of_a_paragraph_is_answered_by_its_sentence() {
        let Some(model) = crate::retrieval::embed::test_support::model() else { return };
        // Compared with the whole paragraph this paraphrase scores under the passage bar;
        // compared with its sentence it clears it.
        let whole_only = IndexOptions { sentences: false, ..IndexOptions::default() };
        let chunks = shop_index(&model).chunks().to_vec();
        let before = HybridIndex::build(chunks, Some(&model), whole_only).unwrap();
        let (answer, passages) = ask(&before, &model, "How long does fixing a puncture take?");
        assert!(!answer.confident, "{:?}", passages.iter().map(|p| p.confidence).collect::<Vec<_>>());
        let index = shop_index(&model);
        let (answer, passages) = ask(&index, &model, "How long does fixing a puncture take?");
        assert!(answer.confident, "{:?}", passages.iter().map(|p| (&p.chunk_id, p.confidence)).collect::<Vec<_>>());
        assert!(answer.text.contains("20 minutes"), "{}", answer.text);
        assert!(!answer.text.contains("Gift cards"), "{}", answer.text);
        assert!(split_sentences(&answer.text).len() <= MAX_ANSWER_SENTENCES);
        assert_eq!(answer.citations[0].url.as_deref(), Some("https://shop.example/about"));

        let (answer, _) = ask(&index, &model, "How long do I have to send something back?");
        assert!(answer.confident);
        assert!(answer.text.contains("within 30 days of delivery"), "{}", answer.text);
        assert!(answer.text.chars().count() < SHOP_PARAGRAPH.chars().count() / 2, "{}", answer.text);
        assert!(split_sentences(&answer.text).len() <= MAX_ANSWER_SENTENCES);

        let (answer, _) = ask(&index, &model, "what is the airspeed velocity of an unladen swallow");
        assert!(!answer.confident, "{}", answer.text);
    }

    #[test]
    fn every_passage_answer_is_at_most_three_sentences_in_original_order() {
        let Some(model) = crate::retrieval::embed::test_support::model() else { return };
        let index = shop_index(&model);
        let all = split_sentences(SHOP_PARAGRAPH);
        for question in [
            "when do you open?",
            "do gift vouchers run out?",
            "how fast is shipping and can I return things?",
            "tell me everything about the shop",
            "bike",
        ] {
            let (answer, _) = ask(&index, &model, question);
            if !answer.confident {
                continue;
            }
            let got = split_sentences(&answer.text);
            assert!((1..=MAX_ANSWER_SENTENCES).contains(&got.len()), "{question}: {}", answer.text);
            let positions: Vec<usize> = got.iter().filter_map(|s| all.iter().position(|a| a == s)).collect();
            if answer.citations[0].url.as_deref() == Some("https://shop.example/about") {
                assert_eq!(positions.len(), got.len(), "{question}: quoted verbatim: {}", answer.text);
                assert!(positions.windows(2).all(|w| w[0] < w[1]), "{question}: in order: {}", answer.text);
            }
        }
    }

    fn scored(content: &str, units: Vec<UnitScore>) -> Passage {
        Passage {
            chunk_id: "c".into(),
            source_id: None,
            kind: SourceKind::Text,
            title: "T".into(),
            url: None,
            page: None,
            content: content.into(),
            question: None,
            score: 1.0,
            confidence: 0.9,
            units,
        }
    }

    #[test]
    fn sentences_are_picked_by_their_scores_and_kept_in_order() {
        let text = "Alpha is first. Beta is second. Gamma is third. Delta is fourth.";
        let u = |first, len, score| UnitScore { first, len, score };
        // The best unit is sentence 2; sentence 0 is nearly as good and joins; order kept.
        let p = scored(text, vec![u(0, 1, 0.58), u(1, 1, 0.1), u(2, 1, 0.6), u(3, 1, 0.2), u(0, 2, 0.4)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Alpha is first. Gamma is third.");
        // A window that beats its sentences gives both.
        let p = scored(text, vec![u(0, 1, 0.3), u(1, 1, 0.4), u(2, 1, 0.45), u(3, 1, 0.1), u(1, 2, 0.5)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Beta is second. Gamma is third.");
        // Never more than three, even when all score the same.
        let p = scored(text, (0..4).map(|i| u(i, 1, 0.5)).collect());
        assert_eq!(split_sentences(&answer_sentences(&p, "q", 600)).len(), 3);
        // A heading alone takes the sentence after it.
        let p = scored("Returns: Items come back within 30 days. Shipping is free.", vec![u(0, 1, 0.7), u(1, 1, 0.5), u(2, 1, 0.1)]);
        assert_eq!(split_sentences("Returns: Items come back within 30 days.").len(), 1);
        let p2 = scored("Returns:\nItems come back within 30 days.\nShipping is free.", vec![u(0, 1, 0.7), u(1, 1, 0.5), u(2, 1, 0.1)]);
        assert_eq!(answer_sentences(&p2, "q", 600), "Returns: Items come back within 30 days.");
        assert_eq!(answer_sentences(&p, "q", 600), "Returns: Items come back within 30 days.");
        // Out-of-range units (a stale index) are ignored, not indexed.
        let p = scored("One. Two.", vec![u(5, 1, 0.9), u(1, 1, 0.5)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Two.");
    }

    #[test]
    fn without_the_model_sentences_are_picked_by_the_question_s_words() {
        let p = scored(SHOP_PARAGRAPH, Vec::new());
        let text = answer_sentences(&p, "Is the Leeds store open on Saturday?", 600);
        assert_eq!(text, "Our Leeds store is open Monday to Saturday from 9 am to 6 pm.");
        let text = answer_sentences(&p, "do gift cards expire?", 600);
        assert_eq!(text, "Gift cards are sold in the store and online and never expire.");
        // Nothing of the question in any sentence: the passage's start, within the limit.
        let text = answer_sentences(&p, "zzz", 100);
        assert!(text.chars().count() <= 104 && text.starts_with("Orders placed"), "{text}");
    }

    /// A pasted FAQ page: lines that ask, each followed by its answer.
    const FAQ_PAGE: &str = "How long does delivery take?\nStandard delivery takes 3 to 5 working days within the UK. Express orders placed before noon arrive the next day.\nCan I return an item?\nYes. Unworn items can be returned within 30 days of delivery for a full refund.\nDo you ship abroad?\nWe ship to most EU countries; delivery there takes 7 to 10 days.\nHow do I reset my password?\nUse the Forgot password link on the sign-in page and follow the email we send you.";

    #[test]
    fn a_pasted_faq_page_answers_with_the_answer_under_the_matched_question() {
        let u = |first, len, score| UnitScore { first, len, score };
        // The question line matches best: the reply is what is written under it, up to the
        // next question, never the question itself.
        let p = scored(FAQ_PAGE, vec![u(3, 1, 0.8), u(4, 1, 0.5), u(5, 1, 0.4), u(0, 1, 0.78), u(3, 2, 0.7)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Yes. Unworn items can be returned within 30 days of delivery for a full refund.");
        // A window that ends in a question: the answer to that question.
        let p = scored(FAQ_PAGE, vec![u(5, 2, 0.8), u(7, 1, 0.3)]);
        assert_eq!(answer_sentences(&p, "q", 600), "We ship to most EU countries; delivery there takes 7 to 10 days.");
        // The best unit is the answer; the question above it scores nearly as well but does
        // not join it.
        let p = scored(FAQ_PAGE, vec![u(1, 2, 0.63), u(0, 1, 0.61), u(1, 1, 0.5), u(2, 1, 0.3)]);
        assert_eq!(
            answer_sentences(&p, "q", 600),
            "Standard delivery takes 3 to 5 working days within the UK. Express orders placed before noon arrive the next day."
        );
        // Labelled pages ("Q: …", "A: …") are answered without the label.
        let p = scored("Q: Can I pay by card?\nA: Yes, every major card.\nQ: Do you deliver?\nAnswer: Only in town.", vec![u(2, 1, 0.9), u(0, 1, 0.3)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Only in town.");
        let p = scored("Q: Can I pay by card?\nA: Yes, every major card.\nQ: Do you deliver?\nAnswer: Only in town.", vec![u(0, 1, 0.9), u(2, 1, 0.3)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Yes, every major card.");
        // A question with nothing after it in the passage is all there is to quote.
        let p = scored("Returns are free. Do you ship abroad?", vec![u(1, 1, 0.9), u(0, 1, 0.1)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Do you ship abroad?");
        // A question asked in two sentences is answered after the second.
        let two = "Which machines run Perl? Where do I get it?\nPerl runs on most systems; the site lists ports.\nIs it free?\nYes.";
        let p = scored(two, vec![u(0, 1, 0.9), u(2, 1, 0.3)]);
        assert_eq!(answer_sentences(&p, "q", 600), "Perl runs on most systems; the site lists ports.");
        // Or in three, the last after a statement of the problem.
        let three = "What is a corrupt error? What does malformed mean? Why do I get it? It means the file is damaged.";
        let p = scored(three, vec![u(0, 1, 0.9), u(3, 1, 0.3)]);
        assert_eq!(answer_sentences(&p, "q", 600), "It means the file is damaged.");
        // A page's list of its questions has no answer under any of them: not the first
        // answer after the list.
        let contents = "Do you ship abroad? Can I pay by card? Where are you? Do you gift-wrap? Shipping. We ship to the EU.";
        for asked in [0, 2, 3] {
            let p = scored(contents, vec![u(asked, 1, 0.9), u(5, 1, 0.2)]);
            assert!(answer_sentences(&p, "q", 600).ends_with('?'), "{asked}");
        }
        // Without the model, the question's words find the line that asks it.
        let p = scored(FAQ_PAGE, Vec::new());
        assert_eq!(answer_sentences(&p, "how do I reset my password", 600), "Use the Forgot password link on the sign-in page and follow the email we send you.");
    }

    #[test]
    fn paraphrases_asked_of_a_pasted_faq_page_get_its_answers() {
        let Some(model) = crate::retrieval::embed::test_support::model() else { return };
        let index = HybridIndex::build(vec![text_chunk("faq", "FAQ", FAQ_PAGE)], Some(&model), IndexOptions::default()).unwrap();
        for (question, expected) in [
            ("when will my parcel arrive?", "Standard delivery takes 3 to 5 working days"),
            ("can I send something back?", "returned within 30 days"),
            ("do you deliver to France?", "We ship to most EU countries"),
            ("I forgot my password", "Use the Forgot password link"),
            ("How long does delivery take?", "Standard delivery takes 3 to 5 working days"),
        ] {
            let (answer, _) = ask(&index, &model, question);
            assert!(answer.confident, "{question}: {}", answer.text);
            assert!(answer.text.contains(expected), "{question}: {}", answer.text);
            assert!(split_sentences(&answer.text).iter().all(|s| !s.ends_with('?')), "{question}: {}", answer.text);
        }
    }
}
