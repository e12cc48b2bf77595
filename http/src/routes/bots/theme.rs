//! `GET /api/bots/{id}/theme`: the public look of a bot's chat, for the widget and `/chat`.
//! No sign-in: visitors call it. It shows only what the chat draws, never settings or owner.

use actix_web::{web, HttpResponse};
use parley_store::bots::WidgetConfig;
use serde_json::{json, Value};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub async fn theme(state: web::Data<AppState>, path: web::Path<String>) -> ApiResult<HttpResponse> {
    let bot = state.store.bot_by_id(&path).await?.ok_or_else(|| ApiError::not_found("Bot"))?;
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
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-cache")).json(Value::Object(out)))
}
