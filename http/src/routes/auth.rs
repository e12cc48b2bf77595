//! Sign-up (with a verification mail), sign-in with a password, sign-in through Google or
//! GitHub, following emailed links (verify, confirm a new address), and 'Forgot password?'.

use actix_web::http::header::{ACCEPT, LOCATION, SET_COOKIE};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use parley_store::tokens::{Purpose, Redeem};
use parley_store::users::{IdentitySignIn, NewUser};
use parley_store::{time, StoreError};
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::auth::oauth::{self, Provider};
use crate::auth::{flow_cookie, links, AuthUser};
use crate::domain::{person_name, Email, Password};
use crate::error::{ApiError, ApiResult};
use crate::openapi::{replies, ApiErrors};
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/auth/signup", web::post().to(signup))
        .route("/auth/login", web::post().to(login))
        .route("/auth/verify-email", web::post().to(verify_email))
        .route("/auth/resend-verification", web::post().to(resend_verification))
        .route("/auth/forgot-password", web::post().to(forgot_password))
        .route("/auth/reset-password", web::post().to(reset_password))
        .route("/auth/logout", web::post().to(logout))
        .route("/auth/logout-everywhere", web::post().to(logout_everywhere))
        // Before `/auth/{provider}`, which would take `providers` for a provider's name.
        .route("/auth/providers", web::get().to(oauth_providers))
        .route("/auth/{provider}", web::get().to(oauth_start))
        .route("/auth/{provider}/callback", web::get().to(oauth_callback));
}

#[derive(OpenApi)]
#[openapi(
    paths(signup, login, verify_email, resend_verification, forgot_password, reset_password, logout, logout_everywhere, oauth_providers, oauth_start, oauth_callback),
    tags((name = "auth", description = "Sign-up, sign-in (password, Google, GitHub) and emailed links"))
)]
pub struct Api;

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SignupBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    confirm_password: String,
    #[serde(default)]
    name: Option<String>,
}

/// Creates an account and mails a verification link; answers with a session token.
#[utoipa::path(post, path = "/api/auth/signup", tag = "auth", request_body = SignupBody, responses((status = 201, description = "Signed up", body = replies::Signed), ApiErrors))]
async fn signup(state: web::Data<AppState>, req: HttpRequest, body: web::Json<SignupBody>) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let email = Email::parse(&body.email)?;
    let password = Password::parse_confirmed(&body.password, &body.confirm_password)?;
    let name = match &body.name {
        Some(n) => person_name(n)?,
        None => String::new(),
    };
    let name = if name.is_empty() { email.as_str().split('@').next().unwrap_or_default().to_string() } else { name };
    let hash = state.hasher.hash(password.expose()).await?;
    let user = state
        .store
        .create_user(NewUser { email: email.as_str().to_string(), name, password_hash: Some(hash), profile_picture: None })
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::conflict("An account with this email already exists"),
            other => other.into(),
        })?;
    state.store.log_activity(Some(&user.id), None, "account", "Account created").await?;
    links::send_verification(&state, &user).await?;
    let token = state.tokens.issue_user(&user)?;
    Ok(HttpResponse::Created().json(json!({"token": token, "user": views::user(&user), "verificationSent": true})))
}

#[derive(Deserialize, ToSchema)]
struct LoginBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

