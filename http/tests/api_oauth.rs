//! Google and GitHub sign-in against a local provider that speaks the authorization-code
//! grant with PKCE (the production code path, with endpoints from config).

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::Engine as _;
use reqwest::StatusCode;
use serde_json::json;
use sha2::{Digest, Sha256};
use support::{message, TestApp};

on_both_backends!(
    github_sign_in_creates_then_reuses_the_account,
    google_sign_in_links_an_existing_email,
    sign_in_refuses_forged_state_and_unconfigured_providers,
    an_account_without_a_password_confirms_an_email_change_through_its_provider,
    a_callback_opened_in_another_browser_signs_nobody_in,
    two_factor_after_a_provider_sign_in_asks_for_the_code,
    an_unconfigured_provider_sends_a_browser_back_to_sign_in,
    the_providers_call_names_the_configured_ones,
);

#[derive(Default)]
struct Provider {
    /// code -> PKCE challenge it was issued for.
    codes: Mutex<HashMap<String, String>>,
}

async fn authorize(p: web::Data<Provider>, q: web::Query<HashMap<String, String>>) -> HttpResponse {
    assert_eq!(q.get("code_challenge_method").map(String::as_str), Some("S256"));
    assert_eq!(q.get("response_type").map(String::as_str), Some("code"));
    let code = format!("code-{}", p.codes.lock().unwrap().len());
    p.codes.lock().unwrap().insert(code.clone(), q["code_challenge"].clone());
    let target = format!("{}?code={code}&state={}", q["redirect_uri"], q["state"]);
    HttpResponse::Found().insert_header(("Location", target)).finish()
}

async fn token(p: web::Data<Provider>, form: web::Form<HashMap<String, String>>) -> HttpResponse {
    let challenge = p.codes.lock().unwrap().remove(&form["code"]);
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    if challenge.as_deref() != Some(computed.as_str()) {
        return HttpResponse::BadRequest().json(json!({"error": "invalid_grant"}));
    }
    HttpResponse::Ok().json(json!({"access_token": "token-abc", "token_type": "bearer"}))
}

fn authorized(req: &HttpRequest) -> bool {
    req.headers().get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer token-abc")
}

async fn github_user(req: HttpRequest) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    HttpResponse::Ok().json(json!({"id": 583231, "login": "octocat", "name": null, "email": null, "avatar_url": "https://avatars.example/octo.png"}))
}

async fn github_emails(req: HttpRequest) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    HttpResponse::Ok().json(json!([
        {"email": "octo@old.example", "primary": false, "verified": true},
        {"email": "Octo@GitHub.example", "primary": true, "verified": true}
    ]))
}

async fn google_user(req: HttpRequest) -> HttpResponse {
    if !authorized(&req) {
        return HttpResponse::Unauthorized().finish();
    }
    HttpResponse::Ok().json(json!({"sub": "g-77", "email": "member@shop.example", "email_verified": true, "name": "Member", "picture": null}))
}

/// Starts the stand-in provider; returns its base URL.
fn start_provider() -> String {
    let provider = web::Data::from(Arc::new(Provider::default()));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(provider.clone())
            .route("/authorize", web::get().to(authorize))
            .route("/token", web::post().to(token))
            .route("/user", web::get().to(github_user))
            .route("/user/emails", web::get().to(github_emails))
            .route("/userinfo", web::get().to(google_user))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let addr = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    format!("http://{addr}")
}

async fn spawn_with_provider(backend: parley_store::Backend) -> TestApp {
    spawn_with_provider_and(backend, |_| {}).await
}

async fn spawn_with_provider_and(backend: parley_store::Backend, tweak: impl FnOnce(&mut parley_config::Settings)) -> TestApp {
    let provider = start_provider();
    TestApp::spawn_with(backend, |s| {
        tweak(s);
        for (p, userinfo) in [(&mut s.oauth.github, "/user"), (&mut s.oauth.google, "/userinfo")] {
            p.client_id = "client-1".into();
            p.client_secret = "secret-1".into();
            p.auth_url = format!("{provider}/authorize");
            p.token_url = format!("{provider}/token");
            p.userinfo_url = format!("{provider}{userinfo}");
        }
    })
    .await
}

/// A browser: keeps its cookies, follows no redirect by itself.
fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).cookie_store(true).build().unwrap()
}

