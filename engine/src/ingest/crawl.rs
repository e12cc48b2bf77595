//! Website crawling for training: one site only, breadth first from the given URL and the
//! site's sitemap, obeying robots.txt (the `*` group, or a `Parley` group if the site has one),
//! within page and depth caps, a per-request time-out and a response-size cap (bodies are
//! streamed and dropped past it).
//!
//! The crawler fetches addresses a bot owner types in, so it guards against being pointed at
//! the inside of the network (SSRF): unless `crawler.allow_private` is set, every hop of every
//! request (redirects are followed by hand, each one re-checked) must name a public address on
//! port 80 or 443 (or one of `crawler.allowed_ports`): IP literals are checked directly, host
//! names through a resolver that refuses a name if any of its addresses is private, loopback,
//! link-local, unspecified or otherwise not public; the connection then goes to exactly the
//! addresses that were checked. IPv6 forms that carry an IPv4 address to a relay or a
//! translator (6to4, Teredo, IPv4-compatible and IPv4-mapped) are refused outright.
//!
//! A hostile site must not hold the server: the CPU work of a crawl (reading robots.txt,
//! sitemaps and pages, matching links against robots.txt) runs on the blocking pool, the queue
//! and the set of addresses seen are bounded by a small multiple of `max_pages`, and robots.txt
//! keeps at most `MAX_ROBOTS_RULES` rules.

use std::collections::{HashSet, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parley_config::CrawlerSettings;
use url::Url;

use super::html::{read_page, HtmlPage};
use super::{IngestError, IngestResult};

/// The token matched against robots.txt `User-agent` lines.
pub const ROBOTS_AGENT: &str = "parley";
pub const USER_AGENT: &str = concat!("ParleyBot/", env!("CARGO_PKG_VERSION"), " (+https://github.com/parley)");
const MAX_REDIRECTS: usize = 5;
const MAX_SITEMAPS: usize = 5;
/// Addresses waiting in the queue, and addresses remembered as seen, per page of `max_pages`:
/// links past these are dropped (a crawl reads `max_pages` pages at most anyway).
const QUEUED_PER_PAGE: usize = 4;
const SEEN_PER_PAGE: usize = 10;
/// Rules kept from robots.txt (of the group that applies), the longest pattern considered, and
/// the most sitemaps it may name: a hostile robots.txt cannot make every link check slow.
pub const MAX_ROBOTS_RULES: usize = 500;
pub const MAX_ROBOTS_PATTERN: usize = 512;
const MAX_ROBOTS_SITEMAPS: usize = 50;

/// One page read: its final URL (after redirects), title and readable text.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawledPage {
    pub url: Url,
    pub title: String,
    pub text: String,
}

