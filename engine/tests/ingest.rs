//! Ingestion end to end: real PDFs made with lopdf, a fixture website served on loopback, and
//! the trainer writing into a real store on both backends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};
use parley_config::{CrawlerSettings, Settings};
use parley_engine::ingest::crawl::CrawlReport;
use parley_engine::ingest::{
    extract_pdf_bytes, extract_pdf_file, Crawler, EmbedError, Embedder, IngestError, PdfLimits, TrainedItem, Trainer,
    TrainingEvent,
};
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::knowledge::{SourceKind, TrainingStatus};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::{Backend, Store};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

// ---------- PDF fixtures ----------

/// A PDF with one page per entry: text pages draw their lines with a standard font, `None`
/// pages only paint an image (a scan).
fn make_pdf(pages: &[Option<&[&str]>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let image_id = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => 2, "Height" => 2,
            "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
        },
        vec![0, 255, 255, 0],
    ));
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
        "XObject" => dictionary! { "Im1" => image_id },
    });
    let mut kids: Vec<Object> = Vec::new();
    for page in pages {
        let operations = match page {
            Some(lines) => {
                let mut ops = vec![
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 12.into()]),
                    Operation::new("Td", vec![72.into(), 720.into()]),
                    Operation::new("TL", vec![14.into()]),
                ];
                for line in *lines {
                    ops.push(Operation::new("Tj", vec![Object::string_literal(*line)]));
                    ops.push(Operation::new("T*", vec![]));
                }
                ops.push(Operation::new("ET", vec![]));
                ops
            }
            None => vec![
                Operation::new("q", vec![]),
                Operation::new("cm", vec![500.into(), 0.into(), 0.into(), 700.into(), 50.into(), 50.into()]),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(dictionary! {}, Content { operations }.encode().unwrap()));
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
    doc.save_to(&mut out).unwrap();
    out
}

