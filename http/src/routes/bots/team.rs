//! `/api/bots/{id}/team`: the members of a bot's team and inviting someone (spec 1 "Team
//! Management"; owners and admins invite).

use actix_web::{web, HttpResponse};
use parley_store::{Role, StoreError};
use serde::Deserialize;
use serde_json::json;

use crate::auth::{BotAccess, ManageTeam, ViewBot};
use crate::domain::Email;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub async fn list(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let members = state.store.team_members(&access.bot.id).await?;
    let owner = state.store.user_by_id(&access.bot.owner_id).await?;
    let members: Vec<_> = members
        .iter()
        .map(|m| {
            json!({
                "_id": m.id, "id": m.id, "userId": m.user_id, "email": m.email, "role": m.role, "status": m.status,
                "joinedAt": m.joined_at.as_ref().map(parley_store::time::to_rfc3339),
                "invitedAt": parley_store::time::to_rfc3339(&m.invited_at),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "members": members,
        "ownerId": access.bot.owner_id,
        "owner": owner.map(|o| json!({"_id": o.id, "name": o.name, "email": o.email})),
        "canInvite": access.role.can_manage_team(),
        "canRemoveMembers": access.role.can_manage_team(),
    })))
}

#[derive(Deserialize)]
pub struct InviteBody {
    #[serde(default)]
    email: String,
    role: Option<String>,
}

pub async fn invite(state: web::Data<AppState>, access: BotAccess<ManageTeam>, body: web::Json<InviteBody>) -> ApiResult<HttpResponse> {
    if body.email.trim().is_empty() {
        return Err(ApiError::validation("Email address is required"));
    }
    let email = Email::parse(&body.email)?;
    // An invitation defaults to viewer (spec 1 §4).
    let role = Role::parse_member(body.role.as_deref().unwrap_or("viewer"))
        .ok_or_else(|| ApiError::validation("Role must be admin, editor, viewer or agent"))?;
    let owner = state.store.user_by_id(&access.bot.owner_id).await?;
    if owner.is_some_and(|o| o.email == email.as_str()) {
        return Err(ApiError::conflict("The owner is already on the team"));
    }
    let member = state.store.invite_member(&access.bot.id, email.as_str(), role, &access.user.id).await.map_err(|e| match e {
        StoreError::Conflict(_) => ApiError::conflict("This person is already on the team or invited"),
        other => other.into(),
    })?;
    state
        .store
        .log_activity(Some(&access.user.id), Some(&access.bot.id), "team", &format!("Invited {} as {}", member.email, member.role))
        .await?;
    Ok(HttpResponse::Created().json(json!({"member": {"_id": member.id, "email": member.email, "role": member.role, "status": member.status}})))
}