/// Signs in with email and password. With two-factor sign-in on, answers a `challenge` for
/// `POST /api/auth/two-factor` instead of the session.
#[utoipa::path(post, path = "/api/auth/login", tag = "auth", request_body = LoginBody, responses((status = 200, description = "Signed in, or a code is needed", body = replies::SignedIn), ApiErrors))]
async fn login(state: web::Data<AppState>, req: HttpRequest, body: web::Json<LoginBody>) -> ApiResult<HttpResponse> {
    const REFUSED: &str = "Invalid email or password";
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    // Locked before anything is looked up or hashed: known and unknown emails alike.
    state.auth_throttle.check_account(&body.email)?;
    let user = match Email::parse(&body.email) {
        Ok(email) => state.store.user_by_email(email.as_str()).await?,
        Err(_) => None,
    };
    let matched = match user.as_ref().and_then(|u| u.password_hash.as_deref()) {
        Some(hash) => state.hasher.verify(&body.password, hash).await?,
        None => {
            state.hasher.dummy_verify(&body.password, &state.dummy_hash).await?;
            false
        }
    };
    let user = match (user, matched) {
        (Some(user), true) => user,
        _ => {
            state.auth_throttle.failed(&body.email);
            return Err(ApiError::unauthorized(REFUSED));
        }
    };
    if user.two_factor_enabled {
        // The password was right; the session comes from `POST /api/auth/two-factor` with a code.
        // The email's failure count is not cleared yet: wrong codes add to it, and a right
        // password between them must not wipe them, or codes could be guessed without end.
        let challenge = state.tokens.issue_two_factor_challenge(&user, None)?;
        return Ok(HttpResponse::Ok().json(json!({"twoFactorRequired": true, "challenge": challenge, "message": TWO_FACTOR_PROMPT})));
    }
    state.auth_throttle.succeeded(&body.email);
    let token = state.tokens.issue_user(&user)?;
    Ok(HttpResponse::Ok().json(json!({"token": token, "user": views::user(&user)})))
}

/// What the sign-in screen says when a code is needed.
pub const TWO_FACTOR_PROMPT: &str = "Enter the 6-digit code from your authenticator app";

#[derive(Deserialize, ToSchema)]
struct TokenBody {
    #[serde(default)]
    token: String,
}

/// Follows a verification or email-change link (the dashboard's `/verify-email?token=` page
/// posts it here; a GET would let a mail scanner confirm an address change by prefetching).
#[utoipa::path(post, path = "/api/auth/verify-email", tag = "auth", request_body = TokenBody, responses((status = 200, description = "Confirmed", body = replies::EmailVerified), ApiErrors))]
async fn verify_email(state: web::Data<AppState>, req: HttpRequest, body: web::Json<TokenBody>) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let link = links::check(&state, &body.token, &[Purpose::VerifyEmail, Purpose::ChangeEmail]).await?;
    let before = state.store.user_by_id(&link.user_id).await?.ok_or_else(|| ApiError::bad_request(links::INVALID_LINK))?;
    let user = state.store.redeem_email_token(&link.id, Redeem::ConfirmEmail, time::now()).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::bad_request(links::INVALID_LINK),
        StoreError::Conflict(_) => ApiError::conflict("An account with this email already exists"),
        other => other.into(),
    })?;
    let changed = before.email != user.email;
    if changed {
        state.store.log_activity(Some(&user.id), None, "security", "Email address changed").await?;
        let what = format!("The email address of your Parley account was changed from {} to {}.", before.email, user.email);
        links::security_alert(&state, &user, &before.email, &what).await?;
    } else {
        state.store.log_activity(Some(&user.id), None, "account", "Email address verified").await?;
    }
    let message = if changed { "Your new email address is confirmed" } else { "Your email address is verified" };
    Ok(HttpResponse::Ok().json(json!({"message": message, "emailChanged": changed, "user": views::user(&user)})))
}

/// Sends the verification link again (the banner's 'Resend').
#[utoipa::path(post, path = "/api/auth/resend-verification", tag = "auth", security(("bearer" = [])), responses((status = 200, description = "Sent", body = replies::Message), ApiErrors))]
async fn resend_verification(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    if user.email_verified {
        return Err(ApiError::bad_request("Your email address is already verified"));
    }
    if links::sent_recently(&state, &user, Purpose::VerifyEmail).await? {
        return Err(links::too_soon());
    }
    links::send_verification(&state, &user).await?;
    Ok(HttpResponse::Ok().json(json!({"message": format!("We sent a new verification link to {}", user.email)})))
}

#[derive(Deserialize, ToSchema)]
struct ForgotBody {
    #[serde(default)]
    email: String,
}

