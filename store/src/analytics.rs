//! A bot's figures over time (`GET /api/bots/{id}/analytics`): per hour or day, conversations,
//! messages by author, handoffs, resolutions, agents' first-response percentiles, satisfaction,
//! refused answers and leads, each computed in SQL and grouped by the database.
//!
//! Buckets are `[from + i × width, from + (i + 1) × width)`; the caller aligns `from` to local
//! hours or midnights, so the SQL only subtracts and divides whole seconds. Messages are read
//! from `message_counts` (15-minute slots kept by triggers, see the migration
//! `2026-11-25-200000_analytics`): a bucket boundary is always a slot boundary.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamp};
use diesel_async::RunQueryDsl;

use crate::schema::refused_answers;
use crate::{Backend, Store, StoreResult};

/// Seconds in one slot of `message_counts`.
pub const SLOT_SECS: i64 = 900;

/// Where the buckets lie: `buckets` of `width_secs` each from `from` (UTC). `from` must be a
/// whole number of slots since 1970 and `width_secs` a whole number of slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buckets {
    pub from: NaiveDateTime,
    pub width_secs: i64,
    pub count: usize,
}

impl Buckets {
    pub fn to(&self) -> NaiveDateTime {
        self.from + chrono::Duration::seconds(self.width_secs * self.count as i64)
    }

    fn from_epoch(&self) -> i64 {
        self.from.and_utc().timestamp()
    }
}

/// Nearest-rank percentiles of agents' first responses (seconds from the request for a person
/// to the first agent message after it), over `answered` handoffs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ResponseTimes {
    pub median_secs: Option<f64>,
    pub p90_secs: Option<f64>,
    pub answered: i64,
}

/// One bucket's figures (or the whole period's).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// Conversations started.
    pub conversations: i64,
    pub visitor_messages: i64,
    pub bot_messages: i64,
    pub agent_messages: i64,
    /// Requests for a person.
    pub handoffs: i64,
    pub resolved: i64,
    pub first_response: ResponseTimes,
    /// Sum and number of the 1–5 ratings given at resolve.
    pub rating_sum: i64,
    pub rated: i64,
    /// Bot answers given without knowledge behind them.
    pub refused: i64,
    /// Leads visitors left (manual entries by the team are not captured).
    pub leads: i64,
}

impl Figures {
    pub fn csat_average(&self) -> Option<f64> {
        (self.rated > 0).then(|| self.rating_sum as f64 / self.rated as f64)
    }

