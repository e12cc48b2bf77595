//! Chat sessions and their messages. A session's messages carry a per-session sequence number
//! assigned inside the same transaction that bumps the session's counters, so order is total
//! and the session row always agrees with its messages.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use serde::{Deserialize, Serialize};

use crate::models::{ChatMessage, ChatSession};
use crate::schema::{chat_messages, chat_sessions};
use crate::{new_id, time, Store, StoreError, StoreResult};

/// Who wrote a message, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Bot,
    Agent,
    System,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Bot => "bot",
            Role::Agent => "agent",
            Role::System => "system",
        }
    }
}

/// A source an answer used, stored with the message (JSON in `chat_messages.sources`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
}

#[derive(Debug, Clone)]
pub struct NewMessage {
    pub role: Role,
    pub content: String,
    pub sender_name: Option<String>,
    pub agent_id: Option<String>,
    pub is_error: bool,
    pub sources: Vec<Citation>,
}

impl NewMessage {
    pub fn simple(role: Role, content: impl Into<String>) -> NewMessage {
        NewMessage { role, content: content.into(), sender_name: None, agent_id: None, is_error: false, sources: Vec::new() }
    }
}

/// Contact details a visitor gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomerInfo {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
}

/// Which sessions of a bot a list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFilter {
    All,
    /// Waiting for a human: support requested, no agent, not resolved.
    SupportQueue,
    /// Taken by this agent and not resolved.
    AssignedTo,
    /// Not resolved.
    Open,
}

diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

/// A LIKE pattern matching `text` anywhere, case-insensitively (compare with `lower(column)`);
/// the wildcards `%` and `_` a person types are matched literally (escaped with `\`).
pub fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

const PREVIEW_CHARS: usize = 200;

fn preview(text: &str) -> String {
    text.chars().take(PREVIEW_CHARS).collect()
}

/// The statements of appending one message, for both backends and for a batch: evaluates to
/// `StoreResult<ChatMessage>` (`Err(NotFound)` when the session is gone, nothing written), and
/// returns early from the enclosing block on a database error.
macro_rules! append_in {
    ($conn:ident, $session_id:expr, $new:expr, $now:expr) => {{
        let (session_id, new, now): (&str, NewMessage, NaiveDateTime) = ($session_id, $new, $now);
        let sources = serde_json::to_string(&new.sources)?;
        let is_agent = new.role == Role::Agent;
        let shown = matches!(new.role, Role::User | Role::Bot | Role::Agent);
        let last = preview(&new.content);
        let updated = if shown {
            diesel::update(chat_sessions::table.find(session_id))
                .set((
                    chat_sessions::message_count.eq(chat_sessions::message_count + 1),
                    chat_sessions::last_message.eq(&last),
                    chat_sessions::updated_at.eq(now),
                ))
                .execute($conn)
                .await?
        } else {
            diesel::update(chat_sessions::table.find(session_id))
                .set(chat_sessions::updated_at.eq(now))
                .execute($conn)
                .await?
        };
        if updated == 0 {
            Err(StoreError::NotFound)
        } else {
            let max_seq: Option<i64> = chat_messages::table
                .filter(chat_messages::session_id.eq(session_id))
                .select(diesel::dsl::max(chat_messages::seq))
                .first($conn)
                .await?;
            let message = ChatMessage {
                id: new_id(),
                session_id: session_id.to_string(),
                seq: max_seq.unwrap_or(0) + 1,
                role: new.role.as_str().to_string(),
                content: new.content,
                sender_name: new.sender_name,
                agent_id: new.agent_id,
                is_agent,
                is_error: new.is_error,
                sources,
                created_at: now,
                edited_at: None,
            };
            diesel::insert_into(chat_messages::table).values(&message).execute($conn).await?;
            Ok(message)
        }
    }};
}