/// 'Forgot password?': mails a reset link when the account exists. The answer is the same
/// either way, and comes as soon for both: the link and its mail (a read and two writes) are
/// made after the answer, so its timing does not tell who has an account either.
#[utoipa::path(post, path = "/api/auth/forgot-password", tag = "auth", request_body = ForgotBody, responses((status = 200, description = "Sent if the account exists", body = replies::Message), ApiErrors))]
async fn forgot_password(state: web::Data<AppState>, req: HttpRequest, body: web::Json<ForgotBody>) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let email = Email::parse(&body.email)?;
    if let Some(user) = state.store.user_by_email(email.as_str()).await? {
        let state = state.clone();
        actix_web::rt::spawn(async move {
            // A second request within a minute is answered alike but sends nothing more.
            let sent = match links::sent_recently(&state, &user, Purpose::ResetPassword).await {
                Ok(true) => Ok(()),
                Ok(false) => links::send_password_reset(&state, &user).await,
                Err(e) => Err(e),
            };
            if let Err(e) = sent {
                tracing::warn!(user = %user.id, "password reset mail not queued: {e}");
            }
        });
    }
    Ok(HttpResponse::Ok().json(json!({
        "message": "If an account exists for this email, we sent a link to reset its password. The link works for 1 hour."
    })))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ResetBody {
    #[serde(default)]
    token: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    confirm_password: String,
}

/// Sets a new password from a reset link; every session of the account ends.
#[utoipa::path(post, path = "/api/auth/reset-password", tag = "auth", request_body = ResetBody, responses((status = 200, description = "Password reset", body = replies::Message), ApiErrors))]
async fn reset_password(state: web::Data<AppState>, req: HttpRequest, body: web::Json<ResetBody>) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let link = links::check(&state, &body.token, &[Purpose::ResetPassword]).await?;
    let new = Password::parse_confirmed(&body.password, &body.confirm_password)?;
    let hash = state.hasher.hash(new.expose()).await?;
    let user = state
        .store
        .redeem_email_token(&link.id, Redeem::ResetPassword { password_hash: hash }, time::now())
        .await
        .map_err(|e| match e {
            StoreError::NotFound => ApiError::bad_request(links::INVALID_LINK),
            other => other.into(),
        })?;
    state.engine.user_signed_out(&user.id);
    state.store.log_activity(Some(&user.id), None, "security", "Password reset by email").await?;
    links::security_alert(&state, &user, &user.email, "The password of your Parley account was reset, and every session was signed out.").await?;
    Ok(HttpResponse::Ok().json(json!({"message": "Your password was reset. Please sign in with your new password."})))
}

/// 'Sign out': ends the session whose token made this call; the account's other sessions stay
/// signed in. The token is refused from then on, on REST and on the live channel.
#[utoipa::path(post, path = "/api/auth/logout", tag = "auth", security(("bearer" = [])), responses((status = 200, description = "Signed out", body = replies::Message), ApiErrors))]
async fn logout(state: web::Data<AppState>, req: HttpRequest) -> ApiResult<HttpResponse> {
    // The claims once, and the same ones for everything below: a token expiring in between
    // must not turn into "a token without a session id".
    let expired = || ApiError::unauthorized("Your session has expired, please sign in again");
    let token = crate::auth::caller::bearer(&req).ok_or_else(|| ApiError::unauthorized("Sign in to continue"))?;
    let claims = state.tokens.verify(token, "user").ok_or_else(expired)?;
    let user = state.tokens.user_of(&state.store, token).await?.ok_or_else(expired)?;
    match claims.sid.as_deref() {
        Some(sid) => {
            // Kept a little past the expiry, as long as the token's verification tolerates.
            let until = claims.exp.saturating_add(crate::auth::tokens::LEEWAY_SECS as i64 + 60);
            let until = chrono::DateTime::from_timestamp(until, 0).unwrap_or_else(chrono::Utc::now).naive_utc();
            state.store.sign_out_session(sid, &user.id, until).await?;
            state.engine.sign_in_ended(&user.id, sid);
        }
        // A token issued before sessions had ids cannot be ended alone: end them all, rather
        // than leave it working after its holder signed out.
        None => {
            state.store.sign_out_everywhere(&user.id).await?;
            state.engine.user_signed_out(&user.id);
        }
    }
    Ok(HttpResponse::Ok().json(json!({"message": "You are signed out"})))
}

