//! The SQLite writer: a thread of its own with a plain connection, and a checkpoint thread.

use std::path::PathBuf;
use std::sync::Arc;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use tokio::sync::mpsc;

use super::counters::{Bump, Counted, Kept, RECORD_FLUSH, RECORD_THROUGH};
use super::{answer, fill_tails, plan, remember, vanished_session, CloneFor, Job, MessageJob, Tails, Turn, Writer};
use crate::models::ChatMessage;
use crate::schema::{chat_messages, chat_sessions};
use crate::{time, StoreError, StoreResult};

/// How often the checkpoint thread moves the WAL's pages into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

diesel::define_sql_function! {
    /// SQLite's two-argument `max`: the later of two times.
    #[sql_name = "max"]
    fn later_of(a: diesel::sql_types::Timestamp, b: diesel::sql_types::Timestamp) -> diesel::sql_types::Timestamp;
}

/// Transactions of this process take turns (see `db_tx!`).
type TurnLock = Arc<tokio::sync::Mutex<()>>;

/// Starts the writer thread on the database at `path`, and its checkpoint thread.
pub(crate) fn start(path: PathBuf, pragmas: &'static str, options: &crate::PoolOptions, turn: TurnLock) -> StoreResult<Writer> {
    let open = |path: &PathBuf| -> StoreResult<SqliteConnection> {
        let mut conn = SqliteConnection::establish(&path.to_string_lossy()).map_err(|e| StoreError::Connection(e.to_string()))?;
        conn.batch_execute(pragmas)?;
        conn.batch_execute("PRAGMA wal_autocheckpoint = 0;")?;
        Ok(conn)
    };
    let conn = open(&path)?;
    let checkpointer = open(&path)?;
    // The thread's own clock, to wait for work no longer than the kept counters may wait.
    let clock = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| StoreError::Connection(format!("message writer: {e}")))?;
    let (tx, rx) = mpsc::channel(options.writer_queue.max(1));
    let restart_at = restart_frames(options.sqlite_wal_restart_bytes);
    // The checkpoint thread stops when the writer thread ends (it drops `alive`).
    let (alive, writer_gone) = std::sync::mpsc::channel::<()>();
    let checkpoint_turn = turn.clone();
    std::thread::Builder::new()
        .name("parley-writer".into())
        .spawn(move || {
            run(conn, rx, &turn, &clock);
            drop(alive);
        })
        .map_err(|e| StoreError::Connection(format!("message writer: {e}")))?;
    std::thread::Builder::new()
        .name("parley-checkpoint".into())
        .spawn(move || checkpoint_until(checkpointer, &writer_gone, &checkpoint_turn, restart_at))
        .map_err(|e| StoreError::Connection(format!("checkpoint thread: {e}")))?;
    Ok(Writer { tx })
}

/// Past this many frames (about 256 MB) the checkpoint stops being polite: under load with
/// no pause a passive one never catches the WAL's end, so the file would only grow.
const WAL_FRAMES_RESTART: i64 = 65_536;

/// Frames left behind by a polite checkpoint that the checkpoint thread copies while the
/// writers wait their turn (a few MB: about a millisecond of copying and two syncs).
const CATCH_UP_FRAMES: i64 = 4_096;

/// Polite checkpoints run back to back, at most, to bring a long tail under `CATCH_UP_FRAMES`.
const CATCH_UP_ROUNDS: usize = 4;

/// Bytes of a WAL frame: a page (SQLite's default 4 KB) and its 24-byte header.
const FRAME_BYTES: u64 = 4096 + 24;

/// The WAL size, in frames, at which the checkpoint thread catches its tail up so that it
/// starts over (`sqlite_wal_restart_bytes`), below the forced restart.
fn restart_frames(bytes: u64) -> i64 {
    i64::try_from(bytes / FRAME_BYTES).unwrap_or(i64::MAX).min(WAL_FRAMES_RESTART)
}

#[derive(QueryableByName)]
struct CheckpointResult {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    busy: i32,
    /// Frames in the WAL.
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    log: i64,
    /// Frames of it copied into the database file.
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    checkpointed: i64,
}

fn passive(conn: &mut SqliteConnection) -> Option<CheckpointResult> {
    match diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)").load::<CheckpointResult>(conn) {
        Ok(mut rows) => rows.pop(),
        Err(e) => {
            tracing::warn!("WAL checkpoint: {e}");
            None
        }
    }
}