/// A message waiting for the SQLite group commit.
pub(crate) struct AppendRequest {
    session_id: String,
    new: NewMessage,
    reply: tokio::sync::oneshot::Sender<StoreResult<ChatMessage>>,
}

/// Messages queued for the next commit, and whether a caller is leading (saving them).
#[derive(Default)]
pub(crate) struct AppendQueue {
    pending: std::sync::Mutex<Vec<AppendRequest>>,
    leading: std::sync::atomic::AtomicBool,
}

impl AppendQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<AppendRequest>> {
        self.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn push(&self, r: AppendRequest) {
        self.lock().push(r);
    }

    fn take(&self) -> Vec<AppendRequest> {
        std::mem::take(&mut *self.lock())
    }

    /// Becomes the leader unless someone is.
    fn claim_lead(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.leading.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// Stops leading; `false` when a request queued meanwhile and the lead was taken back (a
    /// caller who queued while this one was still leading counts on it).
    fn resign(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.leading.store(false, Ordering::Release);
        if self.lock().is_empty() {
            return true;
        }
        !self.claim_lead()
    }
}

impl Store {
    pub async fn create_session(&self, bot_id: &str, title: &str) -> StoreResult<ChatSession> {
        let now = time::now();
        let session = ChatSession {
            id: new_id(),
            bot_id: bot_id.to_string(),
            title: title.to_string(),
            status: "active".into(),
            priority: "medium".into(),
            tags: "[]".into(),
            needs_human_support: false,
            assigned_agent_id: None,
            assigned_agent_name: None,
            customer_name: None,
            customer_email: None,
            customer_phone: None,
            customer_company: None,
            human_support_requested_at: None,
            resolved_at: None,
            resolved_by: None,
            rating: None,
            feedback: None,
            is_pinned: false,
            is_starred: false,
            message_count: 0,
            last_message: None,
            created_at: now,
            updated_at: now,
        };
        let row = session.clone();
        db_run!(self, |conn| diesel::insert_into(chat_sessions::table).values(&row).execute(conn).await)?;
        Ok(session)
    }

    pub async fn session(&self, id: &str) -> StoreResult<Option<ChatSession>> {
        db_run!(self, |conn| chat_sessions::table.find(id).first::<ChatSession>(conn).await.optional())
            .map_err(Into::into)
    }

    /// Appends a message: bumps the session's count (taking the write lock first), numbers the
    /// message with it, stores it, and updates the preview — all or nothing. Returns once it
    /// is committed.
    ///
    /// On SQLite, messages arriving together are saved together: callers queue their message;
    /// one of them leads, committing everything queued in one transaction at a time (group
    /// commit) on a single connection, while the others just wait for their answer. One commit
    /// per message capped relaying, and waiters each holding a pooled connection starved the
    /// reads under load; each message is still its own unit (one that cannot be saved fails
    /// alone).
    pub async fn append_message(&self, session_id: &str, new: NewMessage) -> StoreResult<ChatMessage> {
        if self.backend() == crate::Backend::Postgres {
            let now = time::now();
            return db_tx!(self, |conn| async move { Ok(append_in!(conn, session_id, new, now)) })?;
        }
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.append_queue.push(AppendRequest { session_id: session_id.to_string(), new, reply });
        if self.append_queue.claim_lead() {
            // This call leads: it saves batches until the queue is empty. On its own task, so a
            // cancelled caller never strands what others queued.
            let store = self.clone();
            let _ = tokio::spawn(async move { store.lead_appends().await }).await;
        }
        answer.await.map_err(|_| StoreError::Connection("the message was not saved".into()))?
    }