/// 'Sign out everywhere': ends every session of the account, this one included, and closes its
/// live connections (a lost laptop, a token copied somewhere it should not be).
#[utoipa::path(post, path = "/api/auth/logout-everywhere", tag = "auth", security(("bearer" = [])), responses((status = 200, description = "Every session signed out", body = replies::Message), ApiErrors))]
async fn logout_everywhere(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    state.store.sign_out_everywhere(&user.id).await?;
    state.engine.user_signed_out(&user.id);
    // Done by now: a failure to note it must not report the sign-out as failed.
    if let Err(e) = state.store.log_activity(Some(&user.id), None, "security", "Signed out of every session").await {
        tracing::warn!("noting a sign-out everywhere in the activity log: {e}");
    }
    Ok(HttpResponse::Ok().json(json!({"message": "Every session of your account is signed out"})))
}

fn provider_of(raw: &str) -> ApiResult<(Provider, &'static str)> {
    Provider::parse(raw).map(|p| (p, p.slug())).ok_or_else(|| ApiError::not_found("Sign-in provider"))
}

fn provider_config(state: &AppState, provider: Provider) -> &parley_config::OAuthProvider {
    match provider {
        Provider::Google => &state.settings.oauth.google,
        Provider::Github => &state.settings.oauth.github,
    }
}

/// True when the public address is https, so cookies are marked Secure.
fn secure_cookies(state: &AppState) -> bool {
    state.settings.public_base_url().starts_with("https://")
}

/// Starts a Google or GitHub sign-in: a redirect to the provider, and the flow's cookie.
#[utoipa::path(get, path = "/api/auth/{provider}", tag = "auth",
    params(("provider" = String, Path, description = "`google` or `github`")),
    responses((status = 302, description = "To the provider; a browser whose start is refused, back to `/login?error=...`"), ApiErrors))]
async fn oauth_start(state: web::Data<AppState>, req: HttpRequest, path: web::Path<String>) -> ApiResult<HttpResponse> {
    match start_sign_in(&state, &req, &path) {
        // The sign-in buttons navigate the browser here: a refusal as a JSON page would leave
        // the person on a raw error with no way back, so it goes back to the sign-in screen,
        // which shows `?error=` as it does for the callback's refusals.
        Err(refused) if opened_by_browser(&req) => {
            let target = format!("/login?error={}", url_escape(&refused.message));
            Ok(HttpResponse::Found().insert_header((LOCATION, target)).finish())
        }
        answer => answer,
    }
}

fn start_sign_in(state: &AppState, req: &HttpRequest, provider: &str) -> ApiResult<HttpResponse> {
    // Each start keeps a pending sign-in for 10 minutes: counted like a sign-in attempt.
    state.auth_throttle.attempt_from(state.client_ip.of(req))?;
    let (provider, _) = provider_of(provider)?;
    let (url, flow_state) = oauth::start(
        provider,
        provider_config(state, provider),
        &state.settings.public_base_url(),
        &state.oauth_flows,
    )?;
    Ok(HttpResponse::Found()
        .insert_header((LOCATION, url))
        .insert_header((SET_COOKIE, flow_cookie::bind(&flow_state, secure_cookies(state))))
        .finish())
}

/// A page the browser opens (it asks for HTML), not a script's call (which asks for JSON or
/// anything): only the first is sent back to the sign-in screen.
fn opened_by_browser(req: &HttpRequest) -> bool {
    req.headers().get(ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|accept| accept.contains("text/html"))
}

/// Which sign-in providers this server has settings for, so the sign-in screens offer only those.
#[utoipa::path(get, path = "/api/auth/providers", tag = "auth",
    responses((status = 200, description = "The configured providers", body = replies::SignInProviders)))]
