//! `/api/team/*-invitation`: following an invitation link (`/teams?action=accept&botId&
//! memberId&token`). GET shows what the link is for (the bot and who invited), for the
//! confirmation step; POST accepts; decline removes it. Accepting takes a signed-in account
//! with a *verified* email, and either the link's token or that email being the invited one.

use crate::openapi::{replies, ApiErrors};
use utoipa::{IntoParams, OpenApi, ToSchema};

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use parley_store::models::User;
use parley_store::team::{invitation_expired, InvitationDetails};
use parley_store::users::normalize_email;
use parley_store::{time, Role, StoreError};
use serde::Deserialize;
use serde_json::json;

use crate::auth::{secrets, AuthUser};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

#[derive(OpenApi)]
#[openapi(paths(preview, accept, decline))]
pub struct Api;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/team/accept-invitation", web::get().to(preview))
        .route("/team/accept-invitation", web::post().to(accept))
        .route("/team/decline-invitation", web::post().to(decline));
}

pub const UNVERIFIED: &str =
    "Verify your email address before accepting invitations. Follow the link we sent you, or ask for a new one.";
const INVALID_LINK: &str = "This invitation link is invalid or was already used.";
const OTHER_ADDRESS: &str = "This invitation was sent to another email address. Open the link from the invitation email.";

/// 403 for an account whose address nobody proved: it could be anyone's.
pub fn unverified() -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "email_unverified", UNVERIFIED)
}

#[derive(Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct LinkParams {
    #[serde(default)]
    bot_id: String,
    #[serde(default)]
    member_id: String,
    #[serde(default)]
    token: Option<String>,
}

/// The pending, unexpired invitation the parameters name. Expired is 410 with the inviter's
/// name, so the person knows whom to ask.
async fn pending(state: &AppState, p: &LinkParams) -> ApiResult<InvitationDetails> {
    let details = state
        .store
        .invitation_details(&p.bot_id, &p.member_id)
        .await?
        .filter(|d| d.member.status == "pending")
        .ok_or_else(|| ApiError::not_found("Invitation"))?;
    if invitation_expired(&details.member, time::now()) {
        let who = details.inviter.as_ref().map(|u| if u.name.is_empty() { u.email.clone() } else { u.name.clone() });
        let message = match who {
            Some(who) => format!("This invitation has expired. Ask {who} to send a new one."),
            None => "This invitation has expired. Ask the team to send a new one.".to_string(),
        };
        return Err(ApiError::new(StatusCode::GONE, "invitation_expired", message));
    }
    Ok(details)
}

fn token_matches(details: &InvitationDetails, token: Option<&str>) -> bool {
    match (token.filter(|t| !t.is_empty()), details.member.invite_token.as_deref()) {
        (Some(token), Some(stored)) => secrets::matches(token, stored),
        _ => false,
    }
}

/// Whether `user` may answer this invitation: by the link's token, or as the verified owner
/// of the invited address.
fn authorize(details: &InvitationDetails, user: &User, token: Option<&str>) -> ApiResult<()> {
    if !user.email_verified {
        return Err(unverified());
    }
    if token.is_some_and(|t| !t.is_empty()) {
        return if token_matches(details, token) { Ok(()) } else { Err(ApiError::forbidden(INVALID_LINK)) };
    }
    if normalize_email(&user.email) == details.member.email {
        Ok(())
    } else {
        Err(ApiError::forbidden(OTHER_ADDRESS))
    }
}

/// The confirmation step: which bot, which role, invited by whom. Needs the link's token.
/// What an emailed invitation link offers, before signing in.
#[utoipa::path(get, path = "/api/team/accept-invitation", tag = "team", params(LinkParams), responses((status = 200, description = "The invitation", body = replies::InvitationPreview), ApiErrors))]
async fn preview(state: web::Data<AppState>, query: web::Query<LinkParams>) -> ApiResult<HttpResponse> {
    let details = pending(&state, &query).await?;
    if !token_matches(&details, query.token.as_deref()) {
        return Err(ApiError::forbidden(INVALID_LINK));
    }
    let mut view = views::invitation(&details.invitation());
    if let Some(map) = view.as_object_mut() {
        map.insert("email".into(), json!(details.member.email));
    }
    Ok(HttpResponse::Ok().json(json!({"invitation": view})))
}

#[utoipa::path(post, path = "/api/team/accept-invitation", tag = "team", security(("bearer" = [])), request_body = LinkParams, responses((status = 200, description = "Joined", body = replies::InvitationAccepted), ApiErrors))]
async fn accept(state: web::Data<AppState>, AuthUser(user): AuthUser, body: web::Json<LinkParams>) -> ApiResult<HttpResponse> {
    if !user.email_verified {
        return Err(unverified());
    }
    let details = pending(&state, &body).await?;
    authorize(&details, &user, body.token.as_deref())?;
    let member = state.store.accept_invitation(&details.bot.id, &details.member.id, &user.id).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("Invitation"),
        StoreError::Conflict(_) => ApiError::conflict("You are already on this bot's team"),
        other => other.into(),
    })?;
    state.engine.access_changed();
    state
        .store
        .log_activity(Some(&user.id), Some(&details.bot.id), "team", &format!("Joined {} as {}", details.bot.name, member.role))
        .await?;
    let role = Role::parse_member(&member.role).unwrap_or(Role::Viewer);
    Ok(HttpResponse::Ok().json(json!({
        "ok": true,
        "message": "Invitation accepted successfully!",
        "bot": views::bot(&details.bot, role),
        "member": {"_id": member.id, "role": member.role, "status": member.status},
    })))
}

/// Declines: with the link's token (no account needed), or as the verified invited address.
#[utoipa::path(post, path = "/api/team/decline-invitation", tag = "team", security((), ("bearer" = [])), request_body = LinkParams, responses((status = 200, description = "Declined", body = replies::Done), ApiErrors))]
async fn decline(state: web::Data<AppState>, user: Option<AuthUser>, body: web::Json<LinkParams>) -> ApiResult<HttpResponse> {
    let details = pending(&state, &body).await?;
    match &user {
        _ if token_matches(&details, body.token.as_deref()) => {}
        Some(AuthUser(user)) => authorize(&details, user, body.token.as_deref())?,
        None => return Err(ApiError::forbidden(INVALID_LINK)),
    }
    state.store.decline_invitation(&details.bot.id, &details.member.id).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("Invitation"),
        other => other.into(),
    })?;
    let who = user.as_ref().map(|AuthUser(u)| u.id.as_str());
    state.store.log_activity(who, Some(&details.bot.id), "team", &format!("Invitation for {} declined", details.member.email)).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true, "message": "Invitation declined"})))
}
