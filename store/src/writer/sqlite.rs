//! The SQLite writer: messages are saved by appending them to the journal (`journal`). Those
//! of sessions the writer knows are gathered and appended together, one write for all that
//! were handed over in one turn of the callers' event loops, on a caller's thread (`Saver`);
//! the writer thread saves the others. An applier thread commits the journaled rows behind
//! them in transactions of many messages; a checkpoint thread copies the WAL into the database.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use tokio::sync::{mpsc, oneshot};

use super::counters::{Bump, Counted, Kept, RECORD_FLUSH, RECORD_THROUGH};
use super::journal::{self, Journal};
use super::owner;
use super::rows::{self, IfSaved};
use super::{answer, fill_tails, plan_messages, remember, Forget, Job, MessageJob, Saved, Tail, Tails, Turn, Writer, TAIL_MEMORY};
use crate::chat::NewMessage;
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

/// Starts the writer thread on the database at `path`, its applier and its checkpoint thread.
pub(crate) fn start(
    path: PathBuf,
    journal: owner::Claim,
    pragmas: &'static str,
    options: &crate::PoolOptions,
    turn: TurnLock,
) -> StoreResult<Writer> {
    let open = |path: &PathBuf| -> StoreResult<SqliteConnection> {
        let mut conn = SqliteConnection::establish(&path.to_string_lossy()).map_err(|e| StoreError::Connection(e.to_string()))?;
        conn.batch_execute(pragmas)?;
        conn.batch_execute("PRAGMA wal_autocheckpoint = 0;")?;
        Ok(conn)
    };
    let reader = open(&path)?;
    let conn = open(&path)?;
    let checkpointer = open(&path)?;
    let journal = Journal::open(journal, options.sqlite_full_sync)?;
    // The thread's own clock, to wait for work no longer than the kept counters may wait.
    let clock = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| StoreError::Connection(format!("message writer: {e}")))?;
    let (tx, rx) = mpsc::channel(options.writer_queue.max(1));
    let (to_applier, handoffs) = std::sync::mpsc::sync_channel(APPLY_BEHIND);
    let (applied_tx, applied) = std::sync::mpsc::channel();
    let unapplied = Arc::new(AtomicUsize::new(0));
    let saver = Arc::new(Saver {
        state: std::sync::Mutex::new(Appended {
            journal,
            tails: Tails::new(),
            kept: Kept::default(),
            pending: Vec::new(),
            since: None,
            queued: HashMap::new(),
            gathered: Vec::new(),
        }),
        unapplied: unapplied.clone(),
        nudge: tx.downgrade(),
    });
    let thread = WriterThread {
        saver: saver.clone(),
        applier: Applier { to_applier, applied, behind: 0 },
        apply_after: options.sqlite_journal_apply,
        reader,
    };
    let restart_at = restart_frames(options.sqlite_wal_restart_bytes);
    // The checkpoint thread stops when the applier ends (it drops `alive`), which it does
    // once the writer thread has handed over everything and ended.
    let (alive, writer_gone) = std::sync::mpsc::channel::<()>();
    let checkpoint_turn = turn.clone();
    std::thread::Builder::new()
        .name("parley-writer".into())
        .spawn(move || run(thread, rx, &clock))
        .map_err(|e| StoreError::Connection(format!("message writer: {e}")))?;
    let applier_unapplied = unapplied.clone();
    std::thread::Builder::new()
        .name("parley-applier".into())
        .spawn(move || {
            apply_all(conn, handoffs, applied_tx, &applier_unapplied, &turn);
            drop(alive);
        })
        .map_err(|e| StoreError::Connection(format!("message applier: {e}")))?;
    std::thread::Builder::new()
        .name("parley-checkpoint".into())
        .spawn(move || checkpoint_until(checkpointer, &writer_gone, &checkpoint_turn, restart_at))
        .map_err(|e| StoreError::Connection(format!("checkpoint thread: {e}")))?;
    Ok(Writer { tx, unapplied, saver: Some(saver) })
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

