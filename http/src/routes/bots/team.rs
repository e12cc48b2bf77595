//! `/api/bots/{id}/team`: the members of a bot's team (spec 1 "Team Management", roles §6).
//! Everyone on the team may look; owners and admins invite, change roles, resend, revoke and
//! remove. The owner's row is neither edited nor removed. A change to someone's access tells the
//! live engine at once, so a removed agent's next socket event is refused.

use crate::openapi::{replies, ApiErrors};
use utoipa::ToSchema;

use actix_web::{web, HttpResponse};
use parley_store::team::{invitation_expired, RosterEntry};
use parley_store::{time, Role, StoreError};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::{secrets, BotAccess, ManageTeam, ViewBot};
use crate::domain::Email;
use crate::error::{ApiError, ApiResult};
use crate::mail::templates;
use crate::state::AppState;
use crate::views;

const OWNER_FIXED: &str = "The owner's role cannot be changed";
const OWNER_STAYS: &str = "The owner cannot be removed from the team";

fn member_view(entry: &RosterEntry, manage: bool) -> Value {
    let m = &entry.member;
    let now = time::now();
    let status = if invitation_expired(m, now) { "expired" } else { m.status.as_str() };
    let role = Role::parse_member(&m.role).unwrap_or(Role::Viewer);
    let (name, email, avatar) = match &entry.user {
        Some(u) => (u.name.clone(), u.email.clone(), u.profile_picture.clone()),
        None => (String::new(), m.email.clone(), None),
    };
    json!({
        "_id": m.id,
        "id": m.id,
        "userId": m.user_id,
        "name": name,
        "email": email,
        "invitedEmail": m.email,
        "avatar": avatar,
        "role": role.as_str(),
        "roleLabel": views::role_label(role),
        "isOwner": false,
        "status": status,
        "lastActive": m.last_active.as_ref().map(time::to_rfc3339),
        "joinedAt": m.joined_at.as_ref().map(time::to_rfc3339),
        "invitedAt": time::to_rfc3339(&m.invited_at),
        "expiresAt": m.invite_expires_at.as_ref().map(time::to_rfc3339),
        "chips": views::role_chips(role),
        "permissions": views::role_permissions(role),
        "canEdit": manage,
        "canRemove": manage,
    })
}

#[utoipa::path(get, path = "/api/bots/{bot_id}/team", tag = "team", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "The owner, members and invitations", body = replies::Team), ApiErrors))]
pub async fn list(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let roster = state.store.team_roster(&access.bot.id).await?;
    let owner = state.store.user_by_id(&access.bot.owner_id).await?;
    let manage = access.role.can_manage_team();
    let owner_row = owner.as_ref().map(|o| {
        json!({
            "_id": o.id, "id": o.id, "userId": o.id, "name": o.name, "email": o.email, "invitedEmail": o.email,
            "avatar": o.profile_picture, "role": "owner", "roleLabel": "Owner", "isOwner": true, "status": "active",
            "lastActive": Value::Null,
            "joinedAt": time::to_rfc3339(&access.bot.created_at), "invitedAt": Value::Null, "expiresAt": Value::Null,
            "chips": views::role_chips(Role::Owner), "permissions": views::role_permissions(Role::Owner),
            "canEdit": false, "canRemove": false,
        })
    });
    let members: Vec<Value> = owner_row.into_iter().chain(roster.iter().map(|e| member_view(e, manage))).collect();
    Ok(HttpResponse::Ok().json(json!({
        "members": members,
        "ownerId": access.bot.owner_id,
        "owner": owner.map(|o| json!({"_id": o.id, "name": o.name, "email": o.email})),
        "botId": access.bot.id,
        "botName": access.bot.name,
        "role": access.role.as_str(),
        "canInvite": manage,
        "canRemoveMembers": manage,
        "roles": views::invitation_roles(),
    })))
}

#[derive(Deserialize, ToSchema)]
pub struct InviteBody {
    #[serde(default)]
    email: String,
    role: Option<String>,
}