    fn add_counts(&mut self, other: &Figures) {
        self.conversations += other.conversations;
        self.visitor_messages += other.visitor_messages;
        self.bot_messages += other.bot_messages;
        self.agent_messages += other.agent_messages;
        self.handoffs += other.handoffs;
        self.resolved += other.resolved;
        self.rating_sum += other.rating_sum;
        self.rated += other.rated;
        self.refused += other.refused;
        self.leads += other.leads;
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Analytics {
    pub buckets: Vec<Figures>,
    pub total: Figures,
}

/// A question the bot could not answer, with how often it was asked in the period.
#[derive(Debug, Clone, PartialEq)]
pub struct UnansweredQuestion {
    /// The latest wording asked.
    pub question: String,
    pub count: i64,
    pub last_asked: NaiveDateTime,
}

/// The key repeats of one question share: lower case, inner spaces collapsed, end
/// punctuation dropped ("How much is it?" and "how much is it" count together).
pub fn question_key(question: &str) -> String {
    let words: Vec<String> = question.split_whitespace().map(str::to_lowercase).collect();
    words.join(" ").trim_end_matches(['?', '!', '.', ' ']).to_string()
}

/// The dialect pieces the queries differ by. Queries are written with `$n` parameters;
/// SQLite gets them as `?n`, which it numbers the same way.
struct Dialect(Backend);

impl Dialect {
    /// Whole seconds since 1970 of a UTC timestamp column.
    fn epoch(&self, col: &str) -> String {
        match self.0 {
            // To the second, as stored (`YYYY-MM-DD HH:MM:SS.ffffff`): SQLite's date functions
            // round a fraction to milliseconds, which put 23:59:59.9999 into the next day.
            Backend::Sqlite => format!("CAST(strftime('%s', substr({col}, 1, 19)) AS BIGINT)"),
            Backend::Postgres => format!("CAST(FLOOR(EXTRACT(EPOCH FROM {col})) AS BIGINT)"),
        }
    }

    /// Seconds (with fractions) from `a` to `b`.
    fn seconds_between(&self, a: &str, b: &str) -> String {
        match self.0 {
            Backend::Sqlite => format!("((julianday({b}) - julianday({a})) * 86400.0)"),
            Backend::Postgres => format!("CAST(EXTRACT(EPOCH FROM ({b} - {a})) AS DOUBLE PRECISION)"),
        }
    }

    fn finish(&self, sql: String) -> String {
        match self.0 {
            Backend::Sqlite => sql.replace('$', "?"),
            Backend::Postgres => sql,
        }
    }

    /// Counts of events on sessions, refused answers and leads per bucket. Parameters: $1 bot,
    /// $2 from, $3 from in seconds, $4 bucket width, $5 to.
    fn events(&self) -> String {
        let bucket = |col: &str| format!("({} - $3) / $4", self.epoch(col));
        self.finish(format!(
            "SELECT b, CAST(SUM(conv) AS BIGINT) AS conv, CAST(SUM(hand) AS BIGINT) AS hand, \
               CAST(SUM(res) AS BIGINT) AS res, CAST(SUM(rated) AS BIGINT) AS rated, \
               CAST(SUM(rating) AS BIGINT) AS rating, CAST(SUM(refused) AS BIGINT) AS refused, \
               CAST(SUM(leads) AS BIGINT) AS leads \
             FROM ( \
               SELECT {created} AS b, 1 AS conv, 0 AS hand, 0 AS res, 0 AS rated, 0 AS rating, 0 AS refused, 0 AS leads \
                 FROM chat_sessions WHERE bot_id = $1 AND created_at >= $2 AND created_at < $5 \
               UNION ALL \
               SELECT {asked}, 0, 1, 0, 0, 0, 0, 0 FROM chat_sessions \
                 WHERE bot_id = $1 AND human_support_requested_at >= $2 AND human_support_requested_at < $5 \
               UNION ALL \
               SELECT {resolved}, 0, 0, 1, CASE WHEN rating IS NULL THEN 0 ELSE 1 END, COALESCE(rating, 0), 0, 0 \
                 FROM chat_sessions WHERE bot_id = $1 AND resolved_at >= $2 AND resolved_at < $5 \
               UNION ALL \
               SELECT {refused}, 0, 0, 0, 0, 0, 1, 0 FROM refused_answers \
                 WHERE bot_id = $1 AND created_at >= $2 AND created_at < $5 \
               UNION ALL \
               SELECT {captured}, 0, 0, 0, 0, 0, 0, 1 FROM leads \
                 WHERE bot_id = $1 AND captured_at >= $2 AND captured_at < $5 AND source <> 'manual' \
             ) e GROUP BY b",
            created = bucket("created_at"),
            asked = bucket("human_support_requested_at"),
            resolved = bucket("resolved_at"),
            refused = bucket("created_at"),
            captured = bucket("captured_at"),
        ))
    }

    /// Messages per bucket and author from the slots. $1 bot, $2 first slot, $3 from in
    /// seconds, $4 bucket width, $5 slot past the last.
    fn messages(&self) -> String {
        self.finish(format!(
            "SELECT (slot * {SLOT_SECS} - $3) / $4 AS b, role, CAST(SUM(count) AS BIGINT) AS n \
             FROM message_counts WHERE bot_id = $1 AND slot >= $2 AND slot < $5 GROUP BY 1, 2"
        ))
    }

    /// First-response percentiles per bucket of the request, and over the whole period
    /// (bucket -1), by nearest rank: the ⌈p·n⌉-th smallest wait. $1 bot, $2 from, $3 from in
    /// seconds, $4 bucket width, $5 to.
    fn response_times(&self) -> String {
        self.finish(format!(
            "WITH waits AS ( \
               SELECT {asked_bucket} AS b, {wait} AS wait FROM ( \
                 SELECT s.human_support_requested_at AS asked_at, \
                   (SELECT MIN(m.created_at) FROM chat_messages m WHERE m.session_id = s.id AND m.role = 'agent' \
                      AND m.created_at >= s.human_support_requested_at) AS answered_at \
                 FROM chat_sessions s \
                 WHERE s.bot_id = $1 AND s.human_support_requested_at >= $2 AND s.human_support_requested_at < $5 \
               ) h WHERE answered_at IS NOT NULL \
             ), keyed AS ( \
               SELECT b AS k, wait FROM waits UNION ALL SELECT -1 AS k, wait FROM waits \
             ), ranked AS ( \
               SELECT k, wait, ROW_NUMBER() OVER (PARTITION BY k ORDER BY wait) AS rn, COUNT(*) OVER (PARTITION BY k) AS n FROM keyed \
             ) \
             SELECT k AS b, CAST(MAX(n) AS BIGINT) AS n, \
               MAX(CASE WHEN rn = (n + 1) / 2 THEN wait END) AS median, \
               MAX(CASE WHEN rn = (9 * n + 9) / 10 THEN wait END) AS p90 \
             FROM ranked GROUP BY k",
            asked_bucket = format!("({} - $3) / $4", self.epoch("asked_at")),
            wait = self.seconds_between("asked_at", "answered_at"),
        ))
    }
}

#[derive(QueryableByName)]
struct EventRow {
    #[diesel(sql_type = BigInt)]
    b: i64,
    #[diesel(sql_type = BigInt)]
    conv: i64,
    #[diesel(sql_type = BigInt)]
    hand: i64,
    #[diesel(sql_type = BigInt)]
    res: i64,
    #[diesel(sql_type = BigInt)]
    rated: i64,
    #[diesel(sql_type = BigInt)]
    rating: i64,
    #[diesel(sql_type = BigInt)]
    refused: i64,
    #[diesel(sql_type = BigInt)]
    leads: i64,
}

#[derive(QueryableByName)]
struct MessageRow {
    #[diesel(sql_type = BigInt)]
    b: i64,
    #[diesel(sql_type = Text)]
    role: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct ResponseRow {
    #[diesel(sql_type = BigInt)]
    b: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = Nullable<Double>)]
    median: Option<f64>,
    #[diesel(sql_type = Nullable<Double>)]
    p90: Option<f64>,
}

impl Store {
    /// The bot's figures per bucket and over all of them.
    pub async fn analytics(&self, bot_id: &str, buckets: &Buckets) -> StoreResult<Analytics> {
        let dialect = Dialect(self.backend());
        let (from, to, from_epoch, width) = (buckets.from, buckets.to(), buckets.from_epoch(), buckets.width_secs.max(1));
        let events_sql = dialect.events();
        let events: Vec<EventRow> = db_run!(self, |conn| diesel::sql_query(events_sql.as_str())
            .bind::<Text, _>(bot_id)
            .bind::<Timestamp, _>(from)
            .bind::<BigInt, _>(from_epoch)
            .bind::<BigInt, _>(width)
            .bind::<Timestamp, _>(to)
            .load(conn)
            .await)?;
        let messages_sql = dialect.messages();
        let (first_slot, end_slot) = (from_epoch.div_euclid(SLOT_SECS), (to.and_utc().timestamp() + SLOT_SECS - 1).div_euclid(SLOT_SECS));
        let messages: Vec<MessageRow> = db_run!(self, |conn| diesel::sql_query(messages_sql.as_str())
            .bind::<Text, _>(bot_id)
            .bind::<BigInt, _>(first_slot)
            .bind::<BigInt, _>(from_epoch)
            .bind::<BigInt, _>(width)
            .bind::<BigInt, _>(end_slot)
            .load(conn)
            .await)?;
        let responses_sql = dialect.response_times();
        let responses: Vec<ResponseRow> = db_run!(self, |conn| diesel::sql_query(responses_sql.as_str())
            .bind::<Text, _>(bot_id)
            .bind::<Timestamp, _>(from)
            .bind::<BigInt, _>(from_epoch)
            .bind::<BigInt, _>(width)
            .bind::<Timestamp, _>(to)
            .load(conn)
            .await)?;

        let mut out = vec![Figures::default(); buckets.count];
        let slot = |b: i64| usize::try_from(b).ok().filter(|&i| i < buckets.count);
        for row in events {
            if let Some(f) = slot(row.b).and_then(|i| out.get_mut(i)) {
                f.conversations += row.conv;
                f.handoffs += row.hand;
                f.resolved += row.res;
                f.rated += row.rated;
                f.rating_sum += row.rating;
                f.refused += row.refused;
                f.leads += row.leads;
            }
        }
        for row in messages {
            if let Some(f) = slot(row.b).and_then(|i| out.get_mut(i)) {
                match row.role.as_str() {
                    "user" => f.visitor_messages += row.n,
                    "bot" => f.bot_messages += row.n,
                    "agent" => f.agent_messages += row.n,
                    _ => {}
                }
            }
        }
        let mut total = Figures::default();
        for f in &out {
            total.add_counts(f);
        }
        for row in responses {
            let times = ResponseTimes { median_secs: row.median, p90_secs: row.p90, answered: row.n };
            if row.b == -1 {
                total.first_response = times;
            } else if let Some(f) = slot(row.b).and_then(|i| out.get_mut(i)) {
                f.first_response = times;
            }
        }
        Ok(Analytics { buckets: out, total })
    }

