//! The counters the writer keeps between flushes, and the catch-up after a crash.
//!
//! Two kinds: each session's counters (message count, preview, last activity), and the
//! messages per bot, 15-minute slot and author that analytics reads (`message_counts`). Each
//! flush writes both, the flush's time (one row in `message_counter_flushes`) and the id of the
//! last message counted (`message_counts_through`) in one transaction.
//!
//! After a crash: every message saved after a flush has an id (UUIDv7) later than that time,
//! so the sessions whose counters may be behind are exactly those with a message id past the
//! last flush, recounted from their messages at start-up (absolute values, so a margin is
//! harmless). Slot counts are additions, so they need an exact line instead: ids are ordered
//! within a process, and the messages past the last counted id are added once, with the line
//! moved in the same transaction.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

/// Longest a counter waits before it is written when no reader asks for it sooner.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// Sessions with kept counters past which the writer flushes without waiting.
const MAX_KEPT: usize = 20_000;

/// Characters of a message kept as its session's preview.
const PREVIEW_CHARS: usize = 200;

/// How far before a flush's recorded time the recount looks: message ids and flush times are
/// read from the same clock, but not at the same instant.
const RECOUNT_MARGIN_MS: i64 = 5_000;

/// Roles whose messages are counted and previewed (not system notes). Keep in step with
/// `writer::shown`.
const SHOWN_ROLES: &str = "('user', 'bot', 'agent')";

/// One session's counters as the writer last changed them: its message count (absolute: the
/// writer counts from the stored value, so writing it twice, or after a recount, is harmless),
/// the newest shown message's preview, when its newest message (of any role) was saved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bump {
    pub count: i32,
    pub last: Option<String>,
    pub at: NaiveDateTime,
}

impl Bump {
    pub(crate) fn at(at: NaiveDateTime) -> Bump {
        Bump { count: 0, last: None, at }
    }

    /// A shown message: the session's count is now `count`, and this is its preview.
    pub(crate) fn shown(&mut self, count: i32, text: &str) {
        self.count = count;
        self.last = Some(text.chars().take(PREVIEW_CHARS).collect());
    }

    /// Takes a later change over this one.
    fn then(&mut self, later: &Bump) {
        self.count = later.count;
        if later.last.is_some() {
            self.last.clone_from(&later.last);
        }
        self.at = self.at.max(later.at);
    }
}

/// A row of `message_counts`: bot, 15-minute slot (UTC seconds / 900), author.
pub(crate) type SlotKey = (Arc<str>, i64, &'static str);

/// The slot of `message_counts` a message saved at `at` counts in (the analytics migration's
/// `strftime('%s', …) / 900` and `FLOOR(EXTRACT(EPOCH …) / 900)`: whole seconds, floored).
pub(crate) fn slot_of(at: NaiveDateTime) -> i64 {
    at.and_utc().timestamp().div_euclid(crate::analytics::SLOT_SECS)
}

/// Messages counted per slot and not yet written, and the last message they include.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Counted {
    pub slots: HashMap<SlotKey, i64>,
    /// The id of the newest message counted.
    pub through: Option<String>,
}

impl Counted {
    pub(crate) fn add(&mut self, key: SlotKey) {
        *self.slots.entry(key).or_insert(0) += 1;
    }

    /// Adds a later batch's counts.
    fn then(&mut self, later: &Counted) {
        for (key, n) in &later.slots {
            *self.slots.entry(key.clone()).or_insert(0) += n;
        }
        if later.through.is_some() {
            self.through.clone_from(&later.through);
        }
    }

    fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.through.is_none()
    }
}

/// The counters kept since the last flush.
#[derive(Default)]
pub(crate) struct Kept {
    sessions: HashMap<String, Bump>,
    counted: Counted,
    /// When the oldest kept change was made.
    since: Option<Instant>,
}

