//! Figures for the dashboard overview (spec 1 "Dashboard overview"): all-time totals over a set
//! of bots, what happened in a time window (to compare one period with the one before), and one
//! bot's performance (response time, resolution rate).

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::dsl::count_distinct;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::schema::{bots, chat_messages, chat_sessions};
use crate::{Store, StoreResult};

/// How many of a bot's most recent messages the response time is measured over.
const RESPONSE_SAMPLE: i64 = 5000;

/// All-time figures over some bots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub bots: i64,
    pub active_bots: i64,
    pub conversations: i64,
    pub messages: i64,
    pub resolved: i64,
}

/// What happened in `[from, to)` on some bots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Window {
    /// Conversations started.
    pub conversations: i64,
    /// Conversations in which a visitor wrote (visitors are anonymous: one per conversation).
    pub active_users: i64,
    /// Conversations an agent resolved.
    pub resolved: i64,
    /// Replies of the assistant (each spends a credit), errors excluded.
    pub ai_replies: i64,
}

/// One bot's performance panel.
#[derive(Debug, Clone, PartialEq)]
pub struct BotPerformance {
    pub total_messages: i64,
    pub total_conversations: i64,
    /// Conversations with a visitor message in the last 24 hours.
    pub active_users: i64,
    /// Mean time from a visitor's message to the next reply (assistant or agent), over the
    /// `answered` most recent ones; `None` before any reply.
    pub average_response_ms: Option<f64>,
    pub answered: i64,
    /// Share (0–100) of conversations that are settled: never needed a human, or were resolved
    /// by one. `None` without conversations.
    pub resolution_rate: Option<f64>,
    /// The newest message, or the bot's last activity.
    pub last_updated: Option<NaiveDateTime>,
}

