//! The "did you mean" band of the extractive answerer, measured on the public sets: when no
//! candidate clears the bar, candidates within a margin under it are offered as quick replies
//! (`parley_engine::answer::suggest`). For each margin tried: of the in-scope questions the bot
//! refuses, the share whose right chunk is among the (up to 3) suggestions, and the share that
//! get any; of the out-of-scope questions it refuses, the share that get suggestions instead of
//! the plain refusal. The margin is chosen on the tuning halves and reported on the others.
//!
//! The public sets' knowledge is passages with no titles, so a suggestion stands for a chunk
//! (as a Q&A pair's question would); in the product a passage suggests its source's title.

use parley_engine::answer::extractive::ANSWER_CANDIDATES;
use parley_engine::answer::suggest::{MAX_SUGGESTIONS, SUGGESTION_CANDIDATES};
use parley_engine::retrieval::{Hit, HybridIndex, Mode};

use crate::external::{Half, Task};

/// Margins tried (cosine units under the bar).
pub const MARGINS: [f32; 7] = [0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2];

/// One question's retrieval: the first hits with their confidences, and the right chunk.
pub struct Asked {
    pub hits: Vec<(usize, f32)>,
    pub expected: Option<usize>,
}

/// What the band does on one half of one task at one margin.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Band {
    /// In-scope questions refused (nothing among the first hits clears the bar).
    pub refused: usize,
    /// Of those, the share whose right chunk is among the suggestions.
    pub right_suggested: f64,
    /// Of those, the share that get any suggestion.
    pub suggested: f64,
    /// Out-of-scope questions refused.
    pub out_refused: usize,
    /// Of those, the share that get suggestions instead of the plain refusal.
    pub out_suggested: f64,
}

/// Searches every question of `half` once (the margin does not change retrieval).
pub fn ask(index: &HybridIndex, task: &Task, half: Half) -> Vec<Asked> {
    task.questions
        .iter()
        .filter(|q| q.half == half)
        .map(|q| {
            let hits: Vec<Hit> = index.search_mode(&q.text, q.vector.as_deref(), SUGGESTION_CANDIDATES, Mode::Hybrid);
            Asked { hits: hits.iter().map(|h| (h.chunk, h.confidence())).collect(), expected: q.expected }
        })
        .collect()
}

/// The chunks suggested for a refused question, as `suggest::suggestions` picks them.
fn suggested(asked: &Asked, bar: f32, margin: f32) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for &(chunk, c) in &asked.hits {
        if c < bar && c >= bar - margin && !out.contains(&chunk) {
            out.push(chunk);
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

pub fn band(asked: &[Asked], bar: f32, margin: f32) -> Band {
    let refused = |a: &&Asked| !a.hits.iter().take(ANSWER_CANDIDATES).any(|&(_, c)| c >= bar);
    let inside: Vec<&Asked> = asked.iter().filter(|a| a.expected.is_some()).filter(refused).collect();
    let outside: Vec<&Asked> = asked.iter().filter(|a| a.expected.is_none()).filter(refused).collect();
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let right = inside.iter().filter(|a| a.expected.is_some_and(|e| suggested(a, bar, margin).contains(&e))).count();
    let any = inside.iter().filter(|a| !suggested(a, bar, margin).is_empty()).count();
    let out_any = outside.iter().filter(|a| !suggested(a, bar, margin).is_empty()).count();
    Band {
        refused: inside.len(),
        right_suggested: share(right, inside.len()),
        suggested: share(any, inside.len()),
        out_refused: outside.len(),
        out_suggested: share(out_any, outside.len()),
    }
}

/// The widest margin whose suggestions reach under half of the refused out-of-scope questions
/// (mean over tasks): suggestions should help a visitor who phrased a covered question oddly,
/// not turn most refusals of uncovered ones into a menu. `bands[t][m]` is task t at MARGINS[m].
pub fn choose(bands: &[Vec<Band>]) -> Option<f32> {
    let mut chosen = None;
    for (m, margin) in MARGINS.iter().enumerate() {
        let mean_out = bands.iter().filter_map(|b| b.get(m)).map(|b| b.out_suggested).sum::<f64>() / bands.len().max(1) as f64;
        if mean_out < 0.5 {
            chosen = Some(*margin);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_near_misses_of_refused_questions_count() {
        let asked = vec![
            // Refused, the right chunk (2) just under the bar: suggested.
            Asked { hits: vec![(1, 0.38), (2, 0.37), (3, 0.2)], expected: Some(2) },
            // Answered: not in the band at all.
            Asked { hits: vec![(5, 0.45)], expected: Some(5) },
            // Refused and far: nothing to suggest.
            Asked { hits: vec![(4, 0.1)], expected: Some(4) },
            // Out of scope, near something.
            Asked { hits: vec![(1, 0.35)], expected: None },
        ];
        let b = band(&asked, 0.4, 0.05);
        assert_eq!((b.refused, b.out_refused), (2, 1));
        assert!((b.right_suggested - 0.5).abs() < 1e-9 && (b.suggested - 0.5).abs() < 1e-9);
        assert!((b.out_suggested - 1.0).abs() < 1e-9);
        assert_eq!(band(&asked, 0.4, 0.025).out_suggested, 0.0);
    }
}
