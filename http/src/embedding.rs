//! Where a bot's chat may appear and be called from: its URL whitelist becomes the chat page's
//! `Content-Security-Policy: frame-ancestors`, and chat calls carrying an `Origin` from a site
//! that is neither Parley itself nor on the whitelist are refused. An empty whitelist allows
//! every site (the bot is public). Plus the per-visitor rate limit (`enableRateLimit`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use parley_store::bots::BotSettings;

/// The `frame-ancestors` value for a bot's chat page.
pub fn frame_ancestors(settings: &BotSettings) -> String {
    if settings.url_whitelist.is_empty() {
        "frame-ancestors *".into()
    } else {
        format!("frame-ancestors 'self' {}", settings.url_whitelist.join(" "))
    }
}

/// True when `origin` (scheme://host[:port]) matches a whitelist entry (`*.` allows subdomains).
pub fn origin_allowed(settings: &BotSettings, origin: &str, own_origin: &str) -> bool {
    if settings.url_whitelist.is_empty() || origin == own_origin {
        return true;
    }
    let origin = origin.trim_end_matches('/').to_ascii_lowercase();
    settings.url_whitelist.iter().any(|entry| match entry.split_once("://*.") {
        Some((scheme, domain)) => origin
            .strip_prefix(&format!("{scheme}://"))
            .is_some_and(|host| host == domain || host.ends_with(&format!(".{domain}"))),
        None => origin == entry.as_str(),
    })
}

pub const RATE_LIMITED: &str = "You're sending messages too quickly. Please wait a moment and try again.";

/// A sliding window of message times per visitor key.
pub struct RateLimiter {
    window: Duration,
    max: usize,
    seen: Mutex<HashMap<String, Vec<Instant>>>,
}

impl RateLimiter {
    pub fn new(max: usize, window: Duration) -> RateLimiter {
        RateLimiter { window, max, seen: Mutex::new(HashMap::new()) }
    }

    /// Records a message for `key`; false when it is over the limit (and is not counted).
    pub fn allow(&self, key: &str) -> bool {
        let now = Instant::now();
        let mut seen = crate::realtime_lock(&self.seen);
        if seen.len() > 100_000 {
            // Forget idle visitors so the map cannot grow without bound.
            seen.retain(|_, times| times.last().is_some_and(|t| now.duration_since(*t) < self.window));
        }
        let times = seen.entry(key.to_string()).or_default();
        times.retain(|t| now.duration_since(*t) < self.window);
        if times.len() >= self.max {
            return false;
        }
        times.push(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(list: &[&str]) -> BotSettings {
        BotSettings { max_chat_text_size: 1000, url_whitelist: list.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn whitelist_rules() {
        let own = "http://127.0.0.1:8080";
        assert!(origin_allowed(&settings(&[]), "https://anything.example", own));
        let s = settings(&["https://shop.example", "https://*.brand.example"]);
        assert!(origin_allowed(&s, "https://shop.example", own));
        assert!(origin_allowed(&s, own, own));
        assert!(origin_allowed(&s, "https://eu.brand.example", own));
        assert!(origin_allowed(&s, "https://brand.example", own));
        assert!(!origin_allowed(&s, "https://evil.example", own));
        assert!(!origin_allowed(&s, "https://shop.example.evil.example", own));
        assert!(!origin_allowed(&s, "http://shop.example", own));
        assert_eq!(frame_ancestors(&s), "frame-ancestors 'self' https://shop.example https://*.brand.example");
        assert_eq!(frame_ancestors(&settings(&[])), "frame-ancestors *");
    }

    #[test]
    fn rate_limit_is_a_sliding_window() {
        let limiter = RateLimiter::new(3, Duration::from_millis(200));
        assert!(limiter.allow("v") && limiter.allow("v") && limiter.allow("v"));
        assert!(!limiter.allow("v"));
        assert!(limiter.allow("other"));
        std::thread::sleep(Duration::from_millis(220));
        assert!(limiter.allow("v"));
    }
}