/// What the crawl tells as it goes, for the source list to show.
#[derive(Debug, Clone, PartialEq)]
pub enum CrawlReport {
    Fetched { url: String, title: String },
    Skipped { url: String, reason: String },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CrawlResult {
    pub pages: Vec<CrawledPage>,
    /// Pages not used, with why (robots.txt, too large, not HTML, another site...).
    pub skipped: Vec<(String, String)>,
}

pub struct Crawler {
    client: reqwest::Client,
    settings: CrawlerSettings,
}

impl Crawler {
    pub fn new(settings: &CrawlerSettings) -> IngestResult<Crawler> {
        let timeout = Duration::from_secs(settings.timeout_secs.max(1));
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would make the address checks meaningless (and is not how a crawl of the
            // open web should go out anyway).
            .no_proxy();
        if !settings.allow_private {
            builder = builder.dns_resolver(Arc::new(PublicOnlyResolver));
        }
        let client = builder.build().map_err(|e| IngestError::Fetch(format!("HTTP client: {e}")))?;
        Ok(Crawler { client, settings: settings.clone() })
    }

    /// Crawls the site of `start`. Fails only when the start address itself is refused or no
    /// page at all could be read; single pages that fail are reported and skipped.
    pub async fn crawl(
        &self,
        start: &str,
        report: &mut (dyn FnMut(CrawlReport) + Send),
    ) -> IngestResult<CrawlResult> {
        let start = parse_start_url(start)?;
        self.check_address(&start)?;
        let robots = Arc::new(self.robots(&start).await);
        let mut result = CrawlResult::default();
        let mut frontier = Frontier::new(self.settings.max_pages);
        frontier.push(start.clone(), 0);
        if self.settings.max_depth > 0 {
            for url in self.sitemap_urls(&start, &robots).await {
                if same_site(&start, &url) {
                    frontier.push(url, 1);
                }
            }
        }
        let mut first_error: Option<String> = None;
        let skip = |report: &mut (dyn FnMut(CrawlReport) + Send), result: &mut CrawlResult, url: &Url, reason: String| {
            report(CrawlReport::Skipped { url: url.to_string(), reason: reason.clone() });
            result.skipped.push((url.to_string(), reason));
        };
        // The whole crawl's time: a page's worth of the fetch timeout for each page it may read
        // (twice, for redirects and robots), so a site answering each request just in time
        // cannot hold a training slot for hours; what was read by then is kept.
        let page_time = Duration::from_secs(self.settings.timeout_secs.max(1)).saturating_mul(2);
        // (No deadline if the settings make it too far away to represent.)
        let deadline = Instant::now().checked_add(page_time.saturating_mul(u32::try_from(self.settings.max_pages.max(1)).unwrap_or(u32::MAX)));
        while let Some((url, depth)) = frontier.pop() {
            if result.pages.len() >= self.settings.max_pages {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                first_error.get_or_insert_with(|| "the site took too long to read".into());
                break;
            }
            // Checked when taken from the queue (at most `SEEN_PER_PAGE` × max pages times in
            // a crawl, however many links the pages hold), on the blocking pool.
            if !allowed_by(&robots, &url).await {
                skip(report, &mut result, &url, "disallowed by robots.txt".into());
                continue;
            }
            let fetched = match self.fetch(&url, &start, &robots, true).await {
                Ok(f) => f,
                Err(e) => {
                    if url == start {
                        if let IngestError::Refused(_) = e {
                            return Err(e);
                        }
                    }
                    first_error.get_or_insert_with(|| e.to_string());
                    skip(report, &mut result, &url, e.to_string());
                    continue;
                }
            };
            if !fetched.is_html {
                skip(report, &mut result, &fetched.url, "not an HTML page".into());
                continue;
            }
            if fetched.url != url && !frontier.see(&fetched.url) {
                continue; // a redirect to a page already queued or read
            }
            // Parsing on the blocking pool.
            let follow = depth < self.settings.max_depth;
            let (body, base, site) = (fetched.body, fetched.url.clone(), start.clone());
            let read = tokio::task::spawn_blocking(move || {
                read_page(&body, &base).map(|mut page: HtmlPage| {
                    let mut links = if follow && !page.nofollow { std::mem::take(&mut page.links) } else { Vec::new() };
                    links.retain(|link| same_site(&site, link));
                    (page, links)
                })
            })
            .await;
            let (page, links) = match read {
                Ok(Ok(read)) => read,
                Ok(Err(reason)) => {
                    skip(report, &mut result, &fetched.url, reason.into());
                    continue;
                }
                Err(_) => {
                    skip(report, &mut result, &fetched.url, "the page could not be parsed".into());
                    continue;
                }
            };
            for link in links {
                frontier.push(link, depth + 1);
            }
            if page.noindex {
                skip(report, &mut result, &fetched.url, "the page asks not to be indexed".into());
                continue;
            }
            if page.text.trim().is_empty() {
                skip(report, &mut result, &fetched.url, "no text".into());
                continue;
            }
            let title = if page.title.is_empty() { fetched.url.to_string() } else { page.title };
            report(CrawlReport::Fetched { url: fetched.url.to_string(), title: title.clone() });
            result.pages.push(CrawledPage { url: fetched.url, title, text: page.text });
        }
        if result.pages.is_empty() {
            // Why the first page was passed over says what to fix (robots.txt, noindex, ...).
            let skipped = result.skipped.first().map(|(url, reason)| format!("{url}: {reason}"));
            return Err(IngestError::Fetch(match (first_error, skipped) {
                (Some(e), _) => format!("no page could be read ({e})"),
                (None, Some(skipped)) => format!("no page with text was found ({skipped})"),
                (None, None) => "no page with text was found".into(),
            }));
        }
        Ok(result)
    }

    /// Refuses URLs that are not http(s) or that name a non-public IP (host names are
    /// checked when they are resolved).
    fn check_address(&self, url: &Url) -> IngestResult<()> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(IngestError::Refused(format!("{} is not an http or https address", url)));
        }
        let ip = match url.host() {
            None => return Err(IngestError::Refused(format!("{url} has no host"))),
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => None,
        };
        if let Some(ip) = ip {
            if !self.settings.allow_private && !is_public(ip) {
                return Err(IngestError::Refused(format!("{ip} is a private or local address")));
            }
        }
        if !self.settings.allow_private {
            let port = url.port_or_known_default().unwrap_or(0);
            if !self.port_allowed(port) {
                return Err(IngestError::Refused(format!("{url} uses port {port}; only 80 and 443 are crawled")));
            }
        }
        Ok(())
    }

