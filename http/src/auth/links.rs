//! The account links Parley mails: verify an address, confirm a new address, reset a password;
//! and the security alerts that tell an owner their account changed. Each link is
//! `<row id>.<secret>` (see `secrets`), single-use, and expires.

use actix_web::http::StatusCode;
use chrono::Duration;
use parley_store::models::{EmailToken, User};
use parley_store::tokens::Purpose;
use parley_store::time;

use crate::auth::secrets;
use crate::error::{ApiError, ApiResult};
use crate::mail::templates;
use crate::state::AppState;

/// How long a verification or email-change link works.
pub const CONFIRM_TTL_HOURS: i64 = 48;
/// How long a password-reset link works (spec: one hour).
pub const RESET_TTL_HOURS: i64 = 1;
/// Another mail of the same kind is refused this soon after one (a resend button pressed
/// twice, someone flooding an address).
pub const RESEND_AFTER_SECS: i64 = 60;

pub const INVALID_LINK: &str = "This link is invalid or was already used.";
pub const EXPIRED_LINK: &str = "This link has expired. Please ask for a new one.";

fn ttl(purpose: Purpose) -> Duration {
    match purpose {
        Purpose::ResetPassword => Duration::hours(RESET_TTL_HOURS),
        Purpose::VerifyEmail | Purpose::ChangeEmail => Duration::hours(CONFIRM_TTL_HOURS),
    }
}

/// True when a mail of this purpose went to the user less than a minute ago.
pub async fn sent_recently(state: &AppState, user: &User, purpose: Purpose) -> ApiResult<bool> {
    let latest = state.store.latest_email_token(&user.id, purpose).await?;
    Ok(latest.is_some_and(|t| time::now() - t.created_at < Duration::seconds(RESEND_AFTER_SECS)))
}

pub fn too_soon() -> ApiError {
    ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "We just sent you an email. Please wait a minute before asking for another.")
}

/// Makes a link of `purpose` for `user`, sent to `email`; returns the absolute URL.
async fn new_link(state: &AppState, user: &User, purpose: Purpose, email: &str, path: &str) -> ApiResult<String> {
    let secret = secrets::new_secret();
    let row = state.store.create_email_token(&user.id, purpose, email, &secrets::hash(&secret), ttl(purpose)).await?;
    let token = secrets::compose(&row.id, &secret);
    Ok(state.mail.link(&format!("{path}?token={token}")))
}

pub async fn send_verification(state: &AppState, user: &User) -> ApiResult<()> {
    let link = new_link(state, user, Purpose::VerifyEmail, &user.email, "/verify-email").await?;
    state.mail.send(&user.email, templates::verify_email(&user.name, &link), Some(link)).await
}

pub async fn send_email_change(state: &AppState, user: &User, new_email: &str) -> ApiResult<()> {
    let link = new_link(state, user, Purpose::ChangeEmail, new_email, "/verify-email").await?;
    state.mail.send(new_email, templates::confirm_new_email(&user.name, new_email, &link), Some(link)).await
}

pub async fn send_password_reset(state: &AppState, user: &User) -> ApiResult<()> {
    let link = new_link(state, user, Purpose::ResetPassword, &user.email, "/reset-password").await?;
    state.mail.send(&user.email, templates::password_reset(&user.name, &link), Some(link)).await
}

/// Mails `to` (the account's address, or the old one after a change) that `what` happened,
/// when the user keeps security alerts on.
pub async fn security_alert(state: &AppState, user: &User, to: &str, what: &str) -> ApiResult<()> {
    if !state.store.notification_prefs(&user.id).await?.security_alerts {
        return Ok(());
    }
    state.mail.send(to, templates::security_alert(&user.name, what), None).await
}

/// The unused, unexpired link row a token names, of one of `purposes`: the secret must hash to
/// what is stored (compared in constant time). Unknown, forged and used links read the same.
pub async fn check(state: &AppState, token: &str, purposes: &[Purpose]) -> ApiResult<EmailToken> {
    let (id, secret) = secrets::split(token).ok_or_else(|| ApiError::bad_request(INVALID_LINK))?;
    let row = state.store.email_token(id).await?.ok_or_else(|| ApiError::bad_request(INVALID_LINK))?;
    let purpose_ok = Purpose::parse(&row.purpose).is_some_and(|p| purposes.contains(&p));
    if !secrets::matches(secret, &row.token_hash) || !purpose_ok || row.used_at.is_some() {
        return Err(ApiError::bad_request(INVALID_LINK));
    }
    if row.expires_at <= time::now() {
        return Err(ApiError::new(StatusCode::GONE, "link_expired", EXPIRED_LINK));
    }
    Ok(row)
}
