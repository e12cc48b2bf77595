//! Verified identity through real mail on both backends: sign-up verification, resend, an
//! email change that waits for its link, password reset by email, sessions ended by a password
//! change, and mail that survives a mail server being down (or absent).

mod support;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use support::smtp::SmtpServer;
use support::{message, TestApp};

on_both_backends!(
    sign_up_verification_and_resend,
    an_email_change_waits_for_the_new_address,
    password_reset_by_email_ends_every_session,
    a_mail_server_that_is_down_fails_no_request,
    without_a_mail_server_mail_goes_to_files,
);

async fn app_with_mail(backend: parley_store::Backend) -> (TestApp, SmtpServer) {
    let smtp = SmtpServer::start().await;
    let app = TestApp::spawn_with(backend, smtp.route()).await;
    (app, smtp)
}

fn token_in(app: &TestApp, mail: &support::smtp::Received, path: &str) -> String {
    let link = mail.link(&format!("{}{path}?token=", app.base)).unwrap_or_else(|| panic!("no {path} link in {}", mail.text()));
    link.split_once("?token=").unwrap().1.to_string()
}

async fn sign_up_verification_and_resend(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (token, _) = app.signup("ann@shop.example").await;
    let t = Some(token.as_str());
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!(me["user"]["emailVerified"], false);
    let first = smtp.wait_for("ann@shop.example", 1).await;
    assert_eq!(first.subject(), "Verify your email address");
    let first_token = token_in(&app, &first, "/verify-email");

    // Resend right away is refused; the first link still works until a newer one is sent.
    let (status, _) = app.post_json("/api/auth/resend-verification", t, json!({})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, body) = app.post_json("/api/auth/verify-email", None, json!({"token": format!("{first_token}x")})).await;
    assert_eq!((status, message(&body)), (StatusCode::BAD_REQUEST, "This link is invalid or was already used."));
    let (status, body) = app.post_json("/api/auth/verify-email", None, json!({"token": first_token})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Your email address is verified");
    let (status, _) = app.post_json("/api/auth/verify-email", None, json!({"token": first_token})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "single use");
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!(me["user"]["emailVerified"], true);
    let (status, body) = app.post_json("/api/auth/resend-verification", t, json!({})).await;
    assert_eq!((status, message(&body)), (StatusCode::BAD_REQUEST, "Your email address is already verified"));
    let (status, _) = app.post_json("/api/auth/resend-verification", None, json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn an_email_change_waits_for_the_new_address(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (token, _) = app.signup("old@shop.example").await;
    let t = Some(token.as_str());
    let (status, body) = app.put_json("/api/me", t, json!({"email": "new@shop.example", "currentPassword": "password123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["email"], "old@shop.example");
    assert_eq!(body["pendingEmail"], "new@shop.example");
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!((me["user"]["email"].clone(), me["pendingEmail"].clone()), (json!("old@shop.example"), json!("new@shop.example")));
    // Signing in still takes the old address.
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "new@shop.example", "password": "password123"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let mail = smtp.wait_for("new@shop.example", 1).await;
    let (status, body) = app.post_json("/api/auth/verify-email", None, json!({"token": token_in(&app, &mail, "/verify-email")})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["emailChanged"].clone(), body["user"]["email"].clone(), body["user"]["emailVerified"].clone()), (json!(true), json!("new@shop.example"), json!(true)));
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!((me["user"]["email"].clone(), me["pendingEmail"].clone()), (json!("new@shop.example"), Value::Null));
    // The old address hears about it (security alerts are on by default).
    let alert = smtp.wait_for("old@shop.example", 2).await;
    assert_eq!(alert.subject(), "Security alert for your Parley account");
    assert!(alert.text().contains("new@shop.example"));
    // The verification sent to the old address no longer verifies anything.
    let stale = smtp.wait_for("old@shop.example", 1).await;
    let (status, _) = app.post_json("/api/auth/verify-email", None, json!({"token": token_in(&app, &stale, "/verify-email")})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

async fn password_reset_by_email_ends_every_session(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (old_session, _) = app.signup("pat@shop.example").await;
    // Whoever held the account before the reset started moving it to their own address.
    let (status, body) = app.put_json("/api/me", Some(&old_session), json!({"email": "mallory@elsewhere.example", "currentPassword": "password123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let moved = token_in(&app, &smtp.wait_for("mallory@elsewhere.example", 1).await, "/verify-email");
    let (status, body) = app.post_json("/api/auth/forgot-password", None, json!({"email": "nobody@shop.example"})).await;
    assert_eq!(status, StatusCode::OK);
    let same_answer = body["message"].clone();
    let (status, body) = app.post_json("/api/auth/forgot-password", None, json!({"email": "Pat@Shop.example"})).await;
    assert_eq!((status, body["message"].clone()), (StatusCode::OK, same_answer), "the answer does not tell who has an account");
    let mail = smtp.wait_for("pat@shop.example", 2).await;
    assert_eq!(mail.subject(), "Reset your Parley password");
    let reset = token_in(&app, &mail, "/reset-password");

    let (status, body) = app.post_json("/api/auth/reset-password", None, json!({"token": reset, "password": "brand-new-1", "confirmPassword": "other-one-1"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Passwords do not match"));
    let (status, body) = app.post_json("/api/auth/reset-password", None, json!({"token": reset, "password": "brand-new-1", "confirmPassword": "brand-new-1"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = app.post_json("/api/auth/reset-password", None, json!({"token": reset, "password": "again-new-1", "confirmPassword": "again-new-1"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a reset link works once");
    let (status, _) = app.post_json("/api/auth/verify-email", None, json!({"token": moved})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the reset ended the email change started before it");

    let (status, _) = app.get("/api/me", Some(&old_session)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "sessions from before the reset are over");
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": "pat@shop.example", "password": "password123"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = app.post_json("/api/auth/login", None, json!({"email": "pat@shop.example", "password": "brand-new-1"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["user"]["emailVerified"], true, "the reset link proved the mailbox");
    let fresh = body["token"].as_str().unwrap().to_string();
    let (status, _) = app.get("/api/me", Some(&fresh)).await;
    assert_eq!(status, StatusCode::OK);

    // A password change ends the other sessions too, and hands this one a new token.
    let (status, body) = app
        .put_json("/api/me/password", Some(&fresh), json!({"currentPassword": "brand-new-1", "newPassword": "brand-new-2", "confirmPassword": "brand-new-2"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = app.get("/api/me", Some(&fresh)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.get("/api/me", Some(body["token"].as_str().unwrap())).await;
    assert_eq!(status, StatusCode::OK);

    // And ends an email change not yet confirmed.
    let (quinn, _) = app.signup("quinn@shop.example").await;
    let (status, body) = app.put_json("/api/me", Some(&quinn), json!({"email": "quinn@new.example", "currentPassword": "password123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let moved = token_in(&app, &smtp.wait_for("quinn@new.example", 1).await, "/verify-email");
    let change = json!({"currentPassword": "password123", "newPassword": "brand-new-3", "confirmPassword": "brand-new-3"});
    let (status, body) = app.put_json("/api/me/password", Some(&quinn), change).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = body["token"].as_str().unwrap().to_string();
    let (_, me) = app.get("/api/me", Some(&now)).await;
    assert_eq!(me["pendingEmail"], Value::Null);
    let (status, _) = app.post_json("/api/auth/verify-email", None, json!({"token": moved})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, me) = app.get("/api/me", Some(&now)).await;
    assert_eq!(me["user"]["email"], "quinn@shop.example");
}

async fn a_mail_server_that_is_down_fails_no_request(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    smtp.refuse(true);
    let started = std::time::Instant::now();
    let (token, _) = app.signup("down@shop.example").await;
    assert!(started.elapsed() < Duration::from_secs(5), "the request did not wait for the mail server");
    let store = app.db.open().await.unwrap();
    let mut queued = Vec::new();
    for _ in 0..200 {
        queued = store.outbox(10).await.unwrap();
        if queued.first().is_some_and(|m| m.attempts >= 1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(smtp.refused.load(std::sync::atomic::Ordering::SeqCst) > 0, "the sender tried");
    assert_eq!((queued[0].status.as_str(), queued[0].attempts), ("pending", 1), "kept for a retry");
    assert!(queued[0].last_error.as_deref().is_some_and(|e| e.contains("try again later")), "{:?}", queued[0].last_error);
    assert!(smtp.received().is_empty());
    // The server comes back; the retry (5 s later) delivers, and the link works.
    smtp.refuse(false);
    let mail = smtp.wait_for("down@shop.example", 1).await;
    let (status, _) = app.post_json("/api/auth/verify-email", None, json!({"token": token_in(&app, &mail, "/verify-email")})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, me) = app.get("/api/me", Some(&token)).await;
    assert_eq!(me["user"]["emailVerified"], true);
}

async fn without_a_mail_server_mail_goes_to_files(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    app.signup("files@shop.example").await;
    let dir = app.db.data_dir().join("outbox");
    let mut found = None;
    for _ in 0..250 {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            found = entries.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "eml"));
        }
        if found.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let file = found.expect("an .eml file in <data_dir>/outbox");
    let raw = std::fs::read_to_string(file).unwrap();
    assert!(raw.contains("To: files@shop.example"), "{raw}");
    let decoded = support::smtp::qp_decode(&raw);
    assert!(decoded.contains(&format!("{}/verify-email?token=", app.base)), "{decoded}");
}