/// A decompression bomb: `pages` pages that all show one content stream of `inflated` bytes
/// (blanks around a line of text), compressed to a few kilobytes.
fn bomb_pdf(pages: usize, inflated: usize) -> Vec<u8> {
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

fn three_page_manual() -> Vec<u8> {
    make_pdf(&[
        Some(&["Acme Router Manual", "To reset the router, hold the button for ten seconds."]),
        Some(&["Warranty", "The warranty lasts two years from the date of purchase."]),
        Some(&["Support", "Call support on weekdays between nine and five."]),
    ])
}

#[test]
fn text_pdfs_keep_their_page_numbers() {
    let pdf = extract_pdf_bytes(&three_page_manual(), PdfLimits::default()).unwrap();
    assert_eq!(pdf.page_count, 3);
    let pages: Vec<u32> = pdf.pages.iter().map(|(n, _)| *n).collect();
    assert_eq!(pages, vec![1, 2, 3]);
    assert!(pdf.pages[0].1.contains("hold the button for ten seconds"), "{:?}", pdf.pages[0].1);
    assert!(pdf.pages[1].1.contains("two years"));
    assert!(pdf.pages[2].1.contains("weekdays"));
}

#[test]
fn a_scan_has_no_extractable_text() {
    let scan = make_pdf(&[None, None]);
    let err = extract_pdf_bytes(&scan, PdfLimits::default()).unwrap_err();
    assert!(matches!(err, IngestError::NoText), "{err:?}");
    assert_eq!(err.to_string(), "no extractable text");
    // A scan with one text page keeps that page only.
    let mixed = extract_pdf_bytes(&make_pdf(&[None, Some(&["Only text here."])]), PdfLimits::default()).unwrap();
    assert_eq!(mixed.pages.len(), 1);
    assert_eq!(mixed.pages[0].0, 2);
}

#[test]
fn corrupt_and_foreign_files_fail_without_panicking() {
    let good = three_page_manual();
    assert_eq!(extract_pdf_bytes(b"<html>hello</html>", PdfLimits::default()).unwrap_err().to_string(), "not a PDF");
    // Cut in half, garbage after the header, and bytes flipped all through.
    let mut cases: Vec<Vec<u8>> = vec![good[..good.len() / 2].to_vec(), b"%PDF-1.7\n\x00\xff\xfe garbage".to_vec()];
    for step in [7usize, 13, 31] {
        let mut flipped = good.clone();
        for i in (9..flipped.len()).step_by(step) {
            flipped[i] ^= 0x5a;
        }
        cases.push(flipped);
    }
    for bytes in cases {
        match extract_pdf_bytes(&bytes, PdfLimits::default()) {
            Ok(_) | Err(IngestError::BadPdf(_)) | Err(IngestError::NoText) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn files_over_the_size_bound_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pdf");
    std::fs::write(&path, three_page_manual()).unwrap();
    let limits = PdfLimits { max_bytes: 100, ..PdfLimits::default() };
    assert!(matches!(extract_pdf_file(&path, limits).await, Err(IngestError::TooLarge { limit: 100 })));
    let ok = extract_pdf_file(&path, PdfLimits::default()).await.unwrap();
    assert_eq!(ok.page_count, 3);
}

// ---------- a fixture website on loopback ----------

struct Site {
    base: String,
    requests: Arc<Mutex<Vec<String>>>,
}

/// Serves fixed routes over plain HTTP/1.1 (one request per connection), recording each path.
async fn serve_site(big_bytes: usize) -> Site {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    let requests = Arc::new(Mutex::new(Vec::new()));
    let page = |title: &str, body: &str| {
        format!("<html><head><title>{title}</title></head><body><nav><a href=\"/\">Home</a></nav><main>{body}</main><footer>Footer text</footer></body></html>")
    };
    type Route = (u16, Vec<(String, String)>, String);
    let mut routes: HashMap<String, Route> = HashMap::new();
    let html = || vec![("Content-Type".to_string(), "text/html; charset=utf-8".to_string())];
    routes.insert("/robots.txt".into(), (200, vec![], format!("User-agent: *\nDisallow: /secret\n\nUser-agent: OtherBot\nDisallow: /\n\nSitemap: {base}/sitemap.xml\n")));
    routes.insert("/sitemap.xml".into(), (200, vec![], format!(
        "<?xml version=\"1.0\"?><urlset><url><loc>{base}/</loc></url><url><loc>{base}/orphan</loc></url><url><loc>{base}/secret</loc></url></urlset>"
    )));
    routes.insert("/".into(), (200, html(), page("Acme Home",
        "<h1>Welcome to Acme</h1><p>Acme sells routers.</p><a href=\"/about\">About</a> <a href=\"/old\">Old</a> \
         <a href=\"/big\">Big</a> <a href=\"/secret\">Secret</a> <a href=\"/away\">Away</a> <a href=\"http://other.example/x\">Other</a> \
         <a href=\"/file.pdf\">PDF</a> <a href=\"/deep/1\">Deep</a>"
    )));
    routes.insert("/about".into(), (200, html(), page("About Acme", "<p>Acme was founded in 1999 in Lisbon.</p>")));
    routes.insert("/old".into(), (301, vec![("Location".into(), "/moved".into())], String::new()));
    routes.insert("/moved".into(), (200, html(), page("Moved page", "<p>This page moved here permanently.</p>")));
    routes.insert("/away".into(), (302, vec![("Location".into(), "http://localhost:9/elsewhere".into())], String::new()));
    routes.insert("/orphan".into(), (200, html(), page("Orphan", "<p>Only the sitemap links to this page.</p>")));
    routes.insert("/secret".into(), (200, html(), page("Secret", "<p>TOP SECRET do not index.</p>")));
    routes.insert("/file.pdf".into(), (200, vec![("Content-Type".into(), "application/pdf".into())], "%PDF-1.4".into()));
    routes.insert("/deep/1".into(), (200, html(), page("Deep 1", "<p>Depth one.</p><a href=\"/deep/2\">next</a>")));
    routes.insert("/deep/2".into(), (200, html(), page("Deep 2", "<p>Depth two.</p><a href=\"/deep/3\">next</a>")));
    routes.insert("/deep/3".into(), (200, html(), page("Deep 3", "<p>Depth three is too deep.</p>")));
    routes.insert("/big".into(), (200, html(), page("Big", &"<p>padding text here</p>".repeat(big_bytes / 20 + 1))));
    let routes = Arc::new(routes);
    let log = requests.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            let routes = routes.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut tmp = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut tmp).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&tmp[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(path.clone());
                let (status, headers, body) =
                    routes.get(&path).cloned().unwrap_or((404, vec![], "not found".to_string()));
                // No Content-Length: the client must stream and stop at its own cap.
                let mut response = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
                for (k, v) in headers {
                    response.push_str(&format!("{k}: {v}\r\n"));
                }
                response.push_str("\r\n");
                let _ = sock.write_all(response.as_bytes()).await;
                for piece in body.as_bytes().chunks(16 * 1024) {
                    if sock.write_all(piece).await.is_err() {
                        return;
                    }
                }
                let _ = sock.shutdown().await;
            });
        }
    });
    Site { base, requests }
}

