//! PDF text extraction with lopdf, page by page. Parsing runs on the blocking pool under a size
//! bound (checked before reading), a bound on each page's decompressed content, and a time
//! bound; a hostile or broken file fails its own source and never takes the process down
//! (lopdf runs under `catch_unwind` as a last guard).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

use super::{IngestError, IngestResult};

/// Bounds for one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// Largest file accepted (the spec's 10 MB).
    pub max_bytes: u64,
    /// Largest decompressed content of one page.
    pub max_page_content: usize,
    /// Longest time one file may take.
    pub timeout: Duration,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits { max_bytes: 10 * 1024 * 1024, max_page_content: 32 * 1024 * 1024, timeout: Duration::from_secs(60) }
    }
}

/// The text of each page that has any, with its 1-based page number, and the page count.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfText {
    pub page_count: u32,
    pub pages: Vec<(u32, String)>,
}

/// Reads and extracts a PDF file on the blocking pool, within `limits`.
pub async fn extract_pdf_file(path: &Path, limits: PdfLimits) -> IngestResult<PdfText> {
    let meta = tokio::fs::metadata(path).await.map_err(|e| IngestError::Io(format!("the file could not be read: {e}")))?;
    if meta.len() > limits.max_bytes {
        return Err(IngestError::TooLarge { limit: limits.max_bytes });
    }
    let path = path.to_path_buf();
    let work = tokio::task::spawn_blocking(move || {
        let bytes = std::fs::read(&path).map_err(|e| IngestError::Io(format!("the file could not be read: {e}")))?;
        extract_pdf_bytes(&bytes, limits)
    });
    // On time-out the blocking thread finishes (or not) on its own; its result is dropped.
    match tokio::time::timeout(limits.timeout, work).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(IngestError::BadPdf(format!("extraction stopped: {join}"))),
        Err(_) => Err(IngestError::Timeout { what: "reading the PDF", secs: limits.timeout.as_secs() }),
    }
}

/// Extracts the text of a PDF held in memory (blocking; CPU-heavy on big files).
pub fn extract_pdf_bytes(bytes: &[u8], limits: PdfLimits) -> IngestResult<PdfText> {
    if bytes.len() as u64 > limits.max_bytes {
        return Err(IngestError::TooLarge { limit: limits.max_bytes });
    }
    if !looks_like_pdf(bytes) {
        return Err(IngestError::NotPdf);
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| extract(bytes, limits.max_page_content)));
    match outcome {
        Ok(result) => result,
        Err(_) => Err(IngestError::BadPdf("the file is damaged".into())),
    }
}

/// The header must be within the first KiB (readers accept leading junk that far).
fn looks_like_pdf(bytes: &[u8]) -> bool {
    let head = bytes.get(..bytes.len().min(1024)).unwrap_or(bytes);
    head.windows(5).any(|w| w == b"%PDF-")
}

fn extract(bytes: &[u8], max_page_content: usize) -> IngestResult<PdfText> {
    let doc = lopdf::Document::load_mem(bytes).map_err(|e| IngestError::BadPdf(e.to_string()))?;
    let numbers: Vec<u32> = doc.get_pages().keys().copied().collect();
    let page_count = u32::try_from(numbers.len()).unwrap_or(u32::MAX);
    let mut pages = Vec::new();
    let mut first_error = None;
    for n in numbers {
        match doc.extract_text_with_limit(&[n], max_page_content) {
            Ok(text) => {
                let text = clean(&text);
                if !text.is_empty() {
                    pages.push((n, text));
                }
            }
            // One unreadable page does not lose the others.
            Err(e) => {
                tracing::debug!(page = n, error = %e, "PDF page skipped");
                first_error.get_or_insert(e.to_string());
            }
        }
    }
    if pages.is_empty() {
        return Err(match first_error {
            Some(e) if page_count > 0 => IngestError::BadPdf(e),
            _ => IngestError::NoText,
        });
    }
    Ok(PdfText { page_count, pages })
}

/// Drops control characters and blank-only lines lopdf leaves behind, keeps line breaks.
fn clean(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_control() || *c == '\t').collect::<String>())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    let mut out = String::new();
    let mut blank = false;
    for line in lines {
        if line.is_empty() {
            blank = true;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank { "\n\n" } else { "\n" });
        }
        blank = false;
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_sniffed_not_trusted() {
        assert!(looks_like_pdf(b"%PDF-1.7\n..."));
        assert!(looks_like_pdf(b"\xef\xbb\xbf%PDF-1.4"));
        assert!(!looks_like_pdf(b"<html>%PDF"[..4].as_ref()));
        assert!(matches!(extract_pdf_bytes(b"hello", PdfLimits::default()), Err(IngestError::NotPdf)));
        let big = vec![b' '; 20];
        let tiny = PdfLimits { max_bytes: 10, ..PdfLimits::default() };
        assert!(matches!(extract_pdf_bytes(&big, tiny), Err(IngestError::TooLarge { limit: 10 })));
    }

    #[test]
    fn truncated_pdf_fails_cleanly() {
        let r = extract_pdf_bytes(b"%PDF-1.5\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\nxref\n0 3\n", PdfLimits::default());
        assert!(matches!(r, Err(IngestError::BadPdf(_)) | Err(IngestError::NoText)), "{r:?}");
    }

    #[test]
    fn cleaning_keeps_paragraph_breaks() {
        assert_eq!(clean("a  b\n\n\nc\u{0}\nd"), "a b\n\nc\nd");
    }
}
