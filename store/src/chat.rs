//! Chat sessions and their messages. A session's messages carry a per-session sequence number
//! assigned inside the same transaction that bumps the session's counters, so order is total
//! and the session row always agrees with its messages.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use serde::{Deserialize, Serialize};

use crate::fold::{contains_pattern, fold_text};
use crate::models::{ChatMessage, ChatSession};
use crate::schema::{chat_messages, chat_sessions};
use crate::{new_id, time, Store, StoreError, StoreResult};

/// What asking for a person answers when an agent already has the conversation.
pub const AGENT_HELPING: &str = "An agent is already helping you";

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
    /// "Did you mean" quick replies offered with a bot reply.
    pub suggestions: Vec<String>,
}

impl NewMessage {
    pub fn simple(role: Role, content: impl Into<String>) -> NewMessage {
        NewMessage { role, content: content.into(), sender_name: None, agent_id: None, is_error: false, sources: Vec::new(), suggestions: Vec::new() }
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

/// The pin and star marks a list may be narrowed to (`None`: either way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlagFilter {
    pub pinned: Option<bool>,
    pub starred: Option<bool>,
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
            resolution_notes: None,
        };
        let row = session.clone();
        db_run!(self, |conn| diesel::insert_into(chat_sessions::table).values(&row).execute(conn).await)?;
        Ok(session)
    }

    /// Has the message writer write the session counters it keeps (see `writer`), so a read
    /// that follows counts every message saved before it. Every read of `message_count`,
    /// `last_message` or a session's last activity goes through here first.
    pub(crate) async fn counters_current(&self) {
        self.writer.sync_counters().await;
    }

    pub async fn session(&self, id: &str) -> StoreResult<Option<ChatSession>> {
        self.counters_current().await;
        db_run!(self, |conn| chat_sessions::table.find(id).first::<ChatSession>(conn).await.optional())
            .map_err(Into::into)
    }

    /// Appends a message: numbers it in its session, stores it, and bumps the session's count
    /// and preview — all or nothing. Returns once it is committed. Messages arriving together
    /// are committed together by the message writer (`writer`); each is still its own unit
    /// (one that cannot be saved fails alone).
    pub async fn append_message(&self, session_id: &str, new: NewMessage) -> StoreResult<ChatMessage> {
        self.queue_message(session_id, new)?.await.map(std::sync::Arc::unwrap_or_clone)
    }

    /// SQLite: writes to the message journal since the store opened (the messages handed
    /// over together share one); `None` on PostgreSQL. For diagnostics and tests.
    pub fn journal_appends(&self) -> Option<u64> {
        self.writer.journal_appends()
    }

    /// Queues a message for the writer and returns at once: `Err(Busy)` when the writer's queue
    /// is full (nothing queued), otherwise a future of the saved message. The session actor uses
    /// it to keep handling its mailbox while its messages are committed, in order. The saved
    /// row is shared with the writer (on SQLite it is still waiting to be applied), not copied.
    pub fn queue_message(&self, session_id: &str, new: NewMessage) -> StoreResult<impl std::future::Future<Output = StoreResult<std::sync::Arc<ChatMessage>>>> {
        self.writer.submit(session_id, new)
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
        db_tx!(self, owned(id, content), |conn| async move {
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

    /// A page of the sessions of some bots (one bot's, or a member's whole inbox; the whole list
    /// has pinned ones first), newest activity first, and the total count. `title_search` keeps the sessions whose title contains it (any case); `flags`
    /// keeps those pinned or starred (or not) as asked.
    #[allow(clippy::too_many_arguments)]
    pub async fn sessions_of_bots(
        &self,
        bot_ids: &[String],
        filter: SessionFilter,
        agent_id: Option<&str>,
        title_search: Option<&str>,
        flags: FlagFilter,
        offset: i64,
        limit: i64,
    ) -> StoreResult<(Vec<ChatSession>, i64)> {
        if bot_ids.is_empty() {
            return Ok((Vec::new(), 0));
        }
        self.counters_current().await;
        let agent = agent_id.unwrap_or_default().to_string();
        let pattern = title_search.map(str::trim).filter(|t| !t.is_empty()).map(contains_pattern);
        // The boxed query is built inside each backend's arm: a boxed query is tied to one backend.
        db_run!(self, |conn| {
            let query = || {
                let mut q = chat_sessions::table.filter(chat_sessions::bot_id.eq_any(bot_ids.to_vec())).into_boxed();
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
                    q = q.filter(fold_text(chat_sessions::title).like(pattern.clone()).escape('\\'));
                }
                if let Some(pinned) = flags.pinned {
                    q = q.filter(chat_sessions::is_pinned.eq(pinned));
                }
                if let Some(starred) = flags.starred {
                    q = q.filter(chat_sessions::is_starred.eq(starred));
                }
                q
            };
            let total: i64 = query().count().get_result(conn).await?;
            // Pins order the whole list only: the queues keep their order of arrival.
            let ordered = if filter == SessionFilter::All {
                query().order((chat_sessions::is_pinned.desc(), chat_sessions::updated_at.desc(), chat_sessions::id))
            } else {
                query().order((chat_sessions::updated_at.desc(), chat_sessions::id))
            };
            let page: Vec<ChatSession> = ordered
                .offset(offset)
                .limit(limit)
                .load(conn)
                .await?;
            Ok::<_, StoreError>((page, total))
        })
    }

    /// Marks the session as waiting for a human, with the contact details given.
    pub async fn request_support(&self, session_id: &str, info: &CustomerInfo) -> StoreResult<ChatSession> {
        self.counters_current().await;
        let now = time::now();
        self.request_contact(session_id, info).await?;
        db_tx!(self, owned(session_id), |conn| async move {
            // An agent who took the session a moment ago keeps it.
            let n = diesel::update(chat_sessions::table.find(session_id).filter(chat_sessions::assigned_agent_id.is_null()))
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
                let exists = chat_sessions::table.find(session_id).select(chat_sessions::id).first::<String>(conn).await.optional()?.is_some();
                return Err(if exists { StoreError::Conflict(AGENT_HELPING.into()) } else { StoreError::NotFound });
            }
            Ok(chat_sessions::table.find(session_id).first::<ChatSession>(conn).await?)
        })
    }

    /// Records the visitor's contact details on the session; only the fields given are changed,
    /// so an empty form keeps what was given earlier.
    pub async fn request_contact(&self, session_id: &str, info: &CustomerInfo) -> StoreResult<()> {
        let keep = |v: &Option<String>| v.as_ref().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let (name, email, phone, company) = (keep(&info.name), keep(&info.email), keep(&info.phone), keep(&info.company));
        db_tx!(self, owned(session_id), |conn| async move {
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

    /// Open conversations held by someone who may no longer take the bot's sessions (removed
    /// from the team, or given a role that may not) go back to the queue. A team change requeues
    /// at once (`requeue_agent_sessions`); this start-up sweep catches one whose requeue did not
    /// happen (a crash between the two, or a failure that was logged). Returns how many.
    pub async fn requeue_orphaned_sessions(&self) -> StoreResult<usize> {
        self.counters_current().await;
        let now = time::now();
        let placeholder = match self.backend() {
            crate::Backend::Sqlite => "?1",
            crate::Backend::Postgres => "$1",
        };
        let sql = format!(
            "UPDATE chat_sessions SET needs_human_support = TRUE, status = 'pending', \
             assigned_agent_id = NULL, assigned_agent_name = NULL, updated_at = {placeholder} \
             WHERE status <> 'resolved' AND assigned_agent_id IS NOT NULL \
             AND assigned_agent_id NOT IN (SELECT owner_id FROM bots WHERE bots.id = chat_sessions.bot_id) \
             AND assigned_agent_id NOT IN (SELECT user_id FROM team_members WHERE team_members.bot_id = chat_sessions.bot_id \
               AND team_members.status = 'active' AND team_members.user_id IS NOT NULL AND team_members.role IN ('admin', 'agent'))"
        );
        let n = db_run!(self, |conn| diesel::sql_query(sql.as_str())
        .bind::<diesel::sql_types::Timestamp, _>(now)
        .execute(conn)
        .await)?;
        Ok(n)
    }

    /// The bot's open sessions assigned to `agent_id` go back to the support queue, waiting for
    /// another agent (that agent left the team or may no longer take sessions). Returns them as
    /// they are now; the time of the request is kept, so the queue shows how long they waited.
    pub async fn requeue_agent_sessions(&self, bot_id: &str, agent_id: &str) -> StoreResult<Vec<ChatSession>> {
        self.counters_current().await;
        let now = time::now();
        db_tx!(self, owned(bot_id, agent_id), |conn| async move {
            let ids: Vec<String> = chat_sessions::table
                .filter(chat_sessions::bot_id.eq(bot_id))
                .filter(chat_sessions::assigned_agent_id.eq(agent_id))
                .filter(chat_sessions::status.ne("resolved"))
                .select(chat_sessions::id)
                .load(conn)
                .await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            diesel::update(chat_sessions::table.filter(chat_sessions::id.eq_any(&ids)))
                .set((
                    chat_sessions::needs_human_support.eq(true),
                    chat_sessions::status.eq("pending"),
                    chat_sessions::assigned_agent_id.eq(None::<String>),
                    chat_sessions::assigned_agent_name.eq(None::<String>),
                    chat_sessions::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(chat_sessions::table.filter(chat_sessions::id.eq_any(&ids)).load::<ChatSession>(conn).await?)
        })
    }

    /// Resolves the session: the human part is over, the visitor is back with the bot. The
    /// agent's `notes` are private to the team (`resolution_notes`), never the visitor's
    /// `feedback`.
    pub async fn resolve_session(
        &self,
        session_id: &str,
        resolved_by: &str,
        rating: Option<i32>,
        notes: Option<&str>,
    ) -> StoreResult<ChatSession> {
        self.counters_current().await;
        let now = time::now();
        let notes = notes.map(str::to_string);
        db_tx!(self, owned(session_id, resolved_by), |conn| async move {
            let n = diesel::update(chat_sessions::table.find(session_id))
                .set((
                    chat_sessions::status.eq("resolved"),
                    chat_sessions::needs_human_support.eq(false),
                    chat_sessions::assigned_agent_id.eq(None::<String>),
                    chat_sessions::assigned_agent_name.eq(None::<String>),
                    chat_sessions::resolved_at.eq(now),
                    chat_sessions::resolved_by.eq(resolved_by),
                    chat_sessions::rating.eq(rating),
                    chat_sessions::resolution_notes.eq(notes),
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
        self.counters_current().await;
        let now = time::now();
        let (status, priority) = (status.map(str::to_string), priority.map(str::to_string));
        db_tx!(self, owned(session_id), |conn| async move {
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

    /// Sets the team's pin and star marks and its tags; a mark not given keeps its value. The session's
    /// activity time is left alone: marking a conversation is not activity in it.
    pub async fn set_session_flags(&self, session_id: &str, flags: FlagFilter, tags: Option<&[String]>) -> StoreResult<ChatSession> {
        self.counters_current().await;
        let tags = tags.map(serde_json::to_string).transpose()?;
        db_tx!(self, owned(session_id), |conn| async move {
            let target = || chat_sessions::table.find(session_id);
            if let Some(tags) = tags {
                diesel::update(target()).set(chat_sessions::tags.eq(tags)).execute(conn).await?;
            }
            if let Some(pinned) = flags.pinned {
                diesel::update(target()).set(chat_sessions::is_pinned.eq(pinned)).execute(conn).await?;
            }
            if let Some(starred) = flags.starred {
                diesel::update(target()).set(chat_sessions::is_starred.eq(starred)).execute(conn).await?;
            }
            target().first::<ChatSession>(conn).await.optional()?.ok_or(StoreError::NotFound)
        })
    }

    pub async fn delete_session(&self, session_id: &str) -> StoreResult<()> {
        let n = db_run!(self, |conn| diesel::delete(chat_sessions::table.find(session_id)).execute(conn).await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.writer.forget(crate::writer::Forget::Session(session_id.to_string())).await;
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
