//! The dashboard's session calls: lists, one session with its messages, resolve, status and
//! priority, pin and star, take (assign-agent), delete, and the inline edit of a bot message.

use crate::openapi::{replies, ApiErrors};
use utoipa::{IntoParams, ToSchema};

use actix_web::{web, HttpResponse};
use parley_store::chat::{FlagFilter, SessionFilter};
use serde::Deserialize;
use serde_json::json;

use crate::auth::caller::member;
use crate::auth::{AuthUser, Caller};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views::chat::{self as view, OneSessionWithMessages, SessionFor, SessionWithMessages, Sessions};
use crate::views::visitor::{self, VisitorSessionWithMessages};
use parley_engine::chat::Who;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ListQuery {
    bot_id: Option<String>,
    page: Option<i64>,
    limit: Option<i64>,
    /// Keeps the sessions whose title contains this (any case).
    q: Option<String>,
    /// `true`: only pinned sessions; `false`: only those not pinned.
    pinned: Option<bool>,
    /// `true`: only starred sessions; `false`: only those not starred.
    starred: Option<bool>,
}

fn page_of(q: &ListQuery) -> (i64, i64, i64) {
    let w = crate::domain::PageWindow::new(q.page, q.limit, 50, 200);
    (w.page, w.limit, w.offset)
}

/// A page of sessions: of one bot, or (`bot_id` `None`) of every bot the user works on.
async fn listing(state: &AppState, user: &parley_store::models::User, bot_id: Option<&str>, filter: SessionFilter, q: &ListQuery) -> ApiResult<HttpResponse> {
    let (page, limit, offset) = page_of(q);
    let flags = FlagFilter { pinned: q.pinned, starred: q.starred };
    let search = q.q.as_deref();
    let (sessions, total) = match bot_id {
        Some(bot_id) => state.engine.sessions(&user.id, bot_id, filter, search, flags, offset, limit).await?,
        None => state.engine.sessions_of_all_bots(&user.id, filter, search, flags, offset, limit).await?,
    };
    Ok(HttpResponse::Ok().json(json!({"sessions": Sessions(&sessions), "total": total, "page": page, "limit": limit})))
}

/// `GET /api/sessions?botId=&page=&limit=&q=&pinned=&starred=`: pinned sessions first, then the
/// newest activity. Without `botId` (as spec 2 calls it), the sessions of every bot the caller
/// owns or is a member of; each names its `botId`.
#[utoipa::path(get, path = "/api/sessions", tag = "sessions", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "A page of the bot's sessions (or, without botId, of all the caller's bots), pinned ones first", body = replies::SessionsPage), ApiErrors))]
pub async fn list(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<ListQuery>) -> ApiResult<HttpResponse> {
    let bot_id = q.bot_id.as_deref().filter(|b| !b.is_empty());
    listing(&state, &user, bot_id, SessionFilter::All, &q).await
}

#[utoipa::path(get, path = "/api/chat/bot/{bot_id}/support-sessions", tag = "sessions", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ListQuery), responses((status = 200, description = "Waiting for an agent", body = replies::SessionsPage), ApiErrors))]
pub async fn support_sessions(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, q: web::Query<ListQuery>) -> ApiResult<HttpResponse> {
    listing(&state, &user, Some(&path), SessionFilter::SupportQueue, &q).await
}

#[utoipa::path(get, path = "/api/chat/bot/{bot_id}/agent-sessions", tag = "sessions", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ListQuery), responses((status = 200, description = "Assigned to the caller", body = replies::SessionsPage), ApiErrors))]
pub async fn agent_sessions(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, q: web::Query<ListQuery>) -> ApiResult<HttpResponse> {
    listing(&state, &user, Some(&path), SessionFilter::AssignedTo, &q).await
}

#[utoipa::path(get, path = "/api/chat/bot/{bot_id}/all-sessions", tag = "sessions", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ListQuery), responses((status = 200, description = "Open sessions", body = replies::SessionsPage), ApiErrors))]
pub async fn all_sessions(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, q: web::Query<ListQuery>) -> ApiResult<HttpResponse> {
    listing(&state, &user, Some(&path), SessionFilter::Open, &q).await
}

/// `GET /api/chat/get-chat-session/{id}`: a member of the bot, or the session's visitor (with
/// their token as `X-Visitor-Token`), sees the session and its messages.
#[utoipa::path(get, path = "/api/chat/get-chat-session/{id}", tag = "sessions", security(("bearer" = []), ("visitorToken" = [])), params(("id" = String, Path, description = "The chat session's id")), responses((status = 200, description = "The session and its messages", body = crate::views::chat::OneSessionWithMessages), ApiErrors))]
pub async fn get(state: web::Data<AppState>, caller: Caller, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let who = caller.into_who();
    let (session, messages) = state.engine.session_with_messages(&who, &path, 500).await?;
    let session = if matches!(who, Who::Visitor { .. }) {
        SessionFor::Visitor(VisitorSessionWithMessages { session: visitor::session(&session), messages: view::Messages(&messages) })
    } else {
        SessionFor::Team(SessionWithMessages { session: view::session(&session), messages: view::Messages(&messages) })
    };
    Ok(HttpResponse::Ok().json(OneSessionWithMessages { session }))
}

