//! The message writer: every chat message is saved through one bounded queue and committed in
//! groups — whatever is queued when the writer comes round goes into one transaction (group
//! commit), on SQLite and on PostgreSQL alike.
//!
//! Why one writer: SQLite allows one writer at a time anyway, and a commit per message (or a
//! thread hop per statement) capped relaying long before the CPU did. The writer numbers each
//! session's messages itself (it is the only appender, so it keeps the last `seq` of the
//! sessions it has seen), so a message in steady state costs no read at all: one row in a
//! multi-row insert and its share of one counter update per session per batch.
//!
//! SQLite: a dedicated thread owns a plain (synchronous) connection, so a batch is one hop, not
//! one per statement. It never checkpoints the WAL itself (a checkpoint copies pages and syncs
//! the file: milliseconds a queued message would wait); a second thread does, every
//! `CHECKPOINT_EVERY`, beside it. PostgreSQL: a task on the runtime with a pooled connection.
//!
//! Message ids are time-ordered (UUIDv7), so the primary-key index grows at its end instead of
//! touching a random page per message.
//!
//! A full queue refuses at once (`StoreError::Busy`) instead of growing: the caller tells its
//! client to retry. A batch that fails as a whole (a constraint, a vanished session) is retried
//! one message at a time, so one bad message fails alone.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::NaiveDateTime;
use tokio::sync::{mpsc, oneshot};

use crate::chat::{NewMessage, Role};
use crate::models::ChatMessage;
use crate::{time, StoreError, StoreResult};

/// A new message id: time-ordered, so consecutive inserts share index pages.
fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// What a full queue answers.
pub const BUSY: &str = "Server busy, please retry";

/// Most messages committed in one transaction.
const MAX_BATCH: usize = 512;

/// Sessions whose last `seq` the writer remembers; past this it forgets them all (the next
/// message of each reads its last `seq` once).
const SEQ_MEMORY: usize = 100_000;

const PREVIEW_CHARS: usize = 200;

pub(crate) struct Job {
    session_id: String,
    new: NewMessage,
    reply: oneshot::Sender<StoreResult<ChatMessage>>,
}

/// The sending side; cheap to clone.
#[derive(Clone)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Job>,
}

impl Writer {
    /// Queues a message; `Err(Busy)` at once when the queue is full.
    pub(crate) fn submit(&self, session_id: &str, new: NewMessage) -> StoreResult<oneshot::Receiver<StoreResult<ChatMessage>>> {
        let (reply, answer) = oneshot::channel();
        match self.tx.try_send(Job { session_id: session_id.to_string(), new, reply }) {
            Ok(()) => Ok(answer),
            Err(mpsc::error::TrySendError::Full(_)) => Err(StoreError::Busy(BUSY.into())),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(StoreError::Connection("the message writer stopped".into())),
        }
    }
}

/// One session's share of a batch: how many shown messages it gained, its new preview.
struct Bump<'a> {
    session_id: &'a str,
    shown: i32,
    last: Option<String>,
}

/// What a batch writes, worked out before touching the database.
struct Plan<'a> {
    rows: Vec<ChatMessage>,
    bumps: Vec<Bump<'a>>,
}

fn preview(text: &str) -> String {
    text.chars().take(PREVIEW_CHARS).collect()
}

fn shown(role: Role) -> bool {
    matches!(role, Role::User | Role::Bot | Role::Agent)
}

fn row(session_id: &str, seq: i64, new: &NewMessage, now: NaiveDateTime) -> StoreResult<ChatMessage> {
    Ok(ChatMessage {
        id: new_message_id(),
        session_id: session_id.to_string(),
        seq,
        role: new.role.as_str().to_string(),
        content: new.content.clone(),
        sender_name: new.sender_name.clone(),
        agent_id: new.agent_id.clone(),
        is_agent: new.role == Role::Agent,
        is_error: new.is_error,
        sources: serde_json::to_string(&new.sources)?,
        created_at: now,
        edited_at: None,
    })
}

/// Numbers the jobs' messages from `last_seq` (every session of `jobs` must be in it) and
/// sums each session's counters.
fn plan<'a>(jobs: &'a [Job], last_seq: &mut HashMap<String, i64>, now: NaiveDateTime) -> StoreResult<Plan<'a>> {
    let mut rows = Vec::with_capacity(jobs.len());
    let mut bumps: Vec<Bump<'a>> = Vec::new();
    let mut index: HashMap<&'a str, usize> = HashMap::new();
    for job in jobs {
        let seq = last_seq.get_mut(&job.session_id).ok_or(StoreError::NotFound)?;
        *seq += 1;
        rows.push(row(&job.session_id, *seq, &job.new, now)?);
        let i = *index.entry(job.session_id.as_str()).or_insert_with(|| {
            bumps.push(Bump { session_id: job.session_id.as_str(), shown: 0, last: None });
            bumps.len() - 1
        });
        if let Some(bump) = bumps.get_mut(i) {
            if shown(job.new.role) {
                bump.shown += 1;
                bump.last = Some(preview(&job.new.content));
            }
        }
    }
    Ok(Plan { rows, bumps })
}

