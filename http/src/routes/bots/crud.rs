//! Listing, reading, updating and deleting bots.

use crate::openapi::{entities, replies, ApiErrors};

use actix_web::{web, HttpResponse};
use parley_store::billing::Limit;
use parley_store::bots::{BotUpdate, WidgetConfig};
use serde_json::{json, Map, Value};

use crate::auth::{AuthUser, BotAccess, EditBot, OwnBot, ViewBot};
use crate::domain::{BotName, WebUrl};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

#[utoipa::path(get, path = "/api/bots", tag = "bots", security(("bearer" = [])), responses((status = 200, description = "The bots the caller can see, with their role", body = replies::Bots), ApiErrors))]
pub async fn list(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let bots = state.store.bots_for_user(&user.id).await?;
    let ids: Vec<String> = bots.iter().map(|(b, _)| b.id.clone()).collect();
    let conversations = state.store.conversation_counts(&ids).await?;
    let bots: Vec<Value> = bots
        .iter()
        .map(|(b, role)| {
            let mut view = views::bot(b, *role);
            view["conversationCount"] = json!(conversations.get(&b.id).copied().unwrap_or(0));
            view
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({"bots": bots})))
}

#[utoipa::path(get, path = "/api/bots/{bot_id}", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "The bot", body = replies::OneBot), ApiErrors))]
pub async fn get(access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(json!({"bot": views::bot(&access.bot, access.role)})))
}

/// Fields a client may send back unchanged from a `GET` (or with a customization save, as
/// `botId`) but not change.
const READ_ONLY: [&str; 9] = ["_id", "id", "botId", "role", "createdAt", "updatedAt", "lastActive", "icon", "conversationCount"];

/// The customization save's own names (spec 2 §3) for fields stored under another name, with
/// the value as stored: a font size may come as the number of pixels.
fn stored_name(key: String, value: Value) -> (String, Value) {
    let stored = match key.as_str() {
        "customPrimaryColor" => "primaryColour",
        "customSecondaryColor" => "secondaryColour",
        "customBgColor" => "backgroundColour",
        "userAvatar" => "userIcon",
        "botName" => "name",
        "selectedFontSize" => {
            let value = match value.as_u64() {
                Some(px) => Value::String(format!("{px}px")),
                None => value,
            };
            return ("typography".into(), value);
        }
        _ => return (key, value),
    };
    (stored.into(), value)
}

fn string(value: &Value, field: &str) -> ApiResult<String> {
    value.as_str().map(str::to_string).ok_or_else(|| ApiError::validation(format!("{field} must be text")))
}

fn max_chars(value: String, field: &str, max: usize) -> ApiResult<String> {
    if value.chars().count() > max {
        return Err(ApiError::validation(format!("{field} must be at most {max} characters")));
    }
    Ok(value)
}

/// `PUT /api/bots/{id}`: a partial update. Bot fields and widget fields may be mixed in one
/// body; the widget fields are merged over the stored configuration and the result must pass
/// the editor's rules. An unknown field is refused rather than silently dropped.
/// Changes the bot: name, description, status, websiteUrl, systemPrompt, and any widget field.
#[utoipa::path(put, path = "/api/bots/{bot_id}", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = entities::BotUpdate, responses((status = 200, description = "Saved", body = replies::OneBot), ApiErrors))]
pub async fn update(
    state: web::Data<AppState>,
    access: BotAccess<EditBot>,
    body: web::Json<Map<String, Value>>,
) -> ApiResult<HttpResponse> {
    let mut update = BotUpdate::default();
    let stored = WidgetConfig::from_json(&access.bot.widget);
    let known = widget_fields(&stored);
    let mut patch = Map::new();
    for (key, value) in body.into_inner().into_iter().map(|(k, v)| stored_name(k, v)) {
        match key.as_str() {
            "name" => update.name = Some(BotName::parse(&if value.is_null() { String::new() } else { string(&value, "name")? })?.into_inner()),
            "description" => update.description = Some(max_chars(string(&value, "description")?.trim().into(), "Description", 500)?),
            "status" => {
                let status = string(&value, "status")?;
                if status != "active" && status != "inactive" {
                    return Err(ApiError::validation("Status must be active or inactive"));
                }
                update.status = Some(status);
            }
            "websiteUrl" => {
                let raw = if value.is_null() { String::new() } else { string(&value, "websiteUrl")? };
                update.website_url = Some(match raw.trim() {
                    "" => None,
                    raw => Some(WebUrl::parse(raw)?.into_inner()),
                })
            }
            "systemPrompt" => {
                let prompt = max_chars(string(&value, "systemPrompt")?.trim().into(), "System prompt", 4000)?;
                if prompt.is_empty() {
                    return Err(ApiError::validation("System prompt cannot be empty"));
                }
                update.system_prompt = Some(prompt);
            }
            k if READ_ONLY.contains(&k) => {}
            k if known.contains_key(k) => {
                patch.insert(key, value);
            }
            other => return Err(ApiError::validation(format!("Unknown field {other}"))),
        }
    }
    if !patch.is_empty() {
        // Checked now against the configuration as read, so a refusal costs no write; merged
        // again inside the update over the configuration as it is then, so a save of other
        // widget fields that landed meanwhile is kept.
        merged_widget(stored, &patch).map_err(ApiError::validation)?;
        update.widget_change = Some(Box::new(move |current| merged_widget(current, &patch)));
    }
    let switching_on = update.status.as_deref() == Some("active") && access.bot.status != "active";
    let allowance = if switching_on { Some(active_allowance(&state, &access.bot.owner_id).await?) } else { None };
    // Counted inside the update, so two bots switched on at once cannot both pass; a refusal
    // rolls the whole update back.
    update.active_limit = allowance.as_ref().map(|a| a.limit);
    let bot = match (state.store.update_bot(&access.bot.id, update).await, allowance) {
        (Err(parley_store::StoreError::LimitReached(_)), Some(a)) => return Err(a.refusal()),
        (result, _) => result?,
    };
    state.engine.bot_changed(&access.bot.id);
    Ok(HttpResponse::Ok().json(json!({"bot": views::bot(&bot, access.role)})))
}

