//! Two-factor sign-in with an authenticator app, over HTTP on both backends: set-up, turning it
//! on and off, the code step after the password, codes and recovery codes that work once.

mod support;

use parley_http::auth::totp;
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::{message, TestApp};

on_both_backends!(
    turning_two_factor_on_makes_sign_in_ask_for_a_code,
    codes_and_recovery_codes_work_once_and_challenges_expire_with_the_password,
    turning_two_factor_off_needs_a_code_and_the_password,
    wrong_codes_lock_the_email_even_with_the_right_password_between_them,
);

const PASSWORD: &str = "password123";

fn now_step() -> i64 {
    totp::step_at(chrono::Utc::now().timestamp())
}

fn code_at(secret: &str, step: i64) -> String {
    totp::code(secret, step).expect("base32 secret")
}

/// Signs up `email` and turns two-factor sign-in on with the code of the current step. Returns
/// the session token, the secret, the step used and the recovery codes.
async fn with_two_factor(app: &TestApp, email: &str) -> (String, String, i64, Vec<String>) {
    let (token, _) = app.signup(email).await;
    let (status, setup) = app.post_json("/api/me/two-factor/setup", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{setup}");
    let secret = setup["secret"].as_str().unwrap().to_string();
    let step = now_step();
    let (status, on) = app
        .post_json("/api/me/two-factor/enable", Some(&token), json!({"code": code_at(&secret, step), "currentPassword": PASSWORD}))
        .await;
    assert_eq!(status, StatusCode::OK, "{on}");
    let codes = on["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    (token, secret, step, codes)
}

async fn password_step(app: &TestApp, email: &str) -> Value {
    let (status, body) = app.post_json("/api/auth/login", None, json!({"email": email, "password": PASSWORD})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn code_step(app: &TestApp, challenge: &str, code: &str) -> (StatusCode, Value) {
    app.post_json("/api/auth/two-factor", None, json!({"challenge": challenge, "code": code})).await
}

async fn turning_two_factor_on_makes_sign_in_ask_for_a_code(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("ann@shop.example").await;
    let (status, off) = app.get("/api/me/two-factor", Some(&token)).await;
    assert_eq!((status, off["enabled"].clone()), (StatusCode::OK, json!(false)), "{off}");

    let (status, body) = app.post_json("/api/me/two-factor/enable", Some(&token), json!({"code": "123456", "currentPassword": PASSWORD})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(message(&body), "Start setting up two-factor authentication first");

    let (status, setup) = app.post_json("/api/me/two-factor/setup", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{setup}");
    let secret = setup["secret"].as_str().unwrap();
    assert!(setup["otpauthUrl"].as_str().unwrap().starts_with("otpauth://totp/Parley:ann%40shop.example?secret="));
    assert!(setup["otpauthUrl"].as_str().unwrap().contains(secret));
    assert!(setup["qrSvg"].as_str().unwrap().contains("<svg"));
    // Stored sealed, not as the app has it.
    let me_id = app.get("/api/me", Some(&token)).await.1["user"]["_id"].as_str().unwrap().to_string();
    let stored = app.db.open().await.unwrap().two_factor(&me_id).await.unwrap().unwrap();
    assert!(stored.secret.starts_with("v1.") && !stored.secret.contains(secret), "{}", stored.secret);

    // Refused, each with its reason, and sign-in still asks for nothing more.
    let wrong = if code_at(secret, now_step()) == "000000" { "111111" } else { "000000" };
    for (body, expected) in [
        (json!({"code": wrong, "currentPassword": PASSWORD}), "That code is not right. Check that your phone's clock is set automatically and enter the code your app shows now."),
        (json!({"code": code_at(secret, now_step())}), "Enter your current password to turn on two-factor authentication"),
        (json!({"code": code_at(secret, now_step()), "currentPassword": "wrong-password"}), "Current password is incorrect"),
        (json!({"currentPassword": PASSWORD}), "Enter the 6-digit code from your authenticator app"),
    ] {
        let (status, res) = app.post_json("/api/me/two-factor/enable", Some(&token), body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body} -> {res}");
        assert_eq!(message(&res), expected, "{body}");
    }
    assert!(password_step(&app, "ann@shop.example").await["token"].is_string());

    let (status, on) = app
        .post_json("/api/me/two-factor/enable", Some(&token), json!({"code": code_at(secret, now_step()), "currentPassword": PASSWORD}))
        .await;
    assert_eq!(status, StatusCode::OK, "{on}");
    let codes = on["recoveryCodes"].as_array().unwrap();
    assert_eq!(codes.len(), 10);
    let (_, me) = app.get("/api/me", Some(&token)).await;
    assert_eq!(me["user"]["twoFactorEnabled"], true);
    let (_, status_now) = app.get("/api/me/two-factor", Some(&token)).await;
    assert_eq!((status_now["enabled"].clone(), status_now["recoveryCodesLeft"].clone()), (json!(true), json!(10)));
    let (status, again) = app.post_json("/api/me/two-factor/setup", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    // The session that turned it on goes on working.
    assert_eq!(app.get("/api/me", Some(&token)).await.0, StatusCode::OK);

    let first = password_step(&app, "ann@shop.example").await;
    assert_eq!(first["twoFactorRequired"], true);
    assert!(first.get("token").is_none(), "no session before the code: {first}");
    assert_eq!(first["message"], "Enter the 6-digit code from your authenticator app");
    let challenge = first["challenge"].as_str().unwrap();
    // The challenge is no session.
    assert_eq!(app.get("/api/me", Some(challenge)).await.0, StatusCode::UNAUTHORIZED);
    // A wrong password still says only that.
    let (status, res) = app.post_json("/api/auth/login", None, json!({"email": "ann@shop.example", "password": "nope-nope"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(res.get("challenge").is_none());
}

async fn codes_and_recovery_codes_work_once_and_challenges_expire_with_the_password(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, secret, step, recovery) = with_two_factor(&app, "bo@shop.example").await;
    let challenge = password_step(&app, "bo@shop.example").await["challenge"].as_str().unwrap().to_string();

    let (status, res) = code_step(&app, &challenge, &code_at(&secret, step)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the code that turned it on was used: {res}");
    assert_eq!(message(&res), "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.");
    let (status, res) = code_step(&app, &challenge, &code_at(&secret, step + 5)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a code of later on: {res}");

    let next = code_at(&secret, step + 1);
    let (status, signed) = code_step(&app, &challenge, &next).await;
    assert_eq!(status, StatusCode::OK, "{signed}");
    let session = signed["token"].as_str().unwrap();
    let (_, me) = app.get("/api/me", Some(session)).await;
    assert_eq!(me["user"]["email"], "bo@shop.example");
    let (status, _) = code_step(&app, &challenge, &next).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a code works once");

    // A recovery code, typed loosely, once.
    let loose = recovery[0].to_uppercase().replace('-', " ");
    let (status, signed) = code_step(&app, &challenge, &loose).await;
    assert_eq!(status, StatusCode::OK, "{signed}");
    let (status, _) = code_step(&app, &challenge, &recovery[0]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a recovery code works once");
    let (_, left) = app.get("/api/me/two-factor", Some(&token)).await;
    assert_eq!(left["recoveryCodesLeft"], 9);

    for forged in ["", "not-a-token", token.as_str()] {
        let (status, res) = code_step(&app, forged, &recovery[1]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{forged}: {res}");
        assert_eq!(message(&res), "This sign-in has expired. Please sign in again.");
    }
    // A password change ends the challenges issued before it, like the sessions.
    let (status, changed) = app
        .put_json(
            "/api/me/password",
            Some(&token),
            json!({"currentPassword": PASSWORD, "newPassword": "password456", "confirmPassword": "password456"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let (status, res) = code_step(&app, &challenge, &recovery[1]).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(message(&res), "This sign-in has expired. Please sign in again.");
    let (_, left) = app.get("/api/me/two-factor", Some(changed["token"].as_str().unwrap())).await;
    assert_eq!(left["recoveryCodesLeft"], 9, "the refused challenge used no code");
}

async fn turning_two_factor_off_needs_a_code_and_the_password(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, secret, step, recovery) = with_two_factor(&app, "cy@shop.example").await;
    for (body, expected) in [
        (json!({"code": recovery[0], "currentPassword": "wrong-password"}), "Current password is incorrect"),
        (json!({"code": "zzzzz-zzzzz", "currentPassword": PASSWORD}), "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes."),
        (json!({"code": code_at(&secret, step), "currentPassword": PASSWORD}), "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes."),
        (json!({"currentPassword": PASSWORD}), "Enter the 6-digit code from your authenticator app, or a recovery code"),
    ] {
        let (status, res) = app.post_json("/api/me/two-factor/disable", Some(&token), body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body} -> {res}");
        assert_eq!(message(&res), expected, "{body}");
    }
    assert_eq!(password_step(&app, "cy@shop.example").await["twoFactorRequired"], true, "still on");

    let (status, off) = app.post_json("/api/me/two-factor/disable", Some(&token), json!({"code": recovery[1], "currentPassword": PASSWORD})).await;
    assert_eq!(status, StatusCode::OK, "{off}");
    assert_eq!(off["enabled"], false);
    let signed = password_step(&app, "cy@shop.example").await;
    assert!(signed["token"].is_string() && signed.get("challenge").is_none(), "{signed}");
    assert_eq!(signed["user"]["twoFactorEnabled"], false);
    let (status, _) = app.post_json("/api/me/two-factor/disable", Some(&token), json!({"code": recovery[2], "currentPassword": PASSWORD})).await;
    assert_eq!(status, StatusCode::CONFLICT, "already off");
    // Set up again from scratch: the old secret and recovery codes are gone.
    let (_, setup) = app.post_json("/api/me/two-factor/setup", Some(&token), json!({})).await;
    assert_ne!(setup["secret"].as_str().unwrap(), secret);
}

async fn wrong_codes_lock_the_email_even_with_the_right_password_between_them(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.auth.lockout_after_failures = 3).await;
    let (_, secret, step, _) = with_two_factor(&app, "di@shop.example").await;
    let wrong = (0..10).map(|n| format!("{n}{n}{n}{n}{n}{n}")).find(|c| (step - 1..=step + 2).all(|s| code_at(&secret, s) != *c)).unwrap();
    for _ in 0..3 {
        let challenge = password_step(&app, "di@shop.example").await["challenge"].as_str().unwrap().to_string();
        let (status, _) = code_step(&app, &challenge, &wrong).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, body) = app.post_json("/api/auth/login", None, json!({"email": "di@shop.example", "password": PASSWORD})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "locked by the wrong codes: {body}");
}
