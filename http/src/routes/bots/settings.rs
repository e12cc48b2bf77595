//! `GET/PUT /api/bots/{id}/settings`: abuse protection (maximum chat text size, URL whitelist).

use crate::openapi::{entities, ApiErrors};
use utoipa::ToSchema;

use actix_web::{web, HttpResponse};
use parley_store::bots::BotSettings;
use serde::Deserialize;

use crate::auth::{BotAccess, EditBot, ViewBot};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

#[utoipa::path(get, path = "/api/bots/{bot_id}/settings", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "Abuse protection", body = entities::BotSettings), ApiErrors))]
pub async fn get(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let settings = state.store.bot_settings(&access.bot.id).await?;
    Ok(HttpResponse::Ok().json(views::bot_settings(&settings)))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsBody {
    /// Present even as `null` (which, like any non-number, is refused by the range).
    #[serde(default, deserialize_with = "present")]
    max_chat_text_size: Option<serde_json::Value>,
    url_whitelist: Option<Vec<String>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// A whitelist entry: an http(s) origin, or a host (optionally `*.`-prefixed) taken as https.
/// A page's address counts as its site: browsers send only the origin with the widget's calls,
/// so a path, query or fragment pasted with it could never narrow the check.
pub fn parse_whitelist_entry(raw: &str) -> ApiResult<String> {
    let entry = raw.trim();
    let bad = || ApiError::validation(format!("{raw:?} is not a website address like https://example.com"));
    let with_scheme = if entry.contains("://") { entry.to_string() } else { format!("https://{entry}") };
    let wildcard = with_scheme.contains("://*.");
    let parsable = with_scheme.replacen("://*.", "://", 1);
    let url = url::Url::parse(&parsable).map_err(|_| bad())?;
    let host = url.host_str().ok_or_else(bad)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad());
    }
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    Ok(format!("{}://{}{host}{port}", url.scheme(), if wildcard { "*." } else { "" }))
}

#[utoipa::path(put, path = "/api/bots/{bot_id}/settings", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = SettingsBody, responses((status = 200, description = "Saved", body = entities::BotSettings), ApiErrors))]
pub async fn update(
    state: web::Data<AppState>,
    access: BotAccess<EditBot>,
    body: web::Json<SettingsBody>,
) -> ApiResult<HttpResponse> {
    let mut settings = state.store.bot_settings(&access.bot.id).await?;
    let body = body.into_inner();
    if let Some(size) = body.max_chat_text_size {
        // The screen turns a non-number into 0, which the range then refuses.
        let whole = |f: f64| (f.fract() == 0.0 && f.abs() < 1e15).then_some(f as i64);
        let size = size.as_i64().or_else(|| size.as_f64().and_then(whole)).or_else(|| size.as_str().and_then(|s| s.trim().parse().ok())).unwrap_or(0);
        if !(100..=10_000).contains(&size) {
            return Err(ApiError::validation("Maximum chat text size must be between 100 and 10000"));
        }
        settings.max_chat_text_size = i32::try_from(size).unwrap_or(1000);
    }
    if let Some(entries) = body.url_whitelist {
        let mut list: Vec<String> = Vec::new();
        for raw in entries.iter().filter(|e| !e.trim().is_empty()) {
            let entry = parse_whitelist_entry(raw)?;
            if !list.contains(&entry) {
                list.push(entry);
            }
        }
        if list.len() > 100 {
            return Err(ApiError::validation("At most 100 whitelist entries"));
        }
        settings.url_whitelist = list;
    }
    let saved: BotSettings = state.store.save_bot_settings(&access.bot.id, &settings).await?;
    state.engine.bot_changed(&access.bot.id);
    Ok(HttpResponse::Ok().json(views::bot_settings(&saved)))
}

#[cfg(test)]
mod tests {
    use super::parse_whitelist_entry as p;

    #[test]
    fn whitelist_entries_become_origins() {
        assert_eq!(p(" https://Shop.example.com/ ").unwrap(), "https://shop.example.com");
        assert_eq!(p("example.com").unwrap(), "https://example.com");
        assert_eq!(p("*.example.com").unwrap(), "https://*.example.com");
        assert_eq!(p("http://localhost:5173").unwrap(), "http://localhost:5173");
        assert_eq!(p("https://example.com/contact?x=1#top").unwrap(), "https://example.com");
        assert_eq!(p("shop.example.com/help/").unwrap(), "https://shop.example.com");
        assert!(p("nope nope").is_err());
        assert!(p("https://").is_err());
        assert!(p("javascript:alert(1)").is_err());
        assert!(p("ftp://example.com").is_err());
    }
}
