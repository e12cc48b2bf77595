//! Invitations addressed to the signed-in user: list the pending ones, accept or decline.
//! Matching is by email, so only an account whose address was verified may see or answer
//! them: anyone can *register* any address.

use crate::openapi::{replies, ApiErrors};
use utoipa::{OpenApi, ToSchema};

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

#[derive(OpenApi)]
#[openapi(paths(list, respond))]
pub struct Api;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/invitations", web::get().to(list))
        .route("/invitations/{id}/respond", web::post().to(respond));
}

/// Invitations waiting for the caller's (verified) address.
#[utoipa::path(get, path = "/api/invitations", tag = "team", security(("bearer" = [])), responses((status = 200, description = "Pending invitations", body = replies::Invitations), ApiErrors))]
async fn list(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    // An address nobody has proved is not shown what was sent to it (that was the hijack); the
    // list is simply empty, so the dashboard's invitation badge works before verification too.
    if !user.email_verified {
        return Ok(HttpResponse::Ok().json(json!({"invitations": [], "emailUnverified": true})));
    }
    let invitations = state.store.pending_invitations(&user.email).await?;
    let invitations: Vec<_> = invitations.iter().map(views::invitation).collect();
    Ok(HttpResponse::Ok().json(json!({"invitations": invitations})))
}

#[derive(Deserialize, ToSchema)]
struct RespondBody {
    accept: bool,
}

#[utoipa::path(post, path = "/api/invitations/{id}/respond", tag = "team", security(("bearer" = [])), params(("id" = String, Path, description = "The invitation (team member) id")), request_body = RespondBody, responses((status = 200, description = "Answered", body = replies::InvitationAnswered), ApiErrors))]
async fn respond(
    state: web::Data<AppState>,
    AuthUser(user): AuthUser,
    path: web::Path<String>,
    body: web::Json<RespondBody>,
) -> ApiResult<HttpResponse> {
    if !user.email_verified {
        return Err(super::team::unverified());
    }
    state
        .store
        .respond_invitation(&path, &user, body.accept)
        .await
        .map_err(|e| match e {
            parley_store::StoreError::NotFound => ApiError::not_found("Invitation"),
            other => other.into(),
        })?;
    if body.accept {
        state.engine.access_changed();
    }
    let action = if body.accept { "Accepted an invitation" } else { "Declined an invitation" };
    state.store.log_activity(Some(&user.id), None, "team", action).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true, "accepted": body.accept})))
}
