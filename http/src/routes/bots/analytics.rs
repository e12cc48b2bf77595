//! `GET /api/bots/{id}/analytics?period=24h|7d|30d|90d&tz=Europe/Paris`: the bot's figures per local
//! hour (24h) or day, computed by the database (`parley_store::analytics`), and the questions
//! it most often could not answer. Any member of the bot's team may read them.

use crate::openapi::{replies, ApiErrors};
use utoipa::IntoParams;

use actix_web::{web, HttpResponse};
use parley_store::analytics::Figures;
use parley_store::time::{self, to_rfc3339};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::{BotAccess, ViewBot};
use crate::chart_range::{self, ChartPeriod, ViewerZone};
use crate::error::ApiResult;
use crate::state::AppState;

/// Rows of the "top unanswered questions" table.
const TOP_UNANSWERED: i64 = 10;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AnalyticsQuery {
    /// `24h`, `7d` (default), `30d` or `90d`.
    period: Option<String>,
    /// The viewer's time zone, `Europe/Paris`, or a UTC offset, `+02:00` (default UTC).
    tz: Option<String>,
}

fn figures(f: &Figures) -> Value {
    json!({
        "conversations": f.conversations,
        "messages": {"visitor": f.visitor_messages, "bot": f.bot_messages, "agent": f.agent_messages},
        "handoffs": f.handoffs,
        "resolved": f.resolved,
        "firstResponse": {
            "medianSeconds": f.first_response.median_secs.map(|s| (s * 10.0).round() / 10.0),
            "p90Seconds": f.first_response.p90_secs.map(|s| (s * 10.0).round() / 10.0),
            "answered": f.first_response.answered,
        },
        "csat": {"average": f.csat_average().map(|a| (a * 100.0).round() / 100.0), "count": f.rated},
        "refused": f.refused,
        "leads": f.leads,
    })
}

#[utoipa::path(get, path = "/api/bots/{bot_id}/analytics", tag = "analytics", security(("bearer" = [])),
    params(("bot_id" = String, Path, description = "The bot's id"), AnalyticsQuery),
    responses((status = 200, description = "The bot's figures over time", body = replies::BotAnalytics), ApiErrors))]
pub async fn analytics(state: web::Data<AppState>, access: BotAccess<ViewBot>, q: web::Query<AnalyticsQuery>) -> ApiResult<HttpResponse> {
    let period = ChartPeriod::parse(q.period.as_deref())?;
    let tz = ViewerZone::parse(q.tz.as_deref())?;
    let buckets = chart_range::buckets(period, tz, time::now());
    let data = state.store.analytics(&access.bot.id, &buckets).await?;
    let unanswered = state.store.top_unanswered(&access.bot.id, buckets.from, buckets.to(), TOP_UNANSWERED).await?;
    let rows: Vec<Value> = data
        .buckets
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut row = figures(f);
            if let Some(obj) = row.as_object_mut() {
                obj.insert("start".into(), chart_range::bucket_start(&buckets, tz, i).into());
            }
            row
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "botId": access.bot.id,
        "period": period.as_str(),
        "tz": tz.label(),
        "bucket": if period == ChartPeriod::Day { "hour" } else { "day" },
        "from": to_rfc3339(&buckets.from),
        "to": to_rfc3339(&buckets.to()),
        "buckets": rows,
        "totals": figures(&data.total),
        "topUnanswered": unanswered.iter().map(|u| json!({
            "question": u.question,
            "count": u.count,
            "lastAskedAt": to_rfc3339(&u.last_asked),
        })).collect::<Vec<_>>(),
    })))
}
