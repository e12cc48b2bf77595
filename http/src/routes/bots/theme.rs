//! `GET /api/bots/{id}/theme`: the public look of a bot's chat, for the widget and `/chat`.
//! No sign-in: visitors call it. It shows only what the chat draws, never settings or owner.

use crate::openapi::{entities, ApiErrors};

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use parley_store::bots::WidgetConfig;
use parley_store::custom_css;
use parley_store::knowledge::TrainingStatus;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Called cross-origin by widget.js on the customer's site: a site on the bot's whitelist (any
/// site when the list is empty) may read it; others are refused, so the launcher does not show.
#[utoipa::path(get, path = "/api/bots/{id}/theme", tag = "bots", params(("id" = String, Path, description = "The bot's id"), ("Origin" = Option<String>, Header, description = "The embedding site; refused unless on the bot's whitelist")), responses((status = 200, description = "What the chat draws", body = entities::Theme), ApiErrors))]
pub async fn theme(state: web::Data<AppState>, req: HttpRequest, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let bot = state.store.bot_by_id(&path).await?.ok_or_else(|| ApiError::not_found("Bot"))?;
    let settings = state.store.bot_settings(&bot.id).await?;
    let from = crate::visitor_guard::CallOrigin::of(&req);
    if let Some(from) = &from {
        if !from.allowed(&settings) {
            // Readable by the refused page, so the launcher can see the refusal and step aside.
            let mut refused = ApiError::from(crate::visitor_guard::Refusal::Origin).error_response();
            if let Ok(value) = header::HeaderValue::from_str(&from.origin) {
                refused.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
                refused.headers_mut().insert(header::VARY, header::HeaderValue::from_static("Origin"));
            }
            return Ok(refused);
        }
    }
    let mut config = WidgetConfig::from_json(&bot.widget);
    // The chat's counter shows the limit the server enforces: the smaller of the widget's
    // maximum message length and the bot's "Max chat text size" setting.
    if let Ok(setting) = u32::try_from(settings.max_chat_text_size) {
        config.max_message_length = config.max_message_length.min(setting);
    }
    let faq = if config.enable_faq { faq_questions(&state, &bot.id).await? } else { Vec::new() };
    // CSS stored before it was checked on save is not served unless it passes now.
    let css = if custom_css::check(&config.custom_css).is_ok() { config.custom_css.clone() } else { String::new() };
    let mut out = match serde_json::to_value(config) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    if let Value::Object(core) = json!({
        "_id": bot.id,
        "name": bot.name,
        "icon": bot.icon,
        "status": bot.status,
        "customCSS": css,
        "faqQuestions": faq,
        // Whether a person can answer a handoff now; when not, the chat says when the team is
        // available (business hours) and takes the visitor's details for later.
        "agentsOnline": state.engine.agents_online(&bot.id) > 0,
    }) {
        out.extend(core);
    }
    let mut res = HttpResponse::Ok();
    res.insert_header(("Cache-Control", "no-cache"));
    if let Some(from) = from {
        res.insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, from.origin)).insert_header((header::VARY, "Origin"));
    }
    Ok(res.json(Value::Object(out)))
}

/// Most FAQ questions the chat suggests.
const FAQ_QUESTIONS: usize = 5;

/// The questions of the bot's trained Q&A pairs, oldest first: with the FAQ switch on, the chat
/// offers them as suggested questions (each one has an answer the bot knows).
async fn faq_questions(state: &AppState, bot_id: &str) -> ApiResult<Vec<String>> {
    let pairs = state.store.qa_pairs(bot_id).await?;
    Ok(pairs.into_iter().filter(|p| p.status == TrainingStatus::Completed.as_str()).map(|p| p.question).take(FAQ_QUESTIONS).collect())
}