/// Rows handed to the applier at the latest once this many are appended. Large batches are
/// what make the applier cheap: a session's rows share its index pages only when several of
/// them land in one commit.
const APPLY_ROWS: usize = 8192;

/// Appended rows not yet handed over past which new messages are refused as busy (the
/// applier is behind: a full disk, a locked database).
const PENDING_LIMIT: usize = 2 * APPLY_ROWS;

/// Handoffs the applier may be behind before the writer thread waits for it.
const APPLY_BEHIND: usize = 2;

/// What the writer hands the applier: the rows of one finished journal segment, the kept
/// counters when they are due, and the readers to answer once all of it is committed.
struct Handoff {
    rows: Vec<Arc<ChatMessage>>,
    segment: Option<PathBuf>,
    counters: Option<Flush>,
    done: Vec<oneshot::Sender<()>>,
}

/// The kept counters a flush writes, owned.
struct Flush {
    sessions: Vec<(String, Bump)>,
    counted: Counted,
}

impl Flush {
    fn take(kept: &mut Kept) -> Option<Flush> {
        if kept.is_empty() {
            return None;
        }
        let sessions = kept.with(&[]).into_iter().map(|(id, bump)| (id.to_string(), bump)).collect();
        let counted = kept.counted_with(&Counted::default());
        // The applier writes them now, retrying until it can; a crash before it does is
        // what the start-up recount is for.
        kept.flushed();
        Some(Flush { sessions, counted })
    }
}

/// What saving a message needs, shared by the callers' threads (which save the messages of
/// sessions the writer knows on their own thread: no thread hop, and one append for all that
/// were gathered) and the writer thread (which saves the others, reading their tails first,
/// and hands the appended rows to the applier).
pub(crate) struct Saver {
    state: std::sync::Mutex<Appended>,
    unapplied: Arc<AtomicUsize>,
    /// The writer thread's queue: wakes it when enough rows are appended to hand over, and
    /// takes the gathered messages it must save itself (sessions it has not read the tail
    /// of, or with messages queued already). Weak: the queue closes when the last `Writer`
    /// goes, not when the writer thread does.
    nudge: mpsc::WeakSender<Job>,
}

struct Appended {
    journal: Journal,
    tails: Tails,
    kept: Kept,
    /// Rows appended and not yet handed to the applier, and when the first of them was. The
    /// same rows as the callers were answered with (shared, not copied).
    pending: Vec<Arc<ChatMessage>>,
    since: Option<std::time::Instant>,
    /// Messages of each session waiting in the writer's queue: while there are any, the
    /// session's next message queues behind them, so messages are numbered in order.
    queued: HashMap<String, usize>,
    /// Messages handed over and not yet saved, in the order they came: the next `flush`
    /// saves them all (see `Saved`).
    gathered: Vec<MessageJob>,
}

impl Appended {
    /// Numbers `items` (every session's tail known), appends them to the journal with one
    /// write, and keeps their tails, counters and rows; nothing changes if the write fails.
    fn append(&mut self, items: &[(&str, &NewMessage)], unapplied: &AtomicUsize) -> StoreResult<Vec<Arc<ChatMessage>>> {
        let now = time::now();
        // The tails are numbered in place (no copy of the map per message) and put back as
        // they were if the plan or the write fails, last first so a session named twice gets
        // its first value.
        let before: Vec<Option<Tail>> = items.iter().map(|(session_id, _)| self.tails.get(*session_id).cloned()).collect();
        let planned = plan_messages(items, &mut self.tails, now);
        let plan = match planned.and_then(|plan| self.journal.append(&plan.rows).map(|()| plan)) {
            Ok(plan) => plan,
            Err(e) => {
                for ((session_id, _), old) in items.iter().zip(before).rev() {
                    if let (Some(old), Some(tail)) = (old, self.tails.get_mut(*session_id)) {
                        *tail = old;
                    }
                }
                return Err(e);
            }
        };
        unapplied.fetch_add(plan.rows.len(), Ordering::SeqCst);
        self.kept.keep(&plan.bumps, &plan.counted);
        let rows: Vec<Arc<ChatMessage>> = plan.rows.into_iter().map(Arc::new).collect();
        if self.pending.is_empty() {
            self.since = Some(std::time::Instant::now());
        }
        self.pending.extend(rows.iter().cloned());
        Ok(rows)
    }