async fn oauth_providers(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "google": state.settings.oauth.google.is_configured(),
        "github": state.settings.oauth.github.is_configured(),
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// The provider's redirect back; ends at `/auth-success#token=...` or `/login?error=...`.
#[utoipa::path(get, path = "/api/auth/{provider}/callback", tag = "auth",
    params(("provider" = String, Path, description = "`google` or `github`"), CallbackQuery),
    responses((status = 302, description = "To the dashboard"), ApiErrors))]
async fn oauth_callback(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<String>,
    query: web::Query<CallbackQuery>,
) -> ApiResult<HttpResponse> {
    state.auth_throttle.attempt_from(state.client_ip.of(&req))?;
    let (provider, _) = provider_of(&path)?;
    if let Some(error) = &query.error {
        // The person said no at the provider: back to the sign-in screen, saying so. Only the
        // codes OAuth defines are named: the parameter is anyone's to write into a link, and
        // free text from it would be shown on Parley's own sign-in page.
        let code = if error.len() <= 40 && error.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') { error.as_str() } else { "error" };
        let target = format!("/login?error={}", url_escape(&format!("{} sign-in was cancelled ({code})", provider.label())));
        return Ok(HttpResponse::Found().insert_header((LOCATION, target)).finish());
    }
    let (Some(code), Some(flow_state)) = (&query.code, &query.state) else {
        return Err(ApiError::bad_request("Missing code or state"));
    };
    // Login CSRF: only the browser that started this sign-in may finish it.
    if !flow_cookie::same_browser(&req, flow_state) {
        return Err(ApiError::bad_request(oauth::FLOW_EXPIRED));
    }
    let identity = oauth::finish(
        provider,
        provider_config(&state, provider),
        &state.settings.public_base_url(),
        &state.oauth_flows,
        &state.http,
        code,
        flow_state,
    )
    .await?;
    let user = match state.store.user_for_identity(identity).await? {
        IdentitySignIn::User(user) => user,
        IdentitySignIn::LinkedNow(user) => {
            let what = format!("{} sign-in was connected to your Parley account.", provider.label());
            links::security_alert(&state, &user, &user.email, &what).await?;
            user
        }
        IdentitySignIn::UnverifiedAccountExists => {
            // Linking would give the account to whoever created it with this address, which
            // nobody proved is theirs (pre-account takeover).
            let message = format!(
                "An account with this email already exists, but its email address is not verified. Sign in with your \
                 password and verify your email address (or use 'Forgot password?'), then you can sign in with {}.",
                provider.label()
            );
            let target = format!("/login?error={}", url_escape(&message));
            return Ok(HttpResponse::Found()
                .insert_header((LOCATION, target))
                .insert_header((SET_COOKIE, flow_cookie::clear(secure_cookies(&state))))
                .finish());
        }
    };
    state
        .store
        .log_activity(Some(&user.id), None, "account", &format!("Signed in with {}", provider.label()))
        .await?;
    if user.two_factor_enabled {
        // The provider vouched for the first factor; the sign-in screen asks for the code. In
        // the fragment, like the token below.
        let challenge = state.tokens.issue_two_factor_challenge(&user, Some(provider.slug()))?;
        return Ok(HttpResponse::build(StatusCode::FOUND)
            .insert_header((LOCATION, format!("/login#twoFactor={challenge}")))
            .insert_header((SET_COOKIE, flow_cookie::clear(secure_cookies(&state))))
            .finish());
    }
    let token = state.tokens.issue_user_via(&user, provider.slug())?;
    // In the fragment, not the query: a browser never sends a fragment to a server, so the
    // token stays out of access logs (ours and any proxy's) and out of Referer headers.
    Ok(HttpResponse::build(StatusCode::FOUND)
        .insert_header((LOCATION, format!("/auth-success#token={token}")))
        .insert_header((SET_COOKIE, flow_cookie::clear(secure_cookies(&state))))
        .finish())
}

fn url_escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