fn crawler_settings(allow_private: bool) -> CrawlerSettings {
    CrawlerSettings { allow_private, allowed_ports: String::new(), max_pages: 20, max_depth: 2, timeout_secs: 5, max_response_bytes: 64 * 1024 }
}

#[tokio::test]
async fn crawl_follows_robots_sitemap_redirects_and_caps() {
    let site = serve_site(200 * 1024).await;
    let crawler = Crawler::new(&crawler_settings(true)).unwrap();
    let mut reports = Vec::new();
    let mut on_report = |r: CrawlReport| reports.push(r);
    let result = crawler.crawl(&format!("{}/", site.base), &mut on_report).await.unwrap();
    let urls: Vec<String> = result.pages.iter().map(|p| p.url.path().to_string()).collect();
    for expected in ["/", "/orphan", "/about", "/moved", "/deep/1", "/deep/2"] {
        assert!(urls.contains(&expected.to_string()), "{expected} missing from {urls:?}");
    }
    for absent in ["/secret", "/big", "/away", "/file.pdf", "/deep/3", "/old"] {
        assert!(!urls.contains(&absent.to_string()), "{absent} in {urls:?}");
    }
    let skipped: HashMap<String, String> =
        result.skipped.iter().map(|(u, r)| (url::Url::parse(u).unwrap().path().to_string(), r.clone())).collect();
    assert_eq!(skipped.get("/secret").map(String::as_str), Some("disallowed by robots.txt"));
    assert!(skipped.get("/big").unwrap().contains("larger than 65536 bytes"), "{skipped:?}");
    assert!(skipped.get("/away").unwrap().contains("another site"), "{skipped:?}");
    assert_eq!(skipped.get("/file.pdf").map(String::as_str), Some("not an HTML page"));
    let requested = site.requests.lock().unwrap().clone();
    assert!(!requested.contains(&"/secret".to_string()), "robots.txt is obeyed: {requested:?}");
    assert!(!requested.contains(&"/deep/3".to_string()), "depth cap: {requested:?}");
    let home = result.pages.iter().find(|p| p.url.path() == "/").unwrap();
    assert_eq!(home.title, "Acme Home");
    assert!(home.text.contains("Acme sells routers.") && !home.text.contains("Footer text"));
    let fetched = reports.iter().filter(|r| matches!(r, CrawlReport::Fetched { .. })).count();
    assert_eq!(fetched, result.pages.len(), "every page is reported as it is read");
}

#[tokio::test]
async fn a_crawl_that_reads_nothing_says_why_its_start_was_passed_over() {
    let site = serve_site(1000).await;
    // The start page alone (no links or sitemap followed).
    let settings = CrawlerSettings { max_depth: 0, ..crawler_settings(true) };
    let outcome = Crawler::new(&settings).unwrap().crawl(&format!("{}/secret", site.base), &mut |_| {}).await;
    let reason = outcome.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(reason.contains("no page with text was found") && reason.contains("/secret: disallowed by robots.txt"), "{reason}");
}

