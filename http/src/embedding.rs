//! Where a bot's chat may appear and be called from: its URL whitelist becomes the chat page's
//! `Content-Security-Policy: frame-ancestors`, and chat calls carrying an `Origin` from a site
//! that is neither Parley itself nor on the whitelist are refused. An empty whitelist allows
//! every site (the bot is public). The per-visitor rate limit is in `limits`.

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
}