    /// Web ports, and those the settings add (internal services listen on the others).
    fn port_allowed(&self, port: u16) -> bool {
        matches!(port, 80 | 443) || self.settings.extra_ports().unwrap_or_default().contains(&port)
    }

    /// GETs `url`, following redirects by hand: each hop is re-checked (address, same site
    /// when `same_site_only`, robots.txt). The body is read up to the size cap.
    async fn fetch(&self, url: &Url, site: &Url, robots: &Robots, same_site_only: bool) -> IngestResult<Fetched> {
        let mut url = url.clone();
        for hop in 0..=MAX_REDIRECTS {
            self.check_address(&url)?;
            if hop > 0 {
                if same_site_only && !same_site(site, &url) {
                    return Err(IngestError::Refused(format!("redirected to another site ({url})")));
                }
                if !robots.allowed(&url) {
                    return Err(IngestError::Refused(format!("redirected to {url}, disallowed by robots.txt")));
                }
            }
            let response = self.client.get(url.clone()).send().await.map_err(|e| request_error(&url, &e))?;
            let status = response.status();
            if status.is_redirection() {
                let next = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|loc| url.join(loc).ok())
                    .ok_or_else(|| IngestError::Fetch(format!("{url}: redirect without a usable Location")))?;
                url = next;
                continue;
            }
            if !status.is_success() {
                return Err(IngestError::Fetch(format!("{url}: HTTP {}", status.as_u16())));
            }
            let content_type = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let is_html = content_type.is_empty()
                || content_type.starts_with("text/html")
                || content_type.starts_with("application/xhtml");
            let body = self.read_capped(response, &url).await?;
            return Ok(Fetched { url, is_html, body });
        }
        Err(IngestError::Fetch(format!("{url}: more than {MAX_REDIRECTS} redirects")))
    }

    async fn read_capped(&self, mut response: reqwest::Response, url: &Url) -> IngestResult<String> {
        let cap = self.settings.max_response_bytes;
        if response.content_length().is_some_and(|n| n > cap as u64) {
            return Err(IngestError::Fetch(format!("{url}: larger than {cap} bytes")));
        }
        let mut body: Vec<u8> = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| request_error(url, &e))? {
            if body.len() + chunk.len() > cap {
                // Dropping the response here closes the connection: the rest is never read.
                return Err(IngestError::Fetch(format!("{url}: larger than {cap} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// The site's robots.txt; a missing or unreadable one allows everything.
    async fn robots(&self, start: &Url) -> Robots {
        let Ok(url) = start.join("/robots.txt") else { return Robots::default() };
        match self.fetch(&url, start, &Robots::default(), true).await {
            Ok(f) => tokio::task::spawn_blocking(move || parse_robots(&f.body, ROBOTS_AGENT)).await.unwrap_or_default(),
            Err(e) => {
                tracing::debug!(%url, error = %e, "no robots.txt");
                Robots::default()
            }
        }
    }

    /// Page URLs listed by the site's sitemaps (those robots.txt names, else /sitemap.xml),
    /// following one level of sitemap index.
    async fn sitemap_urls(&self, start: &Url, robots: &Robots) -> Vec<Url> {
        let mut sitemaps: VecDeque<Url> = robots
            .sitemaps
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .filter(|u| same_site(start, u))
            .collect();
        if sitemaps.is_empty() {
            if let Ok(u) = start.join("/sitemap.xml") {
                sitemaps.push_back(u);
            }
        }
        let mut pages = Vec::new();
        let mut read = 0;
        while let Some(sitemap) = sitemaps.pop_front() {
            if read >= MAX_SITEMAPS || pages.len() >= self.settings.max_pages * 4 {
                break;
            }
            read += 1;
            let Ok(f) = self.fetch(&sitemap, start, robots, true).await else { continue };
            let Ok((is_index, locs)) = tokio::task::spawn_blocking(move || parse_sitemap(&f.body)).await else { continue };
            let cap = self.settings.max_pages.saturating_mul(QUEUED_PER_PAGE);
            for loc in locs.into_iter().filter_map(|l| Url::parse(&l).ok()) {
                if is_index {
                    if same_site(start, &loc) && sitemaps.len() < MAX_SITEMAPS {
                        sitemaps.push_back(loc);
                    }
                } else if pages.len() < cap {
                    pages.push(loc);
                } else {
                    break;
                }
            }
        }
        pages
    }
}

struct Fetched {
    url: Url,
    is_html: bool,
    body: String,
}

/// The addresses still to read, and those already queued or read, both bounded: past the
/// bounds new links are dropped, so a site of a million links costs no more than a small one.
struct Frontier {
    queue: VecDeque<(Url, usize)>,
    seen: HashSet<String>,
    max_queued: usize,
    max_seen: usize,
}

impl Frontier {
    fn new(max_pages: usize) -> Frontier {
        let pages = max_pages.max(1);
        Frontier {
            queue: VecDeque::new(),
            seen: HashSet::new(),
            max_queued: pages.saturating_mul(QUEUED_PER_PAGE),
            max_seen: pages.saturating_mul(SEEN_PER_PAGE),
        }
    }

    /// Queues `url` unless it was seen or the queue is full.
    fn push(&mut self, url: Url, depth: usize) {
        if self.queue.len() >= self.max_queued {
            return;
        }
        if self.see(&url) {
            self.queue.push_back((url, depth));
        }
    }

    /// Remembers `url`; false when it was seen before. Once the set is full nothing more is
    /// remembered, and nothing more is queued either (`push` refuses what it cannot remember).
    fn see(&mut self, url: &Url) -> bool {
        let key = key(url);
        if self.seen.contains(&key) {
            return false;
        }
        if self.seen.len() >= self.max_seen {
            return false;
        }
        self.seen.insert(key)
    }

    fn pop(&mut self) -> Option<(Url, usize)> {
        self.queue.pop_front()
    }
}

/// Whether robots.txt allows `url`, matched on the blocking pool.
async fn allowed_by(robots: &Arc<Robots>, url: &Url) -> bool {
    let (robots, url) = (Arc::clone(robots), url.clone());
    tokio::task::spawn_blocking(move || robots.allowed(&url)).await.unwrap_or(false)
}

/// What an address that is not a web page's is refused with (the spec's wording).
const INVALID_URL: &str = "Please enter a valid URL (e.g., https://example.com)";

/// The start address as typed: a missing scheme means https.
pub fn parse_start_url(input: &str) -> IngestResult<Url> {
    let input = input.trim();
    if input.is_empty() {
        return Err(IngestError::Invalid("A training URL is required".into()));
    }
    let with_scheme = if input.contains("://") { input.to_string() } else { format!("https://{input}") };
    let mut url = Url::parse(&with_scheme).map_err(|_| IngestError::Invalid(INVALID_URL.into()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(IngestError::Invalid(INVALID_URL.into()));
    }
    url.set_fragment(None);
    Ok(url)
}

fn key(url: &Url) -> String {
    let mut u = url.clone();
    u.set_fragment(None);
    u.to_string()
}

fn host_key(url: &Url) -> Option<String> {
    let host = url.host_str()?.to_ascii_lowercase();
    Some(host.strip_prefix("www.").unwrap_or(&host).to_string())
}

/// Same site: the same host (a leading `www.` aside) and port; http and https both count.
pub fn same_site(a: &Url, b: &Url) -> bool {
    matches!(b.scheme(), "http" | "https")
        && host_key(a).is_some()
        && host_key(a) == host_key(b)
        && a.port() == b.port()
}

fn request_error(url: &Url, e: &reqwest::Error) -> IngestError {
    // The resolver's refusal is buried in the source chain; surface it as a refusal.
    let mut chain = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if text.starts_with(REFUSED_PREFIX) {
            return IngestError::Refused(text.trim_start_matches(REFUSED_PREFIX).trim().to_string());
        }
        chain = format!("{chain}: {text}");
        source = s.source();
    }
    if e.is_timeout() {
        return IngestError::Fetch(format!("{url}: timed out"));
    }
    IngestError::Fetch(format!("{url}: {chain}"))
}

const REFUSED_PREFIX: &str = "parley-refused:";

/// Resolves host names and refuses any that has a non-public address.
struct PublicOnlyResolver;

impl reqwest::dns::Resolve for PublicOnlyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addrs.iter().find(|a| !is_public(a.ip())) {
                let msg = format!("{REFUSED_PREFIX} {host} resolves to {}, a private or local address", bad.ip());
                return Err(msg.into());
            }
            if addrs.is_empty() {
                return Err(format!("{host} has no address").into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// Whether an address is on the public internet (what the crawler may reach by default).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            // Forms that hand an embedded IPv4 address to a relay, a tunnel or the host's own
            // stack: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), 6to4
            // (2002::/16), Teredo (2001::/32). No public web site needs them, and each can
            // reach an address the IPv4 checks would refuse.
            if v6.to_ipv4_mapped().is_some() || (s[..6] == [0, 0, 0, 0, 0, 0] && !v6.is_loopback() && !v6.is_unspecified()) {
                return false;
            }
            if s[0] == 0x2002 || (s[0] == 0x2001 && s[1] == 0) {
                return false;
            }
            // Local-use NAT64 (64:ff9b:1::/48) translates to private networks.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
                return false;
            }
            // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let [a, b] = s[6].to_be_bytes();
                let [c, d] = s[7].to_be_bytes();
                return is_public_v4(Ipv4Addr::new(a, b, c, d));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || v6 == Ipv6Addr::from([0u16, 0, 0, 0, 0, 0, 0, 1]))
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240)
}

/// The rules of the robots.txt group that applies to us, and the sitemaps it lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Robots {
    /// (allow, pattern) pairs; the longest matching pattern wins, allow on a tie.
    rules: Vec<(bool, String)>,
    pub sitemaps: Vec<String>,
}

impl Robots {
    pub fn allowed(&self, url: &Url) -> bool {
        let mut path = url.path().to_string();
        if let Some(q) = url.query() {
            path.push('?');
            path.push_str(q);
        }
        let mut best: Option<(usize, bool)> = None;
        for (allow, pattern) in &self.rules {
            if pattern.is_empty() {
                continue;
            }
            if robots_match(pattern, &path) {
                let len = pattern.len();
                best = match best {
                    Some((l, a)) if l > len || (l == len && a) => Some((l, a)),
                    _ => Some((len, *allow)),
                };
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// Parses robots.txt and keeps the rules for `agent` (its own group if any, else `*`).
pub fn parse_robots(text: &str, agent: &str) -> Robots {
    struct Group {
        agents: Vec<String>,
        rules: Vec<(bool, String)>,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut sitemaps = Vec::new();
    let mut in_agents = false;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some((field, value)) = line.split_once(':') else { continue };
        let field = field.trim().to_ascii_lowercase();
        let value = value.trim();
        match field.as_str() {
            "user-agent" => {
                if !in_agents {
                    groups.push(Group { agents: Vec::new(), rules: Vec::new() });
                }
                in_agents = true;
                if let Some(g) = groups.last_mut() {
                    g.agents.push(value.to_ascii_lowercase());
                }
            }
            "allow" | "disallow" => {
                in_agents = false;
                if let Some(g) = groups.last_mut() {
                    // Past the caps a rule is ignored: a hostile file cannot make every
                    // link check slow.
                    if g.rules.len() < MAX_ROBOTS_RULES && value.len() <= MAX_ROBOTS_PATTERN {
                        g.rules.push((field == "allow", value.to_string()));
                    }
                }
            }
            "sitemap" if sitemaps.len() < MAX_ROBOTS_SITEMAPS => sitemaps.push(value.to_string()),
            _ => {}
        }
    }
    let agent = agent.to_ascii_lowercase();
    // "Parley", "ParleyBot"... name us; "*" is everyone else's group.
    let ours: Vec<&Group> =
        groups.iter().filter(|g| g.agents.iter().any(|a| a.contains(agent.as_str()))).collect();
    let chosen: Vec<&Group> =
        if ours.is_empty() { groups.iter().filter(|g| g.agents.iter().any(|a| a == "*")).collect() } else { ours };
    let rules = chosen.into_iter().flat_map(|g| g.rules.iter().cloned()).take(MAX_ROBOTS_RULES).collect();
    Robots { rules, sitemaps }
}

/// robots.txt patterns: a path prefix where `*` matches any run and a final `$` anchors.
fn robots_match(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut pos = 0usize;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            if !path.starts_with(part) {
                return false;
            }
            pos = part.len();
            continue;
        }
        if part.is_empty() {
            continue;
        }
        match path.get(pos..).and_then(|rest| rest.find(part)) {
            Some(at) => pos += at + part.len(),
            None => return false,
        }
    }
    if anchored {
        // The last literal part must end the path.
        let last = parts.last().copied().unwrap_or("");
        return if parts.len() == 1 { path.len() == pos } else { path.ends_with(last) };
    }
    true
}

/// `<loc>` entries of a sitemap, and whether it is a sitemap index.
pub fn parse_sitemap(xml: &str) -> (bool, Vec<String>) {
    let is_index = xml.contains("<sitemapindex");
    let mut locs = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<loc>") {
        let after = rest.get(start + 5..).unwrap_or("");
        let body = after.trim_start();
        // A CDATA section is literal: no entities, and it may hold `</loc>` itself.
        let (loc, tail) = match body.strip_prefix("<![CDATA[").and_then(|r| r.find("]]>").map(|e| (r, e))) {
            Some((cdata, end)) => {
                let tail = cdata.get(end + 3..).unwrap_or("");
                (cdata.get(..end).unwrap_or("").trim().to_string(), tail)
            }
            None => {
                let Some(end) = after.find("</loc>") else { break };
                let raw = after.get(..end).unwrap_or("").trim();
                // `&amp;` last: unescaped first, `&amp;lt;` would become `<` instead of `&lt;`.
                let loc = raw.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&");
                (loc, after.get(end..).unwrap_or(""))
            }
        };
        if !loc.is_empty() {
            locs.push(loc);
        }
        let Some(close) = tail.find("</loc>") else { break };
        rest = tail.get(close + 6..).unwrap_or("");
    }
    (is_index, locs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn robots_picks_our_group_or_star_and_longest_match_wins() {
        let txt = "User-agent: *\nDisallow: /private\nAllow: /private/ok\n\nUser-agent: OtherBot\nDisallow: /\n\nSitemap: https://e.com/sm.xml\n";
        let r = parse_robots(txt, ROBOTS_AGENT);
        assert!(!r.allowed(&u("https://e.com/private/x")));
        assert!(r.allowed(&u("https://e.com/private/ok/1")));
        assert!(r.allowed(&u("https://e.com/public")));
        assert_eq!(r.sitemaps, vec!["https://e.com/sm.xml"]);
        let ours = parse_robots("User-agent: *\nDisallow: /\n\nUser-agent: Parley\nDisallow: /admin\n", ROBOTS_AGENT);
        assert!(ours.allowed(&u("https://e.com/docs")), "our own group replaces *");
        assert!(!ours.allowed(&u("https://e.com/admin/x")));
        let wild = parse_robots("User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?\nDisallow:\n", ROBOTS_AGENT);
        assert!(!wild.allowed(&u("https://e.com/a/b.pdf")));
        assert!(wild.allowed(&u("https://e.com/a/b.pdf.html")));
        assert!(!wild.allowed(&u("https://e.com/search?q=1")));
        assert!(parse_robots("", ROBOTS_AGENT).allowed(&u("https://e.com/")));
    }

    #[test]
    fn robots_keeps_a_bounded_number_of_rules_and_matching_stays_fast() {
        let mut txt = "User-agent: *\nDisallow: /first\n".to_string();
        for i in 0..100_000 {
            txt.push_str(&format!("Disallow: /*a*b*c*d*{i}$\n"));
        }
        txt.push_str(&format!("Disallow: /{}\nSitemap: https://e.com/s.xml\n", "x".repeat(100_000)));
        let r = parse_robots(&txt, ROBOTS_AGENT);
        assert_eq!(r.rules.len(), MAX_ROBOTS_RULES);
        assert!(!r.allowed(&u("https://e.com/first/page")));
        let long = u(&format!("https://e.com/{}", "ab".repeat(1000)));
        // A crawl checks at most SEEN_PER_PAGE × max pages addresses (500 by default), each
        // against at most MAX_ROBOTS_RULES rules.
        let started = std::time::Instant::now();
        for _ in 0..20 {
            r.allowed(&long);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn the_frontier_is_bounded_by_a_multiple_of_the_page_cap() {
        let mut f = Frontier::new(5);
        for i in 0..10_000 {
            f.push(u(&format!("https://e.com/p{i}")), 1);
        }
        assert_eq!(f.queue.len(), 5 * QUEUED_PER_PAGE);
        while f.pop().is_some() {}
        for i in 0..10_000 {
            f.push(u(&format!("https://e.com/q{i}")), 1);
        }
        assert!(f.seen.len() <= 5 * SEEN_PER_PAGE, "{}", f.seen.len());
        assert!(!f.see(&u("https://e.com/p0")), "seen stays seen");
    }

    #[test]
    fn a_cdata_loc_is_read_as_written() {
        // Entities are text inside CDATA, and `</loc>` may be part of the address.
        let (_, locs) = parse_sitemap("<urlset><url><loc><![CDATA[https://e.com/a&gt;b</loc>c]]></loc></url><url><loc>https://e.com/d&gt;</loc></url></urlset>");
        assert_eq!(locs, vec!["https://e.com/a&gt;b</loc>c".to_string(), "https://e.com/d>".to_string()]);
    }

    #[test]
    fn sitemaps_and_indexes_are_read() {
        let (idx, locs) = parse_sitemap("<urlset><url><loc> https://e.com/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>");
        assert!(!idx);
        assert_eq!(locs, vec!["https://e.com/a?x=1&y=2", "https://e.com/b"]);
        assert!(parse_sitemap("<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>").0);
    }

    #[test]
    fn only_public_addresses_pass() {
        for ip in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "255.255.255.255"] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "1.1.1.1", "2606:4700::1111", "64:ff9b::808:808"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    /// Hardening finding 13: IPv6 forms that carry an IPv4 address (to a 6to4 relay, a Teredo
    /// server, the host's own dual stack) are refused, whatever the address they carry.
    #[test]
    fn ipv6_forms_that_carry_ipv4_are_refused() {
        for ip in [
            "2002:7f00:1::1",   // 6to4 of 127.0.0.1
            "2002:0808:0808::", // 6to4 of a public address
            "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
            "::7f00:1",         // IPv4-compatible 127.0.0.1
            "::808:808",        // IPv4-compatible 8.8.8.8
            "::ffff:8.8.8.8",   // IPv4-mapped
            "64:ff9b:1::a00:1", // local-use NAT64
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        // 2001:db8::/32 stays refused, and other 2001: space stays public.
        assert!(!is_public("2001:db8::1".parse().unwrap()));
        assert!(is_public("2001:4860:4860::8888".parse().unwrap()));
    }

    /// Hardening finding 13: only web ports are crawled unless the settings add others.
    #[test]
    fn only_web_ports_are_crawled_unless_allowed() {
        let crawler = |allowed: &str| {
            let settings = CrawlerSettings { allow_private: false, allowed_ports: allowed.into(), max_pages: 5, max_depth: 1, timeout_secs: 1, max_response_bytes: 1024 };
            Crawler::new(&settings).unwrap()
        };
        let strict = crawler("");
        for ok in ["http://example.com/", "https://example.com/", "http://example.com:80/", "https://93.184.216.34:443/"] {
            assert!(strict.check_address(&u(ok)).is_ok(), "{ok}");
        }
        for refused in ["http://example.com:22/", "http://example.com:6379/", "https://example.com:8443/", "http://93.184.216.34:25/"] {
            assert!(matches!(strict.check_address(&u(refused)), Err(IngestError::Refused(_))), "{refused}");
        }
        let relaxed = crawler("8443, 8080");
        assert!(relaxed.check_address(&u("https://example.com:8443/")).is_ok());
        assert!(relaxed.check_address(&u("http://example.com:8080/")).is_ok());
        assert!(relaxed.check_address(&u("http://example.com:22/")).is_err());
    }

    #[test]
    fn same_site_ignores_www_and_scheme_but_not_port_or_host() {
        assert!(same_site(&u("https://www.e.com/"), &u("http://e.com/x")));
        assert!(!same_site(&u("https://e.com/"), &u("https://evil.com/")));
        assert!(!same_site(&u("https://e.com/"), &u("https://sub.e.com/")));
        assert!(!same_site(&u("http://127.0.0.1:8000/"), &u("http://127.0.0.1:9000/")));
        assert!(same_site(&u("http://127.0.0.1:8000/"), &u("http://127.0.0.1:8000/a")));
        assert!(!same_site(&u("https://e.com/"), &u("ftp://e.com/")));
    }

    #[test]
    fn start_urls_get_a_scheme_and_must_be_web() {
        assert_eq!(parse_start_url("example.com/docs").unwrap().as_str(), "https://example.com/docs");
        assert!(matches!(parse_start_url(" "), Err(IngestError::Invalid(m)) if m == "A training URL is required"));
        for bad in ["ftp://example.com", "nope nope", "https://"] {
            assert!(matches!(parse_start_url(bad), Err(IngestError::Invalid(m)) if m == INVALID_URL), "{bad}");
        }
    }
}
