//! Two-factor sign-in with an authenticator app (the Security tab's switch): set-up with a QR
//! code, turning it on with a first code, turning it off, and the sign-in step that takes the
//! code after the password (or after Google or GitHub). Recovery codes, shown once when it is
//! turned on, stand in for a code when the phone is lost; each works once.
//!
//! Turning it on or off asks for the current password (or a fresh Google or GitHub sign-in, for
//! an account without one), so a session left open somewhere cannot lock its owner out or take
//! the second factor away.

use actix_web::{web, HttpRequest, HttpResponse};
use parley_store::models::User;
use rand::Rng;
use serde::Deserialize;
use serde_json::json;
use utoipa::{OpenApi, ToSchema};

use crate::auth::tokens::TWO_FACTOR_KIND;
use crate::auth::{links, secrets, totp, AuthUser};
use crate::error::{ApiError, ApiResult};
use crate::openapi::{replies, ApiErrors};
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me/two-factor", web::get().to(status))
        .route("/me/two-factor/setup", web::post().to(setup))
        .route("/me/two-factor/enable", web::post().to(enable))
        .route("/me/two-factor/disable", web::post().to(disable))
        .route("/auth/two-factor", web::post().to(sign_in));
}

#[derive(OpenApi)]
#[openapi(
    paths(status, setup, enable, disable, sign_in),
    tags((name = "two-factor", description = "Two-factor sign-in with an authenticator app"))
)]
pub struct Api;

/// Recovery codes made when two-factor sign-in is turned on.
pub const RECOVERY_CODES: usize = 10;
const ISSUER: &str = "Parley";

pub const INVALID_CODE: &str = "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.";
pub const CHALLENGE_EXPIRED: &str = "This sign-in has expired. Please sign in again.";
const NOT_SET_UP: &str = "Start setting up two-factor authentication first";
const ALREADY_ON: &str = "Two-factor authentication is already on";
const NOT_ON: &str = "Two-factor authentication is not on";

#[utoipa::path(get, path = "/api/me/two-factor", tag = "two-factor", security(("bearer" = [])), responses((status = 200, description = "Whether it is on", body = replies::TwoFactorStatus), ApiErrors))]
async fn status(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let left = state.store.recovery_codes_left(&user.id).await?;
    Ok(HttpResponse::Ok().json(json!({"enabled": user.two_factor_enabled, "recoveryCodesLeft": left})))
}

/// Makes a new secret for the authenticator app. Nothing changes at sign-in until `enable`
/// confirms it with a code; a second set-up replaces the first.
#[utoipa::path(post, path = "/api/me/two-factor/setup", tag = "two-factor", security(("bearer" = [])), responses((status = 200, description = "The secret to add to the app", body = replies::TwoFactorSetup), ApiErrors))]
async fn setup(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    if user.two_factor_enabled {
        return Err(ApiError::conflict(ALREADY_ON));
    }
    let secret = totp::new_secret();
    let sealed = state.two_factor_seal.seal(&secret, &user.id).ok_or_else(|| ApiError::internal("sealing a two-factor secret"))?;
    state.store.start_two_factor(&user.id, &sealed).await.map_err(|e| match e {
        parley_store::StoreError::Conflict(_) => ApiError::conflict(ALREADY_ON),
        other => other.into(),
    })?;
    let url = totp::otpauth_url(ISSUER, &user.email, &secret);
    Ok(HttpResponse::Ok().json(json!({"secret": secret, "otpauthUrl": url, "qrSvg": qr_svg(&url)})))
}

