//! Input parsed once into types that can only hold valid values, each refusing bad input with
//! the spec's message ("parse, don't validate").

use crate::error::{ApiError, ApiResult};

/// A lower-cased email address of plausible shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> ApiResult<Email> {
        let email = raw.trim().to_lowercase();
        if parley_store::contact::plausible_email(&email) {
            Ok(Email(email))
        } else {
            Err(ApiError::validation(parley_store::contact::INVALID_EMAIL))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password of at least 8 characters (and a sane upper bound, so hashing stays cheap).
pub struct Password(String);

impl Password {
    pub const MIN_CHARS: usize = 8;
    pub const MAX_CHARS: usize = 256;

    pub fn parse(raw: &str) -> ApiResult<Password> {
        let n = raw.chars().count();
        if n < Self::MIN_CHARS {
            return Err(ApiError::validation("Password must be at least 8 characters"));
        }
        if n > Self::MAX_CHARS {
            return Err(ApiError::validation("Password must be at most 256 characters"));
        }
        Ok(Password(raw.to_string()))
    }

    /// A new password and its confirmation, checked together as the sign-up form does: a pair
    /// that differs is "Passwords do not match" whatever its length (the spec's sign-up error).
    pub fn parse_confirmed(raw: &str, confirm: &str) -> ApiResult<Password> {
        if raw != confirm {
            return Err(ApiError::validation("Passwords do not match"));
        }
        Self::parse(raw)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// A bot name: required, trimmed, at most 100 characters.
pub struct BotName(String);

impl BotName {
    pub fn parse(raw: &str) -> ApiResult<BotName> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(ApiError::validation("Bot name is required"));
        }
        if name.chars().count() > 100 {
            return Err(ApiError::validation("Bot name must be at most 100 characters"));
        }
        Ok(BotName(name.to_string()))
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// An http(s) URL, as the website field and training URLs take.
pub struct WebUrl(String);

impl WebUrl {
    pub fn parse(raw: &str) -> ApiResult<WebUrl> {
        let trimmed = raw.trim();
        match url::Url::parse(trimmed) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(WebUrl(u.to_string())),
            _ => Err(ApiError::validation("Please enter a valid URL (e.g., https://example.com)")),
        }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// A page of a list: `page` from 1, `limit` rows, and the offset they start at. Huge page
/// numbers are capped (`MAX_PAGE`) and the offset computed with checked arithmetic: a
/// `page=9223372036854775807` once overflowed into a negative offset (a 500, or a panic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageWindow {
    pub page: i64,
    pub limit: i64,
    pub offset: i64,
}

/// Pages beyond this are answered as empty pages of this number.
pub const MAX_PAGE: i64 = 1_000_000;

impl PageWindow {
    pub fn new(page: Option<i64>, limit: Option<i64>, default_limit: i64, max_limit: i64) -> PageWindow {
        let limit = limit.unwrap_or(default_limit).clamp(1, max_limit.max(1));
        let page = page.unwrap_or(1).clamp(1, MAX_PAGE);
        let offset = (page - 1).checked_mul(limit).unwrap_or(i64::MAX);
        PageWindow { page, limit, offset }
    }
}

/// A person's display name: trimmed, at most 100 characters.
pub fn person_name(raw: &str) -> ApiResult<String> {
    let name = raw.trim();
    if name.chars().count() > 100 {
        return Err(ApiError::validation("Name must be at most 100 characters"));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert_eq!(Email::parse(" Ann@Example.COM ").unwrap().as_str(), "ann@example.com");
        for bad in ["", "ann", "ann@", "@x.co", "a b@x.co", "a@x", "a@@x.co", "a@x.", "a@.x"] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords() {
        assert_eq!(Password::parse("short").err().unwrap().message, "Password must be at least 8 characters");
        assert_eq!(Password::parse_confirmed("longenough", "different").err().unwrap().message, "Passwords do not match");
        assert!(Password::parse_confirmed("longenough", "longenough").is_ok());
        // A pair that differs says so first, short or not; a matching short pair is too short.
        assert_eq!(Password::parse_confirmed("short", "shorter").err().unwrap().message, "Passwords do not match");
        assert_eq!(Password::parse_confirmed("short", "short").err().unwrap().message, "Password must be at least 8 characters");
    }

    #[test]
    fn bot_names_and_urls() {
        assert_eq!(BotName::parse("   ").err().unwrap().message, "Bot name is required");
        assert_eq!(BotName::parse(" Helper ").unwrap().into_inner(), "Helper");
        assert!(WebUrl::parse("https://example.com/x").is_ok());
        assert!(WebUrl::parse("not a url").is_err());
        assert!(WebUrl::parse("ftp://example.com").is_err());
        assert!(WebUrl::parse("javascript:alert(1)").is_err());
    }
}