/// Answers every job of a batch with its saved message, or all with the batch's error.
fn answer(jobs: Vec<Job>, saved: StoreResult<Vec<ChatMessage>>) {
    match saved {
        Ok(rows) => {
            for (job, row) in jobs.into_iter().zip(rows) {
                let _ = job.reply.send(Ok(row));
            }
        }
        Err(e) => {
            let reason = e.to_string();
            for job in jobs {
                let _ = job.reply.send(Err(StoreError::Connection(reason.clone())));
            }
        }
    }
}

fn remember(last_seq: &mut HashMap<String, i64>) {
    if last_seq.len() > SEQ_MEMORY {
        last_seq.clear();
    }
}

// ---------------------------------------------------------------------------------------------
// SQLite: a thread of its own.

pub(crate) mod sqlite {
    use super::*;
    use crate::schema::{chat_messages, chat_sessions};
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;

    /// How often the checkpoint thread moves the WAL's pages into the database file.
    const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

    /// Starts the writer thread on the database at `path`, and its checkpoint thread.
    pub(crate) fn start(path: PathBuf, pragmas: &'static str, capacity: usize, turn: std::sync::Arc<tokio::sync::Mutex<()>>) -> StoreResult<Writer> {
        let open = |path: &PathBuf| -> StoreResult<SqliteConnection> {
            let mut conn = SqliteConnection::establish(&path.to_string_lossy()).map_err(|e| StoreError::Connection(e.to_string()))?;
            conn.batch_execute(pragmas)?;
            conn.batch_execute("PRAGMA wal_autocheckpoint = 0;")?;
            Ok(conn)
        };
        let conn = open(&path)?;
        let checkpointer = open(&path)?;
        let (tx, rx) = mpsc::channel(capacity.max(1));
        // The checkpoint thread stops when the writer thread ends (it drops `alive`).
        let (alive, writer_gone) = std::sync::mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("parley-writer".into())
            .spawn(move || {
                run(conn, rx, turn);
                drop(alive);
            })
            .map_err(|e| StoreError::Connection(format!("message writer: {e}")))?;
        std::thread::Builder::new()
            .name("parley-checkpoint".into())
            .spawn(move || checkpoint_until(checkpointer, &writer_gone))
            .map_err(|e| StoreError::Connection(format!("checkpoint thread: {e}")))?;
        Ok(Writer { tx })
    }

    /// Past this many frames (about 256 MB) the checkpoint stops being polite: under load with
    /// no pause a passive one never catches the WAL's end, so the file would only grow.
    const WAL_FRAMES_RESTART: i64 = 65_536;

    #[derive(QueryableByName)]
    struct CheckpointResult {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        busy: i32,
        /// Frames in the WAL.
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        log: i64,
    }