/// The set-up address as an SVG QR code; `None` when it cannot be drawn (it always fits:
/// the address is a few hundred bytes).
fn qr_svg(data: &str) -> Option<String> {
    let code = qrcode::QrCode::new(data.as_bytes()).ok()?;
    Some(code.render::<qrcode::render::svg::Color>().min_dimensions(200, 200).quiet_zone(true).build())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ConfirmBody {
    /// The 6-digit code the app shows (or, to turn it off, a recovery code).
    #[serde(default)]
    code: String,
    /// Required on an account with a password.
    current_password: Option<String>,
}

/// Turns two-factor sign-in on with the first code from the app; answers the recovery codes,
/// shown this once.
#[utoipa::path(post, path = "/api/me/two-factor/enable", tag = "two-factor", security(("bearer" = [])), request_body = ConfirmBody, responses((status = 200, description = "On", body = replies::TwoFactorEnabled), ApiErrors))]
async fn enable(state: web::Data<AppState>, req: HttpRequest, AuthUser(user): AuthUser, body: web::Json<ConfirmBody>) -> ApiResult<HttpResponse> {
    if user.two_factor_enabled {
        return Err(ApiError::conflict(ALREADY_ON));
    }
    let pending = state.store.two_factor(&user.id).await?.filter(|t| !t.enabled).ok_or_else(|| ApiError::validation(NOT_SET_UP))?;
    if body.code.trim().is_empty() {
        return Err(ApiError::validation("Enter the 6-digit code from your authenticator app"));
    }
    super::me::confirm_owner(&state, &req, &user, body.current_password.as_deref(), "turn on two-factor authentication").await?;
    // Sealed under another server secret (it changed since the set-up): start again.
    let secret = state.two_factor_seal.open(&pending.secret, &user.id).ok_or_else(|| ApiError::validation(NOT_SET_UP))?;
    let step = totp::matching_step(&secret, &body.code, chrono::Utc::now().timestamp())
        .ok_or_else(|| ApiError::validation("That code is not right. Check that your phone's clock is set automatically and enter the code your app shows now."))?;
    let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
    let hashes: Vec<String> = codes.iter().map(|c| secrets::hash(&normalize_recovery(c))).collect();
    state.store.enable_two_factor(&user.id, step, &hashes).await.map_err(|e| match e {
        parley_store::StoreError::NotFound => ApiError::validation(NOT_SET_UP),
        other => other.into(),
    })?;
    state.store.log_activity(Some(&user.id), None, "security", "Two-factor authentication turned on").await?;
    links::security_alert(&state, &user, &user.email, "Two-factor authentication was turned on for your Parley account.").await?;
    Ok(HttpResponse::Ok().json(json!({"enabled": true, "recoveryCodes": codes})))
}

/// Turns two-factor sign-in off; takes a current code or a recovery code.
#[utoipa::path(post, path = "/api/me/two-factor/disable", tag = "two-factor", security(("bearer" = [])), request_body = ConfirmBody, responses((status = 200, description = "Off", body = replies::TwoFactorStatus), ApiErrors))]
async fn disable(state: web::Data<AppState>, req: HttpRequest, AuthUser(user): AuthUser, body: web::Json<ConfirmBody>) -> ApiResult<HttpResponse> {
    if !user.two_factor_enabled {
        return Err(ApiError::conflict(NOT_ON));
    }
    if body.code.trim().is_empty() {
        return Err(ApiError::validation("Enter the 6-digit code from your authenticator app, or a recovery code"));
    }
    super::me::confirm_owner(&state, &req, &user, body.current_password.as_deref(), "turn off two-factor authentication").await?;
    if !second_factor_holds(&state, &user, &body.code).await? {
        return Err(ApiError::validation(INVALID_CODE));
    }
    state.store.disable_two_factor(&user.id).await?;
    state.store.log_activity(Some(&user.id), None, "security", "Two-factor authentication turned off").await?;
    links::security_alert(&state, &user, &user.email, "Two-factor authentication was turned off for your Parley account.").await?;
    Ok(HttpResponse::Ok().json(json!({"enabled": false, "recoveryCodesLeft": 0})))
}

#[derive(Deserialize, ToSchema)]
struct SignInBody {
    /// What `POST /api/auth/login` (or the Google or GitHub sign-in) answered.
    #[serde(default)]
    challenge: String,
    #[serde(default)]
    code: String,
}

/// The second step of signing in: the code from the app (or a recovery code) for the challenge
/// the first step gave. Answers the session, like `POST /api/auth/login` does without it.
#[utoipa::path(post, path = "/api/auth/two-factor", tag = "two-factor", request_body = SignInBody, responses((status = 200, description = "Signed in", body = replies::Signed), ApiErrors))]
async fn sign_in(state: web::Data<AppState>, req: HttpRequest, body: web::Json<SignInBody>) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let claims = state.tokens.verify(body.challenge.trim(), TWO_FACTOR_KIND).ok_or_else(|| ApiError::unauthorized(CHALLENGE_EXPIRED))?;
    let user = state
        .store
        .user_by_id(&claims.sub)
        .await?
        .filter(|u| u.token_version == claims.ver && u.two_factor_enabled)
        .ok_or_else(|| ApiError::unauthorized(CHALLENGE_EXPIRED))?;
    // Guessing codes counts against the account like guessing passwords does.
    state.auth_throttle.check_account(&user.email)?;
    if !second_factor_holds(&state, &user, &body.code).await? {
        state.auth_throttle.failed(&user.email);
        return Err(ApiError::unauthorized(INVALID_CODE));
    }
    state.auth_throttle.succeeded(&user.email);
    let token = match claims.via.as_deref() {
        Some(provider) => state.tokens.issue_user_via(&user, provider)?,
        None => state.tokens.issue_user(&user)?,
    };
    Ok(HttpResponse::Ok().json(json!({"token": token, "user": views::user(&user)})))
}

/// True when `code` is the app's code of now (not used before) or an unused recovery code, which
/// is then used up.
async fn second_factor_holds(state: &AppState, user: &User, code: &str) -> ApiResult<bool> {
    let code = code.trim();
    if code.is_empty() || code.len() > 64 {
        return Ok(false);
    }
    let Some(row) = state.store.two_factor(&user.id).await?.filter(|t| t.enabled) else { return Ok(false) };
    // A secret that no longer opens (the server's secret changed) takes no app code; the
    // recovery codes below still work, and with one the owner can set it up again.
    let secret = state.two_factor_seal.open(&row.secret, &user.id);
    if let Some(step) = secret.and_then(|s| totp::matching_step(&s, code, chrono::Utc::now().timestamp())) {
        return Ok(state.store.accept_two_factor_step(&user.id, step).await?);
    }
    let used = state.store.use_recovery_code(&user.id, &secrets::hash(&normalize_recovery(code))).await?;
    if used {
        state.store.log_activity(Some(&user.id), None, "security", "Signed in with a recovery code").await?;
    }
    Ok(used)
}

/// Ten characters of an alphabet without look-alikes, as `xxxxx-xxxxx`.
fn new_recovery_code() -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    let mut rng = rand::thread_rng();
    let chars: String = (0..10).map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())])).collect();
    format!("{}-{}", &chars[..5], &chars[5..])
}

/// A recovery code as typed: case, spaces and dashes do not matter.
fn normalize_recovery(code: &str) -> String {
    code.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_codes_read_the_same_however_typed() {
        let code = new_recovery_code();
        assert_eq!(code.len(), 11);
        assert_eq!(normalize_recovery(&code.to_uppercase().replace('-', " ")), normalize_recovery(&code));
        assert_ne!(new_recovery_code(), new_recovery_code());
    }

    #[test]
    fn the_qr_code_is_an_svg() {
        let svg = qr_svg(&totp::otpauth_url(ISSUER, "ann@example.com", &totp::new_secret())).unwrap();
        assert!(svg.contains("<svg") && svg.contains("</svg>"));
    }
}