impl Kept {
    /// Keeps a committed batch's changes.
    pub(crate) fn keep(&mut self, batch: &[(&str, Bump)], counted: &Counted) {
        self.counted.then(counted);
        for (id, bump) in batch {
            match self.sessions.get_mut(*id) {
                Some(kept) => kept.then(bump),
                None => {
                    self.sessions.insert((*id).to_string(), bump.clone());
                }
            }
        }
        if !batch.is_empty() && self.since.is_none() {
            self.since = Some(Instant::now());
        }
    }

    /// The count kept for a session, if any: newer than the stored one.
    pub(crate) fn count_of(&self, session_id: &str) -> Option<i32> {
        self.sessions.get(session_id).map(|b| b.count)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.counted.is_empty()
    }

    /// Whether the kept counters should be written with the next transaction.
    pub(crate) fn due(&self) -> bool {
        self.sessions.len() >= MAX_KEPT || self.since.is_some_and(|s| s.elapsed() >= FLUSH_EVERY)
    }

    /// How long the writer may wait for work before the kept counters are due; `None` when
    /// nothing is kept.
    pub(crate) fn time_left(&self) -> Option<Duration> {
        self.since.map(|s| FLUSH_EVERY.saturating_sub(s.elapsed()))
    }

    /// The kept changes followed by a batch's, one per session: what a flush writes.
    pub(crate) fn with<'a>(&'a self, batch: &'a [(&'a str, Bump)]) -> Vec<(&'a str, Bump)> {
        let mut out: Vec<(&str, Bump)> = self.sessions.iter().map(|(id, b)| (id.as_str(), b.clone())).collect();
        let mut index: HashMap<&str, usize> = out.iter().enumerate().map(|(i, (id, _))| (*id, i)).collect();
        for (id, bump) in batch {
            match index.get(id).and_then(|i| out.get_mut(*i)) {
                Some((_, kept)) => kept.then(bump),
                None => {
                    index.insert(*id, out.len());
                    out.push((*id, bump.clone()));
                }
            }
        }
        out
    }

    /// The kept slot counts followed by a batch's: what a flush writes.
    pub(crate) fn counted_with(&self, batch: &Counted) -> Counted {
        let mut out = self.counted.clone();
        out.then(batch);
        out
    }

    /// Forgets what a committed flush wrote.
    pub(crate) fn flushed(&mut self) {
        self.sessions.clear();
        self.counted = Counted::default();
        self.since = None;
    }
}

/// Records a flush's time (`$1`/`?`: a timestamp).
pub(crate) const RECORD_FLUSH: &str = "INSERT INTO message_counter_flushes (id, flushed_at) VALUES (1, $1) \
     ON CONFLICT (id) DO UPDATE SET flushed_at = excluded.flushed_at";

pub(crate) const LAST_FLUSH: &str = "SELECT flushed_at FROM message_counter_flushes WHERE id = 1";

#[derive(diesel::QueryableByName)]
pub(crate) struct LastFlush {
    #[diesel(sql_type = diesel::sql_types::Timestamp)]
    pub flushed_at: NaiveDateTime,
}

/// The smallest message id (UUIDv7, as text) that may have been saved after a flush at `at`.
pub(crate) fn first_id_after(at: NaiveDateTime) -> String {
    let ms = (at.and_utc().timestamp_millis() - RECOUNT_MARGIN_MS).max(0);
    format!("{:08x}-{:04x}-0000-0000-000000000000", ms >> 16, ms & 0xffff)
}