/// A passive checkpoint every `CHECKPOINT_EVERY`: it copies what no reader still needs and
/// never blocks the writer. Under steady writes it never quite reaches the WAL's end (the
/// writer appends while it copies and syncs), and the WAL starts over only once a checkpoint
/// has copied everything; until then every commit appends to a growing file, and each new
/// block costs the kernel an allocation and a zeroed page (a tenth of the writer's time in the
/// relay profile). So when a short tail is left and the WAL holds `restart_at` frames or
/// more, the thread copies it again while the process's writers wait their turn (`turn`): the
/// next commit starts the WAL over, on blocks that are allocated and cached. Each catch-up
/// holds messages back for its two disk syncs, so it waits until the WAL is worth restarting
/// rather than running with every checkpoint. When the WAL has grown past `WAL_FRAMES_RESTART` anyway, one
/// RESTART checkpoint (it waits for the writer's current transaction, copies everything and
/// starts the WAL over).
fn checkpoint_until(mut conn: SqliteConnection, writer_gone: &std::sync::mpsc::Receiver<()>, turn: &TurnLock, restart_at: i64) {
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = writer_gone.recv_timeout(CHECKPOINT_EVERY) {
        let Some(mut done) = passive(&mut conn) else { continue };
        // A checkpoint that took long (a busy machine, a slow sync) leaves the frames written
        // meanwhile: copying them at once leaves fewer, and the tail shrinks round by round
        // while copying outpaces the writer, instead of growing by a whole period each time.
        for _ in 0..CATCH_UP_ROUNDS {
            if done.busy != 0 || done.log - done.checkpointed <= CATCH_UP_FRAMES || done.log < restart_at {
                break;
            }
            match passive(&mut conn) {
                Some(next) => done = next,
                None => break,
            }
        }
        if done.busy != 0 || done.log <= 0 {
            continue;
        }
        // Even a checkpoint that reached the end is behind again by the time it returns (the
        // writer committed meanwhile); the WAL starts over only when a commit begins with
        // nothing left to copy, so the short tail is copied with the writers held back.
        if done.log - done.checkpointed <= CATCH_UP_FRAMES && done.log >= restart_at {
            let guard = turn.blocking_lock();
            passive(&mut conn);
            drop(guard);
        } else if done.log > WAL_FRAMES_RESTART {
            if let Err(e) = conn.batch_execute("PRAGMA wal_checkpoint(RESTART);") {
                tracing::warn!("WAL checkpoint (restart): {e}");
            }
        }
    }
}

fn run(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Job>, turn: &TurnLock, clock: &tokio::runtime::Runtime) {
    let mut tails = Tails::new();
    let mut kept = Kept::default();
    loop {
        // Wait for work, but no longer than the kept counters may wait.
        let next = clock.block_on(async {
            match kept.time_left() {
                Some(left) => tokio::time::timeout(left, rx.recv()).await.ok(),
                None => Some(rx.recv().await),
            }
        });
        let first = match next {
            None => {
                flush(&mut conn, &mut kept, turn);
                continue;
            }
            Some(None) => {
                // Every sender is gone: the store is closing.
                flush(&mut conn, &mut kept, turn);
                break;
            }
            Some(Some(job)) => job,
        };
        let mut work = Turn::new();
        work.add(first);
        work.fill(&mut rx);
        remember(&mut tails);
        let with_counters = !work.syncs.is_empty() || kept.due();
        let messages = std::mem::take(&mut work.messages);
        if !messages.is_empty() {
            commit(&mut conn, messages, &mut tails, &mut kept, with_counters, turn);
        }
        if with_counters {
            // Done already when the batch carried them; otherwise (no messages, or a batch
            // that failed) on their own.
            flush(&mut conn, &mut kept, turn);
        }
        work.answer_syncs();
    }
}