    /// The leader's loop: take what is queued, save it in one transaction with the writer's
    /// turn, repeat until nothing is left. One connection for all appends, so the other
    /// pooled connections stay free for reads however many messages are waiting.
    async fn lead_appends(&self) {
        loop {
            let batch = self.append_queue.take();
            if batch.is_empty() {
                if self.append_queue.resign() {
                    return;
                }
                continue;
            }
            let pooled = match self.connection().await {
                Ok(p) => p,
                Err(e) => {
                    let reason = e.to_string();
                    for r in batch {
                        let _ = r.reply.send(Err(StoreError::Connection(reason.clone())));
                    }
                    continue;
                }
            };
            let turn = self.sqlite_writer.lock().await;
            write_batch(pooled, batch).await;
            drop(turn);
        }
    }


    /// The session's messages in order; `after_seq` skips those already seen, `limit` keeps the
    /// newest ones.
    pub async fn messages(&self, session_id: &str, after_seq: i64, limit: i64) -> StoreResult<Vec<ChatMessage>> {
        let mut newest: Vec<ChatMessage> = db_run!(self, |conn| chat_messages::table
            .filter(chat_messages::session_id.eq(session_id))
            .filter(chat_messages::seq.gt(after_seq))
            .order(chat_messages::seq.desc())
            .limit(limit)
            .load::<ChatMessage>(conn)
            .await)?;
        newest.reverse();
        Ok(newest)
    }

    pub async fn message(&self, id: &str) -> StoreResult<Option<ChatMessage>> {
        db_run!(self, |conn| chat_messages::table.find(id).first::<ChatMessage>(conn).await.optional())
            .map_err(Into::into)
    }

    /// Edits a bot message's text in place (the inbox's inline edit).
    pub async fn edit_message(&self, id: &str, content: &str) -> StoreResult<ChatMessage> {
        let now = time::now();
        db_tx!(self, |conn| async move {
            let n = diesel::update(chat_messages::table.find(id))
                .set((chat_messages::content.eq(content), chat_messages::edited_at.eq(now)))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            Ok(chat_messages::table.find(id).first::<ChatMessage>(conn).await?)
        })
    }

