//! The message writer: every chat message is saved through one bounded queue and committed in
//! groups — whatever is queued when the writer comes round goes into one transaction (group
//! commit), on SQLite and on PostgreSQL alike.
//!
//! Why one writer: SQLite allows one writer at a time anyway, and a commit per message (or a
//! thread hop per statement) capped relaying long before the CPU did. The writer numbers each
//! session's messages itself (it is the only appender, so it keeps the last `seq` of the
//! sessions it has seen, and their counts), so a message in steady state costs no read at
//! all: one row insert.
//!
//! A session's counters (message count, preview, last activity) are not rewritten with every
//! message: the writer keeps them (`counters`, absolute values, so writing one twice or after
//! a recount is harmless) and writes them at most every
//! `counters::FLUSH_EVERY`, or at once when a reader asks (`Writer::sync_counters`, which every
//! store read of those columns does first). Under load that is one counter update per session
//! per flush instead of one per message batch, and the sessions index on (bot, last activity)
//! stops moving with every message. Each flush records its time; a start after a crash
//! recounts the sessions with messages since the last flush (`counters::reconcile_*`), so the
//! counters lose nothing the messages table kept. The messages per bot and 15-minute slot that
//! analytics reads are kept the same way (`counters::Counted`), so a commit writes the
//! message's own pages and nothing else.
//!
//! SQLite: a message is saved by appending it to the message journal (`journal`: a
//! `write`, as durable as a commit), on a caller's own thread when the writer knows its
//! session (`sqlite::Saver`; the messages handed over in one turn of the callers' event loops
//! share one write, see `Saved`), else by the writer thread, which reads the session's tail
//! first; an applier thread commits the
//! journaled rows behind it, many messages to a transaction, on a plain (synchronous)
//! connection, and every read or write of the store's pool first waits for the rows saved
//! before it (`Writer::sync_messages`). Neither checkpoints the WAL (a checkpoint copies
//! pages and syncs the file); a third thread does, every `CHECKPOINT_EVERY`, beside them, and
//! copies the short tail it could not catch while the writers wait their turn, so the WAL
//! starts over instead of growing. PostgreSQL: a task on the runtime with a pooled connection,
//! committing each batch before it answers.
//!
//! Message ids are time-ordered (UUIDv7), so the primary-key index grows at its end instead of
//! touching a random page per message.
//!
//! A full queue refuses at once (`StoreError::Busy`) instead of growing: the caller tells its
//! client to retry. A batch that fails as a whole (a constraint, a vanished session) is retried
//! one message at a time, so one bad message fails alone.

pub(crate) mod counters;
pub(crate) mod journal;
pub(crate) mod owner;
pub(crate) mod postgres;
pub(crate) mod rows;
pub(crate) mod sqlite;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chrono::NaiveDateTime;
use tokio::sync::{mpsc, oneshot};

use crate::chat::{NewMessage, Role};
use crate::models::ChatMessage;
use crate::{StoreError, StoreResult};
use counters::{slot_of, Bump, Counted};

/// A new message id: time-ordered, so consecutive inserts share index pages.
fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// What a full queue answers.
pub const BUSY: &str = "Server busy, please retry";

/// Most messages committed in one transaction.
const MAX_BATCH: usize = 512;

/// Sessions whose tail the writer remembers; past this it forgets them all (the next message
/// of each reads its tail once).
const TAIL_MEMORY: usize = 100_000;

/// What the writer remembers of a session it has written to: its last message's `seq`, its
/// count of shown messages and its bot (for the slot counts).
#[derive(Debug, Clone, Default)]
struct Tail {
    seq: i64,
    shown: i32,
    bot: Option<Arc<str>>,
}

type Tails = HashMap<String, Tail>;

/// What the writer is asked to do.
pub(crate) enum Job {
    Message(MessageJob),
    /// Commit every message saved so far (and, with `counters`, the kept session counters);
    /// answered once they are committed.
    Sync { done: oneshot::Sender<()>, counters: bool },
    /// A session or bot was deleted: forget its tails, so its next message finds it gone
    /// instead of being saved for a session that no longer exists.
    Forget(Forget),
    /// Enough is appended: hand it over now (SQLite).
    Nudge,
}

pub(crate) enum Forget {
    Session(String),
    Bot(String),
}

pub(crate) struct MessageJob {
    session_id: String,
    new: NewMessage,
    reply: oneshot::Sender<StoreResult<Arc<ChatMessage>>>,
}

/// The sending side; cheap to clone.
#[derive(Clone)]
pub(crate) struct Writer {
    tx: mpsc::Sender<Job>,
    /// Messages saved (journaled, on SQLite) and not yet committed to the database.
    unapplied: Arc<AtomicUsize>,
    /// SQLite: saves a message of a known session on the caller's thread.
    saver: Option<Arc<sqlite::Saver>>,
}

