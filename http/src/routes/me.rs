//! The signed-in user's own account: profile, avatar, password, notification preferences.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use parley_store::models::User;
use parley_store::tokens::Purpose;
use parley_store::users::ProfileUpdate;
use parley_store::time;
use serde::Deserialize;
use serde_json::json;
use utoipa::{OpenApi, ToSchema};

use crate::auth::{caller, links, AuthUser};
use crate::domain::{person_name, Email, Password};
use crate::error::{ApiError, ApiResult};
use crate::openapi::{replies, ApiErrors};
use crate::state::AppState;
use crate::{uploads, views};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me", web::get().to(me))
        .route("/me", web::put().to(update_profile))
        .route("/me/avatar", web::post().to(upload_avatar))
        .route("/me/password", web::put().to(change_password))
        .route("/me/notifications", web::get().to(notifications))
        .route("/me/notifications", web::put().to(update_notifications));
}

#[derive(OpenApi)]
#[openapi(
    paths(me, update_profile, upload_avatar, change_password, notifications, update_notifications),
    tags((name = "me", description = "The signed-in user's own account"))
)]
pub struct Api;

/// The avatar form (`multipart/form-data`).
#[derive(ToSchema)]
#[allow(dead_code)]
struct AvatarForm {
    /// A PNG, JPEG, GIF or WebP image.
    #[schema(value_type = String, format = Binary)]
    avatar: Vec<u8>,
}

/// The user, their plan and notification preferences.
#[utoipa::path(get, path = "/api/me", tag = "me", security(("bearer" = [])), responses((status = 200, description = "The account", body = replies::Me), ApiErrors))]
async fn me(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let allowance = state.store.allowance(&user.id).await?;
    let prefs = state.store.notification_prefs(&user.id).await?;
    Ok(HttpResponse::Ok().json(json!({
        "user": views::user(&user),
        "pendingEmail": pending_email(&state, &user).await?,
        "platform": [views::platform(&allowance)],
        "notifications": views::notifications(&prefs),
    })))
}

/// The new address waiting for its confirmation link to be followed, if any.
async fn pending_email(state: &AppState, user: &parley_store::models::User) -> ApiResult<Option<String>> {
    let latest = state.store.latest_email_token(&user.id, Purpose::ChangeEmail).await?;
    Ok(latest.filter(|t| t.used_at.is_none() && t.expires_at > time::now()).map(|t| t.email))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProfileBody {
    name: Option<String>,
    email: Option<String>,
    timezone: Option<String>,
    language: Option<String>,
    /// Required with a new email on an account that has a password (one without a password
    /// confirms through a fresh Google or GitHub sign-in instead).
    current_password: Option<String>,
}

/// UTC offsets as the settings screen offers them (`UTC`, `UTC-5`, `UTC+5:30`) or an IANA
/// zone name (`Europe/Paris`).
fn parse_timezone(raw: &str) -> ApiResult<String> {
    let tz = raw.trim();
    let offset_ok = tz == "UTC"
        || tz.strip_prefix("UTC").is_some_and(|rest| {
            let rest = rest.strip_prefix(['+', '-']).unwrap_or("");
            let (h, m) = rest.split_once(':').unwrap_or((rest, "00"));
            matches!(h.parse::<u8>(), Ok(0..=14)) && matches!(m, "00" | "30" | "45")
        });
    let iana_ok = tz.len() <= 64
        && tz.contains('/')
        && tz.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
    if offset_ok || iana_ok {
        Ok(tz.to_string())
    } else {
        Err(ApiError::validation("Please choose a valid timezone"))
    }
}

fn parse_language(raw: &str) -> ApiResult<String> {
    let lang = raw.trim();
    let ok = (2..=10).contains(&lang.len()) && lang.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
    if ok {
        Ok(lang.to_string())
    } else {
        Err(ApiError::validation("Please choose a valid language"))
    }
}

/// How recent a Google or GitHub sign-in must be for an account without a password to change
/// its email address.
pub const PROVIDER_CONFIRM_MINUTES: i64 = 10;

/// `then`: what to do once signed in again ("change your email address").
fn provider_confirmation_needed(then: &str) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "provider_confirmation_required",
        format!(
            "Your account has no password, so confirm it is you by signing in again with Google or GitHub. \
             Then {then} within {PROVIDER_CONFIRM_MINUTES} minutes."
        ),
    )
}

