//! `GET /api/bots/{id}/theme`: the public look of a bot's chat, for the widget and `/chat`.
//! No sign-in: visitors call it. It shows only what the chat draws, never settings or owner.

use crate::openapi::{entities, ApiErrors};

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use parley_store::bots::WidgetConfig;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Called cross-origin by widget.js on the customer's site: a site on the bot's whitelist (any
/// site when the list is empty) may read it; others are refused, so the launcher does not show.
#[utoipa::path(get, path = "/api/bots/{id}/theme", tag = "bots", params(("id" = String, Path, description = "The bot's id"), ("Origin" = Option<String>, Header, description = "The embedding site; refused unless on the bot's whitelist")), responses((status = 200, description = "What the chat draws", body = entities::Theme), ApiErrors))]
pub async fn theme(state: web::Data<AppState>, req: HttpRequest, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let bot = state.store.bot_by_id(&path).await?.ok_or_else(|| ApiError::not_found("Bot"))?;
    let from = crate::visitor_guard::CallOrigin::of(&req);
    if let Some(from) = &from {
        let settings = state.store.bot_settings(&bot.id).await?;
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
    let mut out = match serde_json::to_value(WidgetConfig::from_json(&bot.widget)) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    out.remove("customCSS");
    if let Value::Object(core) = json!({
        "_id": bot.id,
        "name": bot.name,
        "icon": bot.icon,
        "status": bot.status,
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