    /// The questions asked most often in `[from, to)` that the bot could not answer.
    pub async fn top_unanswered(&self, bot_id: &str, from: NaiveDateTime, to: NaiveDateTime, limit: i64) -> StoreResult<Vec<UnansweredQuestion>> {
        use diesel::dsl::count_star;
        let groups: Vec<(String, i64, Option<NaiveDateTime>)> = db_run!(self, |conn| refused_answers::table
            .filter(refused_answers::bot_id.eq(bot_id))
            .filter(refused_answers::created_at.ge(from))
            .filter(refused_answers::created_at.lt(to))
            .group_by(refused_answers::question_key)
            .select((refused_answers::question_key, count_star(), diesel::dsl::max(refused_answers::created_at)))
            .order((count_star().desc(), diesel::dsl::max(refused_answers::created_at).desc()))
            .limit(limit)
            .load(conn)
            .await)?;
        let mut out = Vec::with_capacity(groups.len());
        for (key, count, last) in groups {
            let Some(last) = last else { continue };
            // The wording of the latest ask, as the visitor typed it.
            let question: Option<String> = db_run!(self, |conn| refused_answers::table
                .filter(refused_answers::bot_id.eq(bot_id))
                .filter(refused_answers::question_key.eq(&key))
                .filter(refused_answers::created_at.eq(last))
                .select(refused_answers::question)
                .first(conn)
                .await
                .optional())?;
            out.push(UnansweredQuestion { question: question.unwrap_or(key), count, last_asked: last });
        }
        Ok(out)
    }

    /// Notes that the bot's reply `message_id` in `session_id` answered `question` without
    /// knowledge behind it.
    pub async fn record_refused_answer(&self, bot_id: &str, session_id: &str, message_id: &str, question: &str, at: NaiveDateTime) -> StoreResult<()> {
        let key = question_key(question);
        let id = crate::new_id();
        db_run!(self, |conn| diesel::insert_into(refused_answers::table)
            .values((
                refused_answers::id.eq(&id),
                refused_answers::bot_id.eq(bot_id),
                refused_answers::session_id.eq(session_id),
                refused_answers::message_id.eq(message_id),
                refused_answers::question.eq(question),
                refused_answers::question_key.eq(&key),
                refused_answers::created_at.eq(at),
            ))
            .execute(conn)
            .await)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::question_key;

    #[test]
    fn repeats_of_a_question_share_a_key() {
        assert_eq!(question_key("  How much   is it? "), "how much is it");
        assert_eq!(question_key("how much is it"), "how much is it");
        assert_eq!(question_key("Do you ship to Mars?!"), "do you ship to mars");
        assert_eq!(question_key("?"), "");
    }
}