impl Store {
    pub async fn totals(&self, bot_ids: &[String]) -> StoreResult<Totals> {
        let bots_total = db_run!(self, |conn| bots::table.filter(bots::id.eq_any(bot_ids)).count().get_result::<i64>(conn).await)?;
        let active_bots = db_run!(self, |conn| bots::table
            .filter(bots::id.eq_any(bot_ids))
            .filter(bots::status.eq("active"))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let sessions = || chat_sessions::table.filter(chat_sessions::bot_id.eq_any(bot_ids));
        let conversations = db_run!(self, |conn| sessions().count().get_result::<i64>(conn).await)?;
        let resolved = db_run!(self, |conn| sessions().filter(chat_sessions::status.eq("resolved")).count().get_result::<i64>(conn).await)?;
        // The sessions keep their own message count, so this needs no scan of the messages.
        self.counters_current().await;
        let messages = db_run!(self, |conn| sessions()
            .select(diesel::dsl::sum(chat_sessions::message_count))
            .first::<Option<i64>>(conn)
            .await)?
        .unwrap_or(0);
        Ok(Totals { bots: bots_total, active_bots, conversations, messages, resolved })
    }

    /// Conversations per bot (bots without any are absent).
    pub async fn conversation_counts(&self, bot_ids: &[String]) -> StoreResult<HashMap<String, i64>> {
        let rows: Vec<(String, i64)> = db_run!(self, |conn| chat_sessions::table
            .filter(chat_sessions::bot_id.eq_any(bot_ids))
            .group_by(chat_sessions::bot_id)
            .select((chat_sessions::bot_id, diesel::dsl::count_star()))
            .load(conn)
            .await)?;
        Ok(rows.into_iter().collect())
    }

    pub async fn window(&self, bot_ids: &[String], from: NaiveDateTime, to: NaiveDateTime) -> StoreResult<Window> {
        let sessions = || chat_sessions::table.filter(chat_sessions::bot_id.eq_any(bot_ids));
        let conversations = db_run!(self, |conn| sessions()
            .filter(chat_sessions::created_at.ge(from))
            .filter(chat_sessions::created_at.lt(to))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let resolved = db_run!(self, |conn| sessions()
            .filter(chat_sessions::resolved_at.ge(from))
            .filter(chat_sessions::resolved_at.lt(to))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let messages = || {
            chat_messages::table
                .inner_join(chat_sessions::table)
                .filter(chat_sessions::bot_id.eq_any(bot_ids))
                .filter(chat_messages::created_at.ge(from))
                .filter(chat_messages::created_at.lt(to))
        };
        let active_users = db_run!(self, |conn| messages()
            .filter(chat_messages::role.eq("user"))
            .select(count_distinct(chat_messages::session_id))
            .get_result::<i64>(conn)
            .await)?;
        let ai_replies = db_run!(self, |conn| messages()
            .filter(chat_messages::role.eq("bot"))
            .filter(chat_messages::is_error.eq(false))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        Ok(Window { conversations, active_users, resolved, ai_replies })
    }

    pub async fn bot_performance(&self, bot_id: &str, now: NaiveDateTime) -> StoreResult<BotPerformance> {
        let ids = [bot_id.to_string()];
        let totals = self.totals(&ids).await?;
        let day_ago = now - chrono::Duration::hours(24);
        let active_users = self.window(&ids, day_ago, now + chrono::Duration::seconds(1)).await?.active_users;
        let settled = db_run!(self, |conn| chat_sessions::table
            .filter(chat_sessions::bot_id.eq(bot_id))
            .filter(chat_sessions::needs_human_support.eq(false).or(chat_sessions::status.eq("resolved")))
            .count()
            .get_result::<i64>(conn)
            .await)?;

        // The newest messages, oldest first within each conversation: a reply is the first
        // assistant or agent message after a visitor's.
        let recent: Vec<(String, i64, String, NaiveDateTime)> = db_run!(self, |conn| chat_messages::table
            .inner_join(chat_sessions::table)
            .filter(chat_sessions::bot_id.eq(bot_id))
            .order(chat_messages::created_at.desc())
            .limit(RESPONSE_SAMPLE)
            .select((chat_messages::session_id, chat_messages::seq, chat_messages::role, chat_messages::created_at))
            .load(conn)
            .await)?;
        let last_message = recent.iter().map(|(_, _, _, at)| *at).next();
        let (average_response_ms, answered) = average_reply_ms(recent);
        let last_active = db_run!(self, |conn| bots::table.find(bot_id).select(bots::last_active).first::<Option<NaiveDateTime>>(conn).await.optional())?
            .flatten();

        Ok(BotPerformance {
            total_messages: totals.messages,
            total_conversations: totals.conversations,
            active_users,
            average_response_ms,
            answered,
            resolution_rate: (totals.conversations > 0).then(|| settled as f64 * 100.0 / totals.conversations as f64),
            last_updated: last_message.max(last_active),
        })
    }
}

/// Mean milliseconds from each visitor message that got a reply to that reply, and how many.
fn average_reply_ms(mut messages: Vec<(String, i64, String, NaiveDateTime)>) -> (Option<f64>, i64) {
    messages.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut total_ms = 0f64;
    let mut answered = 0i64;
    let mut waiting: Option<(&str, NaiveDateTime)> = None;
    for (session, _, role, at) in &messages {
        if waiting.is_some_and(|(s, _)| s != session) {
            waiting = None;
        }
        match role.as_str() {
            // The first of several visitor messages in a row starts the wait.
            "user" => waiting = waiting.or(Some((session.as_str(), *at))),
            "bot" | "agent" => {
                if let Some((_, asked)) = waiting.take() {
                    total_ms += (*at - asked).num_milliseconds().max(0) as f64;
                    answered += 1;
                }
            }
            _ => {}
        }
    }
    ((answered > 0).then(|| total_ms / answered as f64), answered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + ms).unwrap().naive_utc()
    }

    #[test]
    fn a_reply_is_timed_from_the_first_unanswered_visitor_message() {
        let m = |s: &str, seq, role: &str, ms| (s.to_string(), seq, role.to_string(), at(ms));
        let msgs = vec![
            m("b", 2, "bot", 1_300),
            m("a", 1, "user", 0),
            m("a", 2, "user", 500),
            m("a", 3, "bot", 1_000),
            m("a", 4, "system", 1_100),
            m("b", 1, "user", 1_000),
            m("c", 1, "user", 0), // never answered: not counted
        ];
        let (avg, n) = average_reply_ms(msgs);
        assert_eq!(n, 2);
        assert_eq!(avg, Some((1_000.0 + 300.0) / 2.0));
    }

    #[test]
    fn no_replies_no_average() {
        assert_eq!(average_reply_ms(Vec::new()), (None, 0));
    }
}