/// Recounts the sessions with a message id from `$1` on, from their messages. `later_of` is
/// the backend's two-argument maximum (`max` on SQLite, `GREATEST` on PostgreSQL).
pub(crate) fn recount_sql(later_of: &str) -> String {
    format!(
        "UPDATE chat_sessions SET \
           message_count = (SELECT COUNT(*) FROM chat_messages m \
                            WHERE m.session_id = chat_sessions.id AND m.role IN {SHOWN_ROLES}), \
           last_message = COALESCE((SELECT substr(m.content, 1, {PREVIEW_CHARS}) FROM chat_messages m \
                            WHERE m.session_id = chat_sessions.id AND m.role IN {SHOWN_ROLES} \
                            ORDER BY m.seq DESC LIMIT 1), last_message), \
           updated_at = {later_of}(updated_at, COALESCE((SELECT MAX(m.created_at) FROM chat_messages m \
                            WHERE m.session_id = chat_sessions.id), updated_at)) \
         WHERE id IN (SELECT session_id FROM chat_messages WHERE id >= $1)"
    )
}

/// Moves the line of counted messages (`$1`: the newest counted id).
pub(crate) const RECORD_THROUGH: &str = "UPDATE message_counts_through SET message_id = $1 WHERE id = 1";

/// Adds the messages past the line of counted ones to their slots. `slot` is the backend's
/// slot of `m.created_at` (as in the analytics migration).
fn catch_up_sql(slot: &str) -> String {
    format!(
        "INSERT INTO message_counts (bot_id, slot, role, count) \
         SELECT s.bot_id, {slot}, m.role, COUNT(*) FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id \
         WHERE m.id > (SELECT message_id FROM message_counts_through WHERE id = 1) AND m.role IN {SHOWN_ROLES} \
         GROUP BY 1, 2, 3 \
         ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + excluded.count"
    )
}

/// Moves the line past every message saved (after `catch_up_sql`, in its transaction).
const CAUGHT_UP: &str = "UPDATE message_counts_through SET message_id = (SELECT MAX(id) FROM chat_messages) \
     WHERE id = 1 AND (SELECT MAX(id) FROM chat_messages) > message_id";

/// Brings the counters up to date after an unclean stop: run at start-up, before the writer.
/// Returns how many sessions were recounted. (One body per backend: diesel's raw queries are
/// typed by their connection.)
pub(crate) fn reconcile_sqlite(conn: &mut diesel::SqliteConnection) -> diesel::QueryResult<usize> {
    use diesel::RunQueryDsl;
    conn.immediate_transaction(|conn| {
        diesel::sql_query(catch_up_sql("CAST(strftime('%s', substr(m.created_at, 1, 19)) AS INTEGER) / 900")).execute(conn)?;
        diesel::sql_query(CAUGHT_UP).execute(conn)?;
        let last: Vec<LastFlush> = diesel::sql_query(LAST_FLUSH).load(conn)?;
        match last.first() {
            // Never flushed: the counters were written with every message until now.
            None => Ok(0),
            Some(last) => diesel::sql_query(recount_sql("max")).bind::<diesel::sql_types::Text, _>(first_id_after(last.flushed_at)).execute(conn),
        }
    })
}