    /// A passive checkpoint every `CHECKPOINT_EVERY`: it copies what no reader still needs and
    /// never blocks the writer; the WAL starts over once a checkpoint has copied everything.
    /// When the WAL has grown past `WAL_FRAMES_RESTART` anyway, one RESTART checkpoint (it
    /// waits for the writer's current transaction, copies everything and starts the WAL over).
    fn checkpoint_until(mut conn: SqliteConnection, writer_gone: &std::sync::mpsc::Receiver<()>) {
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = writer_gone.recv_timeout(CHECKPOINT_EVERY) {
            let passive = diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)").load::<CheckpointResult>(&mut conn);
            let too_long = match passive {
                Ok(rows) => rows.first().is_some_and(|r| r.busy == 0 && r.log > WAL_FRAMES_RESTART),
                Err(e) => {
                    tracing::warn!("WAL checkpoint: {e}");
                    false
                }
            };
            if too_long {
                if let Err(e) = conn.batch_execute("PRAGMA wal_checkpoint(RESTART);") {
                    tracing::warn!("WAL checkpoint (restart): {e}");
                }
            }
        }
    }

    fn run(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Job>, turn: std::sync::Arc<tokio::sync::Mutex<()>>) {
        let mut last_seq: HashMap<String, i64> = HashMap::new();
        while let Some(first) = rx.blocking_recv() {
            let mut jobs = vec![first];
            while jobs.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(job) => jobs.push(job),
                    Err(_) => break,
                }
            }
            remember(&mut last_seq);
            // Transactions of this process take turns (see `db_tx!`).
            let guard = turn.blocking_lock();
            let saved = write(&mut conn, &jobs, &mut last_seq);
            drop(guard);
            match saved {
                Ok(rows) => answer(jobs, Ok(rows)),
                Err(_) if jobs.len() > 1 => {
                    // Something in the batch was refused: each message on its own, so one bad
                    // message fails alone.
                    for job in jobs {
                        last_seq.remove(&job.session_id);
                        let guard = turn.blocking_lock();
                        let saved = write(&mut conn, std::slice::from_ref(&job), &mut last_seq);
                        drop(guard);
                        let _ = job.reply.send(saved.and_then(|mut rows| rows.pop().ok_or(StoreError::NotFound)));
                    }
                }
                Err(e) => {
                    for job in &jobs {
                        last_seq.remove(&job.session_id);
                    }
                    if let Some(job) = jobs.into_iter().next() {
                        let _ = job.reply.send(Err(e));
                    }
                }
            }
        }
    }

    fn write(conn: &mut SqliteConnection, jobs: &[Job], last_seq: &mut HashMap<String, i64>) -> StoreResult<Vec<ChatMessage>> {
        let now = time::now();
        // The seq memory changes only when the transaction commits.
        let mut seqs = last_seq.clone_for(jobs);
        let result = conn.immediate_transaction::<_, StoreError, _>(|conn| {
            let unknown: Vec<&str> = jobs.iter().map(|j| j.session_id.as_str()).filter(|s| !seqs.contains_key(*s)).collect();
            if !unknown.is_empty() {
                let found: Vec<(String, Option<i64>)> = chat_messages::table
                    .filter(chat_messages::session_id.eq_any(&unknown))
                    .group_by(chat_messages::session_id)
                    .select((chat_messages::session_id, diesel::dsl::max(chat_messages::seq)))
                    .load(conn)?;
                for s in unknown {
                    seqs.insert(s.to_string(), 0);
                }
                for (s, max) in found {
                    seqs.insert(s, max.unwrap_or(0));
                }
            }
            let plan = plan(jobs, &mut seqs, now)?;
            for bump in &plan.bumps {
                let updated = match &bump.last {
                    Some(last) => diesel::update(chat_sessions::table.find(bump.session_id))
                        .set((
                            chat_sessions::message_count.eq(chat_sessions::message_count + bump.shown),
                            chat_sessions::last_message.eq(last),
                            chat_sessions::updated_at.eq(now),
                        ))
                        .execute(conn)?,
                    None => diesel::update(chat_sessions::table.find(bump.session_id)).set(chat_sessions::updated_at.eq(now)).execute(conn)?,
                };
                if updated == 0 {
                    return Err(StoreError::NotFound);
                }
            }
            for row in &plan.rows {
                insert_message(conn, row)?;
            }
            Ok(plan.rows)
        });
        if result.is_ok() {
            last_seq.extend(seqs);
        }
        result
    }

    /// One message row, by a statement SQLite prepares once per connection. diesel's
    /// multi-row insert on SQLite runs a savepoint and one insert per row, and marks each
    /// uncacheable (`Option` fields may mean DEFAULT), so every message paid a fresh parse and
    /// plan (the profile's `sqlite3RunParser`, `yy_reduce`, `cached_statement_non_generic`).
    /// Here every column is bound, nulls included, so the statement's shape never changes.
    fn insert_message(conn: &mut SqliteConnection, row: &ChatMessage) -> QueryResult<usize> {
        use chat_messages::dsl as m;
        diesel::insert_into(chat_messages::table)
            .values((
                m::id.eq(&row.id),
                m::session_id.eq(&row.session_id),
                m::seq.eq(row.seq),
                m::role.eq(&row.role),
                m::content.eq(&row.content),
                m::sender_name.eq(row.sender_name.as_ref()),
                m::agent_id.eq(row.agent_id.as_ref()),
                m::is_agent.eq(row.is_agent),
                m::is_error.eq(row.is_error),
                m::sources.eq(&row.sources),
                m::created_at.eq(row.created_at),
                m::edited_at.eq(row.edited_at),
            ))
            .execute(conn)
    }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a task with a pooled connection.

