//! HTML to the text a reader sees: boilerplate (scripts, styles, navigation, headers, footers,
//! asides, forms) dropped, blocks kept apart as paragraphs, plus the title and the links to
//! follow. The walk is iterative, so deeply nested hostile markup cannot overflow the stack.

use ego_tree::iter::Edge;
use scraper::{Html, Node};
use url::Url;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct HtmlPage {
    pub title: String,
    pub text: String,
    /// Absolute http(s) links without fragments, in document order, without repeats.
    pub links: Vec<Url>,
    /// `<meta name="robots" content="noindex">`: the page asks not to be indexed.
    pub noindex: bool,
    /// `nofollow` in the robots meta: its links are not to be followed.
    pub nofollow: bool,
}

/// Elements whose whole content is boilerplate or not text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg", "iframe",
    "object", "canvas", "button", "select", "head",
];

/// Elements that start and end a block of text.
const BLOCKS: &[&str] = &[
    "p", "div", "section", "article", "main", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl",
    "dt", "dd", "table", "tr", "td", "th", "pre", "blockquote", "figure", "figcaption", "hr", "br", "address",
    "details", "summary", "body",
];

fn skipped(el: &scraper::node::Element) -> bool {
    SKIPPED.contains(&el.name())
        || el.attr("hidden").is_some()
        || el.attr("aria-hidden").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || el.attr("role").is_some_and(|v| {
            matches!(v.to_ascii_lowercase().as_str(), "navigation" | "banner" | "contentinfo" | "complementary")
        })
}

/// Parses a page fetched from `base` (which resolves relative links).
pub fn parse_html(html: &str, base: &Url) -> HtmlPage {
    let doc = Html::parse_document(html);
    let mut page = HtmlPage::default();
    let mut base = base.clone();
    let mut title = String::new();
    let mut first_h1 = String::new();
    let mut in_title = 0usize;
    let mut in_h1 = 0usize;
    let mut skip_depth = 0usize;
    let mut blocks: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut seen = std::collections::HashSet::new();

    let flush = |current: &mut String, blocks: &mut Vec<String>| {
        let text = current.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            blocks.push(text);
        }
        current.clear();
    };

    for edge in doc.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) => {
                    let name = el.name();
                    // Links, base and meta are read even inside boilerplate: navigation
                    // menus are where a site's pages are listed.
                    match name {
                        "a" => {
                            if let Some(url) = el.attr("href").and_then(|h| resolve(&base, h)) {
                                if seen.insert(url.to_string()) {
                                    page.links.push(url);
                                }
                            }
                        }
                        "base" => {
                            if let Some(b) = el.attr("href").and_then(|h| base.join(h).ok()) {
                                base = b;
                            }
                        }
                        "meta" if el.attr("name").is_some_and(|n| n.eq_ignore_ascii_case("robots")) => {
                            let content = el.attr("content").unwrap_or("").to_ascii_lowercase();
                            page.noindex |= content.contains("noindex") || content.contains("none");
                            page.nofollow |= content.contains("nofollow") || content.contains("none");
                        }
                        "title" => in_title += 1,
                        "h1" => in_h1 += 1,
                        _ => {}
                    }
                    if skipped(el) {
                        skip_depth += 1;
                    } else if skip_depth == 0 && BLOCKS.contains(&name) {
                        flush(&mut current, &mut blocks);
                    }
                }
                Node::Text(text) => {
                    if in_title > 0 {
                        title.push_str(text);
                    }
                    if skip_depth == 0 {
                        if in_h1 > 0 {
                            first_h1.push_str(text);
                        }
                        current.push_str(text);
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(el) = node.value() {
                    match el.name() {
                        "title" => in_title = in_title.saturating_sub(1),
                        "h1" => {
                            in_h1 = in_h1.saturating_sub(1);
                            if !first_h1.trim().is_empty() && page.title.is_empty() {
                                page.title = title_of(&first_h1);
                            }
                        }
                        _ => {}
                    }
                    if skipped(el) {
                        skip_depth = skip_depth.saturating_sub(1);
                    } else if skip_depth == 0 && BLOCKS.contains(&el.name()) {
                        flush(&mut current, &mut blocks);
                    }
                }
            }
        }
    }
    flush(&mut current, &mut blocks);
    let title = title_of(&title);
    if !title.is_empty() {
        page.title = title;
    }
    page.text = blocks.join("\n\n");
    page
}