pub(crate) fn reconcile_pg(
    conn: &mut diesel_async::async_connection_wrapper::AsyncConnectionWrapper<diesel_async::AsyncPgConnection>,
) -> diesel::QueryResult<usize> {
    use diesel::{Connection, RunQueryDsl};
    conn.transaction(|conn| {
        diesel::sql_query(catch_up_sql("FLOOR(EXTRACT(EPOCH FROM m.created_at) / 900)::BIGINT")).execute(conn)?;
        diesel::sql_query(CAUGHT_UP).execute(conn)?;
        let last: Vec<LastFlush> = diesel::sql_query(LAST_FLUSH).load(conn)?;
        match last.first() {
            None => Ok(0),
            Some(last) => diesel::sql_query(recount_sql("GREATEST")).bind::<diesel::sql_types::Text, _>(first_id_after(last.flushed_at)).execute(conn),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> NaiveDateTime {
        chrono::DateTime::from_timestamp(1_700_000_000 + s, 0).map(|d| d.naive_utc()).unwrap_or_default()
    }

    #[test]
    fn later_changes_win_per_session() {
        let mut a = Bump::at(t(0));
        a.shown(1, "hello");
        let mut b = Bump::at(t(5));
        b.shown(3, "third");
        let system_only = Bump { count: 7, last: None, at: t(9) };
        let mut kept = Kept::default();
        assert!(kept.time_left().is_none());
        kept.keep(&[("s1", a.clone()), ("s2", system_only.clone())], &Counted::default());
        kept.keep(&[("s1", b)], &Counted::default());
        assert_eq!(kept.count_of("s1"), Some(3));
        assert_eq!(kept.count_of("s3"), None);
        let batch = [("s2", Bump { count: 8, ..a }), ("s3", system_only)];
        let all = kept.with(&batch);
        let find = |id: &str| all.iter().find(|(s, _)| *s == id).map(|(_, b)| b.clone()).unwrap();
        assert_eq!(find("s1"), Bump { count: 3, last: Some("third".into()), at: t(5) });
        assert_eq!(find("s2"), Bump { count: 8, last: Some("hello".into()), at: t(9) }, "a later batch's count and preview, the later time");
        assert_eq!(find("s3").count, 7);
        assert_eq!(all.len(), 3);
        assert!(!kept.due(), "just kept");
        kept.flushed();
        assert!(kept.is_empty() && kept.time_left().is_none());
    }

    #[test]
    fn slot_counts_add_up_and_the_line_moves_to_the_newest() {
        let bot: Arc<str> = "bot-1".into();
        let mut first = Counted::default();
        first.add((bot.clone(), 7, "user"));
        first.add((bot.clone(), 7, "user"));
        first.through = Some("a".into());
        let mut second = Counted::default();
        second.add((bot.clone(), 7, "user"));
        second.add((bot.clone(), 8, "bot"));
        second.through = Some("b".into());
        let mut kept = Kept::default();
        kept.keep(&[("s1", Bump::at(t(0)))], &first);
        let mut third = Counted::default();
        third.add((bot.clone(), 8, "bot"));
        let all = kept.counted_with(&third);
        assert_eq!(all.slots.get(&(bot.clone(), 7, "user")), Some(&2));
        assert_eq!(all.slots.get(&(bot.clone(), 8, "bot")), Some(&1));
        assert_eq!(all.through.as_deref(), Some("a"), "a batch with no id keeps the line");
        kept.keep(&[("s1", Bump::at(t(1)))], &second);
        let all = kept.counted_with(&Counted::default());
        assert_eq!(all.slots.get(&(bot.clone(), 7, "user")), Some(&3));
        assert_eq!(all.through.as_deref(), Some("b"));
        kept.flushed();
        assert!(kept.is_empty());
        assert!(kept.counted_with(&Counted::default()).is_empty());
    }

    #[test]
    fn slots_are_whole_quarter_hours_of_utc_seconds() {
        let at = |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap();
        assert_eq!(slot_of(at("2026-11-26 10:14:59.999")), slot_of(at("2026-11-26 10:00:00.000")));
        assert_eq!(slot_of(at("2026-11-26 10:15:00.000")), slot_of(at("2026-11-26 10:00:00.000")) + 1);
        assert_eq!(slot_of(at("1970-01-01 00:15:00")), 1);
    }

    #[test]
    fn previews_are_cut_at_characters() {
        let mut b = Bump::at(t(0));
        b.shown(1, &"é".repeat(300));
        assert_eq!(b.last.map(|s| s.chars().count()), Some(PREVIEW_CHARS));
    }

    #[test]
    fn the_recount_starts_before_the_flush() {
        let at = t(0);
        let id = first_id_after(at);
        let earlier = uuid::Uuid::new_v7(uuid::Timestamp::from_unix(uuid::NoContext, 1_700_000_000 - 6, 0)).to_string();
        let later = uuid::Uuid::new_v7(uuid::Timestamp::from_unix(uuid::NoContext, 1_700_000_000 - 4, 0)).to_string();
        assert!(earlier < id && id < later, "{earlier} < {id} < {later}");
    }
}