    fn unqueue(&mut self, session_id: &str) {
        if let Some(n) = self.queued.get_mut(session_id) {
            *n -= 1;
            if *n == 0 {
                self.queued.remove(session_id);
            }
        }
    }

    /// How long the appended rows may wait before they are handed over.
    fn time_left(&self, apply_after: std::time::Duration) -> Option<std::time::Duration> {
        self.since.map(|s| apply_after.saturating_sub(s.elapsed()))
    }

    /// Starts a new journal segment and takes what was appended to the finished one.
    fn take(&mut self) -> (Vec<Arc<ChatMessage>>, Option<PathBuf>) {
        let segment = match self.journal.rotate() {
            Ok(segment) => segment,
            Err(e) => {
                // The rows stay in the segment being appended to, which is replayed at start
                // (rows committed already are skipped).
                tracing::warn!("{e}");
                None
            }
        };
        self.since = None;
        (std::mem::take(&mut self.pending), segment)
    }
}

impl Saver {
    fn lock(&self) -> std::sync::MutexGuard<'_, Appended> {
        // A panic while holding it cannot leave half an append: the journal write is the
        // last step that can fail.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes a message to be saved by the next `flush`; `Err(Busy)` at once when the applier
    /// is too far behind.
    pub(crate) fn gather(self: &Arc<Self>, session_id: &str, new: NewMessage) -> StoreResult<Saved> {
        let (reply, answer) = oneshot::channel();
        let mut state = self.lock();
        if state.pending.len() >= PENDING_LIMIT {
            return Err(StoreError::Busy(super::BUSY.into()));
        }
        state.gathered.push(MessageJob { session_id: session_id.to_string(), new, reply });
        Ok(Saved::gathered(answer, self.clone()))
    }

    /// Saves every gathered message, in order: those of sessions the writer knows and has
    /// nothing queued for with one journal write, the others through the writer's queue.
    /// Each is answered (the queued ones by the writer thread).
    pub(crate) fn flush(&self) {
        let mut state = self.lock();
        if state.gathered.is_empty() {
            return;
        }
        let gathered = std::mem::take(&mut state.gathered);
        let mut now = Vec::with_capacity(gathered.len());
        for job in gathered {
            if state.queued.contains_key(&job.session_id) || !state.tails.contains_key(&job.session_id) {
                // Sent while the lock is held: another caller's flush cannot overtake it with
                // a later message of the same session.
                self.queue(&mut state, job);
            } else {
                now.push(job);
            }
        }
        if now.is_empty() {
            return;
        }
        if state.pending.len() >= PENDING_LIMIT {
            for job in now {
                let _ = job.reply.send(Err(StoreError::Busy(super::BUSY.into())));
            }
            return;
        }
        let before = state.pending.len();
        save_batch_or_each(now, |jobs| state.append(&items_of(jobs), &self.unapplied));
        let after = state.pending.len();
        if (before == 0 && after > 0) || (before < APPLY_ROWS && after >= APPLY_ROWS) {
            // The writer thread hands them over (it sets its clock by the first, and goes at
            // once at `APPLY_ROWS`); a full queue means it is coming round anyway.
            if let Some(nudge) = self.nudge.upgrade() {
                let _ = nudge.try_send(Job::Nudge);
            }
        }
    }

