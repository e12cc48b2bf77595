//! Binds an OAuth sign-in to the browser that started it (login CSRF). The `state` that goes to
//! the provider is also set as a short-lived cookie (HttpOnly, SameSite=Lax, path `/api/auth`);
//! the callback is accepted only when the browser brings the same value back.
//!
//! Without it, an attacker could start a sign-in with their own provider account, stop at the
//! callback link, and get a victim's browser to open it: the victim would be signed in to the
//! attacker's account (and might train bots or type secrets into it).
//! Lax, not Strict: the callback is a top-level navigation from the provider's site, which
//! Lax lets through and Strict would not.

use actix_web::http::header::COOKIE;
use actix_web::HttpRequest;
use subtle::ConstantTimeEq;

const NAME: &str = "parley_oauth_state";

/// The `Set-Cookie` value that binds `state` to this browser. `secure` when the public address
/// is https (a browser drops a Secure cookie set over plain http).
pub fn bind(state: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    // As long as the server remembers the started sign-in.
    let max_age = super::oauth::FLOW_TTL.as_secs();
    format!("{NAME}={state}; Path=/api/auth; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
}

/// The `Set-Cookie` value that forgets the binding (a state is used once).
pub fn clear(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{NAME}=; Path=/api/auth; Max-Age=0; HttpOnly; SameSite=Lax{secure}")
}

/// The state this browser started a sign-in with, if any.
fn bound_state(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get_all(COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == NAME)
        .map(|(_, value)| value.to_string())
}

/// True when the browser that opened the callback is the one that started the sign-in with
/// `state`. Compared in constant time: the cookie is a secret of that browser.
pub fn same_browser(req: &HttpRequest, state: &str) -> bool {
    bound_state(req).is_some_and(|bound| !bound.is_empty() && bool::from(bound.as_bytes().ct_eq(state.as_bytes())))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn only_the_browser_holding_the_state_matches() {
        let with = |cookie: &str| TestRequest::default().insert_header((COOKIE, cookie.to_string())).to_http_request();
        assert!(same_browser(&with("a=1; parley_oauth_state=abc; b=2"), "abc"));
        assert!(!same_browser(&with("parley_oauth_state=abd"), "abc"));
        assert!(!same_browser(&with("parley_oauth_state="), ""));
        assert!(!same_browser(&with("other=abc"), "abc"));
        assert!(!same_browser(&TestRequest::default().to_http_request(), "abc"));
    }

    #[test]
    fn the_cookie_is_http_only_lax_and_scoped_to_sign_in() {
        let set = bind("abc", true);
        for part in ["parley_oauth_state=abc", "Path=/api/auth", "Max-Age=600", "HttpOnly", "SameSite=Lax", "Secure"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!bind("abc", false).contains("Secure"));
        assert!(clear(false).contains("Max-Age=0"));
    }
}