#[tokio::test]
async fn crawl_stops_at_the_page_cap() {
    let site = serve_site(1000).await;
    let mut settings = crawler_settings(true);
    settings.max_pages = 2;
    let result = Crawler::new(&settings).unwrap().crawl(&site.base, &mut |_| {}).await.unwrap();
    assert_eq!(result.pages.len(), 2);
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let site = serve_site(1000).await;
    let crawler = Crawler::new(&crawler_settings(false)).unwrap();
    let err = crawler.crawl(&site.base, &mut |_| {}).await.unwrap_err();
    assert!(matches!(err, IngestError::Refused(_)), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
    // A host name is resolved and every address checked (the test site's port allowed, so the
    // refusal is the address's).
    let port = site.base.rsplit(':').next().unwrap().trim_end_matches('/');
    let on_port = Crawler::new(&CrawlerSettings { allowed_ports: port.to_string(), ..crawler_settings(false) }).unwrap();
    let err = on_port.crawl(&format!("http://localhost:{port}/"), &mut |_| {}).await.unwrap_err();
    assert!(matches!(err, IngestError::Refused(_)) && err.to_string().contains("resolves to"), "{err:?}");
    // Any other port than the web's is refused before anything is resolved.
    let err = crawler.crawl(&format!("http://localhost:{port}/"), &mut |_| {}).await.unwrap_err();
    assert!(matches!(err, IngestError::Refused(_)) && err.to_string().contains("only 80 and 443"), "{err:?}");
    for url in ["http://[::1]/", "http://169.254.169.254/latest/meta-data", "http://0.0.0.0/", "http://10.0.0.1/"] {
        let err = crawler.crawl(url, &mut |_| {}).await.unwrap_err();
        assert!(matches!(err, IngestError::Refused(_)), "{url}: {err:?}");
    }
    assert!(site.requests.lock().unwrap().is_empty(), "nothing reached the server");
}

// ---------- the trainer into a real store ----------

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

on_both_backends!(
    trainer_indexes_every_kind_of_source,
    retrain_and_resume_recover_everything,
    overlapping_trainings_of_one_item_run_one_after_another,
    a_pdf_bomb_fails_only_its_own_source,
    many_pairs_added_at_once_are_embedded_one_batch_at_a_time,
    a_pair_whose_new_text_cannot_be_embedded_stops_answering,
);

/// A stand-in model: 3 dimensions from simple counts, so vectors are checkable.
struct CountingEmbedder;

impl Embedder for CountingEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| vec![t.len() as f32, t.matches(' ').count() as f32, 1.0]).collect())
    }

    fn dims(&self) -> usize {
        3
    }
}

/// [`CountingEmbedder`] that fails while `failing` is set: a model that stops working.
struct SwitchedEmbedder {
    failing: Arc<std::sync::atomic::AtomicBool>,
}

impl Embedder for SwitchedEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.failing.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(EmbedError::Model("the model stopped".into()));
        }
        CountingEmbedder.embed(texts)
    }

    fn dims(&self) -> usize {
        3
    }
}

/// An edited pair whose new text cannot be embedded ends `failed` without its old chunk: shown
/// as failed on the Training page, it no longer answers with what it said before.
async fn a_pair_whose_new_text_cannot_be_embedded_stops_answering(backend: Backend) {
    let f = fixture(backend).await;
    let failing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let settings = Settings::load_from(&Default::default()).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let t = Trainer::new(f.store.clone(), &settings)
        .with_embedder(Arc::new(SwitchedEmbedder { failing: failing.clone() }))
        .with_events(Arc::new(move |e| sink.lock().unwrap().push(e)));
    let b = f.bot_id.as_str();
    let qa = t.add_qa(b, "Refunds?", "Within 30 days.").await.unwrap();
    assert_eq!(t.train_qa(&qa.id).await.unwrap(), TrainingStatus::Completed);
    assert_eq!(f.store.bot_chunks(b).await.unwrap().len(), 1);

    failing.store(true, std::sync::atomic::Ordering::SeqCst);
    f.store.update_qa_pair(b, &qa.id, "Refunds?", "Within 14 days.").await.unwrap();
    assert_eq!(t.train_qa(&qa.id).await.unwrap(), TrainingStatus::Failed);
    let pair = f.store.qa_pair(&qa.id).await.unwrap().unwrap();
    assert_eq!(pair.status, "failed");
    assert!(pair.error.as_deref().is_some_and(|e| e.contains("the model stopped")), "{:?}", pair.error);
    assert!(f.store.bot_chunks(b).await.unwrap().is_empty(), "the old answer is out of the index");
    let version = f.store.knowledge_version(b).await.unwrap();
    let events = events.lock().unwrap();
    assert!(events.iter().any(|e| matches!(e, TrainingEvent::KnowledgeChanged { version: v, .. } if *v == version)), "the index is rebuilt");

    // The model back, a re-train answers with the new text.
    drop(events);
    failing.store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(t.train_qa(&qa.id).await.unwrap(), TrainingStatus::Completed);
    let chunks = f.store.bot_chunks(b).await.unwrap();
    assert_eq!(chunks.len(), 1);
    assert!(chunks[0].content.contains("14 days"), "{}", chunks[0].content);
}

struct Fixture {
    _db: TestDb,
    store: Store,
    trainer: Trainer,
    bot_id: String,
    events: Arc<Mutex<Vec<TrainingEvent>>>,
    dir: PathBuf,
}