/// Follows the browser's path Parley → provider, and returns the link back to Parley's
/// callback (with the provider's code and the flow's state).
async fn callback_link(app: &TestApp, browser: &reqwest::Client, provider: &str) -> String {
    let start = browser.get(app.url(&format!("/api/auth/{provider}"))).send().await.unwrap();
    assert_eq!(start.status(), StatusCode::FOUND);
    let to_provider = start.headers()["location"].to_str().unwrap().to_string();
    let at_provider = browser.get(&to_provider).send().await.unwrap();
    assert_eq!(at_provider.status(), StatusCode::FOUND);
    let callback = at_provider.headers()["location"].to_str().unwrap().to_string();
    // The public base URL is http://127.0.0.1:0 in tests; reach the real port.
    callback.replacen(&app.settings.public_base_url(), &app.base, 1)
}

/// A whole sign-in in one browser. Returns the callback's redirect target.
async fn sign_in(app: &TestApp, provider: &str) -> String {
    let browser = browser();
    let callback = callback_link(app, &browser, provider).await;
    let done = browser.get(&callback).send().await.unwrap();
    assert_eq!(done.status(), StatusCode::FOUND, "{}", done.text().await.unwrap_or_default());
    done.headers()["location"].to_str().unwrap().to_string()
}

/// The session token, from the fragment of `/auth-success` (never its query: a query is sent
/// to servers and written in their access logs).
fn token_of(target: &str) -> String {
    target.strip_prefix("/auth-success#token=").unwrap_or_else(|| panic!("unexpected redirect {target}")).to_string()
}

async fn github_sign_in_creates_then_reuses_the_account(backend: parley_store::Backend) {
    let app = spawn_with_provider(backend).await;
    let token = token_of(&sign_in(&app, "github").await);
    let (status, me) = app.get("/api/me", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["user"]["email"], "octo@github.example", "the primary verified email");
    assert_eq!(me["user"]["name"], "octocat");
    assert_eq!(me["user"]["hasPassword"], false);
    let again = token_of(&sign_in(&app, "github").await);
    let (_, me_again) = app.get("/api/me", Some(&again)).await;
    assert_eq!(me_again["user"]["_id"], me["user"]["_id"]);
    // An OAuth account may set a password without knowing one.
    let (status, body) = app
        .put_json("/api/me/password", Some(&token), json!({"newPassword": "password123", "confirmPassword": "password123"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(me["user"]["emailVerified"], true, "the provider vouched for the address");
}

async fn google_sign_in_links_an_existing_email(backend: parley_store::Backend) {
    let app = spawn_with_provider(backend).await;
    let (_, user_id) = app.signup("member@shop.example").await;
    // Unverified: someone else may have registered the address (pre-account takeover), so the
    // sign-in is refused and says what to do.
    let refused = sign_in(&app, "google").await;
    assert!(refused.starts_with("/login?error="), "{refused}");
    let said = url::form_urlencoded::parse(refused.trim_start_matches("/login?").as_bytes())
        .find(|(k, _)| k == "error")
        .map(|(_, v)| v.into_owned())
        .unwrap();
    assert!(said.contains("not verified") && said.contains("Forgot password?"), "{said}");
    let store = app.db.open().await.unwrap();
    store.mark_email_verified(&user_id).await.unwrap();
    let token = token_of(&sign_in(&app, "google").await);
    let (_, me) = app.get("/api/me", Some(&token)).await;
    assert_eq!(me["user"]["_id"], user_id.as_str());
}

async fn sign_in_refuses_forged_state_and_unconfigured_providers(backend: parley_store::Backend) {
    let app = spawn_with_provider(backend).await;
    let (status, body) = app.get("/api/auth/github/callback?code=code-0&state=forged", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(message(&body), "This sign-in link has expired or was already used. Please try again.");
    let (status, _) = app.get("/api/auth/myspace", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let bare = TestApp::spawn(backend).await;
    let (status, body) = bare.get("/api/auth/google", None).await;
    assert_eq!((status, message(&body)), (StatusCode::SERVICE_UNAVAILABLE, "Google sign-in is not configured"));
    let (status, body) = bare.get("/api/auth/github", None).await;
    assert_eq!((status, message(&body)), (StatusCode::SERVICE_UNAVAILABLE, "GitHub sign-in is not configured"));
}

/// What a redirect to `/login?error=...` says.
fn login_error(target: &str) -> String {
    let query = target.strip_prefix("/login?").unwrap_or_else(|| panic!("not to /login: {target}"));
    url::form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == "error").map(|(_, v)| v.into_owned()).unwrap()
}

async fn an_unconfigured_provider_sends_a_browser_back_to_sign_in(backend: parley_store::Backend) {
    let bare = TestApp::spawn(backend).await;
    // What Chromium sends when a button navigates the page.
    let page = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
    for (slug, label) in [("google", "Google"), ("github", "GitHub")] {
        let opened = browser().get(bare.url(&format!("/api/auth/{slug}"))).header("accept", page).send().await.unwrap();
        assert_eq!(opened.status(), StatusCode::FOUND);
        let target = opened.headers()["location"].to_str().unwrap();
        assert_eq!(login_error(target), format!("{label} sign-in is not configured"));
        assert!(opened.headers().get("set-cookie").is_none(), "no sign-in was started");

        // A script asking for JSON still hears the 503.
        let called = browser().get(bare.url(&format!("/api/auth/{slug}"))).header("accept", "application/json").send().await.unwrap();
        let (status, body) = support::read(called).await;
        assert_eq!((status, message(&body)), (StatusCode::SERVICE_UNAVAILABLE, format!("{label} sign-in is not configured").as_str()));
    }
    // A configured provider still sends the browser on to itself.
    let app = spawn_with_provider(backend).await;
    let opened = browser().get(app.url("/api/auth/github")).header("accept", page).send().await.unwrap();
    assert_eq!(opened.status(), StatusCode::FOUND);
    assert!(opened.headers()["location"].to_str().unwrap().contains("/authorize?"));
}

async fn the_providers_call_names_the_configured_ones(backend: parley_store::Backend) {
    let bare = TestApp::spawn(backend).await;
    let (status, body) = bare.get("/api/auth/providers", None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"google": false, "github": false})));
    let github_only = TestApp::spawn_with(backend, |s| {
        s.oauth.github.client_id = "client-1".into();
        s.oauth.github.client_secret = "secret-1".into();
    })
    .await;
    let (status, body) = github_only.get("/api/auth/providers", None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"google": false, "github": true})));
}

