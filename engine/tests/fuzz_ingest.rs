//! Fuzz targets for the ingestion decoders that read what strangers wrote: the HTML extractor,
//! robots.txt, sitemaps and the PDF loader. Property tests (proptest) with a bounded number of
//! cases, so they run on stable in every `cargo nextest` run; `PARLEY_FUZZ_CASES` raises the
//! count for a longer session (e.g. `PARLEY_FUZZ_CASES=20000 cargo nextest run -E 'binary(fuzz_ingest)'`).
//!
//! Inputs are both arbitrary text or bytes and structured ones (tag soup, robots lines, PDFs
//! made with lopdf then cut and flipped), since random bytes rarely get past a parser's first
//! check. Each asserts no panic and the decoder's own promises.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};
use parley_engine::ingest::crawl::{parse_robots, parse_sitemap};
use parley_engine::ingest::html::{nesting_estimate, parse_html, read_page};
use parley_engine::ingest::{extract_pdf_bytes, PdfLimits};
use proptest::prelude::*;
use url::Url;

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PARLEY_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Pieces of HTML that parsers trip on: unclosed and stray tags, comments, raw-text elements,
/// entities, attributes with and without quotes, `<base>`, robots meta, links of every kind.
fn html_token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<a".to_string()),
        Just("<a href=\"/x?y=1#frag\">".to_string()),
        Just("<a href='javascript:alert(1)'>".to_string()),
        Just("<a href=mailto:x@y.z>".to_string()),
        Just("<a href=\"//other.example/p\">".to_string()),
        Just("</a>".to_string()),
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<p>".to_string()),
        Just("<br/>".to_string()),
        Just("<script>".to_string()),
        Just("</script>".to_string()),
        Just("<style>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("<![CDATA[".to_string()),
        Just("<title>".to_string()),
        Just("</title>".to_string()),
        Just("<h1>".to_string()),
        Just("<nav>".to_string()),
        Just("<base href=\"https://base.example/dir/\">".to_string()),
        Just("<meta name=\"robots\" content=\"noindex, nofollow\">".to_string()),
        Just("<table><tr><td>".to_string()),
        Just("&amp;&lt;&#x1F600;&#0;&bogus;".to_string()),
        Just("<".to_string()),
        Just(">".to_string()),
        Just("\"".to_string()),
        Just("<svg><foreignObject><p>".to_string()),
        "[a-z ]{0,12}".prop_map(|s| s),
        "\\PC{0,8}".prop_map(|s| s),
    ]
}

fn tag_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(html_token(), 0..80).prop_map(|t| t.concat())
}

fn base() -> Url {
    Url::parse("https://shop.example/help/").unwrap()
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn html_extractor_never_panics_and_keeps_its_promises(html in prop_oneof![tag_soup(), "\\PC{0,400}"]) {
        let page = parse_html(&html, &base());
        let mut seen = std::collections::HashSet::new();
        for link in &page.links {
            prop_assert!(matches!(link.scheme(), "http" | "https"), "{link}");
            prop_assert!(link.fragment().is_none(), "{link}");
            prop_assert!(seen.insert(link.as_str().to_string()), "repeated link {link}");
        }
        // read_page refuses or gives the same page.
        if let Ok(read) = read_page(&html, &base()) {
            prop_assert_eq!(read, page);
        }
    }

    #[test]
    fn robots_parser_never_panics(
        text in prop_oneof![
            "\\PC{0,300}",
            prop::collection::vec(
                prop_oneof![
                    Just("User-agent: *".to_string()),
                    Just("User-agent: ParleyBot".to_string()),
                    "(Allow|Disallow|allow|DISALLOW) ?: ?[/a-z*$?=.]{0,12}",
                    "Sitemap: https://[a-z]{1,6}\\.example/[a-z]{0,6}\\.xml",
                    "#\\PC{0,10}",
                    "\\PC{0,20}",
                ],
                0..30,
            ).prop_map(|lines| lines.join("\n")),
        ],
        path in "/([a-zA-Z0-9*$?=.%-][a-zA-Z0-9/*$?=.%-]{0,29})?",
    ) {
        let robots = parse_robots(&text, "ParleyBot");
        let url = Url::parse(&format!("https://shop.example{path}")).unwrap();
        let _ = robots.allowed(&url);
        // Nothing in a file without rules keeps us out.
        let empty = parse_robots("", "ParleyBot");
        prop_assert!(empty.allowed(&url));
    }

    #[test]
    fn a_disallow_all_group_keeps_every_path_out(path in "/([a-zA-Z0-9._-][a-zA-Z0-9/._-]{0,29})?", agent in "(\\*|ParleyBot|parleybot)") {
        let robots = parse_robots(&format!("User-agent: {agent}\nDisallow: /\n"), "ParleyBot");
        let url = Url::parse(&format!("https://shop.example{path}")).unwrap();
        prop_assert!(!robots.allowed(&url), "{url}");
    }

    #[test]
    fn sitemap_parser_never_panics(xml in prop_oneof![
        "\\PC{0,300}",
        prop::collection::vec(prop_oneof![
            Just("<loc>".to_string()), Just("</loc>".to_string()), Just("<sitemapindex>".to_string()),
            Just("<![CDATA[".to_string()), Just("]]>".to_string()), Just("&amp;".to_string()), "[a-z:/.]{0,10}",
        ], 0..40).prop_map(|t| t.concat()),
    ]) {
        let _ = parse_sitemap(&xml);
    }

    /// Whatever a sitemap writer escapes, the parser reads back.
    #[test]
    fn sitemap_locs_round_trip(locs in prop::collection::vec("https://[a-z]{1,8}\\.example/[a-zA-Z0-9&<>\"'=?;/._-]{0,30}", 0..8), index in any::<bool>(), cdata in any::<bool>()) {
        let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;");
        let (open, close, entry) = if index { ("<sitemapindex>", "</sitemapindex>", "sitemap") } else { ("<urlset>", "</urlset>", "url") };
        let body: String = locs.iter().map(|l| {
            let loc = if cdata && !l.contains("]]>") { format!("<![CDATA[{l}]]>") } else { escape(l) };
            format!("<{entry}><loc> {loc} </loc></{entry}>\n")
        }).collect();
        let (is_index, parsed) = parse_sitemap(&format!("<?xml version=\"1.0\"?>\n{open}\n{body}{close}"));
        prop_assert_eq!(is_index, index);
        prop_assert_eq!(parsed, locs);
    }
}

