//! Chat over REST (spec 2 §7): the visitor's chat call, and the dashboard's session calls.
//! Every change goes through the engine, so live clients hear the same events as on the
//! socket path.

pub(crate) mod first_messages;
mod send;
mod sessions;
mod stats;

use actix_web::web;
use utoipa::OpenApi;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/chat", web::post().to(send::send))
        .route("/sessions", web::get().to(sessions::list))
        .route("/chat/get-chat-session/{id}", web::get().to(sessions::get))
        .route("/chat/sessions/{id}", web::delete().to(sessions::delete))
        .route("/chat/session/{id}", web::put().to(sessions::flags))
        .route("/chat/session/{id}/resolve", web::put().to(sessions::resolve))
        .route("/chat/session/{id}/status", web::put().to(sessions::status))
        .route("/chat/session/{id}/assign-agent", web::post().to(sessions::assign_agent))
        .route("/chat/session/{id}/messages/{message_id}", web::put().to(sessions::edit_message))
        .route("/chat/bot/{bot_id}/support-sessions", web::get().to(sessions::support_sessions))
        .route("/chat/bot/{bot_id}/agent-sessions", web::get().to(sessions::agent_sessions))
        .route("/chat/bot/{bot_id}/all-sessions", web::get().to(sessions::all_sessions))
        .route("/chat/bot/{bot_id}/support-stats", web::get().to(stats::support_stats));
}

#[derive(OpenApi)]
#[openapi(
    paths(
        send::send, sessions::list, sessions::get, sessions::delete, sessions::resolve, sessions::status, sessions::flags,
        sessions::assign_agent, sessions::edit_message, sessions::support_sessions, sessions::agent_sessions,
        sessions::all_sessions, stats::support_stats,
    ),
    tags(
        (name = "chat", description = "The visitor's chat call"),
        (name = "sessions", description = "The dashboard's chat sessions"),
    )
)]
pub struct Api;