    /// Hands a gathered message to the writer thread, counted as queued for its session;
    /// answers it at once when that queue is full or closed.
    fn queue(&self, state: &mut Appended, job: MessageJob) {
        let Some(tx) = self.nudge.upgrade() else {
            let _ = job.reply.send(Err(StoreError::Connection("the message writer stopped".into())));
            return;
        };
        let session_id = job.session_id.clone();
        *state.queued.entry(session_id.clone()).or_default() += 1;
        let (job, refused) = match tx.try_send(Job::Message(job)) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Full(job)) => (job, StoreError::Busy(super::BUSY.into())),
            Err(mpsc::error::TrySendError::Closed(job)) => (job, StoreError::Connection("the message writer stopped".into())),
        };
        state.unqueue(&session_id);
        if let Job::Message(job) = job {
            let _ = job.reply.send(Err(refused));
        }
    }

    /// Writes to the message journal since the store opened.
    pub(crate) fn journal_appends(&self) -> u64 {
        self.lock().journal.appends()
    }

    /// Forgets the tails of a deleted session or bot at once, so its next message finds it gone.
    pub(crate) fn forget(&self, gone: &Forget) {
        let mut state = self.lock();
        match gone {
            Forget::Session(id) => {
                state.tails.remove(id);
            }
            Forget::Bot(bot) => state.tails.retain(|_, tail| tail.bot.as_deref() != Some(bot.as_str())),
        }
    }
}

/// The writer thread's side of the applier: how far behind it is.
struct Applier {
    to_applier: std::sync::mpsc::SyncSender<Handoff>,
    /// One answer per committed handoff: the sessions whose rows were dropped because the
    /// session was deleted meanwhile.
    applied: std::sync::mpsc::Receiver<Vec<String>>,
    behind: usize,
}

impl Applier {
    /// Counts the handoffs committed since; returns the sessions found deleted.
    fn count_applied(&mut self) -> Vec<String> {
        let mut vanished = Vec::new();
        while let Ok(gone) = self.applied.try_recv() {
            self.behind = self.behind.saturating_sub(1);
            vanished.extend(gone);
        }
        vanished
    }

    /// Waits for the applier's next answer; `None` when it has stopped.
    fn wait_applied(&mut self) -> Option<Vec<String>> {
        let gone = self.applied.recv().ok()?;
        self.behind = self.behind.saturating_sub(1);
        Some(gone)
    }
}

/// The writer thread.
struct WriterThread {
    saver: Arc<Saver>,
    applier: Applier,
    apply_after: std::time::Duration,
    reader: SqliteConnection,
}

impl WriterThread {
    /// Hands what was appended (and the counters, when asked or due, and `done`) to the
    /// applier, waiting while it is `APPLY_BEHIND` handoffs behind.
    fn hand_over(&mut self, counters: bool, done: Vec<oneshot::Sender<()>>) {
        let vanished = self.applier.count_applied();
        let (rows, segment, counters) = {
            let mut state = self.saver.lock();
            for session in &vanished {
                // Deleted: its next message finds it gone.
                state.tails.remove(session);
            }
            let counters = if counters || state.kept.due() { Flush::take(&mut state.kept) } else { None };
            if state.pending.is_empty() && counters.is_none() && done.is_empty() {
                return;
            }
            let (rows, segment) = state.take();
            (rows, segment, counters)
        };
        while self.applier.behind >= APPLY_BEHIND {
            match self.applier.wait_applied() {
                Some(gone) => {
                    let mut state = self.saver.lock();
                    for session in &gone {
                        state.tails.remove(session);
                    }
                }
                None => break,
            }
        }
        if self.applier.to_applier.send(Handoff { rows, segment, counters, done }).is_ok() {
            self.applier.behind += 1;
        }
    }

    /// Hands everything over and waits until the applier has committed it.
    fn settle(&mut self, counters: bool) {
        self.hand_over(counters, Vec::new());
        while self.applier.behind > 0 {
            let Some(gone) = self.applier.wait_applied() else { break };
            let mut state = self.saver.lock();
            for session in &gone {
                state.tails.remove(session);
            }
        }
    }

