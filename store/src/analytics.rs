//! A bot's figures over time (`GET /api/bots/{id}/analytics`): per hour or day, conversations,
//! messages by author, handoffs, resolutions, agents' first-response percentiles, satisfaction,
//! refused answers and leads, each computed in SQL and grouped by the database.
//!
//! Buckets are `[from + i × width, from + (i + 1) × width)` in the viewer's local time; the
//! caller aligns `from` to local hours or midnights and names the clock changes in between, so
//! the SQL only adds, subtracts and divides whole seconds. Counts are read
//! from `message_counts` and `event_counts` (15-minute slots kept by triggers, see the
//! migration `2026-11-25-200000_analytics`): a bucket boundary is always a slot boundary, and
//! 90 days cost at most 8,640 slots whatever the traffic. The first-response percentiles need
//! each handoff's wait: one row per handoff in `agent_responses`, also kept by triggers.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamp};
use diesel_async::RunQueryDsl;

use crate::schema::refused_answers;
use crate::{Backend, Store, StoreResult};

/// Seconds in one slot of `message_counts`.
pub const SLOT_SECS: i64 = 900;

/// The most clock changes one period may hold (a 90-day period holds two at most in any zone
/// in use today; more are ignored, which leaves days after them an hour off).
pub const MAX_SHIFTS: usize = 4;

/// Where the buckets lie: `count` buckets of `width_secs` of the viewer's local time, the first
/// starting at `from` (UTC), the last ending at `to` (UTC). `from` must be a whole number of
/// slots since 1970 and `width_secs` a whole number of slots.
///
/// Local time runs with UTC except at the viewer's clock changes (`shifts`): from each change
/// on, local time is `by_secs` further from UTC than before. A day with a change is 23 or 25
/// hours long and still one bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buckets {
    pub from: NaiveDateTime,
    pub to: NaiveDateTime,
    pub width_secs: i64,
    pub count: usize,
    shifts: [Shift; MAX_SHIFTS],
}

/// A clock change: from `at` (seconds since 1970) on, local time moves by `by_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shift {
    at: i64,
    by_secs: i64,
}

/// A place holder that never applies.
const NO_SHIFT: Shift = Shift { at: i64::MAX, by_secs: 0 };

impl Buckets {
    /// Buckets of equal length in real time (no clock change, or hours labelled as they fall).
    pub fn uniform(from: NaiveDateTime, width_secs: i64, count: usize) -> Buckets {
        let to = from + chrono::Duration::seconds(width_secs * count as i64);
        Buckets { from, to, width_secs, count, shifts: [NO_SHIFT; MAX_SHIFTS] }
    }

    /// Buckets of local time from `from` to `to`, with the clock changes between them as
    /// (when, by how many seconds local time moved).
    pub fn local(from: NaiveDateTime, to: NaiveDateTime, width_secs: i64, count: usize, changes: &[(NaiveDateTime, i64)]) -> Buckets {
        let mut shifts = [NO_SHIFT; MAX_SHIFTS];
        for (shift, (at, by_secs)) in shifts.iter_mut().zip(changes) {
            *shift = Shift { at: at.and_utc().timestamp(), by_secs: *by_secs };
        }
        Buckets { from, to, width_secs, count, shifts }
    }

    pub fn to(&self) -> NaiveDateTime {
        self.to
    }