pub(crate) mod postgres {
    use super::*;
    use crate::schema::chat_messages;
    use diesel::prelude::*;
    use diesel_async::pooled_connection::deadpool::Pool;
    use diesel_async::scoped_futures::ScopedFutureExt as _;
    use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};

    pub(crate) fn start(pool: Pool<AsyncPgConnection>, capacity: usize) -> Writer {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        tokio::spawn(run(pool, rx));
        Writer { tx }
    }

    async fn run(pool: Pool<AsyncPgConnection>, mut rx: mpsc::Receiver<Job>) {
        let mut last_seq: HashMap<String, i64> = HashMap::new();
        while let Some(first) = rx.recv().await {
            let mut jobs = vec![first];
            while jobs.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(job) => jobs.push(job),
                    Err(_) => break,
                }
            }
            remember(&mut last_seq);
            let mut conn = match pool.get().await {
                Ok(c) => c,
                Err(e) => {
                    answer(jobs, Err(StoreError::Connection(e.to_string())));
                    continue;
                }
            };
            match write(&mut conn, &jobs, &mut last_seq).await {
                Ok(rows) => answer(jobs, Ok(rows)),
                Err(_) if jobs.len() > 1 => {
                    for job in jobs {
                        last_seq.remove(&job.session_id);
                        let saved = write(&mut conn, std::slice::from_ref(&job), &mut last_seq).await;
                        let _ = job.reply.send(saved.and_then(|mut rows| rows.pop().ok_or(StoreError::NotFound)));
                    }
                }
                Err(e) => {
                    for job in &jobs {
                        last_seq.remove(&job.session_id);
                    }
                    if let Some(job) = jobs.into_iter().next() {
                        let _ = job.reply.send(Err(e));
                    }
                }
            }
        }
    }

    async fn write(conn: &mut AsyncPgConnection, jobs: &[Job], last_seq: &mut HashMap<String, i64>) -> StoreResult<Vec<ChatMessage>> {
        let now = time::now();
        let mut seqs = last_seq.clone_for(jobs);
        let result = conn
            .transaction::<_, StoreError, _>(|conn| {
                let seqs = &mut seqs;
                async move {
                    let unknown: Vec<&str> = jobs.iter().map(|j| j.session_id.as_str()).filter(|s| !seqs.contains_key(*s)).collect();
                    if !unknown.is_empty() {
                        let found: Vec<(String, Option<i64>)> = chat_messages::table
                            .filter(chat_messages::session_id.eq_any(&unknown))
                            .group_by(chat_messages::session_id)
                            .select((chat_messages::session_id, diesel::dsl::max(chat_messages::seq)))
                            .load(conn)
                            .await?;
                        for s in unknown {
                            seqs.insert(s.to_string(), 0);
                        }
                        for (s, max) in found {
                            seqs.insert(s, max.unwrap_or(0));
                        }
                    }
                    let plan = plan(jobs, seqs, now)?;
                    // Every session of the batch in one statement (not one round trip each).
                    let ids: Vec<&str> = plan.bumps.iter().map(|b| b.session_id).collect();
                    let shown: Vec<i32> = plan.bumps.iter().map(|b| b.shown).collect();
                    let lasts: Vec<Option<&str>> = plan.bumps.iter().map(|b| b.last.as_deref()).collect();
                    let updated = diesel::sql_query(
                        "UPDATE chat_sessions AS s SET message_count = s.message_count + v.shown, \
                         last_message = COALESCE(v.last, s.last_message), updated_at = $4 \
                         FROM unnest($1::text[], $2::int4[], $3::text[]) AS v(id, shown, last) WHERE s.id = v.id",
                    )
                    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(&ids)
                    .bind::<diesel::sql_types::Array<diesel::sql_types::Integer>, _>(&shown)
                    .bind::<diesel::sql_types::Array<diesel::sql_types::Nullable<diesel::sql_types::Text>>, _>(&lasts)
                    .bind::<diesel::sql_types::Timestamp, _>(now)
                    .execute(conn)
                    .await?;
                    if updated != plan.bumps.len() {
                        return Err(StoreError::NotFound);
                    }
                    diesel::insert_into(chat_messages::table).values(&plan.rows).execute(conn).await?;
                    Ok(plan.rows)
                }
                .scope_boxed()
            })
            .await;
        if result.is_ok() {
            last_seq.extend(seqs);
        }
        result
    }
}

/// The part of the seq memory a batch may change, so a rolled-back batch leaves it as it was.
trait CloneFor {
    fn clone_for(&self, jobs: &[Job]) -> HashMap<String, i64>;
}

impl CloneFor for HashMap<String, i64> {
    fn clone_for(&self, jobs: &[Job]) -> HashMap<String, i64> {
        let mut out = HashMap::new();
        for job in jobs {
            if let Some(seq) = self.get(&job.session_id) {
                out.insert(job.session_id.clone(), *seq);
            }
        }
        out
    }
}