    /// How long the thread may wait for work before the kept counters or the appended rows
    /// are due.
    fn wait_limit(&self) -> Option<std::time::Duration> {
        let state = self.saver.lock();
        match (state.kept.time_left(), state.time_left(self.apply_after)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn due(&self) -> bool {
        let state = self.saver.lock();
        state.pending.len() >= APPLY_ROWS || state.time_left(self.apply_after).is_some_and(|left| left.is_zero()) || state.kept.due()
    }

    /// Saves queued messages (their sessions' tails read first where the writer does not
    /// know them) and answers each.
    fn save_queued(&mut self, jobs: Vec<MessageJob>) {
        save_batch_or_each(jobs, |batch| self.save_batch(batch));
    }

    fn save_batch(&mut self, jobs: &[MessageJob]) -> StoreResult<Vec<Arc<ChatMessage>>> {
        let mut unknown: Vec<&str> = {
            let state = self.saver.lock();
            jobs.iter().map(|j| j.session_id.as_str()).filter(|s| !state.tails.contains_key(*s)).collect()
        };
        unknown.sort_unstable();
        unknown.dedup();
        let mut read = None;
        if !unknown.is_empty() {
            // A session the writer has not written to since it started (or forgot): its
            // stored rows are its tail once everything appended is committed. (Its own
            // messages are all queued, behind this batch: none is appended meanwhile.)
            self.settle(false);
            let maxes: Vec<(String, Option<i64>)> = chat_messages::table
                .filter(chat_messages::session_id.eq_any(&unknown))
                .group_by(chat_messages::session_id)
                .select((chat_messages::session_id, diesel::dsl::max(chat_messages::seq)))
                .load(&mut self.reader)?;
            let sessions: Vec<(String, i32, String)> = chat_sessions::table
                .filter(chat_sessions::id.eq_any(&unknown))
                .select((chat_sessions::id, chat_sessions::message_count, chat_sessions::bot_id))
                .load(&mut self.reader)?;
            if sessions.len() < unknown.len() {
                // A message for a session that does not exist: to the caller, not found.
                return Err(StoreError::NotFound);
            }
            read = Some((maxes, sessions));
        }
        let mut state = self.saver.lock();
        if let Some((maxes, sessions)) = read {
            let mut filled = Tails::new();
            fill_tails(&mut filled, &unknown, maxes, sessions, &state.kept);
            state.tails.extend(filled);
        }
        state.append(&items_of(jobs), &self.saver.unapplied)
    }
}

/// Saves `jobs` with `save` as one batch and answers each. A batch refused as a whole (a row
/// that cannot be written, a vanished session) is tried one message at a time, so one bad
/// message fails alone.
fn save_batch_or_each(jobs: Vec<MessageJob>, mut save: impl FnMut(&[MessageJob]) -> StoreResult<Vec<Arc<ChatMessage>>>) {
    match save(&jobs) {
        Ok(rows) => answer(jobs, Ok(rows)),
        Err(_) if jobs.len() > 1 => {
            for job in jobs {
                let saved = save(std::slice::from_ref(&job));
                let _ = job.reply.send(saved.and_then(|mut rows| rows.pop().ok_or(StoreError::NotFound)));
            }
        }
        Err(e) => {
            if let Some(job) = jobs.into_iter().next() {
                let _ = job.reply.send(Err(e));
            }
        }
    }
}

/// The (session, message) pairs of `jobs`, as `Appended::append` takes them.
fn items_of(jobs: &[MessageJob]) -> Vec<(&str, &NewMessage)> {
    jobs.iter().map(|j| (j.session_id.as_str(), &j.new)).collect()
}

/// The writer thread: saves the messages that come through its queue, answers readers by
/// handing everything appended to the applier, and hands it over anyway every `apply_after`
/// or `APPLY_ROWS` rows.
fn run(mut thread: WriterThread, mut rx: mpsc::Receiver<Job>, clock: &tokio::runtime::Runtime) {
    loop {
        let wait = thread.wait_limit();
        let next = clock.block_on(async {
            match wait {
                Some(left) => tokio::time::timeout(left, rx.recv()).await.ok(),
                None => Some(rx.recv().await),
            }
        });
        let first = match next {
            None => {
                thread.hand_over(false, Vec::new());
                continue;
            }
            Some(None) => {
                // Every sender is gone: the store is closing.
                thread.settle(true);
                break;
            }
            Some(Some(job)) => job,
        };
        let mut work = Turn::new();
        work.add(first);
        work.fill(&mut rx);
        if thread.saver.lock().tails.len() > TAIL_MEMORY {
            // Forgotten tails are read again from the database, which must hold their rows.
            thread.settle(false);
            remember(&mut thread.saver.lock().tails);
        }
        {
            let mut state = thread.saver.lock();
            work.forget_deleted(&mut state.tails);
        }
        let messages = std::mem::take(&mut work.messages);
        if !messages.is_empty() {
            let sessions: Vec<String> = messages.iter().map(|m| m.session_id.clone()).collect();
            thread.save_queued(messages);
            let mut state = thread.saver.lock();
            for session in &sessions {
                state.unqueue(session);
            }
        }
        let syncs = std::mem::take(&mut work.syncs);
        if work.counters || !syncs.is_empty() || thread.due() {
            thread.hand_over(work.counters, syncs);
        }
    }
    if let Ok(state) = Arc::try_unwrap(thread.saver).map(|s| s.state.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)) {
        state.journal.close();
    }
}

/// The applier thread: commits each handoff in one transaction (taking its turn with the
/// process's other writers), then deletes its journal segment. A handoff that cannot be
/// committed (a full disk, a locked database) is tried again until it is: its rows are safe in
/// the journal meanwhile, and the writer stops taking messages once it is `APPLY_BEHIND`.
fn apply_all(mut conn: SqliteConnection, handoffs: std::sync::mpsc::Receiver<Handoff>, applied: std::sync::mpsc::Sender<Vec<String>>, unapplied: &AtomicUsize, turn: &TurnLock) {
    for handoff in handoffs {
        let mut tries = 0u32;
        let vanished = loop {
            match apply(&mut conn, &handoff, turn) {
                Ok(vanished) => break vanished,
                Err(e) => {
                    tries += 1;
                    tracing::warn!("applying {} journaled messages (try {tries}): {e}", handoff.rows.len());
                    std::thread::sleep(std::time::Duration::from_millis(100 * u64::from(tries.min(20))));
                }
            }
        };
        if let Some(segment) = &handoff.segment {
            if let Err(e) = std::fs::remove_file(segment) {
                tracing::warn!("message journal: removing {}: {e}", segment.display());
            }
        }
        unapplied.fetch_sub(handoff.rows.len(), Ordering::SeqCst);
        for done in handoff.done {
            let _ = done.send(());
        }
        let _ = applied.send(vanished);
    }
}

/// Commits a handoff's rows and counters together; when the batch is refused (a session
/// deleted after its messages were journaled), row by row, dropping the rows whose session is
/// gone (its messages went with it). Returns the sessions of the rows dropped.
fn apply(conn: &mut SqliteConnection, handoff: &Handoff, turn: &TurnLock) -> StoreResult<Vec<String>> {
    let now = time::now();
    let write_counters_of = |conn: &mut SqliteConnection| match &handoff.counters {
        Some(flush) => {
            let sessions: Vec<(&str, Bump)> = flush.sessions.iter().map(|(id, b)| (id.as_str(), b.clone())).collect();
            write_counters(conn, &sessions, &flush.counted, now)
        }
        None => Ok(()),
    };
    let guard = turn.blocking_lock();
    let whole = conn.immediate_transaction::<_, StoreError, _>(|conn| {
        rows::insert_all(conn, &handoff.rows, IfSaved::Fail)?;
        write_counters_of(conn)
    });
    drop(guard);
    if whole.is_ok() || handoff.rows.is_empty() {
        return whole.map(|()| Vec::new());
    }
    let vanished = apply_rows_one_by_one(conn, &handoff.rows, turn, false)?;
    let guard = turn.blocking_lock();
    let counters = conn.immediate_transaction::<_, StoreError, _>(write_counters_of);
    drop(guard);
    counters.map(|()| vanished)
}

/// Inserts rows one transaction each, dropping (with a warning) those a constraint refuses;
/// stops at the first other error. `replaying`: rows already committed are skipped. Returns
/// the sessions of the rows dropped.
fn apply_rows_one_by_one<R: std::ops::Deref<Target = ChatMessage>>(conn: &mut SqliteConnection, rows: &[R], turn: &TurnLock, replaying: bool) -> StoreResult<Vec<String>> {
    let mut dropped = Vec::new();
    for row in rows {
        let guard = turn.blocking_lock();
        let if_saved = if replaying { IfSaved::Skip } else { IfSaved::Fail };
        let inserted = conn.immediate_transaction::<_, diesel::result::Error, _>(|conn| rows::insert_one(conn, row, if_saved));
        drop(guard);
        match inserted {
            Ok(_) => {}
            Err(diesel::result::Error::DatabaseError(kind, info)) if is_constraint(&kind) => {
                tracing::warn!("journaled message {} of session {} dropped: {}", row.id, row.session_id, info.message());
                dropped.push(row.session_id.clone());
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(dropped)
}

fn is_constraint(kind: &diesel::result::DatabaseErrorKind) -> bool {
    use diesel::result::DatabaseErrorKind as K;
    matches!(kind, K::ForeignKeyViolation | K::UniqueViolation | K::NotNullViolation | K::CheckViolation)
}

/// Start-up: commits the rows of every journal segment left beside the database at `path`
/// (a crash or a power cut came before the applier did), then deletes the segments. Runs
/// before anything reads the database, and before the counters are recounted.
pub(crate) fn replay_journal(conn: &mut SqliteConnection, dir: &std::path::Path) -> StoreResult<usize> {
    let mut replayed = replay_segments(conn, dir)?;
    // What processes that worked beside an owner journaled and did not commit before they
    // ended (see `owner`); their directories go once replayed.
    for guest in owner::abandoned_guests(dir)? {
        replayed += replay_segments(conn, guest.dir())?;
        if let Err(e) = std::fs::remove_dir_all(guest.dir()) {
            tracing::warn!("message journal: removing {}: {e}", guest.dir().display());
        }
    }
    if replayed > 0 {
        tracing::info!("message journal: {replayed} messages saved before the last stop were committed at start-up");
    }
    Ok(replayed)
}

/// Commits the rows of every segment in `dir`, oldest first, and deletes each once committed.
fn replay_segments(conn: &mut SqliteConnection, dir: &std::path::Path) -> StoreResult<usize> {
    let mut replayed = 0;
    for (_, segment) in journal::segments(dir)? {
        let journaled = journal::read_segment(&segment)?;
        let refs: Vec<&ChatMessage> = journaled.iter().collect();
        let whole = conn.immediate_transaction::<_, diesel::result::Error, _>(|conn| rows::insert_all(conn, &refs, IfSaved::Skip));
        if whole.is_err() {
            apply_rows_one_by_one(conn, &refs, &TurnLock::default(), true)?;
        }
        replayed += journaled.len();
        // Their sessions' counters, from the messages (the flush that would have written them
        // may never have come; a recount is absolute, so counting twice is harmless).
        if let Some(first) = journaled.iter().map(|r| r.id.as_str()).min() {
            diesel::sql_query(super::counters::recount_sql("max")).bind::<diesel::sql_types::Text, _>(first).execute(conn)?;
        }
        // Gone already is fine: see `read_segment`.
        match std::fs::remove_file(&segment) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(StoreError::Connection(format!("message journal: removing {}: {e}", segment.display())));
            }
            _ => {}
        }
    }
    Ok(replayed)
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