/// A session of `user_id` signed with the server's secret, as the server would issue it, with
/// the given age and provider.
fn forged_session(app: &TestApp, user_id: &str, age_secs: i64, via: Option<&str>) -> String {
    let secret = parley_config::ensure_jwt_secret(&app.settings).unwrap();
    let iat = chrono::Utc::now().timestamp() - age_secs;
    let claims = parley_http::auth::tokens::Claims {
        sub: user_id.to_string(),
        kind: "user".into(),
        iat,
        exp: iat + 3600 * 24,
        bot: None,
        ver: 0,
        via: via.map(str::to_string),
        sid: None,
    };
    jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes())).unwrap()
}

async fn an_account_without_a_password_confirms_an_email_change_through_its_provider(backend: parley_store::Backend) {
    let smtp = support::smtp::SmtpServer::start().await;
    let app = spawn_with_provider_and(backend, smtp.route()).await;
    let fresh = token_of(&sign_in(&app, "github").await);
    let (_, me) = app.get("/api/me", Some(&fresh)).await;
    let user_id = me["user"]["_id"].as_str().unwrap().to_string();
    assert_eq!(me["user"]["hasPassword"], false);
    let change = json!({"email": "octo@new.example"});

    // A session that did not come from a provider sign-in, or came from one too long ago, may
    // not move the account to another address; nothing is staged or mailed.
    let refused = "Your account has no password, so confirm it is you by signing in again with Google or GitHub. \
                   Then change your email address within 10 minutes.";
    for stale in [forged_session(&app, &user_id, 0, None), forged_session(&app, &user_id, 11 * 60, Some("github"))] {
        let (_, ok) = app.get("/api/me", Some(&stale)).await;
        assert_eq!(ok["user"]["_id"], user_id.as_str(), "the forged session is otherwise valid");
        let (status, body) = app.put_json("/api/me", Some(&stale), change.clone()).await;
        assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, refused));
        assert_eq!(body["error"]["code"], "provider_confirmation_required");
    }
    let (_, me) = app.get("/api/me", Some(&fresh)).await;
    assert_eq!(me["pendingEmail"], serde_json::Value::Null);
    assert!(smtp.to("octo@new.example").is_empty());
    // Nor set a first password (with which it could then move the address).
    let stale = forged_session(&app, &user_id, 11 * 60, Some("github"));
    let set = json!({"newPassword": "password123", "confirmPassword": "password123"});
    let (status, body) = app.put_json("/api/me/password", Some(&stale), set).await;
    assert_eq!(
        (status, message(&body)),
        (
            StatusCode::FORBIDDEN,
            "Your account has no password, so confirm it is you by signing in again with Google or GitHub. Then set your password within 10 minutes."
        )
    );
    let (_, me) = app.get("/api/me", Some(&fresh)).await;
    assert_eq!(me["user"]["hasPassword"], false);

    // Just signed in through GitHub: the change is staged and waits for the new address.
    let (status, body) = app.put_json("/api/me", Some(&fresh), change.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["user"]["email"].clone(), body["pendingEmail"].clone()), (json!("octo@github.example"), json!("octo@new.example")));
    let mail = smtp.wait_for("octo@new.example", 1).await;
    let link = mail.link(&format!("{}/verify-email?token=", app.base)).expect("confirmation link");
    let token = link.split_once("?token=").unwrap().1;
    let (status, body) = app.post_json("/api/auth/verify-email", None, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, me) = app.get("/api/me", Some(&fresh)).await;
    assert_eq!(me["user"]["email"], "octo@new.example");
    // The provider still signs in to the same account (linked by its subject, not the email).
    let again = token_of(&sign_in(&app, "github").await);
    let (_, me_again) = app.get("/api/me", Some(&again)).await;
    assert_eq!(me_again["user"]["_id"], user_id.as_str());
}

