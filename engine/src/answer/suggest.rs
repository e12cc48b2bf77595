//! "Did you mean": when no candidate clears its confidence bar but some come close, the bot
//! offers their questions (a Q&A pair) or source titles (a passage) as quick replies instead of
//! a flat "I don't know". A visitor who phrased a covered question oddly is one click from the
//! answer; a question far from everything still gets the plain refusal and the handoff.

use super::extractive::ConfidenceThresholds;
use crate::retrieval::{Passage, SourceKind};

/// The reply that introduces the suggestions (the chips carry the rest).
pub const DID_YOU_MEAN: &str = "I'm not sure I understood — did you mean:";

/// Most suggestions offered: more is a menu, not a clarifying question.
pub const MAX_SUGGESTIONS: usize = 3;

/// How many of the best hits may be suggested: further down they are about something else.
pub const SUGGESTION_CANDIDATES: usize = 5;

/// A candidate within this of its kind's bar (cosine units) is near enough to suggest. Chosen
/// by `retrieval-eval` on the public sets' tuning halves, all twelve tasks (six FAQs, two shapes
/// of knowledge; README, "Knowledge and answers"; `parley_bench::did_you_mean`): the widest margin
/// whose suggestions reach under half of the refused out-of-scope questions (0.1: 38.5% on
/// average; 0.125 already 50.8%). A suggestion is still a refusal (no false answer), so the
/// margin trades only how often an unrelated question gets chips. The tuning halves refuse too
/// few in-scope questions at the passage bar (6) to measure the other side.
pub const NEAR_MARGIN: f32 = 0.1;

/// Whether `passage` is under its bar but within `margin` of it.
pub fn is_near(thresholds: &ConfidenceThresholds, margin: f32, passage: &Passage) -> bool {
    let bar = thresholds.for_kind(passage.kind);
    passage.confidence < bar && passage.confidence >= bar - margin
}

/// What a visitor would click to ask about `passage`: a pair's question, else its source's
/// title. Empty when it has neither.
fn label(passage: &Passage) -> &str {
    match (passage.kind, passage.question.as_deref()) {
        (SourceKind::Qa, Some(question)) => question.trim(),
        _ => passage.title.trim(),
    }
}

/// Up to [`MAX_SUGGESTIONS`] distinct labels of the near candidates among the first
/// [`SUGGESTION_CANDIDATES`] hits, best first. Callers ask only when nothing was confident.
pub fn suggestions(thresholds: &ConfidenceThresholds, margin: f32, passages: &[Passage]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in passages.iter().take(SUGGESTION_CANDIDATES).filter(|p| is_near(thresholds, margin, p)) {
        let text = label(p);
        if text.is_empty() || out.iter().any(|s| s.eq_ignore_ascii_case(text)) {
            continue;
        }
        out.push(text.to_string());
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::extractive::DEFAULT_THRESHOLDS;

    fn hit(kind: SourceKind, question: Option<&str>, title: &str, confidence: f32) -> Passage {
        Passage {
            chunk_id: format!("{title}{question:?}{confidence}"),
            source_id: None,
            kind,
            title: title.into(),
            url: None,
            page: None,
            content: "c".into(),
            question: question.map(Into::into),
            score: confidence,
            confidence,
            units: Vec::new(),
        }
    }

    #[test]
    fn near_pairs_give_their_questions_and_passages_their_titles_once_each() {
        let t = DEFAULT_THRESHOLDS;
        let near = |bar: f32, share: f32| bar - NEAR_MARGIN * share;
        let hits = [
            hit(SourceKind::Qa, Some("How long does delivery take?"), "FAQ", near(t.qa, 0.2)),
            hit(SourceKind::Text, None, "Shipping policy", near(t.passage, 0.5)),
            hit(SourceKind::Text, None, "shipping policy", near(t.passage, 0.6)),
            hit(SourceKind::Website, None, "  ", near(t.passage, 0.1)),
            hit(SourceKind::Qa, Some("Do you ship abroad?"), "FAQ", near(t.qa, 0.9)),
            hit(SourceKind::Qa, Some("Too far down"), "FAQ", near(t.qa, 0.1)),
        ];
        assert_eq!(
            suggestions(&t, NEAR_MARGIN, &hits),
            vec!["How long does delivery take?", "Shipping policy", "Do you ship abroad?"]
        );
    }

    #[test]
    fn far_or_confident_candidates_are_not_suggested() {
        let t = DEFAULT_THRESHOLDS;
        let far = hit(SourceKind::Qa, Some("Far?"), "FAQ", t.qa - NEAR_MARGIN - 0.01);
        let sure = hit(SourceKind::Qa, Some("Sure?"), "FAQ", t.qa);
        assert!(suggestions(&t, NEAR_MARGIN, &[far, sure]).is_empty());
        let edge = hit(SourceKind::Qa, Some("Edge?"), "FAQ", t.qa - NEAR_MARGIN);
        assert_eq!(suggestions(&t, NEAR_MARGIN, &[edge]), vec!["Edge?"]);
    }
}