    /// A page of a bot's sessions, newest activity first, and the total count. `title_search`
    /// keeps the sessions whose title contains it (any case).
    pub async fn sessions_of_bot(
        &self,
        bot_id: &str,
        filter: SessionFilter,
        agent_id: Option<&str>,
        title_search: Option<&str>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<(Vec<ChatSession>, i64)> {
        let agent = agent_id.unwrap_or_default().to_string();
        let pattern = title_search.map(str::trim).filter(|t| !t.is_empty()).map(contains_pattern);
        // The boxed query is built inside each backend's arm: a boxed query is tied to one backend.
        db_run!(self, |conn| {
            let query = || {
                let mut q = chat_sessions::table.filter(chat_sessions::bot_id.eq(bot_id.to_string())).into_boxed();
                match filter {
                    SessionFilter::All => {}
                    SessionFilter::Open => q = q.filter(chat_sessions::status.ne("resolved")),
                    SessionFilter::SupportQueue => {
                        q = q
                            .filter(chat_sessions::needs_human_support.eq(true))
                            .filter(chat_sessions::assigned_agent_id.is_null())
                            .filter(chat_sessions::status.ne("resolved"))
                    }
                    SessionFilter::AssignedTo => {
                        q = q
                            .filter(chat_sessions::assigned_agent_id.eq(agent.clone()))
                            .filter(chat_sessions::status.ne("resolved"))
                    }
                }
                if let Some(pattern) = &pattern {
                    q = q.filter(lower(chat_sessions::title).like(pattern.clone()).escape('\\'));
                }
                q
            };
            let total: i64 = query().count().get_result(conn).await?;
            let page: Vec<ChatSession> = query()
                .order((chat_sessions::updated_at.desc(), chat_sessions::id))
                .offset(offset)
                .limit(limit)
                .load(conn)
                .await?;
            Ok::<_, StoreError>((page, total))
        })
    }

    /// Marks the session as waiting for a human, with the contact details given.
    pub async fn request_support(&self, session_id: &str, info: &CustomerInfo) -> StoreResult<ChatSession> {
        let now = time::now();
        self.request_contact(session_id, info).await?;
        db_tx!(self, |conn| async move {
            let n = diesel::update(chat_sessions::table.find(session_id))
                .set((
                    chat_sessions::needs_human_support.eq(true),
                    chat_sessions::status.eq("pending"),
                    chat_sessions::human_support_requested_at.eq(now),
                    chat_sessions::assigned_agent_id.eq(None::<String>),
                    chat_sessions::assigned_agent_name.eq(None::<String>),
                    chat_sessions::resolved_at.eq(None::<NaiveDateTime>),
                    chat_sessions::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            Ok(chat_sessions::table.find(session_id).first::<ChatSession>(conn).await?)
        })
    }

    /// Records the visitor's contact details on the session; only the fields given are changed,
    /// so an empty form keeps what was given earlier.
    pub async fn request_contact(&self, session_id: &str, info: &CustomerInfo) -> StoreResult<()> {
        let keep = |v: &Option<String>| v.as_ref().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let (name, email, phone, company) = (keep(&info.name), keep(&info.email), keep(&info.phone), keep(&info.company));
        db_tx!(self, |conn| async move {
            let target = || chat_sessions::table.find(session_id);
            if let Some(v) = name {
                diesel::update(target()).set(chat_sessions::customer_name.eq(v)).execute(conn).await?;
            }
            if let Some(v) = email {
                diesel::update(target()).set(chat_sessions::customer_email.eq(v)).execute(conn).await?;
            }
            if let Some(v) = phone {
                diesel::update(target()).set(chat_sessions::customer_phone.eq(v)).execute(conn).await?;
            }
            if let Some(v) = company {
                diesel::update(target()).set(chat_sessions::customer_company.eq(v)).execute(conn).await?;
            }
            Ok(())
        })
    }

    /// Gives the session to `agent_id` if no agent has it and it is not resolved. One atomic
    /// conditional update: of any number of agents racing, exactly one gets `true`.
    pub async fn take_session(&self, session_id: &str, agent_id: &str, agent_name: &str) -> StoreResult<bool> {
        let now = time::now();
        let n = db_run!(self, |conn| diesel::update(
            chat_sessions::table
                .filter(chat_sessions::id.eq(session_id))
                .filter(chat_sessions::assigned_agent_id.is_null())
                .filter(chat_sessions::status.ne("resolved"))
        )
        .set((
            chat_sessions::assigned_agent_id.eq(agent_id),
            chat_sessions::assigned_agent_name.eq(agent_name),
            chat_sessions::status.eq("active"),
            chat_sessions::updated_at.eq(now),
        ))
        .execute(conn)
        .await)?;
        Ok(n == 1)
    }

    /// Moves a taken session from one agent to another.
    pub async fn transfer_session(&self, session_id: &str, from: &str, to: &str, to_name: &str) -> StoreResult<bool> {
        let now = time::now();
        let n = db_run!(self, |conn| diesel::update(
            chat_sessions::table
                .filter(chat_sessions::id.eq(session_id))
                .filter(chat_sessions::assigned_agent_id.eq(from))
                .filter(chat_sessions::status.ne("resolved"))
        )
        .set((
            chat_sessions::assigned_agent_id.eq(to),
            chat_sessions::assigned_agent_name.eq(to_name),
            chat_sessions::updated_at.eq(now),
        ))
        .execute(conn)
        .await)?;
        Ok(n == 1)
    }

    /// Resolves the session: the human part is over, the visitor is back with the bot.
    pub async fn resolve_session(
        &self,
        session_id: &str,
        resolved_by: &str,
        rating: Option<i32>,
        feedback: Option<&str>,
    ) -> StoreResult<ChatSession> {
        let now = time::now();
        db_tx!(self, |conn| async move {
            let n = diesel::update(chat_sessions::table.find(session_id))
                .set((
                    chat_sessions::status.eq("resolved"),
                    chat_sessions::needs_human_support.eq(false),
                    chat_sessions::assigned_agent_id.eq(None::<String>),
                    chat_sessions::assigned_agent_name.eq(None::<String>),
                    chat_sessions::resolved_at.eq(now),
                    chat_sessions::resolved_by.eq(resolved_by),
                    chat_sessions::rating.eq(rating),
                    chat_sessions::feedback.eq(feedback),
                    chat_sessions::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            Ok(chat_sessions::table.find(session_id).first::<ChatSession>(conn).await?)
        })
    }

    /// A resolved session the visitor writes to again is active again, with the bot.
    pub async fn reopen_session(&self, session_id: &str) -> StoreResult<()> {
        db_run!(self, |conn| diesel::update(
            chat_sessions::table.filter(chat_sessions::id.eq(session_id)).filter(chat_sessions::status.eq("resolved"))
        )
        .set(chat_sessions::status.eq("active"))
        .execute(conn)
        .await)?;
        Ok(())
    }

    pub async fn set_session_status(&self, session_id: &str, status: Option<&str>, priority: Option<&str>) -> StoreResult<ChatSession> {
        let now = time::now();
        db_tx!(self, |conn| async move {
            if let Some(status) = status {
                diesel::update(chat_sessions::table.find(session_id))
                    .set(chat_sessions::status.eq(status))
                    .execute(conn)
                    .await?;
            }
            if let Some(priority) = priority {
                diesel::update(chat_sessions::table.find(session_id))
                    .set(chat_sessions::priority.eq(priority))
                    .execute(conn)
                    .await?;
            }
            let n = diesel::update(chat_sessions::table.find(session_id))
                .set(chat_sessions::updated_at.eq(now))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            Ok(chat_sessions::table.find(session_id).first::<ChatSession>(conn).await?)
        })
    }

    pub async fn delete_session(&self, session_id: &str) -> StoreResult<()> {
        let n = db_run!(self, |conn| diesel::delete(chat_sessions::table.find(session_id)).execute(conn).await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Marks the bot as just used (the "last active" of My Bots).
    pub async fn touch_bot(&self, bot_id: &str) -> StoreResult<()> {
        use crate::schema::bots;
        let now = time::now();
        db_run!(self, |conn| diesel::update(bots::table.find(bot_id)).set(bots::last_active.eq(now)).execute(conn).await)?;
        Ok(())
    }
}

/// Saves a batch in one SQLite transaction on `pooled` (the caller holds the writer's turn)
/// and answers each request.
async fn write_batch(pooled: crate::pool::Pooled, batch: Vec<AppendRequest>) {
    let now = time::now();
    let mut replies = Vec::with_capacity(batch.len());
    let mut items = Vec::with_capacity(batch.len());
    for r in batch {
        replies.push(r.reply);
        items.push((r.session_id, r.new));
    }
    let saved: StoreResult<Vec<StoreResult<ChatMessage>>> = match pooled {
        crate::pool::Pooled::Sqlite(mut pooled) => async {
            sqlite_tx!(&mut *pooled, |conn| async move {
                let mut out = Vec::with_capacity(items.len());
                for (session_id, new) in items {
                    let session_id = session_id.as_str();
                    // A message whose session is gone fails alone; a database error fails
                    // (and rolls back) the batch.
                    out.push(append_in!(conn, session_id, new, now));
                }
                Ok(out)
            })
        }
        .await,
        crate::pool::Pooled::Pg(_) => Err(StoreError::Connection("group commit is for SQLite".into())),
    };
    match saved {
        Ok(results) => {
            for (reply, result) in replies.into_iter().zip(results) {
                let _ = reply.send(result);
            }
        }
        Err(e) => {
            let reason = e.to_string();
            for reply in replies {
                let _ = reply.send(Err(StoreError::Connection(reason.clone())));
            }
        }
    }
}