#[utoipa::path(delete, path = "/api/chat/sessions/{id}", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id")), responses((status = 200, description = "Deleted", body = replies::Done), ApiErrors))]
pub async fn delete(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>) -> ApiResult<HttpResponse> {
    state.engine.delete_session(&user.id, &path).await?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

#[derive(Deserialize, ToSchema)]
pub struct ResolveBody {
    rating: Option<i32>,
    /// The agent's notes (spec: "feedback"); kept private to the team.
    feedback: Option<String>,
    notes: Option<String>,
}

#[utoipa::path(put, path = "/api/chat/session/{id}/resolve", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id")), request_body = ResolveBody, responses((status = 200, description = "Resolved", body = replies::OneSession), ApiErrors))]
pub async fn resolve(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, body: web::Json<ResolveBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let session = state.engine.resolve(&member(&user), &path, body.rating, body.feedback.or(body.notes)).await?;
    Ok(HttpResponse::Ok().json(json!({"session": view::session(&session)})))
}

#[derive(Deserialize, ToSchema)]
pub struct StatusBody {
    status: Option<String>,
    priority: Option<String>,
    /// Replaces the session's tags (the team's own; visitors never see them).
    tags: Option<Vec<String>>,
}

#[utoipa::path(put, path = "/api/chat/session/{id}/status", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id")), request_body = StatusBody, responses((status = 200, description = "Saved", body = replies::OneSession), ApiErrors))]
pub async fn status(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, body: web::Json<StatusBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    if body.status.is_none() && body.priority.is_none() && body.tags.is_none() {
        return Err(ApiError::validation("Give a status, a priority or tags"));
    }
    // Both are checked before the resolve below: a refused priority must not leave it resolved.
    parley_engine::chat::Engine::check_status(body.status.as_deref(), body.priority.as_deref())?;
    if let Some(tags) = &body.tags {
        parley_engine::chat::Engine::check_tags(tags)?;
    }
    // Resolving is one path whichever call asks for it: the resolve time, who resolved it, the
    // system note and the dashboards' `session-resolved` (a status write alone would skip them).
    let (status, mut session) = match body.status.as_deref() {
        Some("resolved") => (None, Some(state.engine.resolve(&member(&user), &path, None, None).await?)),
        other => (other, None),
    };
    if status.is_some() || body.priority.is_some() {
        session = Some(state.engine.set_status(&user.id, &path, status, body.priority.as_deref()).await?);
    }
    if let Some(tags) = body.tags {
        session = Some(state.engine.set_flags(&user.id, &path, FlagFilter::default(), Some(tags)).await?);
    }
    let session = session.ok_or_else(|| ApiError::validation("Give a status, a priority or tags"))?;
    Ok(HttpResponse::Ok().json(json!({"session": view::session(&session)})))
}

/// The team's marks on a session; a mark not given keeps its value.
#[derive(Deserialize, ToSchema)]
pub struct FlagsBody {
    /// Also as `isPinned`, the name the session is read with.
    #[serde(alias = "isPinned")]
    pinned: Option<bool>,
    #[serde(alias = "isStarred")]
    starred: Option<bool>,
    /// Replaces the session's tags.
    tags: Option<Vec<String>>,
}

/// `PUT /api/chat/session/{id}`: pins or stars the session (owner, admin, editor, agent of its
/// bot; a viewer gets 403, anyone else 404).
#[utoipa::path(put, path = "/api/chat/session/{id}", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id")), request_body = FlagsBody, responses((status = 200, description = "Saved", body = replies::OneSession), ApiErrors))]
pub async fn flags(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>, body: web::Json<FlagsBody>) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let flags = FlagFilter { pinned: body.pinned, starred: body.starred };
    let session = state.engine.set_flags(&user.id, &path, flags, body.tags).await?;
    Ok(HttpResponse::Ok().json(json!({"session": view::session(&session)})))
}

/// `POST /api/chat/session/{id}/assign-agent`: the caller takes the session. 409 when another
/// agent already has it.
#[utoipa::path(post, path = "/api/chat/session/{id}/assign-agent", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id")), responses((status = 200, description = "Taken by the caller", body = replies::OneSession), ApiErrors))]
pub async fn assign_agent(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let outcome = state.engine.take_session(&member(&user), &path).await?;
    if !outcome.won {
        return Err(ApiError::conflict("Another agent has already taken this session"));
    }
    Ok(HttpResponse::Ok().json(json!({"session": view::session(&outcome.session)})))
}

#[derive(Deserialize, ToSchema)]
pub struct EditBody {
    #[serde(default)]
    content: String,
}

#[utoipa::path(put, path = "/api/chat/session/{id}/messages/{message_id}", tag = "sessions", security(("bearer" = [])), params(("id" = String, Path, description = "The chat session's id"), ("message_id" = String, Path, description = "A bot message of the session")), request_body = EditBody, responses((status = 200, description = "Edited", body = replies::OneMessage), ApiErrors))]
pub async fn edit_message(state: web::Data<AppState>, AuthUser(user): AuthUser, path: web::Path<(String, String)>, body: web::Json<EditBody>) -> ApiResult<HttpResponse> {
    let (session_id, message_id) = path.into_inner();
    let message = state.engine.edit_message(&user.id, &session_id, &message_id, &body.content).await?;
    Ok(HttpResponse::Ok().json(json!({"message": view::message(&message)})))
}
