//! The PostgreSQL writer: a task on the runtime with a pooled connection.


use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamp};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::scoped_futures::ScopedFutureExt as _;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::counters::{Bump, Counted, Kept, RECORD_FLUSH, RECORD_THROUGH};
use super::{answer, fill_tails, plan, remember, vanished_session, CloneFor, Job, MessageJob, Tails, Turn, Writer};
use crate::models::ChatMessage;
use crate::schema::{chat_messages, chat_sessions};
use crate::{time, StoreError, StoreResult};

pub(crate) fn start(pool: Pool<AsyncPgConnection>, capacity: usize) -> Writer {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    tokio::spawn(run(pool, rx));
    // Every message is committed before it is answered: nothing waits to be applied.
    Writer { tx, unapplied: Default::default(), saver: None }
}

async fn run(pool: Pool<AsyncPgConnection>, mut rx: mpsc::Receiver<Job>) {
    let mut tails = Tails::new();
    let mut kept = Kept::default();
    loop {
        // Wait for work, but no longer than the kept counters may wait.
        let next = match kept.time_left() {
            Some(left) => tokio::time::timeout(left, rx.recv()).await.ok(),
            None => Some(rx.recv().await),
        };
        let first = match next {
            None => {
                flush(&pool, &mut kept).await;
                continue;
            }
            Some(None) => {
                flush(&pool, &mut kept).await;
                break;
            }
            Some(Some(job)) => job,
        };
        let mut work = Turn::new();
        work.add(first);
        work.fill(&mut rx);
        remember(&mut tails);
        work.forget_deleted(&mut tails);
        let with_counters = work.counters || kept.due();
        let messages = std::mem::take(&mut work.messages);
        if !messages.is_empty() {
            commit(&pool, messages, &mut tails, &mut kept, with_counters).await;
        }
        if with_counters {
            flush(&pool, &mut kept).await;
        }
        work.answer_syncs();
    }
}

/// Commits a batch of messages and answers each; a batch refused as a whole is retried one
/// message at a time, so one bad message fails alone.
async fn commit(pool: &Pool<AsyncPgConnection>, jobs: Vec<MessageJob>, tails: &mut Tails, kept: &mut Kept, with_counters: bool) {
    let mut conn = match pool.get().await {
        Ok(c) => c,
        Err(e) => return answer(jobs, Err(StoreError::Connection(e.to_string()))),
    };
    match write(&mut conn, &jobs, tails, kept, with_counters).await {
        Ok(rows) => answer(jobs, Ok(rows.into_iter().map(Arc::new).collect())),
        Err(_) if jobs.len() > 1 => {
            for job in jobs {
                tails.remove(&job.session_id);
                let saved = write(&mut conn, std::slice::from_ref(&job), tails, kept, false).await;
                let _ = job.reply.send(saved.and_then(|mut rows| rows.pop().map(Arc::new).ok_or(StoreError::NotFound)));
            }
        }
        Err(e) => {
            for job in &jobs {
                tails.remove(&job.session_id);
            }
            if let Some(job) = jobs.into_iter().next() {
                let _ = job.reply.send(Err(e));
            }
        }
    }
}

/// Writes the kept counters on their own.
async fn flush(pool: &Pool<AsyncPgConnection>, kept: &mut Kept) {
    if kept.is_empty() {
        return;
    }
    let written = match pool.get().await {
        Ok(mut conn) => {
            let now = time::now();
            let changes = kept.with(&[]);
            let counted = kept.counted_with(&Counted::default());
            let (changes, counted) = (&changes, &counted);
            conn.transaction::<_, StoreError, _>(|conn| async move { write_counters(conn, changes, counted, now).await }.scope_boxed()).await
        }
        Err(e) => Err(StoreError::Connection(e.to_string())),
    };
    match written {
        Ok(()) => kept.flushed(),
        // Kept for the next flush.
        Err(e) => tracing::warn!("session counters: {e}"),
    }
}

