//! A passage's sentences and two-sentence windows ("units"): what passage retrieval scores
//! besides the whole chunk, so a question about one topic of a many-topic paragraph still
//! matches, and what the extractive answerer quotes. One splitter serves ingestion (which
//! stores a vector per sentence), the index (which checks the stored count against it and
//! scores windows from their sentences' vectors) and the answerer (which maps unit scores back
//! to sentences), so all three agree on the units.

/// Sentences per chunk that get units; a chunk is at most ~800 characters, so this only bounds
/// pathological text (one-word lines), keeping ingestion and index memory linear in chunks.
pub const MAX_SENTENCES: usize = 24;

/// A run of consecutive sentences of a chunk: `first` is the index of its first sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    pub first: usize,
    pub len: usize,
}

/// Sentences end at `.`, `!`, `?` followed by whitespace (or the end), or at a line break.
/// Returned trimmed, in order, never empty.
pub fn split(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end_of_sentence = c == '\n'
            || (matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, next)| next.is_whitespace()));
        if end_of_sentence {
            let end = i + c.len_utf8();
            if let Some(s) = text.get(start..end) {
                let s = s.trim();
                if !s.is_empty() {
                    out.push(s);
                }
            }
            start = end;
        }
    }
    if let Some(rest) = text.get(start..) {
        let rest = rest.trim();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// Whether a sentence asks something: closing quotes and brackets aside, it ends with a
/// question mark, or it is a heading that opens with a question word and ends without a stop
/// ("How do I list all tables", "Where to find us"). On a pasted FAQ page such a sentence is a
/// question whose answer follows it: the chunker keeps the two together and the answerer quotes
/// the answer, not the question.
pub fn asks(sentence: &str) -> bool {
    let end = sentence.trim_end_matches(['"', '\'', ')', '\u{201d}', '\u{2019}']);
    if end.ends_with('?') {
        return true;
    }
    let unstopped = !end.ends_with(['.', '!', ':', ';', ',', '\u{3002}']);
    let first = sentence.split_whitespace().next().unwrap_or_default().to_lowercase();
    unstopped && QUESTION_WORDS.contains(&first.as_str())
}

/// Words a question opens with when its writer left out the question mark (FAQ headings).
const QUESTION_WORDS: [&str; 8] = ["how", "what", "why", "when", "where", "which", "who", "whom"];

/// The units of a chunk of `sentences` sentences: each sentence, then each window of two
/// neighbours. None for a single sentence: the chunk's own vector already is that sentence's.
pub fn units(sentences: usize) -> Vec<Unit> {
    let n = sentences.min(MAX_SENTENCES);
    if n < 2 {
        return Vec::new();
    }
    let singles = (0..n).map(|first| Unit { first, len: 1 });
    let windows = (0..n - 1).map(|first| Unit { first, len: 2 });
    singles.chain(windows).collect()
}

/// The sentences of a chunk that get a stored vector: none for a single sentence, at most
/// [`MAX_SENTENCES`]. A window's vector is the normalised sum of its two sentences' (computed
/// by the index), so only sentences are embedded and stored.
pub fn embedded_sentences(content: &str) -> Vec<&str> {
    let mut sentences = split(content);
    if sentences.len() < 2 {
        return Vec::new();
    }
    sentences.truncate(MAX_SENTENCES);
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_sentence_ends_and_line_breaks_but_not_inside_numbers() {
        assert_eq!(split("Open 9.30 to 5. Closed Sundays!\nCall us? Yes"), vec![
            "Open 9.30 to 5.",
            "Closed Sundays!",
            "Call us?",
            "Yes"
        ]);
        assert!(split("  \n ").is_empty());
        assert_eq!(split("Returns:\nItems come back."), vec!["Returns:", "Items come back."]);
    }

    #[test]
    fn units_are_sentences_then_windows_and_none_for_one_sentence() {
        assert!(units(0).is_empty() && units(1).is_empty());
        assert_eq!(units(3), vec![
            Unit { first: 0, len: 1 },
            Unit { first: 1, len: 1 },
            Unit { first: 2, len: 1 },
            Unit { first: 0, len: 2 },
            Unit { first: 1, len: 2 },
        ]);
        assert_eq!(units(100).len(), MAX_SENTENCES * 2 - 1);
        assert_eq!(embedded_sentences("A b. C d. E."), vec!["A b.", "C d.", "E."]);
        assert!(embedded_sentences("Just one sentence.").is_empty());
        assert_eq!(embedded_sentences(&"Word. ".repeat(50)).len(), MAX_SENTENCES);
    }

    #[test]
    fn a_question_ends_with_a_question_mark_or_is_a_heading_opening_with_a_question_word() {
        for question in ["Do you ship abroad?", "Can I pay (by card?)", "\"Why?\"", "How do I list all tables", "Where to find us", "WHAT IS SQLITE"] {
            assert!(asks(question), "{question}");
        }
        for statement in ["We ship abroad.", "How we work: in three steps.", "Where you live matters!", "Returns", "Do not wash", "Whatever happens"] {
            assert!(!asks(statement), "{statement}");
        }
    }
}
