//! `/api/leads`: the Leads page (spec 1 "Leads page"). Leads of every bot the caller may see,
//! or of one with `botId`; filtered, sorted and paged by the server; created, edited, given a
//! status and deleted by the roles spec 1 §6 allows (owner and admin everything, editor edits,
//! agent sets status, viewer reads and exports); counted for the cards and Insights; exported
//! as CSV or JSON, streamed.

mod csv;
mod edit;
mod export;
mod input;
mod list;

use actix_web::web;
use utoipa::OpenApi;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(paths(list::list, list::stats, edit::create, edit::update, edit::set_status, edit::delete, export::export))]
pub struct Api;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/leads", web::get().to(list::list))
        .route("/leads", web::post().to(edit::create))
        .route("/leads/stats", web::get().to(list::stats))
        .route("/leads/export", web::get().to(export::export))
        .route("/leads/{lead_id}", web::put().to(edit::update))
        .route("/leads/{lead_id}", web::delete().to(edit::delete))
        .route("/leads/{lead_id}/status", web::patch().to(edit::set_status));
}

/// The bots whose leads the caller reads: every bot they may see, or the one `bot` names (404
/// when it is not theirs, as for any bot).
async fn readable_bots(state: &AppState, user_id: &str, bot: Option<&str>) -> ApiResult<Vec<String>> {
    match bot {
        Some(bot_id) => {
            state.store.bot_for_user(bot_id, user_id).await?.ok_or_else(|| ApiError::not_found("Bot"))?;
            Ok(vec![bot_id.to_string()])
        }
        None => Ok(state.store.visible_bot_ids(user_id).await?),
    }
}
