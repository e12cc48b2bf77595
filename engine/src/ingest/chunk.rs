//! Cutting extracted text into overlapping chunks of about `target` characters. Cuts fall
//! between paragraphs where possible, else between sentences, else between words; each chunk
//! after the first repeats about `overlap` characters (whole sentences) of the one before, so a
//! fact on a boundary is whole in at least one chunk. Lengths are in characters, not bytes.

/// A stretch of extracted text with where it came from: one PDF page, one web page, one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub title: String,
    pub url: Option<String>,
    pub page: Option<i32>,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkConfig {
    pub target: usize,
    pub overlap: usize,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig { target: 800, overlap: 150 }
    }
}

/// A chunk before it is stored; `position` counts across all sections of a source.
#[derive(Debug, Clone, PartialEq)]
pub struct TextChunk {
    pub position: i32,
    pub title: String,
    pub url: Option<String>,
    pub page: Option<i32>,
    pub content: String,
}

/// Chunks every section, numbering them in order. Sections with no text give no chunks.
pub fn chunk_sections(sections: &[Section], config: ChunkConfig) -> Vec<TextChunk> {
    let mut out = Vec::new();
    for section in sections {
        for content in chunk_text(&section.text, config) {
            out.push(TextChunk {
                position: i32::try_from(out.len()).unwrap_or(i32::MAX),
                title: section.title.clone(),
                url: section.url.clone(),
                page: section.page,
                content,
            });
        }
    }
    out
}

/// A piece no cut goes through: a sentence (or a word run of a too-long sentence), and whether
/// a paragraph starts with it.
struct Unit {
    text: String,
    paragraph_start: bool,
}

/// Text -> chunk contents. Whitespace inside paragraphs is collapsed; paragraphs stay apart.
pub fn chunk_text(text: &str, config: ChunkConfig) -> Vec<String> {
    let target = config.target.max(50);
    let overlap = config.overlap.min(target / 2);
    let units = units(text, target);
    let mut chunks: Vec<String> = Vec::new();
    let mut current: Vec<&Unit> = Vec::new();
    let mut len = 0usize;
    // How many units at the start of `current` are carried over from the previous chunk.
    let mut carried = 0usize;
    for unit in &units {
        let unit_len = unit.text.chars().count();
        let fresh = current.len() - carried;
        // Past half the target, a new paragraph is a good place to cut.
        let paragraph_cut = unit.paragraph_start && fresh > 0 && len >= target / 2;
        if fresh > 0 && (len + 1 + unit_len > target || paragraph_cut) {
            // A question is not left at a chunk's end, cut off from its answer (a pasted FAQ
            // page): it opens the next chunk instead.
            let held = if fresh > 1 && current.last().is_some_and(|u| crate::retrieval::sentences::asks(&u.text)) { current.pop() } else { None };
            chunks.push(join(&current));
            // Carry whole trailing units worth at most `overlap` characters.
            let mut tail: Vec<&Unit> = Vec::new();
            let mut tail_len = 0usize;
            for u in current.iter().rev() {
                let l = u.text.chars().count() + 1;
                if tail_len + l > overlap {
                    break;
                }
                tail_len += l;
                tail.push(u);
            }
            tail.reverse();
            carried = tail.len();
            len = tail_len;
            current = tail;
            if let Some(question) = held {
                len += question.text.chars().count() + 1;
                current.push(question);
            }
        }
        len += unit_len + 1;
        current.push(unit);
    }
    if current.len() > carried {
        chunks.push(join(&current));
    }
    chunks
}

fn join(units: &[&Unit]) -> String {
    let mut s = String::new();
    for (i, u) in units.iter().enumerate() {
        if i > 0 {
            s.push_str(if u.paragraph_start { "\n\n" } else { " " });
        }
        s.push_str(&u.text);
    }
    s
}

fn units(text: &str, target: usize) -> Vec<Unit> {
    let mut out = Vec::new();
    for paragraph in paragraphs(text) {
        let mut first = true;
        for sentence in sentences(&paragraph) {
            for piece in split_long(&sentence, target) {
                out.push(Unit { text: piece, paragraph_start: first });
                first = false;
            }
        }
    }
    out
}