fn parse_role(raw: Option<&str>) -> ApiResult<Role> {
    // An invitation defaults to viewer (spec 1 §4).
    Role::parse_member(raw.unwrap_or("viewer")).ok_or_else(|| ApiError::validation("Role must be admin, editor, viewer or agent"))
}

/// Mails the invitation link; the token is in the link only, the store keeps its hash.
async fn mail_invitation(state: &AppState, access_user: &parley_store::models::User, bot: &parley_store::models::Bot, member_id: &str, email: &str, role: &str, secret: &str) -> ApiResult<()> {
    let link = state.mail.link(&format!(
        "/teams?action=accept&botId={}&memberId={}&token={}",
        url_escape(&bot.id),
        url_escape(member_id),
        url_escape(secret)
    ));
    let inviter = if access_user.name.trim().is_empty() { access_user.email.as_str() } else { access_user.name.as_str() };
    state.mail.send(email, templates::invitation(&bot.name, inviter, role, &link), Some(link)).await
}

#[utoipa::path(post, path = "/api/bots/{bot_id}/team/invite", tag = "team", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = InviteBody, responses((status = 201, description = "Invited", body = replies::OneMember), ApiErrors))]
pub async fn invite(state: web::Data<AppState>, access: BotAccess<ManageTeam>, body: web::Json<InviteBody>) -> ApiResult<HttpResponse> {
    if body.email.trim().is_empty() {
        return Err(ApiError::validation("Email address is required"));
    }
    let email = Email::parse(&body.email)?;
    let role = parse_role(body.role.as_deref())?;
    let owner = state.store.user_by_id(&access.bot.owner_id).await?;
    if owner.is_some_and(|o| o.email == email.as_str()) {
        return Err(ApiError::conflict("The owner is already on the team"));
    }
    // Refusals first: only an invitation that will be mailed spends the inviter's mail budget.
    let team = state.store.team_members(&access.bot.id).await?;
    if team.iter().any(|m| m.email.eq_ignore_ascii_case(email.as_str())) {
        return Err(ApiError::conflict("This person is already on the team or invited"));
    }
    state.auth_throttle.invitation_mail(&access.user.id)?;
    let secret = secrets::new_secret();
    let member = state
        .store
        .create_invitation(&access.bot.id, email.as_str(), role, &access.user.id, Some(&secrets::hash(&secret)))
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::conflict("This person is already on the team or invited"),
            other => other.into(),
        })?;
    mail_invitation(&state, &access.user, &access.bot, &member.id, &member.email, &member.role, &secret).await?;
    state
        .store
        .log_activity(Some(&access.user.id), Some(&access.bot.id), "team", &format!("Invited {} as {}", member.email, member.role))
        .await?;
    let entry = RosterEntry { member, user: None };
    Ok(HttpResponse::Created().json(json!({"member": member_view(&entry, true), "message": "Invitation sent successfully!"})))
}

/// A new link and 7 more days for a pending invitation.
#[utoipa::path(post, path = "/api/bots/{bot_id}/team/{member_id}/resend", tag = "team", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ("member_id" = String, Path, description = "A team member (or pending invitation)")), responses((status = 200, description = "Sent again", body = replies::OneMember), ApiErrors))]
pub async fn resend(state: web::Data<AppState>, access: BotAccess<ManageTeam>, path: web::Path<(String, String)>) -> ApiResult<HttpResponse> {
    let (_, member_id) = path.into_inner();
    let team = state.store.team_members(&access.bot.id).await?;
    if !team.iter().any(|m| m.id == member_id && m.status == "pending") {
        return Err(ApiError::not_found("Invitation"));
    }
    state.auth_throttle.invitation_mail(&access.user.id)?;
    let secret = secrets::new_secret();
    let member = state.store.renew_invitation(&access.bot.id, &member_id, &secrets::hash(&secret)).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("Invitation"),
        other => other.into(),
    })?;
    mail_invitation(&state, &access.user, &access.bot, &member.id, &member.email, &member.role, &secret).await?;
    state.store.log_activity(Some(&access.user.id), Some(&access.bot.id), "team", &format!("Invitation to {} sent again", member.email)).await?;
    let entry = RosterEntry { member, user: None };
    Ok(HttpResponse::Ok().json(json!({"member": member_view(&entry, true), "message": "Invitation sent again"})))
}

