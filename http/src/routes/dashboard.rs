//! `GET /api/dashboard/stats?period=7d`: the dashboard overview over every bot the user can see —
//! all-time totals, this period against the one before (growth), credits of the plan, and the
//! recent activity log. Growth is a percentage change; `null` when the previous period had none.

use crate::openapi::{replies, ApiErrors};
use utoipa::{IntoParams, OpenApi};

use actix_web::{web, HttpResponse};
use chrono::Duration;
use parley_store::overview::Window;
use parley_store::time::{self, to_rfc3339};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Entries of "Recent Activity".
const RECENT_ACTIVITY: i64 = 10;

#[derive(OpenApi)]
#[openapi(paths(stats))]
pub struct Api;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/dashboard/stats", web::get().to(stats));
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    period: Option<String>,
}

/// The chart periods the dashboard offers (spec: default 7d).
fn period_length(period: &str) -> Option<Duration> {
    match period {
        "24h" => Some(Duration::hours(24)),
        "7d" => Some(Duration::days(7)),
        "30d" => Some(Duration::days(30)),
        "90d" => Some(Duration::days(90)),
        _ => None,
    }
}

/// Percentage change from `before` to `now`, one decimal; `None` when there is nothing to compare.
pub fn growth(now: i64, before: i64) -> Option<f64> {
    if before == 0 {
        return (now == 0).then_some(0.0);
    }
    Some(((now - before) as f64 * 1000.0 / before as f64).round() / 10.0)
}

fn window_view(w: &Window) -> Value {
    json!({"conversations": w.conversations, "activeUsers": w.active_users, "resolvedSessions": w.resolved, "aiReplies": w.ai_replies})
}

/// The overview over every bot the caller can see: totals, this period against the last.
#[utoipa::path(get, path = "/api/dashboard/stats", tag = "analytics", security(("bearer" = [])), params(StatsQuery), responses((status = 200, description = "The overview", body = replies::Overview), ApiErrors))]
async fn stats(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<StatsQuery>) -> ApiResult<HttpResponse> {
    let period = q.period.as_deref().unwrap_or("7d");
    let length = period_length(period).ok_or_else(|| ApiError::validation("Period must be 24h, 7d, 30d or 90d"))?;
    let bot_ids = state.store.visible_bot_ids(&user.id).await?;
    let now = time::now();
    // The window ends just after now so that what happened this instant counts.
    let end = now + Duration::seconds(1);
    let current = state.store.window(&bot_ids, end - length, end).await?;
    let previous = state.store.window(&bot_ids, end - length - length, end - length).await?;
    let totals = state.store.totals(&bot_ids).await?;
    let allowance = state.store.allowance(&user.id).await?;
    let activity = state.store.recent_activity(&user.id, RECENT_ACTIVITY).await?;

    Ok(HttpResponse::Ok().json(json!({
        "period": period,
        "stats": {
            "totalBots": totals.bots,
            "activeBots": totals.active_bots,
            "totalConversations": totals.conversations,
            "totalMessages": totals.messages,
            "activeUsers": current.active_users,
            "resolvedSessions": totals.resolved,
            "creditsUsed": allowance.credits_used,
        },
        "current": window_view(&current),
        "previous": window_view(&previous),
        "growth": {
            "conversations": growth(current.conversations, previous.conversations),
            "users": growth(current.active_users, previous.active_users),
            "resolution": growth(current.resolved, previous.resolved),
            "credits": growth(current.ai_replies, previous.ai_replies),
        },
        "recentActivity": activity.iter().map(|(a, bot_name)| json!({
            "id": a.id, "action": a.action, "time": to_rfc3339(&a.created_at), "type": a.kind, "botName": bot_name,
        })).collect::<Vec<_>>(),
    })))
}

#[cfg(test)]
mod tests {
    use super::growth;

    #[test]
    fn growth_is_a_rounded_percentage_change() {
        assert_eq!(growth(15, 10), Some(50.0));
        assert_eq!(growth(1, 3), Some(-66.7));
        assert_eq!(growth(0, 0), Some(0.0));
        assert_eq!(growth(4, 0), None);
    }
}