/// Hardening finding 6 (login CSRF): a callback link is only good in the browser that started
/// the sign-in. Finding 5: the token comes back in the fragment, and the flow cookie is cleared.
async fn a_callback_opened_in_another_browser_signs_nobody_in(backend: parley_store::Backend) {
    let app = spawn_with_provider(backend).await;
    let attacker = browser();
    let start = attacker.get(app.url("/api/auth/github")).send().await.unwrap();
    let cookie = start.headers()["set-cookie"].to_str().unwrap().to_string();
    for part in ["parley_oauth_state=", "HttpOnly", "SameSite=Lax", "Path=/api/auth", "Max-Age=600"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let link = callback_link(&app, &attacker, "github").await;

    // The victim's browser opens the attacker's link: with no flow cookie, then with its own
    // flow's cookie. Both refused, and nobody is signed in.
    let victim = browser();
    for _ in 0..2 {
        let refused = victim.get(&link).send().await.unwrap();
        assert!(refused.headers().get("location").is_none());
        let (status, body) = support::read(refused).await;
        assert_eq!((status, message(&body)), (StatusCode::BAD_REQUEST, "This sign-in link has expired or was already used. Please try again."));
        let own = victim.get(app.url("/api/auth/github")).send().await.unwrap();
        assert_eq!(own.status(), StatusCode::FOUND);
    }
    let store = app.db.open().await.unwrap();
    assert!(store.user_by_email("octo@github.example").await.unwrap().is_none(), "no account was made");

    // In the browser that started it, the link works (the refusals did not use it up).
    let done = attacker.get(&link).send().await.unwrap();
    assert_eq!(done.status(), StatusCode::FOUND);
    let target = done.headers()["location"].to_str().unwrap().to_string();
    assert!(!target.contains('?'), "no token in a query string: {target}");
    let (status, _) = app.get("/api/me", Some(&token_of(&target))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(done.headers()["set-cookie"].to_str().unwrap().contains("Max-Age=0"), "the flow cookie is cleared");
    let again = attacker.get(&link).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::BAD_REQUEST, "a link works once");
}

async fn two_factor_after_a_provider_sign_in_asks_for_the_code(backend: parley_store::Backend) {
    use parley_http::auth::totp;
    let app = spawn_with_provider(backend).await;
    // No password on this account: the fresh GitHub sign-in is what confirms it is theirs.
    let token = token_of(&sign_in(&app, "github").await);
    let (status, setup) = app.post_json("/api/me/two-factor/setup", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{setup}");
    let secret = setup["secret"].as_str().unwrap();
    let step = totp::step_at(chrono::Utc::now().timestamp());
    let (status, on) = app.post_json("/api/me/two-factor/enable", Some(&token), json!({"code": totp::code(secret, step).unwrap()})).await;
    assert_eq!(status, StatusCode::OK, "{on}");

    // The provider's sign-in is the first factor only: the sign-in screen asks for the code,
    // the challenge in the fragment (never in a query a server logs).
    let target = sign_in(&app, "github").await;
    let challenge = target.strip_prefix("/login#twoFactor=").unwrap_or_else(|| panic!("unexpected redirect {target}"));
    assert!(!target.contains("token="), "{target}");
    let (status, signed) = app
        .post_json("/api/auth/two-factor", None, json!({"challenge": challenge, "code": totp::code(secret, step + 1).unwrap()}))
        .await;
    assert_eq!(status, StatusCode::OK, "{signed}");
    let session = signed["token"].as_str().unwrap();
    let (_, me) = app.get("/api/me", Some(session)).await;
    assert_eq!(me["user"]["email"], "octo@github.example");
    // It counts as a fresh GitHub sign-in, so it may turn two-factor off again with a code.
    let recovery = on["recoveryCodes"][0].as_str().unwrap();
    let (status, off) = app.post_json("/api/me/two-factor/disable", Some(session), json!({"code": recovery})).await;
    assert_eq!(status, StatusCode::OK, "{off}");
}
