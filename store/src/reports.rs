//! The weekly report: who gets one, one bot's figures for a week, and per user the mark of the
//! last week reported (or of when reports were turned on), moved in the same transaction that
//! queues the report's mail, so a week's report is neither lost nor sent twice (by a restart,
//! or by two nodes at once).

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::mail::{outbox_row, NewMail};
use crate::models::User;
use crate::schema::{chat_messages, chat_sessions, leads, mail_outbox, notification_preferences, users, weekly_reports};
use crate::{time, Store, StoreResult};

/// What happened on one bot in `[from, to)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WeekFigures {
    /// Conversations started.
    pub conversations: i64,
    /// Messages of visitors, the assistant and agents (system notes are not counted).
    pub messages: i64,
    /// Conversations in which a visitor asked for a person.
    pub handoffs: i64,
    /// Conversations an agent resolved.
    pub resolved: i64,
    /// Mean 1–5 rating of the conversations resolved in the week, over `rated` of them.
    pub average_rating: Option<f64>,
    pub rated: i64,
    /// Leads captured.
    pub new_leads: i64,
}

impl Store {
    /// Users who turned weekly reports on and whose address is verified: a report goes only
    /// to an address its owner proved is theirs, so nobody can sign someone else up for it.
    pub async fn weekly_report_recipients(&self) -> StoreResult<Vec<User>> {
        db_run!(self, |conn| users::table
            .inner_join(notification_preferences::table)
            .filter(notification_preferences::weekly_reports.eq(true))
            .filter(users::email_verified.eq(true))
            .order(users::created_at)
            .select(User::as_select())
            .load(conn)
            .await)
        .map_err(Into::into)
    }

    /// Reports were just turned on: the first goes out for the first week that ends after
    /// `now` (not at once for the week that ended before).
    pub async fn start_weekly_reports(&self, user_id: &str, now: NaiveDateTime) -> StoreResult<()> {
        db_tx!(self, owned(user_id), |conn| async move {
            let moved = diesel::update(weekly_reports::table.find(user_id).filter(weekly_reports::period_end.lt(now)))
                .set((weekly_reports::period_end.eq(now), weekly_reports::updated_at.eq(now)))
                .execute(conn)
                .await?;
            if moved == 0 {
                diesel::insert_into(weekly_reports::table)
                    .values((weekly_reports::user_id.eq(user_id), weekly_reports::period_end.eq(now), weekly_reports::updated_at.eq(now)))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
            }
            Ok(())
        })
    }

    /// The end of the last week the user was sent a report for (or when reports were turned
    /// on).
    pub async fn last_weekly_report(&self, user_id: &str) -> StoreResult<Option<NaiveDateTime>> {
        db_run!(self, |conn| weekly_reports::table
            .find(user_id)
            .select(weekly_reports::period_end)
            .first::<NaiveDateTime>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    pub async fn week_figures(&self, bot_id: &str, from: NaiveDateTime, to: NaiveDateTime) -> StoreResult<WeekFigures> {
        let sessions = || chat_sessions::table.filter(chat_sessions::bot_id.eq(bot_id));
        let conversations = db_run!(self, |conn| sessions()
            .filter(chat_sessions::created_at.ge(from))
            .filter(chat_sessions::created_at.lt(to))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let messages = db_run!(self, |conn| chat_messages::table
            .inner_join(chat_sessions::table)
            .filter(chat_sessions::bot_id.eq(bot_id))
            .filter(chat_messages::created_at.ge(from))
            .filter(chat_messages::created_at.lt(to))
            .filter(chat_messages::role.ne("system"))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let handoffs = db_run!(self, |conn| sessions()
            .filter(chat_sessions::human_support_requested_at.ge(from))
            .filter(chat_sessions::human_support_requested_at.lt(to))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let resolved_ratings: Vec<Option<i32>> = db_run!(self, |conn| sessions()
            .filter(chat_sessions::resolved_at.ge(from))
            .filter(chat_sessions::resolved_at.lt(to))
            .select(chat_sessions::rating)
            .load(conn)
            .await)?;
        let new_leads = db_run!(self, |conn| leads::table
            .filter(leads::bot_id.eq(bot_id))
            .filter(leads::captured_at.ge(from))
            .filter(leads::captured_at.lt(to))
            .count()
            .get_result::<i64>(conn)
            .await)?;
        let ratings: Vec<f64> = resolved_ratings.iter().flatten().map(|r| f64::from(*r)).collect();
        Ok(WeekFigures {
            conversations,
            messages,
            handoffs,
            resolved: resolved_ratings.len() as i64,
            average_rating: (!ratings.is_empty()).then(|| ratings.iter().sum::<f64>() / ratings.len() as f64),
            rated: ratings.len() as i64,
            new_leads,
        })
    }

    /// Marks the week ending at `period_end` as reported to the user and queues `mail`, both or
    /// neither. False (and nothing queued) when that week or a later one was reported already.
    pub async fn record_weekly_report(&self, user_id: &str, period_end: NaiveDateTime, mail: NewMail) -> StoreResult<bool> {
        let now = time::now();
        let row = outbox_row(mail);
        db_tx!(self, owned(user_id), |conn| async move {
            // Moving the mark forward is the claim: on PostgreSQL a second transaction waits on
            // the row and then finds the week taken; SQLite runs one transaction at a time.
            let moved = diesel::update(weekly_reports::table.find(user_id).filter(weekly_reports::period_end.lt(period_end)))
                .set((weekly_reports::period_end.eq(period_end), weekly_reports::updated_at.eq(now)))
                .execute(conn)
                .await?;
            let claimed = moved == 1
                || diesel::insert_into(weekly_reports::table)
                    .values((weekly_reports::user_id.eq(user_id), weekly_reports::period_end.eq(period_end), weekly_reports::updated_at.eq(now)))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?
                    == 1;
            if claimed {
                diesel::insert_into(mail_outbox::table).values(&row).execute(conn).await?;
            }
            Ok(claimed)
        })
    }
}