/// Confirms that the person asking to `then` ("change your email address") owns the account,
/// not someone at a stolen or forgotten-open session: their current password, or, for an
/// account made through Google or GitHub (no password to ask for), a session that comes from a
/// sign-in through that provider minutes ago.
pub(crate) async fn confirm_owner(state: &AppState, req: &HttpRequest, user: &User, given: Option<&str>, then: &str) -> ApiResult<()> {
    if let Some(hash) = &user.password_hash {
        let given = given.unwrap_or("");
        if given.is_empty() {
            return Err(ApiError::validation(format!("Enter your current password to {then}")));
        }
        state.auth_throttle.check_account(&user.email)?;
        if !state.hasher.verify(given, hash).await? {
            state.auth_throttle.failed(&user.email);
            return Err(ApiError::validation("Current password is incorrect"));
        }
        return Ok(());
    }
    let token = caller::bearer(req).unwrap_or("");
    let within = chrono::Duration::minutes(PROVIDER_CONFIRM_MINUTES);
    if !state.tokens.fresh_provider_sign_in(token, &user.id, within) {
        return Err(provider_confirmation_needed(then));
    }
    Ok(())
}

/// Changes name, timezone, language; a new email is confirmed by a link sent to it.
#[utoipa::path(put, path = "/api/me", tag = "me", security(("bearer" = [])), request_body = ProfileBody, responses((status = 200, description = "Saved", body = replies::ProfileSaved), ApiErrors))]
async fn update_profile(
    state: web::Data<AppState>,
    req: HttpRequest,
    AuthUser(user): AuthUser,
    body: web::Json<ProfileBody>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let new_email = body.email.as_deref().map(Email::parse).transpose()?.filter(|e| e.as_str() != user.email);
    let update = ProfileUpdate {
        name: body.name.as_deref().map(person_name).transpose()?,
        timezone: body.timezone.as_deref().map(parse_timezone).transpose()?,
        language: body.language.as_deref().map(parse_language).transpose()?,
    };
    // A new address is checked before anything is saved, so a refused change saves nothing.
    if let Some(email) = &new_email {
        confirm_owner(&state, &req, &user, body.current_password.as_deref(), "change your email address").await?;
        if state.store.user_by_email(email.as_str()).await?.is_some() {
            return Err(ApiError::conflict("An account with this email already exists"));
        }
        if links::sent_recently(&state, &user, Purpose::ChangeEmail).await? {
            return Err(links::too_soon());
        }
    }
    let updated = state.store.update_profile(&user.id, update).await?;
    // The address changes only when the link sent to it is followed.
    let mut message = None;
    if let Some(email) = new_email {
        links::send_email_change(&state, &updated, email.as_str()).await?;
        message = Some(format!("We sent a confirmation link to {}. Your email changes when you follow it.", email.as_str()));
    }
    Ok(HttpResponse::Ok().json(json!({
        "user": views::user(&updated),
        "pendingEmail": pending_email(&state, &updated).await?,
        "message": message,
    })))
}

