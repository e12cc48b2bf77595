//! `POST /api/bots`: the creation wizard's multipart form (name, websiteUrl, faqMethod, faqFile,
//! faqText, icon). Everything is checked before anything is written; files are written before
//! the rows that name them, and removed again if the rows cannot be written.

use crate::openapi::{entities, replies, ApiErrors};

use actix_web::{web, HttpResponse};
use parley_store::billing::Limit;
use parley_store::bots::{InitialSource, NewBot, WidgetConfig};
use parley_store::Role;
use serde_json::json;

use crate::auth::{AuthUser, BotAccess, EditBot};
use crate::domain::{BotName, WebUrl};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::uploads::{self, Part};
use crate::views;

/// Spec limit for the wizard's and the training page's custom text.
pub const MAX_TEXT_CHARS: usize = 5000;
const MAX_FIELD_BYTES: usize = 64 * 1024;

enum FaqMethod {
    Skip,
    Upload,
    Text,
}

fn field<'a>(parts: &'a [Part], name: &str) -> Option<&'a Part> {
    parts.iter().find(|p| p.name == name)
}

fn text_field(parts: &[Part], name: &str) -> ApiResult<Option<String>> {
    field(parts, name).map(uploads::text).transpose()
}

fn icon_too_large(max: usize) -> ApiError {
    ApiError::too_large(format!("Icon must be smaller than {} MB", max / (1024 * 1024)))
}

/// The wizard's form: name, description, website, an icon, and a first source.
#[utoipa::path(post, path = "/api/bots", tag = "bots", security(("bearer" = [])), request_body(content = entities::BotForm, content_type = "multipart/form-data"), responses((status = 201, description = "Created", body = replies::OneBot), ApiErrors))]
pub async fn create(state: web::Data<AppState>, AuthUser(user): AuthUser, uploads::Form(form): uploads::Form) -> ApiResult<HttpResponse> {
    let limits = &state.settings.uploads;
    let (max_pdf, max_icon) = (limits.max_pdf_bytes, limits.max_icon_bytes);
    let fields = [
        ("name", MAX_FIELD_BYTES),
        ("description", MAX_FIELD_BYTES),
        ("websiteUrl", MAX_FIELD_BYTES),
        ("faqMethod", MAX_FIELD_BYTES),
        ("faqText", MAX_FIELD_BYTES),
        ("faqFile", max_pdf),
        ("icon", max_icon),
    ];
    let parts = uploads::read_form(
        form,
        &uploads::FormRules { fields: &fields, total: limits.max_form_bytes },
        |name| match name {
            "faqFile" => ApiError::too_large("File size must be less than 10MB"),
            "icon" => icon_too_large(max_icon),
            other => ApiError::too_large(format!("Field {other} is too large")),
        },
    )
    .await?;

    let name = BotName::parse(&text_field(&parts, "name")?.unwrap_or_default())?;
    let description = text_field(&parts, "description")?.unwrap_or_default().trim().to_string();
    if description.chars().count() > 500 {
        return Err(ApiError::validation("Description must be at most 500 characters"));
    }
    let website_url = match text_field(&parts, "websiteUrl")?.filter(|u| !u.trim().is_empty()) {
        Some(raw) => Some(WebUrl::parse(&raw)?.into_inner()),
        None => None,
    };
    let method = match text_field(&parts, "faqMethod")?.as_deref().map(str::trim) {
        None | Some("") | Some("skip") => FaqMethod::Skip,
        Some("upload") => FaqMethod::Upload,
        Some("text") => FaqMethod::Text,
        Some(_) => return Err(ApiError::validation("Training method must be skip, upload or text")),
    };
    let icon = match field(&parts, "icon").filter(|p| !p.bytes.is_empty()) {
        Some(part) => {
            let ext = uploads::image_extension(&part.bytes)
                .ok_or_else(|| ApiError::validation("Bot icon must be an image (PNG, JPEG, GIF or WebP)"))?;
            Some((ext, part.bytes.clone()))
        }
        None => None,
    };
    let pdf = match method {
        FaqMethod::Upload => {
            let part = field(&parts, "faqFile")
                .filter(|p| !p.bytes.is_empty())
                .ok_or_else(|| ApiError::validation("Please choose a PDF file to upload"))?;
            if !uploads::is_pdf(&part.bytes) {
                return Err(ApiError::validation("Please upload a PDF file"));
            }
            let filename = part.filename.clone().unwrap_or_else(|| "document.pdf".into());
            Some((filename, part.bytes.clone()))
        }
        _ => None,
    };
    let text = match method {
        FaqMethod::Text => {
            let text = text_field(&parts, "faqText")?.unwrap_or_default().trim().to_string();
            if text.is_empty() {
                return Err(ApiError::validation("Please enter some text to train your assistant"));
            }
            if text.chars().count() > MAX_TEXT_CHARS {
                return Err(ApiError::validation("Custom text must be at most 5000 characters"));
            }
            Some(text)
        }
        _ => None,
    };

    let allowance = state.store.allowance(&user.id).await?;
    let at_the_limit = || {
        ApiError::plan_limit(Limit::Bots, format!(
            "Your {} plan allows {} assistant{}. Upgrade your plan on the Billing page (/billing) to create more.",
            allowance.plan.name,
            allowance.plan.bots_limit,
            if allowance.plan.bots_limit == 1 { "" } else { "s" }
        ))
    };
    // Checked here to refuse before any file is written; enforced by the store's conditional
    // insert below, which concurrent creations cannot race past.
    if !allowance.can_create_bot() {
        return Err(at_the_limit());
    }

    let adding = icon.as_ref().map_or(0, |(_, b)| b.len()) + pdf.as_ref().map_or(0, |(_, b)| b.len());
    crate::quota::check(&state, &user.id, adding).await?;

    // Files first, under fresh names nothing refers to yet.
    let data_dir = &state.settings.data_dir;
    let mut written = Vec::new();
    let icon_url = match icon {
        Some((ext, bytes)) => {
            let name = uploads::save(uploads::public_dir(data_dir), ext, bytes).await?;
            written.push(uploads::public_dir(data_dir).join(&name));
            Some(format!("/uploads/public/{name}"))
        }
        None => None,
    };
    let mut initial_sources: Vec<InitialSource> = Vec::new();
    // The website given in the wizard is crawled as a training source of its own.
    if let Some(url) = &website_url {
        initial_sources.push(InitialSource { kind: "website".into(), name: url.clone(), url: Some(url.clone()), content: None, file_path: None, size_bytes: None });
    }
    let uploaded = match (pdf, text) {
        (Some((filename, bytes)), _) => {
            let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
            let saved = uploads::save(uploads::private_dir(data_dir), "pdf", bytes).await;
            let saved = match saved {
                Ok(name) => name,
                Err(e) => {
                    discard_all(written).await;
                    return Err(e);
                }
            };
            let path = uploads::private_dir(data_dir).join(&saved);
            written.push(path.clone());
            Some(InitialSource {
                kind: "pdf".into(),
                // Shortened as a PDF added later is: the name titles every chunk and citation.
                name: filename.chars().take(parley_store::knowledge::MAX_SOURCE_NAME_CHARS).collect(),
                url: None,
                content: None,
                file_path: Some(path.to_string_lossy().to_string()),
                size_bytes: Some(size),
            })
        }
        (None, Some(text)) => Some(InitialSource {
            kind: "text".into(),
            name: "Custom text".into(),
            url: None,
            size_bytes: Some(i64::try_from(text.len()).unwrap_or(i64::MAX)),
            content: Some(text),
            file_path: None,
        }),
        (None, None) => None,
    };
    initial_sources.extend(uploaded);

    let new = NewBot {
        owner_id: user.id.clone(),
        name: name.into_inner(),
        description,
        website_url,
        icon: icon_url,
        widget: WidgetConfig::default(),
        initial_sources,
    };
    let bot = match state.store.create_bot_within(new, allowance.plan.bots_limit).await {
        Ok(Some(bot)) => bot,
        Ok(None) => {
            discard_all(written).await;
            return Err(at_the_limit());
        }
        Err(e) => {
            discard_all(written).await;
            return Err(e.into());
        }
    };
    state
        .store
        .log_activity(Some(&user.id), Some(&bot.id), "bot", &format!("Created assistant {}", bot.name))
        .await?;
    for source in state.store.all_sources(&bot.id).await? {
        drop(state.trainer.spawn_source(source.id));
    }
    Ok(HttpResponse::Created().json(json!({"bot": views::bot(&bot, Role::Owner)})))
}