async fn write(conn: &mut AsyncPgConnection, jobs: &[MessageJob], tails: &mut Tails, kept: &mut Kept, with_counters: bool) -> StoreResult<Vec<ChatMessage>> {
    let now = time::now();
    let mut batch_tails = tails.clone_for(jobs);
    let kept_now: &Kept = kept;
    let result = conn
        .transaction::<_, StoreError, _>(|conn| {
            let batch_tails = &mut batch_tails;
            async move {
                let unknown: Vec<&str> = jobs.iter().map(|j| j.session_id.as_str()).filter(|s| !batch_tails.contains_key(*s)).collect();
                if !unknown.is_empty() {
                    let maxes: Vec<(String, Option<i64>)> = chat_messages::table
                        .filter(chat_messages::session_id.eq_any(&unknown))
                        .group_by(chat_messages::session_id)
                        .select((chat_messages::session_id, diesel::dsl::max(chat_messages::seq)))
                        .load(conn)
                        .await?;
                    let sessions: Vec<(String, i32, String)> = chat_sessions::table
                        .filter(chat_sessions::id.eq_any(&unknown))
                        .select((chat_sessions::id, chat_sessions::message_count, chat_sessions::bot_id))
                        .load(conn)
                        .await?;
                    fill_tails(batch_tails, &unknown, maxes, sessions, kept_now);
                }
                let plan = plan(jobs, batch_tails, now)?;
                diesel::insert_into(chat_messages::table).values(&plan.rows).execute(conn).await.map_err(vanished_session)?;
                if with_counters {
                    write_counters(conn, &kept_now.with(&plan.bumps), &kept_now.counted_with(&plan.counted), now).await?;
                }
                Ok(plan)
            }
            .scope_boxed()
        })
        .await;
    let plan = result?;
    tails.extend(batch_tails);
    if with_counters {
        kept.flushed();
    } else {
        kept.keep(&plan.bumps, &plan.counted);
    }
    Ok(plan.rows)
}

/// Every session's counters in one statement (not one round trip each), the slot counts in
/// another, and the flush's time. A session deleted since its messages were saved has nothing
/// left to count, nor a bot deleted since its figures (its rows are locked against a delete
/// until the commit, so the foreign key cannot fail the flush).
async fn write_counters(conn: &mut AsyncPgConnection, changes: &[(&str, Bump)], counted: &Counted, now: chrono::NaiveDateTime) -> StoreResult<()> {
    let ids: Vec<&str> = changes.iter().map(|(id, _)| *id).collect();
    let counts: Vec<i32> = changes.iter().map(|(_, b)| b.count).collect();
    let lasts: Vec<Option<&str>> = changes.iter().map(|(_, b)| b.last.as_deref()).collect();
    let ats: Vec<chrono::NaiveDateTime> = changes.iter().map(|(_, b)| b.at).collect();
    diesel::sql_query(
        "UPDATE chat_sessions AS s SET message_count = v.count, \
         last_message = COALESCE(v.last, s.last_message), updated_at = GREATEST(s.updated_at, v.at) \
         FROM unnest($1::text[], $2::int4[], $3::text[], $4::timestamp[]) AS v(id, count, last, at) WHERE s.id = v.id",
    )
    .bind::<Array<Text>, _>(&ids)
    .bind::<Array<Integer>, _>(&counts)
    .bind::<Array<Nullable<Text>>, _>(&lasts)
    .bind::<Array<Timestamp>, _>(&ats)
    .execute(conn)
    .await?;
    if !counted.slots.is_empty() {
        let bots: Vec<&str> = counted.slots.keys().map(|(bot, _, _)| &**bot).collect();
        let slots: Vec<i64> = counted.slots.keys().map(|(_, slot, _)| *slot).collect();
        let roles: Vec<&str> = counted.slots.keys().map(|(_, _, role)| *role).collect();
        let ns: Vec<i64> = counted.slots.values().copied().collect();
        diesel::sql_query(
            "INSERT INTO message_counts (bot_id, slot, role, count) \
             SELECT b.id, v.slot, v.role, v.n FROM unnest($1::text[], $2::int8[], $3::text[], $4::int8[]) AS v(bot, slot, role, n) \
             JOIN bots b ON b.id = v.bot FOR KEY SHARE OF b \
             ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + EXCLUDED.count",
        )
        .bind::<Array<Text>, _>(&bots)
        .bind::<Array<BigInt>, _>(&slots)
        .bind::<Array<Text>, _>(&roles)
        .bind::<Array<BigInt>, _>(&ns)
        .execute(conn)
        .await?;
    }
    if let Some(through) = &counted.through {
        diesel::sql_query(RECORD_THROUGH).bind::<Text, _>(through).execute(conn).await?;
    }
    diesel::sql_query(RECORD_FLUSH).bind::<Timestamp, _>(now).execute(conn).await?;
    Ok(())
}