/// Deepest element nesting the parser should be given: html5ever's work grows with the square
/// of the nesting depth, so a page of a few thousand nested tags could hold a worker for
/// minutes. Real pages stay far below this.
pub const MAX_NESTING: usize = 512;

/// Why a fetched page is not read.
pub const TOO_DEEP: &str = "the page is nested too deeply to read";

/// Reads a fetched page (CPU work: callers run it on the blocking pool): refuses one nested
/// beyond `MAX_NESTING` before the parser sees it, else parses it.
pub fn read_page(html: &str, base: &Url) -> Result<HtmlPage, &'static str> {
    if nesting_estimate(html) > MAX_NESTING {
        return Err(TOO_DEEP);
    }
    Ok(parse_html(html, base))
}

/// A linear upper estimate of how deeply `html` nests elements (tags whose end tag may be left
/// out, and void tags, are not counted, so ordinary lists and paragraphs do not inflate it).
/// Linear in the length of `html` whatever it holds: each byte is looked at a bounded number
/// of times.
pub fn nesting_estimate(html: &str) -> usize {
    const NOT_NESTING: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
        "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "rt", "rp",
        "colgroup", "caption", "html", "head", "body", "!doctype",
    ];
    let bytes = html.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0usize;
    // The next '>' (searched from, found at), found once and reused by every tag before it:
    // searching again from each '<' made `<a<a<a…` (no '>' at all) quadratic.
    let mut next_gt: Option<(usize, Option<usize>)> = None;
    while let Some(off) = bytes.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'<')) {
        i += off + 1;
        let closing = bytes.get(i) == Some(&b'/');
        let name_start = if closing { i + 1 } else { i };
        let name_len = bytes
            .get(name_start..)
            .map(|rest| rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'!').count())
            .unwrap_or(0);
        if name_len == 0 {
            continue;
        }
        // Compared in place (no allocation per tag: a page may hold a million of them).
        let name = bytes.get(name_start..name_start + name_len).unwrap_or_default();
        if name.first() == Some(&b'!') || NOT_NESTING.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name)) {
            continue;
        }
        let tag_end = match next_gt {
            Some((from, found)) if from <= i && found.is_none_or(|p| p >= i) => found,
            _ => {
                let found = bytes.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'>')).map(|p| i + p);
                next_gt = Some((i, found));
                found
            }
        };
        let self_closing = tag_end.is_some_and(|e| e > 0 && bytes.get(e - 1) == Some(&b'/'));
        if closing {
            depth = depth.saturating_sub(1);
        } else if !self_closing {
            depth += 1;
            max = max.max(depth);
        }
    }
    max
}