async fn fixture(backend: Backend) -> Fixture {
    let db = TestDb::new(backend).await.unwrap();
    let store = db.open().await.unwrap();
    let user = store
        .create_user(NewUser { email: "o@x.co".into(), name: "O".into(), password_hash: None, profile_picture: None })
        .await
        .unwrap();
    let bot = store
        .create_bot(NewBot {
            owner_id: user.id,
            name: "Helper".into(),
            description: String::new(),
            website_url: None,
            icon: None,
            widget: WidgetConfig::default(),
            initial_sources: Vec::new(),
        })
        .await
        .unwrap();
    let settings = Settings::load_from(&Default::default()).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let trainer = Trainer::new(store.clone(), &settings)
        .with_embedder(Arc::new(CountingEmbedder))
        .with_crawler_settings(crawler_settings(true))
        .with_events(Arc::new(move |e| sink.lock().unwrap().push(e)));
    let dir = db.data_dir();
    Fixture { _db: db, store, trainer, bot_id: bot.id, events, dir }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

async fn trainer_indexes_every_kind_of_source(backend: Backend) {
    let f = fixture(backend).await;
    let (t, b) = (&f.trainer, f.bot_id.as_str());

    let text = t.add_text(b, Some("Opening hours"), "We are open from nine to five, Monday to Friday. We close on bank holidays.").await.unwrap();
    assert_eq!(t.train_source(&text.id).await.unwrap(), TrainingStatus::Completed);

    let manual_path = write(&f.dir, "manual.pdf", &three_page_manual());
    let manual = t.add_pdf(b, "manual.pdf", &manual_path, 1000).await.unwrap();
    assert_eq!(t.spawn_source(manual.id.clone()).await.unwrap().unwrap(), TrainingStatus::Completed);

    let scan_path = write(&f.dir, "scan.pdf", &make_pdf(&[None]));
    let scan = t.add_pdf(b, "scan.pdf", &scan_path, 100).await.unwrap();
    assert_eq!(t.train_source(&scan.id).await.unwrap(), TrainingStatus::Failed);

    let fake_path = write(&f.dir, "fake.pdf", b"just text, honestly");
    let fake = t.add_pdf(b, "fake.pdf", &fake_path, 19).await.unwrap();
    assert_eq!(t.train_source(&fake.id).await.unwrap(), TrainingStatus::Failed);

    let site = serve_site(1000).await;
    let web = t.add_website(b, &site.base).await.unwrap();
    assert_eq!(t.train_source(&web.id).await.unwrap(), TrainingStatus::Completed);

    let qa = t.add_qa(b, " Do you ship abroad? ", "Yes, to all EU countries.").await.unwrap();
    assert_eq!(t.train_qa(&qa.id).await.unwrap(), TrainingStatus::Completed);

    // Statuses and reasons as the Training page shows them.
    let s = f.store.source(&scan.id).await.unwrap().unwrap();
    assert_eq!((s.status.as_str(), s.error.as_deref()), ("failed", Some("no extractable text")));
    let s = f.store.source(&fake.id).await.unwrap().unwrap();
    assert_eq!((s.status.as_str(), s.error.as_deref()), ("failed", Some("not a PDF")));
    let s = f.store.source(&manual.id).await.unwrap().unwrap();
    assert_eq!((s.status.as_str(), s.pages), ("completed", Some(3)));
    assert_eq!(f.store.qa_pair(&qa.id).await.unwrap().unwrap().question, "Do you ship abroad?");

    // The chunks, with pages, URLs and vectors.
    let chunks = f.store.bot_chunks(b).await.unwrap();
    let manual_chunks: Vec<_> = chunks.iter().filter(|c| c.source_id.as_deref() == Some(manual.id.as_str())).collect();
    assert_eq!(manual_chunks.iter().map(|c| c.page).collect::<Vec<_>>(), vec![Some(1), Some(2), Some(3)]);
    assert!(manual_chunks[1].content.contains("two years"));
    assert_eq!(manual_chunks[0].title, "manual.pdf");
    for c in &chunks {
        let v = c.embedding.as_ref().expect("every chunk has a vector");
        assert_eq!(v[0], c.content.len() as f32);
        // A passage of several sentences has one stored vector per sentence, in order; a Q&A
        // pair or a one-sentence chunk has none.
        let sentences = parley_engine::retrieval::sentences::embedded_sentences(&c.content);
        match &c.sentence_embeddings {
            Some(flat) => {
                assert!(c.qa_id.is_none() && sentences.len() >= 2, "{}", c.content);
                let lengths: Vec<f32> = flat.chunks_exact(3).map(|v| v[0]).collect();
                assert_eq!(lengths, sentences.iter().map(|s| s.len() as f32).collect::<Vec<_>>());
            }
            None => assert!(c.qa_id.is_some() || sentences.is_empty(), "{}", c.content),
        }
    }
    assert!(chunks.iter().any(|c| c.sentence_embeddings.is_some()), "the opening hours text has two sentences");
    let web_chunks: Vec<_> = chunks.iter().filter(|c| c.source_id.as_deref() == Some(web.id.as_str())).collect();
    assert!(web_chunks.iter().any(|c| c.content.contains("founded in 1999") && c.title == "About Acme"));
    assert!(web_chunks.iter().all(|c| c.url.as_deref().is_some_and(|u| u.starts_with(&site.base))));
    assert!(!web_chunks.iter().any(|c| c.content.contains("TOP SECRET")));
    let qa_chunk = chunks.iter().find(|c| c.qa_id.as_deref() == Some(qa.id.as_str())).unwrap();
    assert_eq!(qa_chunk.content, "Do you ship abroad?\nYes, to all EU countries.");

    // Events: each item went processing -> its end state; pages were reported.
    let events = f.events.lock().unwrap().clone();
    let statuses = |item: TrainedItem| -> Vec<TrainingStatus> {
        events
            .iter()
            .filter_map(|e| match e {
                TrainingEvent::Status { item: i, status, .. } if *i == item => Some(*status),
                _ => None,
            })
            .collect()
    };
    assert_eq!(statuses(TrainedItem::Source(manual.id.clone())), vec![TrainingStatus::Processing, TrainingStatus::Completed]);
    assert_eq!(statuses(TrainedItem::Source(scan.id.clone())), vec![TrainingStatus::Processing, TrainingStatus::Failed]);
    assert_eq!(statuses(TrainedItem::Qa(qa.id.clone())), vec![TrainingStatus::Processing, TrainingStatus::Completed]);
    assert!(events.iter().any(|e| matches!(e, TrainingEvent::Status { reason: Some(r), .. } if r == "no extractable text")));
    let pages = events.iter().filter(|e| matches!(e, TrainingEvent::PageFetched { source_id, .. } if *source_id == web.id)).count();
    assert!(pages >= 5, "{pages}");
    let version = f.store.knowledge_version(b).await.unwrap();
    assert!(events.iter().any(|e| matches!(e, TrainingEvent::KnowledgeChanged { version: v, .. } if *v == version)));

    // Validation and limits speak the spec's words.
    let long = "x".repeat(5001);
    assert_eq!(t.add_text(b, None, &long).await.unwrap_err().to_string(), "Text must be at most 5000 characters");
    assert!(matches!(t.add_qa(b, "", "a").await, Err(IngestError::Invalid(_))));
    assert!(matches!(t.add_qa(b, &"q".repeat(151), "a").await, Err(IngestError::Invalid(_))));
    assert_eq!(t.add_website(b, "  ").await.unwrap_err().to_string(), "A training URL is required");
    assert_eq!(t.add_pdf(b, "x.pdf", &manual_path, 10_485_761).await.unwrap_err().to_string(), "File size must be less than 10MB");
    for i in 0..19 {
        t.add_text(b, None, &format!("text {i}")).await.unwrap();
    }
    assert_eq!(t.add_text(b, None, "one too many").await.unwrap_err().to_string(), "Maximum number of sources reached");
    assert_eq!(f.store.source_counts(b).await.unwrap().text, 20);
}

async fn retrain_and_resume_recover_everything(backend: Backend) {
    let f = fixture(backend).await;
    let (t, b) = (&f.trainer, f.bot_id.as_str());
    let manual_path = write(&f.dir, "manual.pdf", &three_page_manual());
    let manual = t.add_pdf(b, "manual.pdf", &manual_path, 1000).await.unwrap();
    let text = t.add_text(b, None, "Parcels arrive within three days.").await.unwrap();
    let qa = t.add_qa(b, "Refunds?", "Within 30 days.").await.unwrap();

    // Nothing was trained yet (as after a crash): start-up recovery trains all three.
    assert_eq!(f.store.unfinished_sources().await.unwrap().len(), 2);
    let summary = t.resume_unfinished().await.unwrap();
    assert_eq!((summary.completed, summary.failed), (3, 0));
    assert!(f.store.unfinished_sources().await.unwrap().is_empty());
    assert!(f.store.unfinished_qa_pairs().await.unwrap().is_empty());
    let before = f.store.bot_chunks(b).await.unwrap().len();

    // Re-train re-indexes everything; a PDF whose file vanished now fails with a reason.
    std::fs::remove_file(&manual_path).unwrap();
    let v0 = f.store.knowledge_version(b).await.unwrap();
    let summary = t.retrain_bot(b).await.unwrap();
    assert_eq!((summary.completed, summary.failed), (2, 1));
    assert!(f.store.knowledge_version(b).await.unwrap() > v0);
    let gone = f.store.source(&manual.id).await.unwrap().unwrap();
    assert_eq!(gone.status, "failed");
    assert!(gone.error.unwrap().contains("could not be read"));
    let after = f.store.bot_chunks(b).await.unwrap();
    assert_eq!(after.len(), before - 3, "the failed PDF's three pages left the index");
    assert!(after.iter().any(|c| c.source_id.as_deref() == Some(text.id.as_str())));
    assert!(after.iter().any(|c| c.qa_id.as_deref() == Some(qa.id.as_str())));
    assert_eq!(f.store.sources(b, SourceKind::Text).await.unwrap()[0].status, "completed");

    // Deleting a source while idle leaves the others alone.
    f.store.delete_source(b, &text.id).await.unwrap();
    assert_eq!(t.train_source(&text.id).await.unwrap_err().to_string(), "not found");
    tokio::time::sleep(Duration::from_millis(1)).await;
}

async fn overlapping_trainings_of_one_item_run_one_after_another(backend: Backend) {
    let f = fixture(backend).await;
    let (t, b) = (&f.trainer, f.bot_id.as_str());
    let text = t.add_text(b, None, "Parcels arrive within three days.").await.unwrap();
    let completions = |id: &str| {
        f.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, TrainingEvent::Status { item: TrainedItem::Source(s), status: TrainingStatus::Completed, .. } if s == id))
            .count()
    };

    // Three requests at once. Whether they overlap depends on timing (a text source can train
    // within one poll), so only what holds either way is checked here; the folding itself is
    // tested deterministically in `ingest::inflight`. Overlapping calls never run side by side:
    // each returns Completed (it ran) or Processing (folded into a run under way).
    let (a, b2, c) = tokio::join!(t.train_source(&text.id), t.train_source(&text.id), t.train_source(&text.id));
    let statuses = [a.unwrap(), b2.unwrap(), c.unwrap()];
    assert!(statuses.iter().all(|s| matches!(s, TrainingStatus::Completed | TrainingStatus::Processing)), "{statuses:?}");
    assert!(statuses.contains(&TrainingStatus::Completed), "{statuses:?}");
    let folded = statuses.iter().filter(|s| **s == TrainingStatus::Processing).count();
    let ran = 3 - folded;
    assert_eq!(completions(&text.id), ran + usize::from(folded > 0), "each run, plus one re-run for any folded requests");
    let chunks = f.store.bot_chunks(b).await.unwrap();
    assert_eq!(chunks.iter().filter(|c| c.source_id.as_deref() == Some(text.id.as_str())).count(), 1);

    // Two re-trains of the bot at once end with the source trained, once per pass.
    let before = completions(&text.id);
    let (first, second) = tokio::join!(t.retrain_bot(b), t.retrain_bot(b));
    let passes = first.unwrap().completed + second.unwrap().completed;
    assert!((1..=2).contains(&passes), "{passes}");
    assert_eq!(completions(&text.id) - before, 2, "two passes (the second folded or run after)");
    assert_eq!(f.store.source(&text.id).await.unwrap().unwrap().status, "completed");

    // A pair whose training fails keeps the reason for the Training page.
    let qa = t.add_qa(b, "Refunds?", "Within 30 days.").await.unwrap();
    f.store.set_qa_status(&qa.id, TrainingStatus::Failed, Some("the embedding model failed")).await.unwrap();
    let pair = f.store.qa_pair(&qa.id).await.unwrap().unwrap();
    assert_eq!(pair.error.as_deref(), Some("the embedding model failed"));
    assert_eq!(t.train_qa(&qa.id).await.unwrap(), TrainingStatus::Completed);
    assert_eq!(f.store.qa_pair(&qa.id).await.unwrap().unwrap().error, None, "a success clears the reason");
}

