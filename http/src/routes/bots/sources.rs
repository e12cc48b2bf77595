//! `/api/bots/{id}/sources` and `/train`: the Training page (spec 1 §5 and §9). Adding stores a
//! source as `processing` and trains it in the background; the list shows real statuses and
//! reasons. Editors and above change sources; every member may look.

use crate::openapi::{entities, replies, ApiErrors};
use utoipa::ToSchema;

use actix_web::{web, HttpResponse};
use parley_engine::ingest::IngestError;
use parley_store::models::{KnowledgeSource, QaPair};
use parley_store::time::to_rfc3339;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::{BotAccess, EditBot, ViewBot};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::uploads;

impl From<IngestError> for ApiError {
    fn from(e: IngestError) -> Self {
        match e {
            IngestError::Invalid(m) | IngestError::LimitReached(m) => ApiError::validation(m),
            IngestError::Refused(m) => ApiError::validation(format!("That website cannot be crawled: {m}")),
            IngestError::NotPdf => ApiError::validation("Please upload a PDF file"),
            IngestError::TooLarge { .. } => ApiError::too_large("File size must be less than 10MB"),
            IngestError::NotFound => ApiError::not_found("Source"),
            IngestError::Store(s) => s.into(),
            other => ApiError::internal(other),
        }
    }
}

fn source_view(s: &KnowledgeSource) -> Value {
    json!({
        "_id": s.id, "id": s.id, "kind": s.kind, "name": s.name, "status": s.status, "error": s.error,
        "url": s.url, "content": s.content, "sizeBytes": s.size_bytes, "pages": s.pages,
        "createdAt": to_rfc3339(&s.created_at), "updatedAt": to_rfc3339(&s.updated_at),
    })
}

fn qa_view(q: &QaPair) -> Value {
    json!({
        "_id": q.id, "id": q.id, "kind": "qa", "question": q.question, "answer": q.answer, "status": q.status,
        "error": q.error, "createdAt": to_rfc3339(&q.created_at), "updatedAt": to_rfc3339(&q.updated_at),
    })
}

#[utoipa::path(get, path = "/api/bots/{bot_id}/sources", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 200, description = "Sources by kind, with real statuses", body = replies::Sources), ApiErrors))]
pub async fn list(state: web::Data<AppState>, access: BotAccess<ViewBot>) -> ApiResult<HttpResponse> {
    let sources = state.store.all_sources(&access.bot.id).await?;
    let qa = state.store.qa_pairs(&access.bot.id).await?;
    let of = |kind: &str| sources.iter().filter(|s| s.kind == kind).map(source_view).collect::<Vec<_>>();
    let (pdf, websites, text) = (of("pdf"), of("website"), of("text"));
    Ok(HttpResponse::Ok().json(json!({
        "counts": {"pdf": pdf.len(), "websites": websites.len(), "text": text.len(), "qa": qa.len()},
        "pdf": pdf, "websites": websites, "text": text,
        "qa": qa.iter().map(qa_view).collect::<Vec<_>>(),
        "knowledgeVersion": access.bot.knowledge_version,
    })))
}

#[utoipa::path(post, path = "/api/bots/{bot_id}/sources/pdf", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body(content = entities::PdfForm, content_type = "multipart/form-data"), responses((status = 201, description = "Stored; training in the background", body = replies::OneSource), ApiErrors))]
pub async fn add_pdf(state: web::Data<AppState>, access: BotAccess<EditBot>, uploads::Form(form): uploads::Form) -> ApiResult<HttpResponse> {
    let max = state.settings.uploads.max_pdf_bytes;
    let rules = uploads::FormRules { fields: &[("file", max)], total: state.settings.uploads.max_form_bytes };
    let parts = uploads::read_form(form, &rules, |_| ApiError::too_large("File size must be less than 10MB")).await?;
    let part = parts
        .into_iter()
        .find(|p| p.name == "file" && !p.bytes.is_empty())
        .ok_or_else(|| ApiError::validation("Please choose a PDF file to upload"))?;
    if !uploads::is_pdf(&part.bytes) {
        return Err(ApiError::validation("Please upload a PDF file"));
    }
    crate::quota::check(&state, &access.bot.owner_id, part.bytes.len()).await?;
    let name = part.filename.clone().unwrap_or_else(|| "document.pdf".into());
    let size = u64::try_from(part.bytes.len()).unwrap_or(u64::MAX);
    let dir = uploads::private_dir(&state.settings.data_dir);
    let saved = uploads::save(dir.clone(), "pdf", part.bytes).await?;
    let path = dir.join(&saved);
    let source = match state.trainer.add_pdf(&access.bot.id, &name, &path, size).await {
        Ok(source) => source,
        Err(e) => {
            uploads::discard(path).await;
            return Err(e.into());
        }
    };
    drop(state.trainer.spawn_source(source.id.clone()));
    Ok(HttpResponse::Created().json(json!({"source": source_view(&source)})))
}

