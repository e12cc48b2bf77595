//! `GET /api/leads/export?format=csv|json` with the list's filters (or `ids=` for a selection):
//! the file, streamed. The leads are read one keyset page at a time and written as they come,
//! and the next page is read only when the client has taken the last one, so an export of any
//! size holds one page in memory (measured: see README, "Leads export").

use crate::openapi::{replies, ApiErrors};
use std::sync::Arc;

use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{web, HttpResponse};
use bytes::Bytes;
use futures_util::stream;
use parley_store::leads::{ExportCursor, LeadFilter, LeadSort};
use parley_store::{time, Store};

use super::input::FilterParams;
use super::{csv, readable_bots};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::views;

/// Leads per page read from the database (and per chunk written).
pub const PAGE: i64 = 500;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Json,
}

enum Step {
    Start,
    /// The next page, after this cursor (from the beginning with none).
    Page(Option<ExportCursor>),
    Done,
}

struct Export {
    store: Store,
    filter: Arc<LeadFilter>,
    sort: LeadSort,
    format: Format,
    written: u64,
}

impl Export {
    /// The bytes of one page and whether it was the last.
    async fn page(&mut self, after: Option<&ExportCursor>) -> ApiResult<(String, Option<ExportCursor>)> {
        let rows = self.store.leads_export_page(&self.filter, self.sort, after, PAGE).await?;
        let mut out = String::new();
        for row in &rows {
            match self.format {
                Format::Csv => out.push_str(&csv::row(row)),
                Format::Json => {
                    if self.written > 0 {
                        out.push(',');
                    }
                    out.push_str(&views::leads::lead_row(row).to_string());
                }
            }
            self.written += 1;
        }
        let more = rows.len() as i64 == PAGE;
        Ok((out, rows.last().filter(|_| more).map(ExportCursor::after)))
    }

    fn head(&self) -> String {
        match self.format {
            Format::Csv => csv::header(),
            Format::Json => "[".into(),
        }
    }

    fn tail(&self) -> &'static str {
        match self.format {
            Format::Csv => "",
            Format::Json => "]",
        }
    }
}

#[utoipa::path(get, path = "/api/leads/export", tag = "leads", security(("bearer" = [])), params(FilterParams), responses((status = 200, description = "Every matching lead, streamed: CSV (RFC 4180, UTF-8 BOM) or a JSON list", content((String = "text/csv"), (Vec<replies::LeadRow> = "application/json"))), ApiErrors))]
pub async fn export(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<FilterParams>) -> ApiResult<HttpResponse> {
    let format = match q.format.as_deref().map(str::trim).unwrap_or("csv") {
        "csv" => Format::Csv,
        "json" => Format::Json,
        _ => return Err(ApiError::validation("Format must be csv or json")),
    };
    let bots = readable_bots(&state, &user.id, q.bot()).await?;
    let filter = Arc::new(q.filter(bots)?);
    let sort = q.sort()?;
    let export = Export { store: state.store.clone(), filter, sort, format, written: 0 };

    let body = stream::unfold((Step::Start, export), |(step, mut export)| async move {
        match step {
            Step::Start => {
                let head = Bytes::from(export.head());
                Some((Ok(head), (Step::Page(None), export)))
            }
            Step::Page(after) => match export.page(after.as_ref()).await {
                Ok((mut chunk, Some(next))) => {
                    chunk.shrink_to_fit();
                    Some((Ok(Bytes::from(chunk)), (Step::Page(Some(next)), export)))
                }
                Ok((mut chunk, None)) => {
                    chunk.push_str(export.tail());
                    Some((Ok(Bytes::from(chunk)), (Step::Done, export)))
                }
                Err(e) => {
                    // The status line is gone already: the client sees a cut-off download.
                    tracing::error!(written = export.written, "lead export stopped: {e}");
                    Some((Err(e), (Step::Done, export)))
                }
            },
            Step::Done => None,
        }
    });

    let (ext, mime) = match format {
        Format::Csv => ("csv", "text/csv; charset=utf-8"),
        Format::Json => ("json", "application/json"),
    };
    let filename = format!("leads-{}.{ext}", time::now().format("%Y-%m-%d"));
    Ok(HttpResponse::Ok()
        .content_type(mime)
        .insert_header(ContentDisposition { disposition: DispositionType::Attachment, parameters: vec![DispositionParam::Filename(filename)] })
        .insert_header(("Cache-Control", "no-store"))
        .streaming(body))
}