/// Commits a batch of messages and answers each; a batch refused as a whole is retried one
/// message at a time, so one bad message fails alone.
fn commit(conn: &mut SqliteConnection, jobs: Vec<MessageJob>, tails: &mut Tails, kept: &mut Kept, with_counters: bool, turn: &TurnLock) {
    let guard = turn.blocking_lock();
    let saved = write(conn, &jobs, tails, kept, with_counters);
    drop(guard);
    match saved {
        Ok(rows) => answer(jobs, Ok(rows)),
        Err(_) if jobs.len() > 1 => {
            for job in jobs {
                tails.remove(&job.session_id);
                let guard = turn.blocking_lock();
                let saved = write(conn, std::slice::from_ref(&job), tails, kept, false);
                drop(guard);
                let _ = job.reply.send(saved.and_then(|mut rows| rows.pop().ok_or(StoreError::NotFound)));
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
fn flush(conn: &mut SqliteConnection, kept: &mut Kept, turn: &TurnLock) {
    if kept.is_empty() {
        return;
    }
    let guard = turn.blocking_lock();
    let now = time::now();
    let none = Counted::default();
    let written = conn.immediate_transaction::<_, StoreError, _>(|conn| write_counters(conn, &kept.with(&[]), &kept.counted_with(&none), now));
    drop(guard);
    match written {
        Ok(()) => kept.flushed(),
        // Kept for the next flush.
        Err(e) => tracing::warn!("session counters: {e}"),
    }
}

fn write(conn: &mut SqliteConnection, jobs: &[MessageJob], tails: &mut Tails, kept: &mut Kept, with_counters: bool) -> StoreResult<Vec<ChatMessage>> {
    let now = time::now();
    // The tails and the kept counters change only when the transaction commits.
    let mut batch_tails = tails.clone_for(jobs);
    let kept_now: &Kept = kept;
    let result = conn.immediate_transaction::<_, StoreError, _>(|conn| {
        let unknown: Vec<&str> = jobs.iter().map(|j| j.session_id.as_str()).filter(|s| !batch_tails.contains_key(*s)).collect();
        if !unknown.is_empty() {
            let maxes: Vec<(String, Option<i64>)> = chat_messages::table
                .filter(chat_messages::session_id.eq_any(&unknown))
                .group_by(chat_messages::session_id)
                .select((chat_messages::session_id, diesel::dsl::max(chat_messages::seq)))
                .load(conn)?;
            let sessions: Vec<(String, i32, String)> = chat_sessions::table
                .filter(chat_sessions::id.eq_any(&unknown))
                .select((chat_sessions::id, chat_sessions::message_count, chat_sessions::bot_id))
                .load(conn)?;
            fill_tails(&mut batch_tails, &unknown, maxes, sessions, kept_now);
        }
        let plan = plan(jobs, &mut batch_tails, now)?;
        for row in &plan.rows {
            insert_message(conn, row).map_err(vanished_session)?;
        }
        if with_counters {
            write_counters(conn, &kept_now.with(&plan.bumps), &kept_now.counted_with(&plan.counted), now)?;
        }
        Ok(plan)
    });
    let plan = result?;
    tails.extend(batch_tails);
    if with_counters {
        kept.flushed();
    } else {
        kept.keep(&plan.bumps, &plan.counted);
    }
    Ok(plan.rows)
}

/// Adds kept counts to a slot of a bot that still exists (bot, slot, role, count): a bot
/// deleted since has no figures left to add to. (Numbered `?n`: SQLite numbers `$n` in the
/// order they appear, not by their digits.)
const ADD_TO_SLOT: &str = "INSERT INTO message_counts (bot_id, slot, role, count) \
     SELECT id, ?2, ?3, ?4 FROM bots WHERE id = ?1 \
     ON CONFLICT (bot_id, slot, role) DO UPDATE SET count = message_counts.count + excluded.count";

/// Writes each session's counters to its row, the slot counts, and records the flush. A
/// session deleted since its messages were saved has nothing left to count.
fn write_counters(conn: &mut SqliteConnection, changes: &[(&str, Bump)], counted: &Counted, now: chrono::NaiveDateTime) -> StoreResult<()> {
    use chat_sessions::dsl as s;
    for (id, bump) in changes {
        let target = chat_sessions::table.find(*id);
        match &bump.last {
            Some(last) => diesel::update(target)
                .set((s::message_count.eq(bump.count), s::last_message.eq(last), s::updated_at.eq(later_of(s::updated_at, bump.at))))
                .execute(conn)?,
            None => diesel::update(target).set((s::message_count.eq(bump.count), s::updated_at.eq(later_of(s::updated_at, bump.at)))).execute(conn)?,
        };
    }
    for ((bot, slot, role), n) in &counted.slots {
        diesel::sql_query(ADD_TO_SLOT)
            .bind::<diesel::sql_types::Text, _>(&**bot)
            .bind::<diesel::sql_types::BigInt, _>(*slot)
            .bind::<diesel::sql_types::Text, _>(*role)
            .bind::<diesel::sql_types::BigInt, _>(*n)
            .execute(conn)?;
    }
    if let Some(through) = &counted.through {
        diesel::sql_query(RECORD_THROUGH).bind::<diesel::sql_types::Text, _>(through).execute(conn)?;
    }
    diesel::sql_query(RECORD_FLUSH).bind::<diesel::sql_types::Timestamp, _>(now).execute(conn)?;
    Ok(())
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
            m::suggestions.eq(&row.suggestions),
        ))
        .execute(conn)
}