/// Hardening finding 9: a small PDF that inflates to gigabytes fails its own source, quickly,
/// with a reason; the bot's other sources, trained beside it, are not affected.
async fn a_pdf_bomb_fails_only_its_own_source(backend: Backend) {
    let f = fixture(backend).await;
    let (t, b) = (&f.trainer, f.bot_id.as_str());
    let bytes = bomb_pdf(300, 8 * 1024 * 1024);
    assert!(bytes.len() < 300_000, "{} bytes", bytes.len());
    let bomb_path = write(&f.dir, "bomb.pdf", &bytes);
    let bomb = t.add_pdf(b, "bomb.pdf", &bomb_path, bytes.len() as u64).await.unwrap();
    let manual_path = write(&f.dir, "manual.pdf", &three_page_manual());
    let manual = t.add_pdf(b, "manual.pdf", &manual_path, 1000).await.unwrap();
    let text = t.add_text(b, Some("Hours"), "We are open from nine to five.").await.unwrap();

    let started = std::time::Instant::now();
    let slots = t.free_training_slots();
    let (bombed, read, written) = tokio::join!(t.spawn_source(bomb.id.clone()), t.spawn_source(manual.id.clone()), t.train_source(&text.id));
    assert_eq!(bombed.unwrap().unwrap(), TrainingStatus::Failed);
    assert_eq!(read.unwrap().unwrap(), TrainingStatus::Completed);
    assert_eq!(written.unwrap(), TrainingStatus::Completed);
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert_eq!(t.free_training_slots(), slots, "every training slot is given back");

    let s = f.store.source(&bomb.id).await.unwrap().unwrap();
    assert_eq!(s.status, "failed");
    assert!(s.error.as_deref().unwrap_or("").contains("decompression bomb"), "{:?}", s.error);
    let chunks = f.store.bot_chunks(b).await.unwrap();
    assert!(chunks.iter().any(|c| c.source_id.as_deref() == Some(manual.id.as_str())));
    assert!(!chunks.iter().any(|c| c.source_id.as_deref() == Some(bomb.id.as_str())));
}