#[derive(Deserialize, ToSchema)]
pub struct RoleBody {
    role: Option<String>,
}

#[utoipa::path(put, path = "/api/bots/{bot_id}/team/{member_id}", tag = "team", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ("member_id" = String, Path, description = "A team member (or pending invitation)")), request_body = RoleBody, responses((status = 200, description = "Saved", body = replies::OneMember), ApiErrors))]
pub async fn update(
    state: web::Data<AppState>,
    access: BotAccess<ManageTeam>,
    path: web::Path<(String, String)>,
    body: web::Json<RoleBody>,
) -> ApiResult<HttpResponse> {
    let (_, member_id) = path.into_inner();
    if member_id == access.bot.owner_id {
        return Err(ApiError::forbidden(OWNER_FIXED));
    }
    let role = Role::parse_member(body.role.as_deref().unwrap_or(""))
        .ok_or_else(|| ApiError::validation("Role must be admin, editor, viewer or agent"))?;
    let member = state.store.set_member_role(&access.bot.id, &member_id, role).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("Team member"),
        other => other.into(),
    })?;
    // The live path reloads roles now, not when its cache expires, and a connected agent
    // demoted to viewer or editor stops being offered as online or as a transfer target.
    match &member.user_id {
        Some(user_id) => {
            state.engine.role_changed(&access.bot.id, user_id, role);
            if !role.can_handle_support() {
                requeue(&state, &access.bot.id, user_id).await;
            }
        }
        None => state.engine.access_changed(),
    }
    state
        .store
        .log_activity(Some(&access.user.id), Some(&access.bot.id), "team", &format!("Changed {} to {}", member.email, member.role))
        .await?;
    let user = match &member.user_id {
        Some(id) => state.store.user_by_id(id).await?,
        None => None,
    };
    let entry = RosterEntry { member, user };
    Ok(HttpResponse::Ok().json(json!({"member": member_view(&entry, true), "message": "Team member updated successfully"})))
}

/// Removes a member (their live access ends at once) or revokes a pending invitation.
#[utoipa::path(delete, path = "/api/bots/{bot_id}/team/{member_id}", tag = "team", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ("member_id" = String, Path, description = "A team member (or pending invitation)")), responses((status = 200, description = "Removed or revoked", body = replies::MemberRemoved), ApiErrors))]
pub async fn remove(state: web::Data<AppState>, access: BotAccess<ManageTeam>, path: web::Path<(String, String)>) -> ApiResult<HttpResponse> {
    let (_, member_id) = path.into_inner();
    if member_id == access.bot.owner_id {
        return Err(ApiError::forbidden(OWNER_STAYS));
    }
    let member = state.store.remove_member(&access.bot.id, &member_id).await.map_err(|e| match e {
        StoreError::NotFound => ApiError::not_found("Team member"),
        other => other.into(),
    })?;
    let revoked = member.status == "pending";
    match &member.user_id {
        Some(user_id) => {
            state.engine.member_removed(&access.bot.id, user_id);
            requeue(&state, &access.bot.id, user_id).await;
        }
        None => state.engine.access_changed(),
    }
    let action = if revoked { format!("Revoked the invitation to {}", member.email) } else { format!("Removed {}", member.email) };
    state.store.log_activity(Some(&access.user.id), Some(&access.bot.id), "team", &action).await?;
    let message = if revoked { "Invitation revoked" } else { "Team member removed successfully" };
    Ok(HttpResponse::Ok().json(json!({"ok": true, "revoked": revoked, "message": message})))
}

/// The member's open conversations go back to the queue. The change to the team is already
/// saved, so a failure here is logged rather than answered as the request's failure.
async fn requeue(state: &AppState, bot_id: &str, user_id: &str) {
    if let Err(e) = state.engine.requeue_sessions_of(bot_id, user_id).await {
        tracing::warn!(bot = bot_id, "could not return a former agent's conversations to the queue: {e}");
    }
}

pub(crate) fn url_escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
