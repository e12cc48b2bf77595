//! PDF text extraction with lopdf, page by page. Parsing runs on the blocking pool under a size
//! bound (checked before reading), a budget for everything the file decompresses to (each
//! stream read while loading, and all page contents together: a small file can inflate a
//! thousandfold, and page after page of one shared bomb once made a 100 KB file cost
//! gigabytes of work), a bound on each page, and a time bound; a hostile or broken file fails
//! its own source and never takes the process down (lopdf runs under `catch_unwind` as a last
//! guard).

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
    /// Most the whole file may decompress to: any one stream while loading, and all page
    /// contents together while extracting.
    pub max_decompressed: usize,
    /// Longest time one file may take.
    pub timeout: Duration,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_bytes: 10 * 1024 * 1024,
            max_page_content: 32 * 1024 * 1024,
            max_decompressed: 64 * 1024 * 1024,
            timeout: Duration::from_secs(60),
        }
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
    let outcome = catch_unwind(AssertUnwindSafe(|| extract(bytes, limits)));
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

/// The reason a file over its decompression budget fails with.
fn too_expanded(limit: usize) -> IngestError {
    IngestError::BadPdf(format!(
        "it expands to more than {} MB when decompressed, which looks like a decompression bomb",
        limit / (1024 * 1024)
    ))
}

fn is_bomb(e: &lopdf::Error) -> bool {
    matches!(e, lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }))
}

fn extract(bytes: &[u8], limits: PdfLimits) -> IngestResult<PdfText> {
    let budget = limits.max_decompressed.max(1);
    let options = lopdf::LoadOptions { max_decompressed_size: Some(budget), ..lopdf::LoadOptions::default() };
    let doc = lopdf::Document::load_mem_with_options(bytes, options).map_err(|e| {
        if is_bomb(&e) {
            too_expanded(budget)
        } else {
            IngestError::BadPdf(e.to_string())
        }
    })?;
    let numbered: Vec<(u32, lopdf::ObjectId)> = doc.get_pages().into_iter().collect();
    let page_count = u32::try_from(numbered.len()).unwrap_or(u32::MAX);
    let mut pages = Vec::new();
    let mut first_error = None;
    let mut left = budget;
    for (n, page_id) in numbered {
        // What this page decompresses to counts against the file's budget (pages may share one
        // content stream, so each page is counted).
        if left == 0 {
            return Err(too_expanded(budget));
        }
        let allowed = left.min(limits.max_page_content);
        let size = match doc.get_page_content_with_limit(page_id, allowed) {
            Ok(content) => content.len(),
            Err(e) if is_bomb(&e) && allowed < limits.max_page_content => return Err(too_expanded(budget)),
            Err(e) => {
                tracing::debug!(page = n, error = %e, "PDF page skipped");
                first_error.get_or_insert(e.to_string());
                continue;
            }
        };
        left = left.saturating_sub(size);
        match doc.extract_text_with_limit(&[n], size.max(1)) {
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
    fn a_decompression_bomb_is_refused_quickly() {
        let bomb = bomb_pdf(200, 8 * 1024 * 1024);
        assert!(bomb.len() < 200_000, "{} bytes", bomb.len());
        let started = std::time::Instant::now();
        let outcome = extract_pdf_bytes(&bomb, PdfLimits::default());
        let took = started.elapsed();
        match outcome {
            Err(IngestError::BadPdf(reason)) => assert!(reason.contains("decompression bomb"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    }

    /// `pages` pages that all show one content stream of `inflated` bytes (blanks around a
    /// line of text), compressed to a few kilobytes.
    pub(crate) fn bomb_pdf(pages: usize, inflated: usize) -> Vec<u8> {
        use lopdf::{dictionary, Document, Object, Stream};
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica" });
        let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
        let mut content = b"BT /F1 12 Tf 72 720 Td (boom) Tj ET".to_vec();
        content.resize(inflated, b' ');
        let mut stream = Stream::new(dictionary! {}, content);
        stream.compress().unwrap();
        let content_id = doc.add_object(stream);
        let kids: Vec<Object> = (0..pages)
            .map(|_| {
                doc.add_object(dictionary! {
                    "Type" => "Page", "Parent" => pages_id, "Contents" => content_id, "Resources" => resources_id,
                    "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                })
                .into()
            })
            .collect();
        let count = kids.len() as i64;
        doc.objects.insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }));
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    #[test]
    fn cleaning_keeps_paragraph_breaks() {
        assert_eq!(clean("a  b\n\n\nc\u{0}\nd"), "a b\n\nc\nd");
    }
}
