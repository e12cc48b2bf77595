//! `GET /api/leads` (a page of the table) and `GET /api/leads/stats` (the five cards and the
//! Insights panel), for every role on the bots.

use crate::openapi::{replies, ApiErrors};
use actix_web::{web, HttpResponse};
use parley_store::leads::MonthConversion;
use parley_store::time;
use serde_json::json;

use super::input::FilterParams;
use super::readable_bots;
use crate::auth::AuthUser;
use crate::domain::PageWindow;
use crate::error::ApiResult;
use crate::state::AppState;
use crate::views;

#[utoipa::path(get, path = "/api/leads", tag = "leads", security(("bearer" = [])), params(FilterParams), responses((status = 200, description = "A page of the leads the caller may see", body = replies::LeadsPage), ApiErrors))]
pub async fn list(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<FilterParams>) -> ApiResult<HttpResponse> {
    let bots = readable_bots(&state, &user.id, q.bot()).await?;
    let filter = q.filter(bots)?;
    let sort = q.sort()?;
    let PageWindow { page, limit, offset } = PageWindow::new(q.page, q.limit, 50, 200);
    let (rows, total) = state.store.leads_page(&filter, sort, offset, limit).await?;
    Ok(HttpResponse::Ok().json(json!({
        "leads": rows.iter().map(views::leads::lead_row).collect::<Vec<_>>(),
        "total": total, "page": page, "limit": limit,
    })))
}

fn month(m: &MonthConversion) -> serde_json::Value {
    json!({"captured": m.captured, "converted": m.converted, "rate": m.rate()})
}

/// The cards count the bots the bar shows (`botId`, else all), not the search or status
/// filters: they say how many leads there are of each status.
#[utoipa::path(get, path = "/api/leads/stats", tag = "leads", security(("bearer" = [])), params(FilterParams), responses((status = 200, description = "The five cards and the Insights panel", body = replies::LeadStats), ApiErrors))]
pub async fn stats(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<FilterParams>) -> ApiResult<HttpResponse> {
    let bots = readable_bots(&state, &user.id, q.bot()).await?;
    let s = state.store.lead_stats(&bots, time::now()).await?;
    let share = |n: i64| if s.total > 0 { (n as f64 * 1000.0 / s.total as f64).round() / 10.0 } else { 0.0 };
    Ok(HttpResponse::Ok().json(json!({
        "stats": {
            "total": s.total,
            "new": s.status("new"), "contacted": s.status("contacted"), "qualified": s.status("qualified"),
            "converted": s.status("converted"), "lost": s.status("lost"),
            "withEmail": s.with_email, "withName": s.with_name, "withPhone": s.with_phone,
            "conversionRate": s.this_month.rate(),
            "conversion": {"thisMonth": month(&s.this_month), "lastMonth": month(&s.last_month)},
            "sources": s.by_source.iter().map(|(source, n)| json!({"source": source, "count": n, "percent": share(*n)})).collect::<Vec<_>>(),
        }
    })))
}
