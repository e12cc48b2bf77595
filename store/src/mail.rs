//! The mail outbox: mail is written here in the request that causes it and sent later by a
//! background task (http's `mail::worker`), so a restart loses none and a mail server that is
//! down fails no request. A row is claimed before sending by pushing its next attempt into the
//! future (a lease), so two workers never send the same mail at once.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::OutboxMail;
use crate::schema::mail_outbox;
use crate::{new_id, time, Store, StoreResult};

#[derive(Debug, Clone)]
pub struct NewMail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub link: Option<String>,
}

/// The outbox row of a new mail, due at once.
pub(crate) fn outbox_row(mail: NewMail) -> OutboxMail {
    let now = time::now();
    OutboxMail {
        id: new_id(),
        to_address: mail.to,
        subject: mail.subject,
        text_body: mail.text,
        html_body: mail.html,
        link: mail.link,
        status: "pending".into(),
        attempts: 0,
        next_attempt_at: now,
        last_error: None,
        created_at: now,
        sent_at: None,
    }
}

impl Store {
    pub async fn enqueue_mail(&self, mail: NewMail) -> StoreResult<OutboxMail> {
        let row = outbox_row(mail);
        db_run!(self, |conn| diesel::insert_into(mail_outbox::table).values(&row).execute(conn).await)?;
        Ok(row)
    }

    /// Pending mail due at `now`, oldest first.
    pub async fn due_mail(&self, now: NaiveDateTime, limit: i64) -> StoreResult<Vec<OutboxMail>> {
        db_run!(self, |conn| mail_outbox::table
            .filter(mail_outbox::status.eq("pending"))
            .filter(mail_outbox::next_attempt_at.le(now))
            .order(mail_outbox::next_attempt_at)
            .limit(limit)
            .load::<OutboxMail>(conn)
            .await)
        .map_err(Into::into)
    }

    /// The earliest time some pending mail is due, if any is pending.
    pub async fn next_mail_due(&self) -> StoreResult<Option<NaiveDateTime>> {
        db_run!(self, |conn| mail_outbox::table
            .filter(mail_outbox::status.eq("pending"))
            .select(diesel::dsl::min(mail_outbox::next_attempt_at))
            .first::<Option<NaiveDateTime>>(conn)
            .await)
        .map_err(Into::into)
    }

    /// Takes `mail` for sending until `lease_until`: true when this caller won it (nobody
    /// else claimed or sent it since it was read).
    pub async fn claim_mail(&self, mail: &OutboxMail, lease_until: NaiveDateTime) -> StoreResult<bool> {
        let n = db_run!(self, |conn| diesel::update(
            mail_outbox::table
                .find(&mail.id)
                .filter(mail_outbox::status.eq("pending"))
                .filter(mail_outbox::next_attempt_at.eq(mail.next_attempt_at))
        )
        .set(mail_outbox::next_attempt_at.eq(lease_until))
        .execute(conn)
        .await)?;
        Ok(n == 1)
    }

    /// Sent: the bodies (which may hold a secret link) are not kept.
    pub async fn mail_sent(&self, id: &str) -> StoreResult<()> {
        let now = time::now();
        db_run!(self, |conn| diesel::update(mail_outbox::table.find(id))
            .set((
                mail_outbox::status.eq("sent"),
                mail_outbox::sent_at.eq(now),
                mail_outbox::attempts.eq(mail_outbox::attempts + 1),
                mail_outbox::text_body.eq(""),
                mail_outbox::html_body.eq(""),
                mail_outbox::link.eq(None::<String>),
                mail_outbox::last_error.eq(None::<String>),
            ))
            .execute(conn)
            .await)?;
        Ok(())
    }

    /// An attempt failed: tried again at `retry_at`, or given up (`failed`) when `None`; a mail
    /// given up keeps no bodies or link, as a sent one (its link's secret must not outlive it).
    pub async fn mail_attempt_failed(&self, id: &str, error: &str, retry_at: Option<NaiveDateTime>) -> StoreResult<()> {
        let error: String = error.chars().take(1000).collect();
        db_run!(self, |conn| match retry_at {
            Some(at) => diesel::update(mail_outbox::table.find(id))
                .set((
                    mail_outbox::attempts.eq(mail_outbox::attempts + 1),
                    mail_outbox::next_attempt_at.eq(at),
                    mail_outbox::last_error.eq(&error),
                ))
                .execute(conn)
                .await,
            None => diesel::update(mail_outbox::table.find(id))
                .set((
                    mail_outbox::attempts.eq(mail_outbox::attempts + 1),
                    mail_outbox::status.eq("failed"),
                    mail_outbox::last_error.eq(&error),
                    mail_outbox::text_body.eq(""),
                    mail_outbox::html_body.eq(""),
                    mail_outbox::link.eq(None::<String>),
                ))
                .execute(conn)
                .await,
        })?;
        Ok(())
    }

    /// Every outbox row, newest first (tests and diagnostics).
    pub async fn outbox(&self, limit: i64) -> StoreResult<Vec<OutboxMail>> {
        db_run!(self, |conn| mail_outbox::table
            .order(mail_outbox::created_at.desc())
            .limit(limit)
            .load::<OutboxMail>(conn)
            .await)
        .map_err(Into::into)
    }
}
