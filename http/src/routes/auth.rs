//! Sign-up, sign-in with a password, and sign-in through Google or GitHub.

use actix_web::http::header::LOCATION;
use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use parley_store::users::NewUser;
use parley_store::StoreError;
use serde::Deserialize;
use serde_json::json;

use crate::auth::oauth::{self, Provider};
use crate::auth::password;
use crate::domain::{person_name, Email, Password};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/auth/signup", web::post().to(signup))
        .route("/auth/login", web::post().to(login))
        .route("/auth/{provider}", web::get().to(oauth_start))
        .route("/auth/{provider}/callback", web::get().to(oauth_callback));
}

#[derive(Deserialize)]
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

async fn signup(state: web::Data<AppState>, body: web::Json<SignupBody>) -> ApiResult<HttpResponse> {
    let email = Email::parse(&body.email)?;
    let password = Password::parse_confirmed(&body.password, &body.confirm_password)?;
    let name = match &body.name {
        Some(n) => person_name(n)?,
        None => String::new(),
    };
    let name = if name.is_empty() { email.as_str().split('@').next().unwrap_or_default().to_string() } else { name };
    let hash = password::hash(password.expose()).await?;
    let user = state
        .store
        .create_user(NewUser { email: email.as_str().to_string(), name, password_hash: Some(hash), profile_picture: None })
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::conflict("An account with this email already exists"),
            other => other.into(),
        })?;
    state.store.log_activity(Some(&user.id), None, "account", "Account created").await?;
    let token = state.tokens.issue_user(&user.id)?;
    Ok(HttpResponse::Created().json(json!({"token": token, "user": views::user(&user)})))
}

#[derive(Deserialize)]
struct LoginBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

async fn login(state: web::Data<AppState>, body: web::Json<LoginBody>) -> ApiResult<HttpResponse> {
    const REFUSED: &str = "Invalid email or password";
    let user = match Email::parse(&body.email) {
        Ok(email) => state.store.user_by_email(email.as_str()).await?,
        Err(_) => None,
    };
    let matched = match user.as_ref().and_then(|u| u.password_hash.as_deref()) {
        Some(hash) => password::verify(&body.password, hash).await?,
        None => {
            password::dummy_verify(&body.password, &state.dummy_hash).await;
            false
        }
    };
    let user = match (user, matched) {
        (Some(user), true) => user,
        _ => return Err(ApiError::unauthorized(REFUSED)),
    };
    let token = state.tokens.issue_user(&user.id)?;
    Ok(HttpResponse::Ok().json(json!({"token": token, "user": views::user(&user)})))
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

async fn oauth_start(state: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let (provider, _) = provider_of(&path)?;
    let url = oauth::start(
        provider,
        provider_config(&state, provider),
        &state.settings.public_base_url(),
        &state.oauth_flows,
    )?;
    Ok(HttpResponse::Found().insert_header((LOCATION, url)).finish())
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

async fn oauth_callback(
    state: web::Data<AppState>,
    path: web::Path<String>,
    query: web::Query<CallbackQuery>,
) -> ApiResult<HttpResponse> {
    let (provider, _) = provider_of(&path)?;
    if let Some(error) = &query.error {
        // The person said no at the provider: back to the sign-in screen, saying so.
        let target = format!("/login?error={}", url_escape(&format!("{} sign-in was cancelled ({error})", provider.label())));
        return Ok(HttpResponse::Found().insert_header((LOCATION, target)).finish());
    }
    let (Some(code), Some(flow_state)) = (&query.code, &query.state) else {
        return Err(ApiError::bad_request("Missing code or state"));
    };
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
    let user = state.store.user_for_identity(identity).await?;
    state
        .store
        .log_activity(Some(&user.id), None, "account", &format!("Signed in with {}", provider.label()))
        .await?;
    let token = state.tokens.issue_user(&user.id)?;
    Ok(HttpResponse::build(StatusCode::FOUND)
        .insert_header((LOCATION, format!("/auth-success?token={token}")))
        .finish())
}

fn url_escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