impl Writer {
    /// Hands a message over; `Err(Busy)` at once when the queue is full. The answer is the
    /// saved row.
    pub(crate) fn submit(&self, session_id: &str, new: NewMessage) -> StoreResult<Saved> {
        if let Some(saver) = &self.saver {
            return saver.gather(session_id, new);
        }
        let (reply, answer) = oneshot::channel();
        match self.tx.try_send(Job::Message(MessageJob { session_id: session_id.to_string(), new, reply })) {
            Ok(()) => Ok(Saved::queued(answer)),
            Err(mpsc::error::TrySendError::Full(_)) => Err(StoreError::Busy(BUSY.into())),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(StoreError::Connection("the message writer stopped".into())),
        }
    }

    /// SQLite: writes to the message journal since the store opened (several messages may
    /// share one); `None` on PostgreSQL.
    pub(crate) fn journal_appends(&self) -> Option<u64> {
        self.saver.as_ref().map(|saver| saver.journal_appends())
    }

    /// Has the writer commit the session counters it keeps, and waits until it has: a read
    /// after this sees every message saved before it counted. When the queue is full (the
    /// server is overloaded) it does not wait, and the read may be up to one flush behind.
    pub(crate) async fn sync_counters(&self) {
        let (done, flushed) = oneshot::channel();
        if self.tx.try_send(Job::Sync { done, counters: true }).is_ok() {
            let _ = flushed.await;
        }
    }

    /// Tells the writer a session or bot is gone (after its deletion is committed).
    pub(crate) async fn forget(&self, gone: Forget) {
        match &self.saver {
            Some(saver) => saver.forget(&gone),
            None => {
                let _ = self.tx.send(Job::Forget(gone)).await;
            }
        }
    }

    /// Waits until every message saved so far is in the database (on SQLite a saved message
    /// may still be only in the journal): every read and write of the store's pool does this
    /// first, so it sees what was saved before it and writes after it. Costs nothing when
    /// everything is committed.
    pub(crate) async fn sync_messages(&self) {
        if self.unapplied.load(Ordering::SeqCst) == 0 {
            return;
        }
        let (done, committed) = oneshot::channel();
        // Waits for room in a full queue: the read must not miss a saved message.
        if self.tx.send(Job::Sync { done, counters: false }).await.is_ok() {
            let _ = committed.await;
        }
    }
}

/// A message handed to the writer, resolving to its saved row.
///
/// On SQLite the message waits in the saver's gathering until a `flush`. The first poll
/// finds it there and yields once (the task goes to the back of its runtime's queue), so
/// the other connections whose input arrived in the same turn of the event loop hand
/// their messages over too; the next poll saves all of them with one journal write. A
/// message is saved only then, so it is still saved before anyone sees it. Under light load
/// that gathers one message and costs one extra poll; under heavy load it turns a write per
/// message into a write per turn. Dropped before it was saved, it saves what is gathered.
pub(crate) struct Saved {
    answer: oneshot::Receiver<StoreResult<Arc<ChatMessage>>>,
    /// The saver whose gathering may still hold the message.
    gathering: Option<Arc<sqlite::Saver>>,
    yielded: bool,
}

impl Saved {
    fn queued(answer: oneshot::Receiver<StoreResult<Arc<ChatMessage>>>) -> Saved {
        Saved { answer, gathering: None, yielded: false }
    }

    fn gathered(answer: oneshot::Receiver<StoreResult<Arc<ChatMessage>>>, saver: Arc<sqlite::Saver>) -> Saved {
        Saved { answer, gathering: Some(saver), yielded: false }
    }

    fn answered(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<StoreResult<Arc<ChatMessage>>> {
        use std::future::Future as _;
        std::pin::Pin::new(&mut self.answer)
            .poll(cx)
            .map(|answer| answer.unwrap_or_else(|_| Err(StoreError::Connection("the message was not saved".into()))))
    }
}

impl std::future::Future for Saved {
    type Output = StoreResult<Arc<ChatMessage>>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let this = self.get_mut();
        if let std::task::Poll::Ready(saved) = this.answered(cx) {
            this.gathering = None;
            return std::task::Poll::Ready(saved);
        }
        if let Some(saver) = &this.gathering {
            if !this.yielded {
                this.yielded = true;
                cx.waker().wake_by_ref();
                return std::task::Poll::Pending;
            }
            saver.flush();
            this.gathering = None;
            return this.answered(cx);
        }
        std::task::Poll::Pending
    }
}

impl Drop for Saved {
    fn drop(&mut self) {
        if let Some(saver) = self.gathering.take() {
            saver.flush();
        }
    }
}

/// One turn of the writer: the messages it commits together and the readers waiting for the
/// counters.
struct Turn {
    messages: Vec<MessageJob>,
    syncs: Vec<oneshot::Sender<()>>,
    /// Whether a reader asked for the kept counters.
    counters: bool,
    forget: Vec<Forget>,
}

impl Turn {
    fn new() -> Turn {
        Turn { messages: Vec::new(), syncs: Vec::new(), counters: false, forget: Vec::new() }
    }

    fn add(&mut self, job: Job) {
        match job {
            Job::Message(m) => self.messages.push(m),
            Job::Sync { done, counters } => {
                self.syncs.push(done);
                self.counters |= counters;
            }
            Job::Forget(gone) => self.forget.push(gone),
            Job::Nudge => {}
        }
    }