/// The owner's plan's active assistants, for switching a bot on.
struct ActiveAllowance {
    plan_name: String,
    limit: i32,
}

impl ActiveAllowance {
    fn refusal(&self) -> ApiError {
        let limit = self.limit;
        ApiError::plan_limit(
            Limit::Bots,
            format!(
                "Your {} plan allows {} active assistant{}. Upgrade your plan on the Billing page (/billing), or switch another assistant off first.",
                self.plan_name,
                limit,
                if limit == 1 { "" } else { "s" }
            ),
        )
    }
}

/// Switching a bot on must keep the owner's active bots within their plan: bots paused by a
/// smaller plan (and any beyond it) stay off until there is room. The plan's allowance, for
/// the count the update makes (`BotUpdate::active_limit`).
async fn active_allowance(state: &AppState, owner_id: &str) -> ApiResult<ActiveAllowance> {
    let allowance = state.store.allowance(owner_id).await?;
    Ok(ActiveAllowance { plan_name: allowance.plan.name.clone(), limit: allowance.plan.bots_limit })
}

/// The widget's fields by their stored names.
fn widget_fields(widget: &WidgetConfig) -> Map<String, Value> {
    match serde_json::to_value(widget) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// `patch` (widget fields by their stored names) over `widget`, if the result passes the
/// editor's rules; else the rule's words.
fn merged_widget(widget: WidgetConfig, patch: &Map<String, Value>) -> Result<WidgetConfig, String> {
    let mut fields = widget_fields(&widget);
    for (key, value) in patch {
        fields.insert(key.clone(), value.clone());
    }
    let mut merged: WidgetConfig = serde_json::from_value(Value::Object(fields)).map_err(|e| format!("Invalid widget configuration: {e}"))?;
    merged.validate()?;
    for text in [&merged.welcome_message, &merged.popup_message, &merged.lead_capture_message, &merged.handover_message] {
        if text.chars().count() > 1000 {
            return Err("Messages must be at most 1000 characters".into());
        }
    }
    Ok(merged)
}

/// Deletes the bot with everything it owns, its files too (icon and training PDFs).
#[utoipa::path(delete, path = "/api/bots/{bot_id}", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 204, description = "Deleted, with its sources, sessions and files"), ApiErrors))]
pub async fn delete(state: web::Data<AppState>, access: BotAccess<OwnBot>) -> ApiResult<HttpResponse> {
    let files: Vec<std::path::PathBuf> = state.store.sources_of_bot(&access.bot.id).await?.into_iter().filter_map(|s| s.file_path).map(Into::into).collect();
    state.store.delete_bot(&access.bot.id).await?;
    // Only once the rows are gone: a failed delete must leave the bot whole.
    for file in files {
        crate::uploads::discard(file).await;
    }
    crate::uploads::discard_public(&state.settings.data_dir, access.bot.icon.as_deref()).await;
    state.engine.bot_changed(&access.bot.id);
    state
        .store
        .log_activity(Some(&access.user.id), None, "bot", &format!("Deleted assistant {}", access.bot.name))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
