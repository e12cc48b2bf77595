//! Accounts over HTTP: sign-up, sign-in, the user's own data, on both backends.

mod support;

use reqwest::StatusCode;
use serde_json::json;
use support::{message, TestApp};

on_both_backends!(
    signup_login_and_me,
    signup_refuses_bad_input_with_the_spec_messages,
    login_says_the_same_for_unknown_email_and_wrong_password,
    requests_without_or_with_a_bad_token_are_401,
    profile_password_avatar_and_notifications,
    health_reports_the_database,
    unknown_api_routes_and_bad_json_use_the_error_shape,
    repeated_failed_sign_ins_lock_the_email_for_a_while_known_or_not,
    sign_in_calls_from_one_address_are_throttled,
    a_nul_character_in_text_is_the_callers_error,
    signing_out_ends_that_session_and_everywhere_ends_them_all,
);

async fn signup_login_and_me(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, body) = app
        .post_json(
            "/api/auth/signup",
            None,
            json!({"email": "Owner@Example.com", "password": "password123", "confirmPassword": "password123", "name": "Olive"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["user"]["email"], "owner@example.com");
    assert_eq!(body["user"]["name"], "Olive");
    assert!(body["user"].get("passwordHash").is_none() && !body.to_string().contains("argon2"));

    let (status, login) = app
        .post_json("/api/auth/login", None, json!({"email": "owner@example.com", "password": "password123"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{login}");
    let token = login["token"].as_str().unwrap();

    let (status, me) = app.get("/api/me", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["user"]["name"], "Olive");
    assert_eq!(me["user"]["timezone"], "UTC-5");
    assert_eq!(me["user"]["language"], "en");
    assert_eq!(me["platform"][0]["remainingCredits"], 100);
    assert_eq!(me["platform"][0]["planType"], "free");
    assert_eq!(me["notifications"]["emailNotifications"], true);
}

async fn signup_refuses_bad_input_with_the_spec_messages(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let cases = [
        (json!({"email": "not-an-email", "password": "password123", "confirmPassword": "password123"}), 422, "Please enter a valid email address"),
        (json!({"email": "a@b.co", "password": "short", "confirmPassword": "short"}), 422, "Password must be at least 8 characters"),
        (json!({"email": "a@b.co", "password": "password123", "confirmPassword": "password124"}), 422, "Passwords do not match"),
        (json!({"password": "password123", "confirmPassword": "password123"}), 422, "Please enter a valid email address"),
    ];
    for (body, status, expected) in cases {
        let (got, res) = app.post_json("/api/auth/signup", None, body.clone()).await;
        assert_eq!(got.as_u16(), status, "{body} -> {res}");
        assert_eq!(message(&res), expected, "{body}");
        assert_eq!(res["error"]["code"], "validation_failed");
    }
    app.signup("taken@b.co").await;
    let (status, res) = app
        .post_json("/api/auth/signup", None, json!({"email": "TAKEN@b.co", "password": "password123", "confirmPassword": "password123"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(message(&res), "An account with this email already exists");
    // Nothing was half-written by the refused sign-ups.
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "a@b.co", "password": "password123"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn login_says_the_same_for_unknown_email_and_wrong_password(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    app.signup("real@b.co").await;
    let (s1, unknown) = app.post_json("/api/auth/login", None, json!({"email": "ghost@b.co", "password": "password123"})).await;
    let (s2, wrong) = app.post_json("/api/auth/login", None, json!({"email": "real@b.co", "password": "wrongpass1"})).await;
    let (s3, garbage) = app.post_json("/api/auth/login", None, json!({"email": "", "password": ""})).await;
    assert_eq!((s1, s2, s3), (StatusCode::UNAUTHORIZED, StatusCode::UNAUTHORIZED, StatusCode::UNAUTHORIZED));
    assert_eq!(unknown, wrong);
    assert_eq!(unknown, garbage);
    assert_eq!(message(&unknown), "Invalid email or password");
}

async fn requests_without_or_with_a_bad_token_are_401(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("t@b.co").await;
    for path in ["/api/me", "/api/bots", "/api/invitations"] {
        let (status, body) = app.get(path, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(body["error"]["code"], "unauthorized");
        let (status, _) = app.get(path, Some("not.a.jwt")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        let forged = format!("{}x", &token[..token.len() - 1]);
        let (status, _) = app.get(path, Some(&forged)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path} with a forged signature");
    }
}

async fn profile_password_avatar_and_notifications(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("p@b.co").await;
    app.signup("other@b.co").await;
    let t = Some(token.as_str());

    let (status, body) = app.put_json("/api/me", t, json!({"name": "Pat", "timezone": "UTC+1", "language": "fr"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["timezone"], "UTC+1");
    let (status, body) = app.put_json("/api/me", t, json!({"email": "other@b.co"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Enter your current password to change your email address"));
    let (status, body) = app.put_json("/api/me", t, json!({"email": "other@b.co", "currentPassword": "password123"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, body) = app.put_json("/api/me", t, json!({"email": "nope"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please enter a valid email address"));
    let (status, _) = app.put_json("/api/me", t, json!({"timezone": "Mars/Olympus Mons!"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    let (status, body) = app
        .put_json("/api/me/password", t, json!({"currentPassword": "wrong-one", "newPassword": "newpassword1", "confirmPassword": "newpassword1"}))
        .await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Current password is incorrect"));
    let (status, body) = app
        .put_json("/api/me/password", t, json!({"currentPassword": "password123", "newPassword": "newpassword1", "confirmPassword": "mismatch11"}))
        .await;
    assert_eq!(message(&body), "Passwords do not match", "{status}");
    let (status, body) = app
        .put_json("/api/me/password", t, json!({"currentPassword": "password123", "newPassword": "newpassword1", "confirmPassword": "newpassword1"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The old session ends; the fresh token returned goes on.
    let (status, _) = app.get("/api/me", t).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a session from before the password change is refused");
    let token = body["token"].as_str().unwrap().to_string();
    let t = Some(token.as_str());
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "p@b.co", "password": "newpassword1"})).await;
    assert_eq!(status, StatusCode::OK);

    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let form = reqwest::multipart::Form::new().part("avatar", reqwest::multipart::Part::bytes(png.clone()).file_name("me.png"));
    let (status, body) = app.post_form("/api/me/avatar", &token, form).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let url = body["profilePicture"].as_str().unwrap().to_string();
    let served = app.client.get(app.url(&url)).send().await.unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(served.bytes().await.unwrap().to_vec(), png);
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!(me["user"]["profilePicture"], url.as_str());
    let form = reqwest::multipart::Form::new().part("avatar", reqwest::multipart::Part::bytes(b"<svg/>".to_vec()).file_name("x.svg"));
    let (status, body) = app.post_form("/api/me/avatar", &token, form).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please upload an image file"));
    let big = vec![0u8; app.settings.auth.max_avatar_bytes + 1];
    let form = reqwest::multipart::Form::new().part("avatar", reqwest::multipart::Part::bytes(big).file_name("big.png"));
    let (status, _) = app.post_form("/api/me/avatar", &token, form).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);

    let (status, body) = app.put_json("/api/me/notifications", t, json!({"weeklyReports": true, "pushNotifications": false})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!(me["notifications"], json!({"emailNotifications": true, "pushNotifications": false, "weeklyReports": true, "securityAlerts": true}));
    let (status, _) = app.put_json("/api/me/notifications", t, json!({"weeklyReports": "yes"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

async fn health_reports_the_database(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, body) = app.get("/api/health", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"status": "ok", "database": "ok"}));
}

async fn unknown_api_routes_and_bad_json_use_the_error_shape(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, body) = app.get("/api/nothing-here", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "not_found");
    let res = app
        .client
        .post(app.url("/api/auth/login"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (status, body) = support::read(res).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], "bad_request");
    let huge = "x".repeat(2 * 1024 * 1024);
    let (status, body) = app.post_json("/api/auth/login", None, json!({"email": huge, "password": "p"})).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
}

/// Hardening finding 3: guessing passwords is slowed down per email address, the same for an
/// address with an account and one without, and a success starts the count again.
async fn repeated_failed_sign_ins_lock_the_email_for_a_while_known_or_not(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.auth.lockout_after_failures = 3;
        s.auth.lockout_secs = 1;
        s.auth.lockout_max_secs = 4;
    })
    .await;
    app.signup("real@b.co").await;
    let login = |email: &'static str, password: &'static str| {
        let app = &app;
        async move { app.post_json("/api/auth/login", None, json!({"email": email, "password": password})).await }
    };
    let (status, _) = login("real@b.co", "wrongpass1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = login("real@b.co", "password123").await;
    assert_eq!(status, StatusCode::OK, "a success resets the count");
    for email in ["real@b.co", "ghost@b.co"] {
        for _ in 0..3 {
            let (status, _) = login(email, "wrongpass1").await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{email}");
        }
    }
    let (s1, real) = login("REAL@b.co", "password123").await;
    let (s2, ghost) = login("ghost@b.co", "password123").await;
    assert_eq!((s1, s2), (StatusCode::TOO_MANY_REQUESTS, StatusCode::TOO_MANY_REQUESTS), "{real} {ghost}");
    assert_eq!(real, ghost, "the lockout does not tell who has an account");
    assert!(message(&real).starts_with("Too many failed sign-in attempts for this email"), "{real}");
    let res = app.client.post(app.url("/api/auth/login")).json(&json!({"email": "real@b.co", "password": "x"})).send().await.unwrap();
    assert!(res.headers().get("retry-after").is_some());
    let (status, _) = login("other@b.co", "wrongpass1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "other addresses go on as before");

    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, body) = login("real@b.co", "password123").await;
    assert_eq!(status, StatusCode::OK, "the lock is short: {body}");
    // The next failure after a lock locks again at once, for longer (backoff).
    for _ in 0..3 {
        login("real@b.co", "wrongpass1").await;
    }
    let (status, _) = login("real@b.co", "wrongpass1").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, _) = login("real@b.co", "wrongpass1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = login("real@b.co", "password123").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "4 failures in a row lock for 2 s: {body}");
}

/// Hardening finding 3: one address cannot hammer sign-up, sign-in or the OAuth callback.
async fn sign_in_calls_from_one_address_are_throttled(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.auth.ip_attempts_per_minute = 1.0;
        s.auth.ip_burst = 4.0;
    })
    .await;
    let (token, _) = app.signup("a@b.co").await;
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "a@b.co", "password": "password123"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "a@b.co", "password": "wrongpass1"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.get("/api/auth/google/callback?code=x&state=y", None).await;
    assert_ne!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, body) = app
        .post_json("/api/auth/signup", None, json!({"email": "b@b.co", "password": "password123", "confirmPassword": "password123"}))
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(message(&body), "Too many attempts from your network. Please wait a minute and try again.");
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "a@b.co", "password": "password123"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, _) = app.get("/api/auth/github/callback?code=x&state=y", None).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // Signed-in work is not part of this budget.
    let (status, _) = app.get("/api/me", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
}

/// Found by the API contract run, on PostgreSQL (which takes no NUL in text; SQLite stores it):
/// a NUL in any string of a body was a 500. It is the caller's error, on both backends.
async fn a_nul_character_in_text_is_the_callers_error(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, body) = app
        .post_json("/api/auth/signup", None, json!({"email": "nul@x.co", "password": "password123", "confirmPassword": "password123", "name": "a\u{0}b"}))
        .await;
    assert!(status.is_client_error() || status.is_success(), "{status} {body}");
    let (status, body) = app.post_json("/api/auth/login", None, json!({"email": "nul\u{0}@x.co", "password": "password123"})).await;
    assert!(status.is_client_error(), "{status} {body}");
}

async fn signing_out_ends_that_session_and_everywhere_ends_them_all(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (laptop, _) = app.signup("sam@shop.example").await;
    let login = || app.post_json("/api/auth/login", None, json!({"email": "sam@shop.example", "password": "password123"}));
    let (_, body) = login().await;
    let phone = body["token"].as_str().unwrap().to_string();
    let (_, body) = login().await;
    let tablet = body["token"].as_str().unwrap().to_string();
    let mut laptop_live = support::sio::SioClient::connect(&app, json!({"token": laptop})).await;
    let mut phone_live = support::sio::SioClient::connect(&app, json!({"token": phone})).await;

    // Without a valid token there is nothing to sign out of.
    let (status, _) = app.post_json("/api/auth/logout", None, json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (status, body) = app.post_json("/api/auth/logout", Some(&laptop), json!({})).await;
    assert_eq!((status, message_or_text(&body)), (StatusCode::OK, "You are signed out".to_string()));
    // The token is refused from now on (a copy of it too), on REST and on the live channel...
    let (status, _) = app.get("/api/me", Some(&laptop)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.post_json("/api/auth/logout", Some(&laptop), json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    laptop_live.wait_closed().await;
    // ...and the account's other sessions are untouched.
    let (status, _) = app.get("/api/me", Some(&phone)).await;
    assert_eq!(status, StatusCode::OK);
    let ack = phone_live.emit_with_ack("join-as-agent", json!({"botId": "none"})).await;
    assert!(ack.is_object(), "the phone's socket still answers: {ack}");

    // Everywhere: every session ends, live connections close, and signing in again works.
    let (status, body) = app.post_json("/api/auth/logout-everywhere", Some(&tablet), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for token in [&phone, &tablet] {
        let (status, _) = app.get("/api/me", Some(token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    phone_live.wait_closed().await;
    let (status, body) = login().await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.get("/api/me", Some(body["token"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);
}

fn message_or_text(body: &serde_json::Value) -> String {
    body["message"].as_str().map(str::to_string).unwrap_or_else(|| body.to_string())
}