/// A page's title as stored: squashed and at most `MAX_SOURCE_NAME_CHARS` characters (it becomes
/// the title of each of the page's chunks, and a page's `<title>` can be as long as the page).
fn title_of(text: &str) -> String {
    squash(text).chars().take(parley_store::knowledge::MAX_SOURCE_NAME_CHARS).collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An href as an absolute http(s) URL without its fragment; `None` for mailto:, javascript:...
fn resolve(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/docs/index.html").unwrap()
    }

    #[test]
    fn boilerplate_is_dropped_and_blocks_kept_apart() {
        let html = r#"<!doctype html><html><head><title> Pricing | Acme </title>
            <style>.x{color:red}</style><script>var secret = 1;</script></head>
            <body><header>Site header</header><nav><a href="/about">About us</a></nav>
            <main><h1>Plans</h1><p>The basic plan costs <b>10 euros</b> a month.</p>
            <div role="navigation">Breadcrumbs</div><p hidden>Hidden</p>
            <ul><li>One</li><li>Two</li></ul></main>
            <aside>Related posts</aside><footer>Copyright</footer></body></html>"#;
        let page = parse_html(html, &base());
        assert_eq!(page.title, "Pricing | Acme");
        assert_eq!(page.text, "Plans\n\nThe basic plan costs 10 euros a month.\n\nOne\n\nTwo");
        for gone in ["secret", "color", "Site header", "About us", "Breadcrumbs", "Hidden", "Related", "Copyright"] {
            assert!(!page.text.contains(gone), "{gone}");
        }
        assert_eq!(page.links, vec![Url::parse("https://example.com/about").unwrap()]);
    }

    #[test]
    fn a_page_title_is_kept_to_the_source_name_limit() {
        let html = format!("<html><head><title>{}</title></head><body><p>Text.</p></body></html>", "Long title ".repeat(500));
        let page = parse_html(&html, &base());
        assert_eq!(page.title.chars().count(), parley_store::knowledge::MAX_SOURCE_NAME_CHARS);
        assert!(page.title.starts_with("Long title Long title"));
    }

    #[test]
    fn links_are_absolute_http_without_fragments_or_repeats() {
        let html = r##"<base href="https://example.com/base/"><a href="a.html#top">A</a><a href="a.html">A</a>
            <a href="mailto:x@y.z">m</a><a href="javascript:void(0)">j</a><a href="#frag">f</a>
            <a href="https://other.example/x">o</a><a href="  ../up ">u</a>"##;
        let links: Vec<String> = parse_html(html, &base()).links.iter().map(Url::to_string).collect();
        assert_eq!(links, vec!["https://example.com/base/a.html", "https://other.example/x", "https://example.com/up"]);
    }

    #[test]
    fn title_falls_back_to_the_first_heading_and_robots_meta_is_read() {
        let page = parse_html(r#"<meta name="robots" content="noindex, nofollow"><h1>Guide  <i>one</i></h1><h1>two</h1>"#, &base());
        assert_eq!(page.title, "Guide one");
        assert!(page.noindex && page.nofollow);
    }

    #[test]
    fn deep_nesting_does_not_overflow_and_is_caught_cheaply() {
        let html = "<div>".repeat(MAX_NESTING) + "deep text" + &"</div>".repeat(MAX_NESTING);
        assert!(parse_html(&html, &base()).text.contains("deep text"));
        assert_eq!(nesting_estimate(&html), MAX_NESTING);
        let hostile = "<div><span>".repeat(500_000);
        assert!(nesting_estimate(&hostile) > MAX_NESTING);
        let flat = "<ul>".to_string() + &"<li>item<br><img src=x/>".repeat(10_000) + "</ul><p>a<p>b<!-- x -->";
        assert!(nesting_estimate(&flat) < 5, "{}", nesting_estimate(&flat));
    }

    /// Hardening finding 4: a 2 MB hostile page is read (or refused) quickly. The estimate
    /// searched for each tag's '>' from scratch, so `<a<a<a…` took hours; now it is linear and
    /// takes well under a second even in this unoptimised test build, and reading the whole
    /// page (html5ever, then the walk) stays within a few seconds here, a fraction of that in a
    /// release build.
    #[test]
    fn hostile_pages_of_2_mb_are_read_or_refused_quickly() {
        const SIZE: usize = 2 * 1024 * 1024;
        let fill = |unit: &str| unit.repeat(SIZE / unit.len());
        let pages = [
            ("tags without an end", fill("<a")),
            ("opening tags", fill("<div>")),
            ("nested formatting", fill("<b><i>")),
            ("bare angle brackets", fill("<")),
            ("an unterminated attribute", "<a href=\"".to_string() + &fill("x")),
            ("closing tags", fill("</div>")),
            ("comments that never end", fill("<!--<")),
            ("paragraphs under open formatting", "<b>".repeat(400) + &fill("<p>x")),
            ("plain text", fill("word ")),
        ];
        for (what, html) in pages {
            // On threads of their own, so a quadratic reader fails the test instead of hanging it.
            let within = |limit: std::time::Duration, work: Box<dyn FnOnce() + Send>| {
                let (done, finished) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    work();
                    let _ = done.send(());
                });
                finished.recv_timeout(limit).is_ok()
            };
            let page = html.clone();
            let estimated = within(std::time::Duration::from_secs(3), Box::new(move || {
                nesting_estimate(&page);
            }));
            assert!(estimated, "{what}: the nesting estimate took over 3 seconds");
            let read = within(std::time::Duration::from_secs(20), Box::new(move || {
                let _ = read_page(&html, &base());
            }));
            assert!(read, "{what}: reading took over 20 seconds");
        }
    }
}