#[utoipa::path(post, path = "/api/me/avatar", tag = "me", security(("bearer" = [])), request_body(content = AvatarForm, content_type = "multipart/form-data"), responses((status = 200, description = "Saved", body = replies::Avatar), ApiErrors))]
async fn upload_avatar(state: web::Data<AppState>, AuthUser(user): AuthUser, uploads::Form(form): uploads::Form) -> ApiResult<HttpResponse> {
    let max = state.settings.auth.max_avatar_bytes;
    let rules = uploads::FormRules { fields: &[("avatar", max)], total: state.settings.uploads.max_form_bytes };
    let parts = uploads::read_form(form, &rules, |_| ApiError::too_large(format!("Image must be smaller than {} MB", max / (1024 * 1024)))).await?;
    let part = parts
        .into_iter()
        .find(|p| p.name == "avatar")
        .ok_or_else(|| ApiError::validation("Choose an image to upload"))?;
    let ext = uploads::image_extension(&part.bytes).ok_or_else(|| ApiError::validation("Please upload an image file"))?;
    crate::quota::check(&state, &user.id, part.bytes.len()).await?;
    let dir = uploads::public_dir(&state.settings.data_dir);
    let name = uploads::save(dir.clone(), ext, part.bytes).await?;
    let url = format!("/uploads/public/{name}");
    if let Err(e) = state.store.set_profile_picture(&user.id, &url).await {
        uploads::discard(dir.join(&name)).await;
        return Err(e.into());
    }
    // The picture it replaced is named by nothing now (an OAuth picture elsewhere is left be).
    uploads::discard_public(&state.settings.data_dir, user.profile_picture.as_deref()).await;
    Ok(HttpResponse::Ok().json(json!({"profilePicture": url})))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PasswordBody {
    #[serde(default)]
    current_password: String,
    #[serde(default)]
    new_password: String,
    #[serde(default)]
    confirm_password: String,
}

/// Changes (or sets) the password; other sessions end, and a fresh token is returned.
#[utoipa::path(put, path = "/api/me/password", tag = "me", security(("bearer" = [])), request_body = PasswordBody, responses((status = 200, description = "Changed", body = replies::PasswordChanged), ApiErrors))]
async fn change_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    AuthUser(user): AuthUser,
    body: web::Json<PasswordBody>,
) -> ApiResult<HttpResponse> {
    if let Some(hash) = &user.password_hash {
        // Guessing the current password is throttled like signing in.
        state.auth_throttle.check_account(&user.email)?;
        if !state.hasher.verify(&body.current_password, hash).await? {
            state.auth_throttle.failed(&user.email);
            return Err(ApiError::validation("Current password is incorrect"));
        }
    } else {
        // An account made through Google or GitHub has no password yet and may set one, as
        // its provider confirms: the session must come from a sign-in through it minutes ago,
        // as for an email change. Else a stolen or forgotten-open session could set a password
        // and, with it, move the account to another address.
        let token = caller::bearer(&req).unwrap_or("");
        if !state.tokens.fresh_provider_sign_in(token, &user.id, chrono::Duration::minutes(PROVIDER_CONFIRM_MINUTES)) {
            return Err(provider_confirmation_needed("set your password"));
        }
    }
    let new = Password::parse_confirmed(&body.new_password, &body.confirm_password)?;
    let hash = state.hasher.hash(new.expose()).await?;
    // Every session issued before ends; this one goes on with the fresh token returned.
    let updated = state.store.set_password_hash(&user.id, &hash).await?;
    state.engine.user_signed_out(&user.id);
    state.store.log_activity(Some(&user.id), None, "security", "Password changed").await?;
    links::security_alert(&state, &updated, &updated.email, "The password of your Parley account was changed, and your other sessions were signed out.").await?;
    let token = state.tokens.issue_user(&updated)?;
    Ok(HttpResponse::Ok().json(json!({"token": token, "message": "Password changed. Your other sessions were signed out."})))
}

#[utoipa::path(get, path = "/api/me/notifications", tag = "me", security(("bearer" = [])), responses((status = 200, description = "Preferences", body = crate::openapi::entities::Notifications), ApiErrors))]
async fn notifications(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let prefs = state.store.notification_prefs(&user.id).await?;
    Ok(HttpResponse::Ok().json(views::notifications(&prefs)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct NotificationsBody {
    email_notifications: Option<bool>,
    push_notifications: Option<bool>,
    weekly_reports: Option<bool>,
    security_alerts: Option<bool>,
}

#[utoipa::path(put, path = "/api/me/notifications", tag = "me", security(("bearer" = [])), request_body = NotificationsBody, responses((status = 200, description = "Saved", body = crate::openapi::entities::Notifications), ApiErrors))]
async fn update_notifications(
    state: web::Data<AppState>,
    AuthUser(user): AuthUser,
    body: web::Json<NotificationsBody>,
) -> ApiResult<HttpResponse> {
    let mut prefs = state.store.notification_prefs(&user.id).await?;
    let reports_were_on = prefs.weekly_reports;
    let b = body.into_inner();
    prefs.email_notifications = b.email_notifications.unwrap_or(prefs.email_notifications);
    prefs.push_notifications = b.push_notifications.unwrap_or(prefs.push_notifications);
    prefs.weekly_reports = b.weekly_reports.unwrap_or(prefs.weekly_reports);
    prefs.security_alerts = b.security_alerts.unwrap_or(prefs.security_alerts);
    let saved = state.store.save_notification_prefs(prefs).await?;
    if saved.weekly_reports && !reports_were_on {
        // The first report is for the first week that ends from now on.
        state.store.start_weekly_reports(&user.id, time::now()).await?;
    }
    Ok(HttpResponse::Ok().json(views::notifications(&saved)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timezones_and_languages() {
        for ok in ["UTC-5", "UTC", "UTC+5:30", "UTC+14", "Europe/Paris", "America/Argentina/Buenos_Aires"] {
            assert!(parse_timezone(ok).is_ok(), "{ok}");
        }
        for bad in ["", "UTC+15", "UTC+5:10", "<script>", "Mars"] {
            assert!(parse_timezone(bad).is_err(), "{bad}");
        }
        assert!(parse_language("en").is_ok() && parse_language("pt-BR").is_ok());
        assert!(parse_language("e").is_err() && parse_language("en;drop").is_err());
    }
}
