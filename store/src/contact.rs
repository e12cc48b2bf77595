//! What a way to reach someone must look like, wherever it is typed: a member's email, a
//! visitor's in the handoff form, a bot's support address, an avatar's web address.

/// The longest email address (RFC 5321's path limit, less its brackets).
pub const EMAIL_CHARS: usize = 254;

/// What a malformed email is refused with (the spec's forms use email-typed inputs).
pub const INVALID_EMAIL: &str = "Please enter a valid email address";

/// One `@`, something before it, a dotted domain after it, no spaces. Trim and lower-case first.
pub fn plausible_email(email: &str) -> bool {
    email.len() <= EMAIL_CHARS
        && !email.chars().any(char::is_whitespace)
        && match email.split_once('@') {
            Some((local, domain)) => !local.is_empty() && !domain.contains('@') && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.'),
            None => false,
        }
}

/// A picture's address a visitor's browser may load: a web address (`http` or `https` with a
/// host), a path on this server, or a small picture written inline (`data:image/…`; an image
/// runs no script). Anything else (`javascript:`, other `data:`, a bare word) is not.
pub fn picture_address(address: &str) -> bool {
    let lower = address.to_ascii_lowercase();
    if lower.starts_with("data:image/") {
        return true;
    }
    let web = ["https://", "http://"].iter().find_map(|scheme| lower.strip_prefix(scheme));
    match web {
        Some(rest) => rest.split(['/', '?', '#']).next().is_some_and(|host| !host.is_empty()) && !address.chars().any(char::is_whitespace),
        None => address.starts_with('/') && !address.starts_with("//") && !address.chars().any(char::is_whitespace),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_of_plausible_shape() {
        for good in ["ann@example.com", "a.b+c@mail.example.co.uk"] {
            assert!(plausible_email(good), "{good}");
        }
        for bad in ["", "not-an-email", "ann@localhost", "ann @x.co", "@x.co", "ann@x.co@y.co", "ann@.co", "ann@x."] {
            assert!(!plausible_email(bad), "{bad}");
        }
    }

    #[test]
    fn pictures_from_the_web_or_this_server_only() {
        for good in ["https://cdn.example.com/a.png", "HTTP://example.com", "/api/uploads/icon.png", "data:image/svg+xml,%3Csvg/%3E"] {
            assert!(picture_address(good), "{good}");
        }
        for bad in ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "//evil.example/a.png", "https:///a.png", "avatar.png", "https://a b.example/x.png"] {
            assert!(!picture_address(bad), "{bad}");
        }
    }
}