/// Paragraphs are separated by blank lines; lines inside one are joined with spaces.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&line);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Sentences end at `.`, `!` or `?` (with closing quotes or brackets) followed by a space.
fn sentences(paragraph: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut prev_end = false;
    for (i, c) in paragraph.char_indices() {
        if c == ' ' && prev_end {
            let s = paragraph.get(start..i).unwrap_or("").trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = i + 1;
            prev_end = false;
            continue;
        }
        if matches!(c, '.' | '!' | '?' | '。') {
            prev_end = true;
        } else if !(prev_end && matches!(c, '"' | '\'' | ')' | ']' | '”' | '’')) {
            prev_end = false;
        }
    }
    let rest = paragraph.get(start..).unwrap_or("").trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// A sentence longer than the target is cut between words (or, for a word longer than the
/// target, between characters).
fn split_long(sentence: &str, target: usize) -> Vec<String> {
    if sentence.chars().count() <= target {
        return vec![sentence.to_string()];
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut current_len = 0usize;
    for word in sentence.split(' ') {
        let mut word: String = word.to_string();
        loop {
            let word_len = word.chars().count();
            if current_len > 0 && current_len + 1 + word_len > target {
                out.push(std::mem::take(&mut current));
                current_len = 0;
            }
            if word_len > target {
                let head: String = word.chars().take(target).collect();
                word = word.chars().skip(target).collect();
                out.push(head);
                continue;
            }
            if current_len > 0 {
                current.push(' ');
                current_len += 1;
            }
            current.push_str(&word);
            current_len += word_len;
            break;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn sentence(i: usize) -> String {
        format!("Sentence number {i} tells a small fact about the product and its price.")
    }

    #[test]
    fn short_text_is_one_chunk_with_whitespace_collapsed() {
        let chunks = chunk_text("Hello   world.\nSecond  line.", ChunkConfig::default());
        assert_eq!(chunks, vec!["Hello world. Second line."]);
        assert!(chunk_text("  \n\n ", ChunkConfig::default()).is_empty());
    }

    #[test]
    fn long_text_is_cut_near_the_target_with_sentence_overlap() {
        let text: Vec<String> = (0..60).map(sentence).collect();
        let text = text.join(" ");
        let chunks = chunk_text(&text, ChunkConfig::default());
        assert!(chunks.len() > 4, "{}", chunks.len());
        for c in &chunks {
            assert!(c.chars().count() <= 800, "{}", c.chars().count());
            assert!(c.ends_with('.'), "cut between sentences: {c}");
        }
        for pair in chunks.windows(2) {
            let last_of_first = pair[0].rsplit(". ").next().unwrap();
            let head: String = pair[1].chars().take(160).collect();
            assert!(head.contains(last_of_first), "overlap carried: {head}");
        }
        // Every sentence is in some chunk.
        for i in 0..60 {
            assert!(chunks.iter().any(|c| c.contains(&sentence(i))));
        }
    }

    #[test]
    fn a_question_opens_the_chunk_of_its_answer() {
        // A pasted FAQ page, one paragraph per question and per answer: wherever a cut falls,
        // no chunk but the last ends on a question, and every question shares a chunk with its
        // answer.
        let pairs: Vec<(String, String)> = (0..12)
            .map(|i| (format!("Question {i}: how does feature {i} work?"), format!("Feature {i} works by doing thing {i} for you in a few steps, then it reports back.")))
            .collect();
        let text = pairs.iter().map(|(q, a)| format!("{q}\n\n{a}")).collect::<Vec<_>>().join("\n\n");
        for target in [200, 300, 450, 800] {
            let chunks = chunk_text(&text, ChunkConfig { target, overlap: 60 });
            assert!(chunks.len() > 1, "{target}");
            for c in &chunks[..chunks.len() - 1] {
                assert!(!c.ends_with('?'), "target {target}: {c}");
            }
            for (q, a) in &pairs {
                assert!(chunks.iter().any(|c| c.contains(&format!("{q}\n\n{a}"))), "target {target}: {q}");
            }
        }
    }

    #[test]
    fn paragraphs_are_preferred_cut_points() {
        let para = |p: usize| (0..6).map(|i| sentence(p * 10 + i)).collect::<Vec<_>>().join(" ");
        let text = format!("{}\n\n{}\n\n{}", para(1), para(2), para(3));
        let chunks = chunk_text(&text, ChunkConfig::default());
        assert!(chunks.len() >= 2);
        assert!(chunks[0].starts_with("Sentence number 10 "));
        assert!(chunks[0].ends_with(&sentence(15)), "first chunk is the first paragraph: {}", chunks[0]);
    }

    #[test]
    fn a_giant_word_run_is_split_on_char_boundaries() {
        let text = "é".repeat(2000) + " " + &"word ".repeat(400);
        let chunks = chunk_text(&text, ChunkConfig { target: 300, overlap: 50 });
        assert!(chunks.iter().all(|c| c.chars().count() <= 300));
        assert_eq!(chunks.iter().map(|c| c.chars().filter(|&ch| ch == 'é').count()).sum::<usize>(), 2000);
    }

    #[test]
    fn sections_keep_title_page_and_number_chunks_in_order() {
        let long: Vec<String> = (0..30).map(sentence).collect();
        let sections = vec![
            Section { title: "Guide".into(), url: None, page: Some(1), text: long.join(" ") },
            Section { title: "Guide".into(), url: None, page: Some(2), text: "Page two.".into() },
            Section { title: "Guide".into(), url: None, page: Some(3), text: " ".into() },
        ];
        let chunks = chunk_sections(&sections, ChunkConfig::default());
        let last = chunks.last().unwrap();
        assert_eq!((last.page, last.content.as_str()), (Some(2), "Page two."));
        assert!(chunks.iter().enumerate().all(|(i, c)| c.position == i as i32 && c.title == "Guide"));
    }
}