/// The fastest of three runs (the least disturbed by other work on the machine).
fn fastest(html: &str) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(nesting_estimate(std::hint::black_box(html)));
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(cases(32))]

    /// Hardening finding 4: the estimate is linear whatever the page repeats. Four times the
    /// input may take about four times as long; a quadratic estimate takes sixteen.
    #[test]
    fn nesting_estimate_is_linear_on_repeated_tokens(token in html_token(), times in 500usize..4000) {
        prop_assume!(!token.is_empty());
        let small = token.repeat(times);
        let large = token.repeat(times * 4);
        prop_assert!(nesting_estimate(&large) <= large.len());
        let (t1, t4) = (fastest(&small), fastest(&large));
        prop_assert!(t4 <= t1 * 8 + Duration::from_millis(20), "{token:?}: {} bytes in {t1:?}, {} bytes in {t4:?}", small.len(), large.len());
    }
}

// ---------- PDF ----------

/// A small valid PDF whose one page shows `lines`.
fn pdf_with(lines: &[String]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font_id } });
    let mut ops = vec![
        Operation::new("BT", vec![]),
        Operation::new("Tf", vec!["F1".into(), 12.into()]),
        Operation::new("Td", vec![72.into(), 720.into()]),
        Operation::new("TL", vec![14.into()]),
    ];
    for line in lines {
        ops.push(Operation::new("Tj", vec![Object::string_literal(line.as_str())]));
        ops.push(Operation::new("T*", vec![]));
    }
    ops.push(Operation::new("ET", vec![]));
    let mut content = Stream::new(dictionary! {}, Content { operations: ops }.encode().unwrap());
    let _ = content.compress();
    let content_id = doc.add_object(content);
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id, "Resources" => resources_id,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
    });
    doc.objects.insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1 }));
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

fn limits() -> PdfLimits {
    PdfLimits { max_bytes: 1024 * 1024, max_page_content: 256 * 1024, max_decompressed: 1024 * 1024, timeout: Duration::from_secs(5) }
}

/// Damage to a file: cut it, flip bytes, or splice in junk.
#[derive(Debug, Clone)]
enum Damage {
    Truncate(prop::sample::Index),
    Flip(prop::sample::Index, u8),
    Splice(prop::sample::Index, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Damage::Truncate),
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Damage::Flip(i, b)),
        (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 0..16)).prop_map(|(i, v)| Damage::Splice(i, v)),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    match d {
        Damage::Truncate(i) => bytes.truncate(i.index(bytes.len() + 1)),
        Damage::Flip(i, b) => {
            if !bytes.is_empty() {
                let at = i.index(bytes.len());
                bytes[at] ^= b | 1;
            }
        }
        Damage::Splice(i, v) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, v.iter().copied());
        }
    }
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn pdf_loader_never_panics_on_bytes(mut bytes in prop::collection::vec(any::<u8>(), 0..2048), header in any::<bool>()) {
        if header {
            bytes.splice(0..0, b"%PDF-1.7\n".iter().copied());
        }
        let _ = extract_pdf_bytes(&bytes, limits());
    }

    #[test]
    fn pdf_text_round_trips(lines in prop::collection::vec("[A-Za-z0-9][A-Za-z0-9 .,]{0,30}[A-Za-z0-9]", 1..5)) {
        let text = extract_pdf_bytes(&pdf_with(&lines), limits()).expect("a valid PDF reads");
        prop_assert_eq!(text.page_count, 1);
        let all: String = text.pages.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n");
        let squashed = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        for line in &lines {
            prop_assert!(squashed(&all).contains(&squashed(line)), "{line:?} not in {all:?}");
        }
    }

    #[test]
    fn damaged_pdfs_fail_cleanly_and_quickly(lines in prop::collection::vec("[a-z ]{1,20}", 1..4), damages in prop::collection::vec(damage(), 1..4)) {
        let mut bytes = pdf_with(&lines);
        for d in &damages {
            apply(&mut bytes, d);
        }
        let started = Instant::now();
        let _ = extract_pdf_bytes(&bytes, limits());
        prop_assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }
}

/// The round trip above, at the case random text rarely hits: an escaped `&lt;` in a URL must
/// come back as `&lt;`, not be unescaped twice into `<`.
#[test]
fn sitemap_entities_are_unescaped_once() {
    let (_, locs) = parse_sitemap("<urlset><url><loc>https://a.example/?q=&amp;lt;&amp;amp;x</loc></url></urlset>");
    assert_eq!(locs, vec!["https://a.example/?q=&lt;&amp;x".to_string()]);
}