/// A stand-in model that counts how many batches it is given at once.
#[derive(Default)]
struct OverlapEmbedder {
    running: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
    calls: std::sync::atomic::AtomicUsize,
}

impl Embedder for OverlapEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        use std::sync::atomic::Ordering::SeqCst;
        let now = self.running.fetch_add(1, SeqCst) + 1;
        self.most.fetch_max(now, SeqCst);
        self.calls.fetch_add(1, SeqCst);
        std::thread::sleep(Duration::from_millis(5));
        self.running.fetch_sub(1, SeqCst);
        CountingEmbedder.embed(texts)
    }

    fn dims(&self) -> usize {
        3
    }
}

/// A bot created with many Q&A pairs (the demo bot has 25) trains them all at once; the model
/// uses every core for one batch, so the trainer hands it one batch at a time instead of one
/// per pair on as many threads (each of which kept its working memory).
async fn many_pairs_added_at_once_are_embedded_one_batch_at_a_time(backend: Backend) {
    let f = fixture(backend).await;
    let model = Arc::new(OverlapEmbedder::default());
    let settings = Settings::load_from(&Default::default()).unwrap();
    let t = Trainer::new(f.store.clone(), &settings).with_embedder(model.clone());
    let mut runs = Vec::new();
    for i in 0..12 {
        let pair = t.add_qa(&f.bot_id, &format!("Question {i}?"), &format!("Answer number {i}.")).await.unwrap();
        runs.push(t.spawn_qa(pair.id));
    }
    for run in runs {
        assert_eq!(run.await.unwrap().unwrap(), TrainingStatus::Completed);
    }
    use std::sync::atomic::Ordering::SeqCst;
    assert_eq!(model.calls.load(SeqCst), 12, "one batch per pair");
    assert_eq!(model.most.load(SeqCst), 1, "never two batches at once");
    let chunks = f.store.bot_chunks(&f.bot_id).await.unwrap();
    assert_eq!(chunks.iter().filter(|c| c.embedding.is_some()).count(), 12, "every pair has its vector");
}