    /// Forgets the tails of what was deleted.
    fn forget_deleted(&mut self, tails: &mut Tails) {
        for gone in self.forget.drain(..) {
            match gone {
                Forget::Session(id) => {
                    tails.remove(&id);
                }
                Forget::Bot(bot) => tails.retain(|_, tail| tail.bot.as_deref() != Some(bot.as_str())),
            }
        }
    }

    /// Takes whatever else is queued, up to a batch.
    fn fill(&mut self, rx: &mut mpsc::Receiver<Job>) {
        while self.messages.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => self.add(job),
                Err(_) => break,
            }
        }
    }

    fn answer_syncs(&mut self) {
        for s in self.syncs.drain(..) {
            let _ = s.send(());
        }
    }
}

/// What a batch writes, worked out before touching the database: its rows, each session's
/// share of the counters, in the order the sessions first appear, and its slot counts.
struct Plan<'a> {
    rows: Vec<ChatMessage>,
    bumps: Vec<(&'a str, Bump)>,
    counted: Counted,
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
        suggestions: serde_json::to_string(&new.suggestions)?,
    })
}

/// Numbers the jobs' messages from `tails` (every session of `jobs` must be in it) and works
/// out each session's counters.
fn plan<'a>(jobs: &'a [MessageJob], tails: &mut Tails, now: NaiveDateTime) -> StoreResult<Plan<'a>> {
    let items: Vec<(&'a str, &'a NewMessage)> = jobs.iter().map(|j| (j.session_id.as_str(), &j.new)).collect();
    plan_messages(&items, tails, now)
}

/// `plan` for messages (session id, message) that are not queued jobs.
fn plan_messages<'a>(items: &[(&'a str, &'a NewMessage)], tails: &mut Tails, now: NaiveDateTime) -> StoreResult<Plan<'a>> {
    let mut rows = Vec::with_capacity(items.len());
    let mut bumps: Vec<(&'a str, Bump)> = Vec::new();
    let mut index: HashMap<&'a str, usize> = HashMap::new();
    let mut counted = Counted::default();
    for &(session_id, new) in items {
        let tail = tails.get_mut(session_id).ok_or(StoreError::NotFound)?;
        tail.seq += 1;
        rows.push(row(session_id, tail.seq, new, now)?);
        if let (true, Some(bot)) = (shown(new.role), &tail.bot) {
            counted.add((bot.clone(), slot_of(now), new.role.as_str()));
        }
        let i = *index.entry(session_id).or_insert_with(|| {
            bumps.push((session_id, Bump::at(now)));
            bumps.len() - 1
        });
        if let Some((_, bump)) = bumps.get_mut(i) {
            if shown(new.role) {
                tail.shown += 1;
                bump.shown(tail.shown, &new.content);
            }
            bump.count = tail.shown;
        }
    }
    counted.through = rows.last().map(|r| r.id.clone());
    Ok(Plan { rows, bumps, counted })
}

/// Answers every job of a batch with its saved message, or all with the batch's error.
fn answer(jobs: Vec<MessageJob>, saved: StoreResult<Vec<Arc<ChatMessage>>>) {
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

fn remember(tails: &mut Tails) {
    if tails.len() > TAIL_MEMORY {
        tails.clear();
    }
}

/// The tails of the sessions a batch writes to that the writer does not remember, from their
/// stored last `seq`, count and bot; a count the writer keeps unwritten is newer than the
/// stored one. `maxes` and `sessions` are what the database holds for `unknown`.
fn fill_tails(tails: &mut Tails, unknown: &[&str], maxes: Vec<(String, Option<i64>)>, sessions: Vec<(String, i32, String)>, kept: &counters::Kept) {
    for s in unknown {
        tails.insert((*s).to_string(), Tail::default());
    }
    for (s, max) in maxes {
        tails.entry(s).or_default().seq = max.unwrap_or(0);
    }
    for (s, count, bot) in sessions {
        let shown = kept.count_of(&s).unwrap_or(count);
        let tail = tails.entry(s).or_default();
        tail.shown = shown;
        tail.bot = Some(bot.into());
    }
}

/// A message for a session that no longer exists breaks the foreign key: to the caller that
/// is the session not being found, as before the row was written.
fn vanished_session(e: diesel::result::Error) -> StoreError {
    match e {
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::ForeignKeyViolation, _) => StoreError::NotFound,
        e => e.into(),
    }
}

/// The part of the tails a batch may change, so a rolled-back batch leaves them as they were.
trait CloneFor {
    fn clone_for(&self, jobs: &[MessageJob]) -> Tails;
}

impl CloneFor for Tails {
    fn clone_for(&self, jobs: &[MessageJob]) -> Tails {
        let mut out = HashMap::new();
        for job in jobs {
            if let Some(tail) = self.get(&job.session_id) {
                out.insert(job.session_id.clone(), tail.clone());
            }
        }
        out
    }
}
