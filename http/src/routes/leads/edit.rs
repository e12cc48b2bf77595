//! Changing leads: `POST /api/leads` (New Lead), `PUT /api/leads/{id}` (the Edit form),
//! `PATCH /api/leads/{id}/status` (the inline select), `DELETE /api/leads/{id}`. Each checks
//! everything before it writes, so a refused change changes nothing.

use crate::openapi::{replies, ApiErrors};
use actix_web::{web, HttpResponse};
use parley_store::leads::LeadChanges;
use parley_store::StoreError;
use serde::Deserialize;
use serde_json::json;

use super::input::{self, LeadBody};
use crate::auth::{AuthUser, DeleteLeads, EditLeads, LeadAccess, Policy, SetLeadStatus};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

const NOT_ON_TEAM: &str = "The assigned member must be on this bot's team";

/// The assignee must be able to see the lead: the bot's owner or an active member.
async fn check_assignee(state: &AppState, bot_id: &str, assignee: Option<&str>) -> ApiResult<()> {
    if let Some(user_id) = assignee {
        if state.store.bot_for_user(bot_id, user_id).await?.is_none() {
            return Err(ApiError::validation(NOT_ON_TEAM));
        }
    }
    Ok(())
}

/// The saved lead as the table shows it.
async fn row_json(state: &AppState, id: &str) -> ApiResult<serde_json::Value> {
    let row = state.store.lead_row(id).await?.ok_or_else(|| ApiError::not_found("Lead"))?;
    Ok(views::leads::lead_row(&row))
}

fn gone(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound => ApiError::not_found("Lead"),
        other => other.into(),
    }
}

#[utoipa::path(post, path = "/api/leads", tag = "leads", security(("bearer" = [])), request_body = LeadBody, responses((status = 201, description = "Created", body = replies::LeadSaved), ApiErrors))]
pub async fn create(state: web::Data<AppState>, AuthUser(user): AuthUser, body: web::Json<LeadBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let bot_id = body.bot()?;
    let (bot, role) = state.store.bot_for_user(&bot_id, &user.id).await?.ok_or_else(|| ApiError::not_found("Bot"))?;
    if !EditLeads::allows(role) {
        return Err(ApiError::forbidden(EditLeads::REFUSAL));
    }
    let new = body.into_new(bot.id)?;
    check_assignee(&state, &new.bot_id, new.assigned_to.as_deref()).await?;
    let lead = state.store.create_lead(new).await?;
    Ok(HttpResponse::Created().json(json!({"lead": row_json(&state, &lead.id).await?, "message": "Lead created successfully"})))
}

#[utoipa::path(put, path = "/api/leads/{lead_id}", tag = "leads", security(("bearer" = [])), params(("lead_id" = String, Path, description = "The lead's id")), request_body = LeadBody, responses((status = 200, description = "Updated", body = replies::LeadSaved), ApiErrors))]
pub async fn update(state: web::Data<AppState>, access: LeadAccess<EditLeads>, body: web::Json<LeadBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    // A lead stays with its bot: moving it would hand its details to another team.
    if body.bot_id.as_deref().is_some_and(|b| b != access.lead.bot_id) {
        return Err(ApiError::validation("A lead cannot be moved to another bot"));
    }
    let changes = body.into_changes()?;
    // Only a new assignee is checked: the edit form sends the current one back, and a lead
    // whose assignee has since left the team must still be editable.
    if let Some(assignee) = changes.assigned_to.as_ref().filter(|a| a.as_deref() != access.lead.assigned_to.as_deref()) {
        check_assignee(&state, &access.lead.bot_id, assignee.as_deref()).await?;
    }
    state.store.update_lead(&access.lead.id, changes).await.map_err(gone)?;
    Ok(HttpResponse::Ok().json(json!({"lead": row_json(&state, &access.lead.id).await?, "message": "Lead updated successfully"})))
}

#[derive(Deserialize, utoipa::ToSchema)]
pub struct StatusBody {
    #[serde(default)]
    status: String,
}

#[utoipa::path(patch, path = "/api/leads/{lead_id}/status", tag = "leads", security(("bearer" = [])), params(("lead_id" = String, Path, description = "The lead's id")), request_body = StatusBody, responses((status = 200, description = "Status saved", body = replies::LeadSaved), ApiErrors))]
pub async fn set_status(state: web::Data<AppState>, access: LeadAccess<SetLeadStatus>, body: web::Json<StatusBody>) -> ApiResult<HttpResponse> {
    let status = input::status(&body.status)?;
    state.store.update_lead(&access.lead.id, LeadChanges { status: Some(status), ..LeadChanges::default() }).await.map_err(gone)?;
    Ok(HttpResponse::Ok().json(json!({"lead": row_json(&state, &access.lead.id).await?, "message": "Lead status updated"})))
}

#[utoipa::path(delete, path = "/api/leads/{lead_id}", tag = "leads", security(("bearer" = [])), params(("lead_id" = String, Path, description = "The lead's id")), responses((status = 200, description = "Deleted", body = replies::Done), ApiErrors))]
pub async fn delete(state: web::Data<AppState>, access: LeadAccess<DeleteLeads>) -> ApiResult<HttpResponse> {
    state.store.delete_lead(&access.lead.id).await.map_err(gone)?;
    Ok(HttpResponse::Ok().json(json!({"ok": true, "message": "Lead deleted successfully"})))
}
