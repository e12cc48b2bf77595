//! Figures for the agent dashboard, computed from a bot's sessions (spec 2 "Agent Dashboard":
//! queue, active chats, resolved today and in all, average response time, satisfaction).

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::schema::{chat_messages, chat_sessions};
use crate::{Store, StoreResult};

/// How many recent handoffs the average response time looks at.
const RESPONSE_SAMPLE: i64 = 500;

#[derive(Debug, Clone, PartialEq)]
pub struct SupportStats {
    /// Asked for a human, no agent yet.
    pub waiting: i64,
    /// With an agent, not resolved.
    pub active: i64,
    pub resolved_today: i64,
    pub resolved_total: i64,
    /// Average 1–5 rating given at resolve, over `rated` sessions.
    pub average_rating: Option<f64>,
    pub rated: i64,
    /// Average seconds from a visitor asking for a human to an agent's first message, over
    /// `answered` of the most recent handoffs.
    pub average_response_secs: Option<f64>,
    pub answered: i64,
}

impl Store {
    /// The bot's support figures; "today" starts at `day_start` (UTC).
    pub async fn support_stats(&self, bot_id: &str, day_start: NaiveDateTime) -> StoreResult<SupportStats> {
        let open = || chat_sessions::table.filter(chat_sessions::bot_id.eq(bot_id)).filter(chat_sessions::status.ne("resolved"));
        let waiting = db_run!(self, |conn| open()
            .filter(chat_sessions::needs_human_support.eq(true))
            .filter(chat_sessions::assigned_agent_id.is_null())
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let active = db_run!(self, |conn| open().filter(chat_sessions::assigned_agent_id.is_not_null()).count().get_result::<i64>(conn).await)?;
        let resolved = || chat_sessions::table.filter(chat_sessions::bot_id.eq(bot_id)).filter(chat_sessions::status.eq("resolved"));
        let resolved_total = db_run!(self, |conn| resolved().count().get_result::<i64>(conn).await)?;
        let resolved_today =
            db_run!(self, |conn| resolved().filter(chat_sessions::resolved_at.ge(day_start)).count().get_result::<i64>(conn).await)?;
        let ratings: Vec<Option<i32>> = db_run!(self, |conn| chat_sessions::table
            .filter(chat_sessions::bot_id.eq(bot_id))
            .filter(chat_sessions::rating.is_not_null())
            .select(chat_sessions::rating)
            .load(conn)
            .await)?;
        let ratings: Vec<f64> = ratings.into_iter().flatten().map(f64::from).collect();

        let handoffs: Vec<(String, Option<NaiveDateTime>)> = db_run!(self, |conn| chat_sessions::table
            .filter(chat_sessions::bot_id.eq(bot_id))
            .filter(chat_sessions::human_support_requested_at.is_not_null())
            .order(chat_sessions::human_support_requested_at.desc())
            .limit(RESPONSE_SAMPLE)
            .select((chat_sessions::id, chat_sessions::human_support_requested_at))
            .load(conn)
            .await)?;
        let ids: Vec<String> = handoffs.iter().map(|(id, _)| id.clone()).collect();
        let agent_messages: Vec<(String, NaiveDateTime)> = db_run!(self, |conn| chat_messages::table
            .filter(chat_messages::session_id.eq_any(&ids))
            .filter(chat_messages::role.eq("agent"))
            .select((chat_messages::session_id, chat_messages::created_at))
            .load(conn)
            .await)?;
        let mut waits = Vec::new();
        for (id, asked) in &handoffs {
            let Some(asked) = asked else { continue };
            let first = agent_messages.iter().filter(|(s, at)| s == id && at >= asked).map(|(_, at)| *at).min();
            if let Some(first) = first {
                waits.push((first - *asked).num_milliseconds() as f64 / 1000.0);
            }
        }
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        Ok(SupportStats {
            waiting,
            active,
            resolved_today,
            resolved_total,
            average_rating: mean(&ratings),
            rated: ratings.len() as i64,
            average_response_secs: mean(&waits),
            answered: waits.len() as i64,
        })
    }
}