#[derive(Deserialize, ToSchema)]
pub struct WebsiteBody {
    #[serde(default)]
    url: String,
}

#[utoipa::path(post, path = "/api/bots/{bot_id}/sources/website", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = WebsiteBody, responses((status = 201, description = "Stored; crawled in the background", body = replies::OneSource), ApiErrors))]
pub async fn add_website(state: web::Data<AppState>, access: BotAccess<EditBot>, body: web::Json<WebsiteBody>) -> ApiResult<HttpResponse> {
    if body.url.trim().is_empty() {
        return Err(ApiError::validation("A training URL is required"));
    }
    let source = state.trainer.add_website(&access.bot.id, &body.url).await?;
    drop(state.trainer.spawn_source(source.id.clone()));
    Ok(HttpResponse::Created().json(json!({"source": source_view(&source)})))
}

#[derive(Deserialize, ToSchema)]
pub struct TextBody {
    name: Option<String>,
    #[serde(default)]
    content: String,
}

#[utoipa::path(post, path = "/api/bots/{bot_id}/sources/text", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = TextBody, responses((status = 201, description = "Stored; indexed in the background", body = replies::OneSource), ApiErrors))]
pub async fn add_text(state: web::Data<AppState>, access: BotAccess<EditBot>, body: web::Json<TextBody>) -> ApiResult<HttpResponse> {
    let source = state.trainer.add_text(&access.bot.id, body.name.as_deref(), &body.content).await?;
    drop(state.trainer.spawn_source(source.id.clone()));
    Ok(HttpResponse::Created().json(json!({"source": source_view(&source)})))
}

#[derive(Deserialize, ToSchema)]
pub struct QaBody {
    #[serde(default)]
    question: String,
    #[serde(default)]
    answer: String,
}

#[utoipa::path(post, path = "/api/bots/{bot_id}/sources/qa", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), request_body = QaBody, responses((status = 201, description = "Stored; indexed in the background", body = replies::OneQa), ApiErrors))]
pub async fn add_qa(state: web::Data<AppState>, access: BotAccess<EditBot>, body: web::Json<QaBody>) -> ApiResult<HttpResponse> {
    let pair = state.trainer.add_qa(&access.bot.id, &body.question, &body.answer).await?;
    drop(state.trainer.spawn_qa(pair.id.clone()));
    Ok(HttpResponse::Created().json(json!({"source": qa_view(&pair)})))
}

/// Deletes a source or a Q&A pair (and its chunks: the index forgets it on the next question).
#[utoipa::path(delete, path = "/api/bots/{bot_id}/sources/{source_id}", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id"), ("source_id" = String, Path, description = "A source or Q&A pair")), responses((status = 204, description = "Deleted"), ApiErrors))]
pub async fn delete(state: web::Data<AppState>, access: BotAccess<EditBot>, path: web::Path<(String, String)>) -> ApiResult<HttpResponse> {
    let (_, source_id) = path.into_inner();
    let bot = &access.bot.id;
    match state.store.delete_source(bot, &source_id).await {
        Ok(source) => {
            if let Some(file) = source.file_path {
                uploads::discard(file.into()).await;
            }
        }
        Err(parley_store::StoreError::NotFound) => {
            state.store.delete_qa_pair(bot, &source_id).await.map_err(|e| match e {
                parley_store::StoreError::NotFound => ApiError::not_found("Source"),
                other => other.into(),
            })?;
        }
        Err(e) => return Err(e.into()),
    }
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/bots/{id}/train`: re-crawl and re-index everything, in the background.
#[utoipa::path(post, path = "/api/bots/{bot_id}/train", tag = "training", security(("bearer" = [])), params(("bot_id" = String, Path, description = "The bot's id")), responses((status = 202, description = "Retraining started", body = replies::Training), ApiErrors))]
pub async fn train(state: web::Data<AppState>, access: BotAccess<EditBot>) -> ApiResult<HttpResponse> {
    let trainer = state.trainer.clone();
    let bot_id = access.bot.id.clone();
    actix_web::rt::spawn(async move {
        if let Err(e) = trainer.retrain_bot(&bot_id).await {
            tracing::error!(bot = %bot_id, "retraining failed: {e}");
        }
    });
    Ok(HttpResponse::Accepted().json(json!({"training": true})))
}