    fn start_epoch(&self) -> i64 {
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

    /// The bucket of an instant given in seconds since 1970 (`epoch`): its local time since
    /// the first bucket's start ($3), counting the clock changes before it ($6–$13 as
    /// (when, by) pairs), divided by the bucket width ($4).
    fn bucket_of(&self, epoch: &str) -> String {
        let shifts: Vec<String> =
            (0..MAX_SHIFTS).map(|i| format!("CASE WHEN {epoch} >= ${} THEN ${} ELSE 0 END", 6 + 2 * i, 7 + 2 * i)).collect();
        format!("({epoch} + {} - $3) / $4", shifts.join(" + "))
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

    /// Counts per bucket from the slots: messages by author (`user`, `bot`, `agent`) and
    /// events (`conversation`, `handoff`, `resolved`, `rating` with its sum in `total`,
    /// `refused`, `lead`). $1 bot, $2 first slot, $3 from in seconds, $4 bucket width, $5 slot
    /// past the last, $6–$13 the clock changes.
    fn counts(&self) -> String {
        let bucket = self.bucket_of(&format!("slot * {SLOT_SECS}"));
        self.finish(format!(
            "SELECT {bucket} AS b, role AS kind, CAST(SUM(count) AS BIGINT) AS n, CAST(0 AS BIGINT) AS total \
             FROM message_counts WHERE bot_id = $1 AND slot >= $2 AND slot < $5 GROUP BY 1, 2 \
             UNION ALL \
             SELECT {bucket} AS b, kind, CAST(SUM(count) AS BIGINT) AS n, CAST(SUM(total) AS BIGINT) AS total \
             FROM event_counts WHERE bot_id = $1 AND slot >= $2 AND slot < $5 GROUP BY 1, 2"
        ))
    }

    /// First-response percentiles per bucket of the request, and over the whole period
    /// (bucket -1), by nearest rank, from `agent_responses` (each handoff's request and first
    /// agent message after it, kept by triggers): the ⌈p·n⌉-th smallest wait. $1 bot, $2 from, $3 from in
    /// seconds, $4 bucket width, $5 to, $6–$13 the clock changes.
    fn response_times(&self) -> String {
        let asked_bucket = self.bucket_of(&self.epoch("asked_at"));
        let wait = self.seconds_between("asked_at", "answered_at");
        self.finish(format!(
            "WITH waits AS ( \
               SELECT {asked_bucket} AS b, {wait} AS wait FROM agent_responses \
               WHERE bot_id = $1 AND asked_at >= $2 AND asked_at < $5 \
             ), keyed AS ( \
               SELECT b AS k, wait FROM waits UNION ALL SELECT -1 AS k, wait FROM waits \
             ), ranked AS ( \
               SELECT k, wait, ROW_NUMBER() OVER (PARTITION BY k ORDER BY wait) AS rn, COUNT(*) OVER (PARTITION BY k) AS n FROM keyed \
             ) \
             SELECT k AS b, CAST(MAX(n) AS BIGINT) AS n, \
               MAX(CASE WHEN rn = (n + 1) / 2 THEN wait END) AS median, \
               MAX(CASE WHEN rn = (9 * n + 9) / 10 THEN wait END) AS p90 \
             FROM ranked GROUP BY k"
        ))
    }
}

/// Binds the clock changes, $6–$13 as (when, by) pairs, that `Dialect::bucket_of` reads.
fn with_shifts<'f, DB>(mut query: BoxedSqlQuery<'f, DB, SqlQuery>, buckets: &Buckets) -> BoxedSqlQuery<'f, DB, SqlQuery>
where
    DB: diesel::backend::Backend + diesel::sql_types::HasSqlType<BigInt>,
    i64: diesel::serialize::ToSql<BigInt, DB>,
{
    for shift in &buckets.shifts {
        query = query.bind::<BigInt, _>(shift.at).bind::<BigInt, _>(shift.by_secs);
    }
    query
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = BigInt)]
    b: i64,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = BigInt)]
    total: i64,
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
        // The message writer keeps the newest slot counts until a reader asks.
        self.counters_current().await;
        let dialect = Dialect(self.backend());
        let (from, to, from_epoch, width) = (buckets.from, buckets.to(), buckets.start_epoch(), buckets.width_secs.max(1));
        let counts_sql = dialect.counts();
        let (first_slot, end_slot) = (from_epoch.div_euclid(SLOT_SECS), (to.and_utc().timestamp() + SLOT_SECS - 1).div_euclid(SLOT_SECS));
        let counts: Vec<CountRow> = db_run!(self, |conn| {
            let query = diesel::sql_query(counts_sql.as_str())
                .into_boxed()
                .bind::<Text, _>(bot_id)
                .bind::<BigInt, _>(first_slot)
                .bind::<BigInt, _>(from_epoch)
                .bind::<BigInt, _>(width)
                .bind::<BigInt, _>(end_slot);
            with_shifts(query, buckets).load(conn).await
        })?;
        let responses_sql = dialect.response_times();
        let responses: Vec<ResponseRow> = db_run!(self, |conn| {
            let query = diesel::sql_query(responses_sql.as_str())
                .into_boxed()
                .bind::<Text, _>(bot_id)
                .bind::<Timestamp, _>(from)
                .bind::<BigInt, _>(from_epoch)
                .bind::<BigInt, _>(width)
                .bind::<Timestamp, _>(to);
            with_shifts(query, buckets).load(conn).await
        })?;

        let mut out = vec![Figures::default(); buckets.count];
        let slot = |b: i64| usize::try_from(b).ok().filter(|&i| i < buckets.count);
        for row in counts {
            if let Some(f) = slot(row.b).and_then(|i| out.get_mut(i)) {
                match row.kind.as_str() {
                    "user" => f.visitor_messages += row.n,
                    "bot" => f.bot_messages += row.n,
                    "agent" => f.agent_messages += row.n,
                    "conversation" => f.conversations += row.n,
                    "handoff" => f.handoffs += row.n,
                    "resolved" => f.resolved += row.n,
                    "rating" => {
                        f.rated += row.n;
                        f.rating_sum += row.total;
                    }
                    "refused" => f.refused += row.n,
                    "lead" => f.leads += row.n,
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