async fn discard_all(paths: Vec<std::path::PathBuf>) {
    for path in paths {
        uploads::discard(path).await;
    }
}

/// `POST /api/bots/{id}/icon`: replaces the bot's icon (multipart field `icon`); the old
/// icon's file goes once nothing names it.
#[utoipa::path(post, path = "/api/bots/{bot_id}/icon", tag = "bots", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body(content = entities::IconForm, content_type = "multipart/form-data"), responses((status = 200, description = "Saved", body = replies::OneBot), ApiErrors))]
pub async fn replace_icon(state: web::Data<AppState>, access: BotAccess<EditBot>, uploads::Form(form): uploads::Form) -> ApiResult<HttpResponse> {
    let uploads_settings = &state.settings.uploads;
    let max_icon = uploads_settings.max_icon_bytes;
    let rules = uploads::FormRules { fields: &[("icon", max_icon)], total: uploads_settings.max_form_bytes };
    let parts = uploads::read_form(form, &rules, |_| icon_too_large(max_icon)).await?;
    let part = field(&parts, "icon")
        .filter(|p| !p.bytes.is_empty())
        .ok_or_else(|| ApiError::validation("Choose an image to upload"))?;
    let ext = uploads::image_extension(&part.bytes)
        .ok_or_else(|| ApiError::validation("Bot icon must be an image (PNG, JPEG, GIF or WebP)"))?;
    crate::quota::check(&state, &access.bot.owner_id, part.bytes.len()).await?;
    let data_dir = &state.settings.data_dir;
    let dir = uploads::public_dir(data_dir);
    let name = uploads::save(dir.clone(), ext, part.bytes.clone()).await?;
    let update = parley_store::bots::BotUpdate { icon: Some(Some(format!("/uploads/public/{name}"))), ..Default::default() };
    match state.store.update_bot(&access.bot.id, update).await {
        Ok(bot) => {
            uploads::discard_public(data_dir, access.bot.icon.as_deref()).await;
            Ok(HttpResponse::Ok().json(json!({"bot": views::bot(&bot, access.role)})))
        }
        Err(e) => {
            uploads::discard(dir.join(name)).await;
            Err(e.into())
        }
    }
}
