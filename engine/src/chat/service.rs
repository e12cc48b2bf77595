//! `Engine`: what the transports (REST and Socket.IO) call. It checks who is asking and what
//! their role on the bot allows, enforces the bot's limits, and hands typed messages to the
//! actors. It knows connections only as an id, an identity and a `Sink`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::prelude::*;
use parley_store::billing::Limit;
use parley_store::chat::{CustomerInfo, FlagFilter, NewMessage, Role as MessageRole, SessionFilter};
use parley_store::models::{Bot, ChatMessage, ChatSession};
use parley_store::{Role, Store};
use tokio::sync::oneshot;

use super::bot;
use super::brain::Brain;
use super::directory::{BotInfo, Directory};
use super::events::{Outgoing, ServerEvent, SessionList, Sink};
use super::messages::{
    AgentOffline, AgentOnline, AgentRole, AgentSays, AgentStatus, Join, Leave, ListAgents, Member, OnlineAgent, Reload, Requeued, RequestSupport, Resolve, Take,
    TakeOutcome, Tell, TellTeam, ToAgents, ToUser, Typing, VisitorSays,
};
use super::registry::Registry;
use super::session::SessionActor;
use super::types::{ConnId, Connection, EngineError, EngineSettings, SupportAsked, TurnOutcome, VisitorMessage, Who, AGENT_TEXT_CHARS, BUSY};

/// An agent's `update-agent-status`. Online and busy agents are there for visitors (busy: at work
/// on other conversations, a new one waits its turn); away and offline ones are not, so the
/// widget does not tell visitors someone is there, the unanswered-request mail goes out, and
/// no session is transferred to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentPresence {
    Online,
    Busy,
    Away,
    Offline,
}

impl AgentPresence {
    pub fn parse(raw: &str) -> Option<AgentPresence> {
        Some(match raw {
            "online" => AgentPresence::Online,
            "busy" => AgentPresence::Busy,
            "away" => AgentPresence::Away,
            "offline" => AgentPresence::Offline,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AgentPresence::Online => "online",
            AgentPresence::Busy => "busy",
            AgentPresence::Away => "away",
            AgentPresence::Offline => "offline",
        }
    }

    pub fn available(self) -> bool {
        matches!(self, AgentPresence::Online | AgentPresence::Busy)
    }
}

/// What a live connection has joined, so that leaving and disconnecting undo exactly that.
#[derive(Default)]
struct ConnState {
    user_id: Option<String>,
    /// The member's sign-in (see `Connection::sign_in`).
    sign_in: Option<String>,
    /// Sessions followed, with their bot.
    session_bots: HashMap<String, Arc<str>>,
    /// Bots joined as an agent, each with whether the member's role lets them take sessions.
    bots: HashMap<String, bool>,
    /// The agent's own status (`update-agent-status`), for every bot joined; `None` until set,
    /// which is online.
    status: Option<AgentPresence>,
    /// Where the connection's events go, to end it when its user's sessions are revoked.
    sink: Option<Arc<dyn Sink>>,
}

#[derive(Clone)]
pub struct Engine {
    store: Store,
    registry: Registry,
    directory: Directory,
    conns: Arc<Mutex<HashMap<ConnId, ConnState>>>,
    /// Counts removals and role changes. A member's join reads it before checking their role
    /// and again once recorded: if it moved, a removal's or demotion's sweep of the connections
    /// may have run between the two, so the join checks the role again (see `join_as_agent`).
    access_epoch: Arc<AtomicU64>,
    /// When each bot's "last active" was last written: once a minute is enough for a
    /// dashboard, and a write per message would compete with saving the messages.
    touched: Arc<Mutex<HashMap<String, std::time::Instant>>>,
    _arbiters: Arc<Vec<Arbiter>>,
}

/// Longest reason given with a transfer.
const TRANSFER_REASON_CHARS: usize = 500;

/// What a visitor is told when the owner's plan has no conversation left this month: polite,
/// naming the limit, nothing about plans (the owner's screens point to /billing).
pub const CONVERSATIONS_USED_UP: &str =
    "This assistant has reached its monthly conversation limit and is unavailable right now. Please try again later or contact the business directly.";

/// How stale a bot's "last active" may be.
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// The longest title a session takes from its first message.
const TITLE_CHARS: usize = 50;

fn title_from(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or_default().trim();
    let mut title: String = first_line.chars().take(TITLE_CHARS).collect();
    if first_line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

async fn answer<T>(rx: oneshot::Receiver<Result<T, EngineError>>) -> Result<T, EngineError> {
    rx.await.unwrap_or(Err(EngineError::Gone))
}

impl Engine {
    /// Must be called inside an actix system (the server's, or a test's).
    pub fn new(store: Store, brain: Arc<dyn Brain>, settings: EngineSettings) -> Engine {
        // With no dedicated arbiters, actors start on the caller's; one spare serves callers
        // that are not on an arbiter (a blocking task, a test's plain runtime).
        let arbiters: Vec<Arbiter> = (0..settings.arbiters.max(1)).map(|_| Arbiter::new()).collect();
        let handles: Vec<ArbiterHandle> = arbiters.iter().map(Arbiter::handle).collect();
        let (dedicated, spare) = if settings.arbiters == 0 { (Vec::new(), handles.first().cloned()) } else { (handles, None) };
        Engine {
            registry: Registry::new(store.clone(), brain, dedicated, spare, settings.reply_timeout, settings.session_mailbox.max(1)),
            directory: Directory::new(store.clone()),
            store,
            conns: Arc::new(Mutex::new(HashMap::new())),
            access_epoch: Arc::default(),
            touched: Arc::default(),
            _arbiters: Arc::new(arbiters),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, ConnState>> {
        self.conns.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn touch_bot(&self, bot_id: &str) -> Result<(), EngineError> {
        let due = {
            let mut touched = self.touched.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = std::time::Instant::now();
            match touched.get(bot_id) {
                Some(at) if now.duration_since(*at) < TOUCH_EVERY => false,
                _ => {
                    touched.insert(bot_id.to_string(), now);
                    true
                }
            }
        };
        if due {
            self.store.touch_bot(bot_id).await?;
        }
        Ok(())
    }

    /// The member's role on the bot, or NotFound when they have none (existence does not leak).
    pub async fn role_on(&self, user_id: &str, bot_id: &str) -> Result<(Bot, Role), EngineError> {
        self.store.bot_for_user(bot_id, user_id).await?.ok_or(EngineError::NotFound("Bot"))
    }

    /// The member's role on the bot from the live cache, or NotFound when they have none.
    async fn member_role(&self, user_id: &str, bot_id: &str) -> Result<Role, EngineError> {
        self.directory.role(user_id, bot_id).await?.ok_or(EngineError::NotFound("Bot"))
    }

    /// A bot's live settings (cached; see `directory`).
    pub async fn bot_info(&self, bot_id: &str) -> Result<Arc<BotInfo>, EngineError> {
        self.directory.bot(bot_id).await?.ok_or(EngineError::NotFound("Bot"))
    }

    /// The bot, its settings or its widget changed: the live path reloads them.
    pub fn bot_changed(&self, bot_id: &str) {
        self.directory.forget_bot(bot_id);
    }

    /// A member was added to a bot, or an invitation changed: the live path reloads roles.
    pub fn access_changed(&self) {
        self.directory.forget_roles();
    }

    /// A member's role on a bot changed: the live path reloads roles, and their connections
    /// joined as agents of the bot take sessions (count as online, are transfer targets) only
    /// if the new role lets them.
    pub fn role_changed(&self, bot_id: &str, user_id: &str, role: Role) {
        self.directory.forget_roles();
        self.access_epoch.fetch_add(1, Ordering::SeqCst);
        let can_take = role.can_handle_support();
        let mut joined = false;
        for state in self.conns().values_mut().filter(|state| state.user_id.as_deref() == Some(user_id)) {
            if let Some(flag) = state.bots.get_mut(bot_id) {
                *flag = can_take;
                joined = true;
            }
        }
        if joined {
            if let Some(bot) = self.registry.running_bot(bot_id) {
                bot.do_send(AgentRole { user_id: user_id.to_string(), can_take });
            }
        }
    }

    /// A member lost their place on a bot: their role is forgotten at once, and their live
    /// connections stop being online agents of the bot and leave its sessions.
    pub fn member_removed(&self, bot_id: &str, user_id: &str) {
        self.directory.forget_roles();
        self.access_epoch.fetch_add(1, Ordering::SeqCst);
        let leaving: Vec<(ConnId, Vec<String>)> = {
            let mut conns = self.conns();
            conns
                .iter_mut()
                .filter(|(_, state)| state.user_id.as_deref() == Some(user_id))
                .map(|(id, state)| {
                    state.bots.remove(bot_id);
                    let sessions: Vec<String> = state.session_bots.iter().filter(|(_, b)| b.as_ref() == bot_id).map(|(s, _)| s.clone()).collect();
                    for s in &sessions {
                        state.session_bots.remove(s);
                    }
                    (*id, sessions)
                })
                .collect()
        };
        for (conn_id, sessions) in leaving {
            if let Some(bot) = self.registry.running_bot(bot_id) {
                bot.do_send(AgentOffline(conn_id));
            }
            for session in sessions {
                if let Some(addr) = self.registry.running_session(&session) {
                    addr.do_send(Leave(conn_id));
                }
            }
        }
    }

    /// Connections of members who may take the bot's sessions, have joined it as agents and are
    /// available (see [`AgentPresence`]) right now. A viewer or editor watching the queue does
    /// not count, nor does an agent who set themselves away or offline: the widget would tell
    /// visitors someone is there, and the unanswered-request mail would not go out.
    pub fn agents_online(&self, bot_id: &str) -> usize {
        self.conns()
            .values()
            .filter(|state| state.user_id.is_some() && state.bots.get(bot_id) == Some(&true))
            .filter(|state| state.status.is_none_or(AgentPresence::available))
            .count()
    }

    /// The session's actor and bot, if this connection may act in it: a visitor only in their
    /// own session, a member in any session of a bot they have a role on. No database read
    /// once the session is live and the role known.
    async fn session_for(&self, who: &Who, session_id: &str) -> Result<(Addr<SessionActor>, Arc<str>, Option<Role>), EngineError> {
        match who {
            Who::Visitor { session_id: own, .. } if own == session_id => {
                let (addr, bot_id) = self.registry.session(session_id).await?;
                Ok((addr, bot_id, None))
            }
            Who::Visitor { .. } => Err(EngineError::NotFound("Session")),
            Who::Member { user_id, .. } => {
                let (addr, bot_id) = self.registry.session(session_id).await?;
                let role = self.member_role(user_id, &bot_id).await.map_err(|_| EngineError::NotFound("Session"))?;
                Ok((addr, bot_id, Some(role)))
            }
        }
    }

    fn support_role(role: Option<Role>) -> Result<(), EngineError> {
        match role {
            Some(r) if r.can_handle_support() => Ok(()),
            _ => Err(EngineError::Forbidden("Your role does not allow handling support sessions".into())),
        }
    }

    /// Hands a message to a session actor without waiting for room: a full mailbox is refused
    /// with `Busy`, and a retired actor is replaced once. `known`: the actor the caller has just
    /// looked up (its check of who may ask needed it), tried first, so a message costs one
    /// registry lookup, not two.
    async fn tell_session<M, T>(&self, session_id: &str, known: Option<Addr<SessionActor>>, make: impl Fn() -> (M, oneshot::Receiver<Result<T, EngineError>>)) -> Result<T, EngineError>
    where
        M: Message<Result = ()> + Send + 'static,
        SessionActor: Handler<M>,
    {
        let mut known = known;
        for _ in 0..2 {
            let addr = match known.take() {
                Some(addr) => addr,
                None => self.registry.session(session_id).await?.0,
            };
            let (msg, rx) = make();
            match addr.try_send(msg) {
                Ok(()) => return answer(rx).await,
                Err(SendError::Full(_)) => return Err(EngineError::Busy(BUSY.into())),
                // The actor retired between lookup and send; the next lookup starts a new one.
                Err(SendError::Closed(_)) => self.registry.retire_if_dead(session_id),
            }
        }
        Err(EngineError::Gone)
    }

    /// A visitor's message: checks the bot and its limits, starts a session if needed, and
    /// waits for the turn (the bot's reply, or at once if an agent has the conversation).
    pub async fn visitor_message(&self, msg: VisitorMessage) -> Result<TurnOutcome, EngineError> {
        let bot = self.bot_info(&msg.bot_id).await?;
        let text = Self::check_visitor_message(&bot, &msg.text, msg.lead.as_ref())?.to_string();
        // Kept apart from the members' ids of the same conversation.
        let client_id = msg.client_id.as_deref().map(|id| Self::checked_client_id(id).map(|id| format!("visitor {id}"))).transpose()?;
        let (session_id, known) = match &msg.session_id {
            Some(id) => {
                let (addr, bot_id) = self.registry.session(id).await?;
                if *bot_id != *bot.id {
                    return Err(EngineError::NotFound("Session"));
                }
                (id.clone(), Some(addr))
            }
            None => {
                // Claimed before the session exists: concurrent new conversations each take
                // one of the plan's, and none goes past it.
                if !self.store.claim_conversation(&bot.owner_id).await? {
                    return Err(EngineError::PlanLimit(Limit::Conversations, CONVERSATIONS_USED_UP.into()));
                }
                let session = self.store.create_session(&bot.id, &title_from(&text)).await?;
                // The agents online see a new conversation at once (later turns with the bot
                // send them nothing, so a busy bot does not flood its agents).
                let id = session.id.clone();
                if let Some(agents) = self.registry.running_bot(&bot.id) {
                    agents.do_send(ToAgents(ServerEvent::SessionUpdated { session_id: id.clone(), session: Arc::new(session) }));
                }
                (id, None)
            }
        };
        if let Some(lead) = msg.lead.as_ref().filter(|l| parley_store::leads::has_contact(l)) {
            self.store.request_contact(&session_id, lead).await?;
            let lead = crate::leads::capture(&self.store, &bot.id, &session_id, lead).await?;
            self.lead_captured(lead).await;
        }
        self.touch_bot(&bot.id).await?;
        let ack_on_save = msg.ack_on_save;
        let started_here = msg.session_id.is_none() && !msg.lead.as_ref().is_some_and(parley_store::leads::has_contact);
        let outcome = self
            .tell_session(&session_id, known, || {
                let (tx, rx) = oneshot::channel();
                (VisitorSays { text: text.clone(), client_id: client_id.clone(), ack_on_save, reply: tx }, rx)
            })
            .await;
        // A first message that was not answered (refused as busy, or its message or reply not
        // saved on a store error) started no conversation: the client sends it again, which must
        // not leave this one behind, empty or unanswered, beside the one its repeat starts.
        if started_here && outcome.is_err() {
            self.undo_new_session(&bot, &session_id).await;
        }
        outcome
    }

    /// What a visitor's message must be for `bot` to take it (the bot answering, words within
    /// its limit, contact details well formed); returns the words as they are saved. Callers
    /// that spend a budget on a new conversation check it first, so a refusal spends nothing.
    pub fn check_visitor_message<'t>(bot: &BotInfo, text: &'t str, lead: Option<&CustomerInfo>) -> Result<&'t str, EngineError> {
        if !bot.active {
            return Err(EngineError::Refused("This assistant is offline right now".into()));
        }
        let text = text.trim();
        if text.is_empty() {
            return Err(EngineError::Invalid("Message cannot be empty".into()));
        }
        let limit = bot.max_text;
        let length = text.chars().count();
        if length > limit {
            return Err(EngineError::Invalid(format!("Message is too long ({length} characters; the limit is {limit})")));
        }
        if let Some(lead) = lead {
            crate::leads::check_details(lead).map_err(EngineError::Invalid)?;
        }
        Ok(text)
    }

    /// A client's id for its message, if it is not too long (it is the client's to choose).
    fn checked_client_id(id: &str) -> Result<&str, EngineError> {
        if id.chars().count() > super::resends::CLIENT_ID_CHARS {
            return Err(EngineError::Invalid(format!("clientId is too long (the limit is {} characters)", super::resends::CLIENT_ID_CHARS)));
        }
        Ok(id)
    }

    /// A conversation whose first message was not answered never started: the client retries
    /// (without the session's id, which it never got), so the session would stay behind and its
    /// claim would spend one of the plan's conversations per retry. (One with the visitor's
    /// details keeps its lead.)
    async fn undo_new_session(&self, bot: &BotInfo, session_id: &str) {
        if let Err(e) = self.store.delete_session(session_id).await {
            tracing::warn!(session = %session_id, "an unanswered first message's session was not removed: {e}");
            return;
        }
        if let Err(e) = self.store.release_conversation(&bot.owner_id).await {
            tracing::warn!(session = %session_id, "an unanswered first message's conversation was not given back: {e}");
        }
        let event = ServerEvent::SessionDeleted { session_id: session_id.to_string() };
        if let Some(addr) = self.registry.running_session(session_id) {
            addr.do_send(TellTeam(event));
        } else if let Some(agents) = self.registry.running_bot(&bot.id) {
            agents.do_send(ToAgents(event));
        }
    }

    /// Registers a live connection; call `disconnect` when it goes.
    pub fn connect(&self, conn: &Connection) {
        let user_id = match &conn.who {
            Who::Member { user_id, .. } => Some(user_id.clone()),
            Who::Visitor { .. } => None,
        };
        let mut conns = self.conns();
        let state = conns.entry(conn.id).or_default();
        state.user_id = user_id;
        state.sign_in = conn.sign_in.clone();
        state.sink = Some(conn.sink.clone());
    }

    /// One sign-in of the user ended ('Sign out'): the live connections opened with it end now.
    pub fn sign_in_ended(&self, user_id: &str, sign_in: &str) {
        self.close_where(|state| state.user_id.as_deref() == Some(user_id) && state.sign_in.as_deref() == Some(sign_in));
    }

    /// The user's sessions were revoked (a password change or reset): their live connections
    /// end now; reconnecting needs a token issued since.
    pub fn user_signed_out(&self, user_id: &str) {
        self.close_where(|state| state.user_id.as_deref() == Some(user_id));
    }

    fn close_where(&self, ends: impl Fn(&ConnState) -> bool) {
        let sinks: Vec<Arc<dyn Sink>> = self.conns().values().filter(|state| ends(state)).filter_map(|state| state.sink.clone()).collect();
        for sink in sinks {
            sink.close();
        }
    }

    pub fn disconnect(&self, conn_id: ConnId) {
        let Some(state) = self.conns().remove(&conn_id) else { return };
        for session in state.session_bots.keys() {
            if let Some(addr) = self.registry.running_session(session) {
                addr.do_send(Leave(conn_id));
            }
        }
        for bot in state.bots.keys() {
            if let Some(addr) = self.registry.running_bot(bot) {
                addr.do_send(AgentOffline(conn_id));
            }
        }
    }

    /// Runs `join` on the connection's state if the connection is still registered, under the
    /// same lock `disconnect` takes: a join that finishes after its connection went changes
    /// nothing (and what it sends is ordered before the disconnect's leave).
    fn if_connected(&self, conn_id: ConnId, join: impl FnOnce(&mut ConnState)) -> Result<(), EngineError> {
        let mut conns = self.conns();
        let state = conns.get_mut(&conn_id).ok_or(EngineError::Gone)?;
        join(state);
        Ok(())
    }

    /// `join-session`: follow a session live.
    pub async fn join_session(&self, conn: &Connection, session_id: &str) -> Result<(), EngineError> {
        let seen = self.access_epoch.load(Ordering::SeqCst);
        let user_id = match &conn.who {
            Who::Visitor { .. } => None,
            Who::Member { user_id, .. } => Some(user_id.clone()),
        };
        let mut joined = None;
        for _ in 0..2 {
            let (addr, bot_id, _) = self.session_for(&conn.who, session_id).await?;
            let (tx, rx) = oneshot::channel();
            let mut sent = true;
            self.if_connected(conn.id, |state| {
                let join = Join { conn: conn.id, member: Member { sink: conn.sink.clone(), user_id: user_id.clone() }, joined: tx };
                match addr.try_send(join) {
                    Ok(()) => {}
                    // Joins are rare and must not be lost: a full mailbox takes them anyway.
                    Err(SendError::Full(join)) => addr.do_send(join),
                    Err(SendError::Closed(_)) => sent = false,
                }
                if sent {
                    state.session_bots.insert(session_id.to_string(), bot_id.clone());
                }
            })?;
            // Unanswered: the actor retired between the lookup and the join (an idle session
            // stops on its own) and the join was never read; the next lookup starts a new one.
            if sent && rx.await.is_ok() {
                joined = Some((addr, bot_id));
                break;
            }
            self.registry.retire_if_dead(session_id);
        }
        let Some((addr, bot_id)) = joined else {
            return Err(EngineError::Busy(BUSY.into()));
        };
        // Removed from the team while this join was on its way: the removal's sweep may have
        // missed it, so it is undone here.
        if let Some(user_id) = user_id.filter(|_| self.access_epoch.load(Ordering::SeqCst) != seen) {
            if self.member_role(&user_id, &bot_id).await.is_err() {
                if let Some(state) = self.conns().get_mut(&conn.id) {
                    state.session_bots.remove(session_id);
                }
                addr.do_send(Leave(conn.id));
                return Err(EngineError::NotFound("Session"));
            }
        }
        Ok(())
    }

    /// `join-as-agent`: be told of the bot's support requests and session changes. Any member
    /// may watch; taking and answering need a support role. Returns the current queue.
    pub async fn join_as_agent(&self, conn: &Connection, bot_id: &str) -> Result<SessionList, EngineError> {
        let Who::Member { user_id, name } = &conn.who else {
            return Err(EngineError::Forbidden("Sign in as a team member to join as an agent".into()));
        };
        // Recorded with the role it was checked against. A removal or role change that lands
        // meanwhile moves the epoch, and its sweep of the connections may have run before this
        // join was recorded: the role is then checked and recorded again, so the join never
        // leaves a removed member online or a demoted one able to take.
        for _ in 0..3 {
            let seen = self.access_epoch.load(Ordering::SeqCst);
            let role = match self.member_role(user_id, bot_id).await {
                Ok(role) => role,
                // No longer on the team: undo what an earlier pass of this loop recorded.
                Err(e @ EngineError::NotFound(_)) => {
                    self.forget_agent(conn.id, bot_id);
                    return Err(e);
                }
                Err(e) => return Err(e),
            };
            // Only once the role is known: a stranger's made-up bot ids start no actors.
            let bot = self.registry.bot(bot_id);
            let can_take = role.can_handle_support();
            self.if_connected(conn.id, |state| {
                // A status set before this join holds here too.
                let status = state.status.unwrap_or(AgentPresence::Online).as_str().to_string();
                let agent = OnlineAgent { user_id: user_id.clone(), name: name.clone(), status, can_take, sink: conn.sink.clone() };
                bot.do_send(AgentOnline { conn: conn.id, agent });
                state.bots.insert(bot_id.to_string(), can_take);
            })?;
            if self.access_epoch.load(Ordering::SeqCst) == seen {
                let queue = bot::support_queue(&self.store, bot_id).await?;
                conn.sink.push(&Outgoing::new(ServerEvent::ActiveSupportSessions { sessions: queue.clone() }));
                return Ok(queue);
            }
        }
        Err(EngineError::Busy(BUSY.into()))
    }

    /// The connection is no longer an online agent of the bot (its sessions are left alone).
    fn forget_agent(&self, conn_id: ConnId, bot_id: &str) {
        let was_agent = self.conns().get_mut(&conn_id).is_some_and(|state| state.bots.remove(bot_id).is_some());
        if was_agent {
            if let Some(bot) = self.registry.running_bot(bot_id) {
                bot.do_send(AgentOffline(conn_id));
            }
        }
    }

    /// `leave-as-agent`: the connection stops working on the bot (the agent moved to another bot
    /// or closed the support screens): it is no longer an online agent there and stops following
    /// the bot's sessions it had joined. Only members of the bot may; leaving a bot they never
    /// joined is not an error.
    pub async fn leave_as_agent(&self, conn: &Connection, bot_id: &str) -> Result<(), EngineError> {
        let Who::Member { user_id, .. } = &conn.who else {
            return Err(EngineError::Forbidden("Sign in as a team member to leave as an agent".into()));
        };
        self.member_role(user_id, bot_id).await?;
        let (was_agent, left): (bool, Vec<String>) = {
            let mut conns = self.conns();
            let Some(state) = conns.get_mut(&conn.id) else { return Ok(()) };
            let was_agent = state.bots.remove(bot_id).is_some();
            let left: Vec<String> = state.session_bots.iter().filter(|(_, b)| b.as_ref() == bot_id).map(|(s, _)| s.clone()).collect();
            for s in &left {
                state.session_bots.remove(s);
            }
            (was_agent, left)
        };
        if was_agent {
            if let Some(bot) = self.registry.running_bot(bot_id) {
                bot.do_send(AgentOffline(conn.id));
            }
        }
        for session_id in left {
            if let Some(addr) = self.registry.running_session(&session_id) {
                addr.do_send(Leave(conn.id));
            }
        }
        Ok(())
    }

    /// A member may no longer handle the bot's sessions (removed from the team, or given a role
    /// that may not take them): the conversations they had go back to the support queue, so
    /// their visitors are not left talking to nobody. The visitor sees the wait again, and the
    /// bot's agents see the requests. Returns how many went back.
    pub async fn requeue_sessions_of(&self, bot_id: &str, user_id: &str) -> Result<usize, EngineError> {
        let sessions = self.store.requeue_agent_sessions(bot_id, user_id).await?;
        let count = sessions.len();
        let bot = self.registry.running_bot(bot_id);
        for session in sessions {
            let view = Arc::new(session);
            // Started if idle: the note is saved in the conversation either way.
            if let Ok((addr, _)) = self.registry.session(&view.id).await {
                addr.do_send(Requeued(view.clone()));
            }
            if let Some(bot) = &bot {
                bot.do_send(ToAgents(ServerEvent::SessionUpdated { session_id: view.id.clone(), session: view }));
            }
        }
        Ok(count)
    }

    /// `update-agent-status` on every bot this connection joined, and on those it joins later.
    pub fn set_agent_status(&self, conn: &Connection, status: &str) -> Result<(), EngineError> {
        if !matches!(conn.who, Who::Member { .. }) {
            return Err(EngineError::Forbidden("Sign in as a team member to set an agent status".into()));
        }
        let Some(presence) = AgentPresence::parse(status) else {
            return Err(EngineError::Invalid("Status must be online, away, busy or offline".into()));
        };
        let bots: Vec<String> = {
            let mut conns = self.conns();
            let Some(state) = conns.get_mut(&conn.id) else { return Err(EngineError::Gone) };
            state.status = Some(presence);
            state.bots.keys().cloned().collect()
        };
        for bot in bots {
            if let Some(addr) = self.registry.running_bot(&bot) {
                addr.do_send(AgentStatus { conn: conn.id, status: status.to_string() });
            }
        }
        Ok(())
    }

    /// `request-human-support`: by the visitor of the session (or a member with a support
    /// role on their behalf).
    pub async fn request_support(&self, who: &Who, session_id: &str, message: &str, info: CustomerInfo) -> Result<SupportAsked, EngineError> {
        let (addr, bot_id, role) = self.session_for(who, session_id).await?;
        if matches!(who, Who::Member { .. }) {
            Self::support_role(role)?;
        }
        let bot = self.bot_info(&bot_id).await?;
        if !bot.enable_handover {
            return Err(EngineError::Refused("Human support is not available for this assistant".into()));
        }
        let length = message.chars().count();
        if length > bot.max_text {
            return Err(EngineError::Invalid(format!("Message is too long ({length} characters; the limit is {})", bot.max_text)));
        }
        crate::leads::check_details(&info).map_err(EngineError::Invalid)?;
        if parley_store::leads::has_contact(&info) {
            self.store.request_contact(session_id, &info).await?;
            let lead = crate::leads::capture(&self.store, &bot.id, session_id, &info).await?;
            self.lead_captured(lead).await;
        }
        self.tell_session(session_id, Some(addr), || {
            let (tx, rx) = oneshot::channel();
            (RequestSupport { message: message.to_string(), info: info.clone(), handover_message: bot.handover_message.clone(), reply: tx }, rx)
        })
        .await
    }


    /// A visitor's details without a message (the chat's lead-capture form); a member needs a
    /// support role to leave them on the visitor's behalf.
    pub async fn leave_details(&self, who: &Who, session_id: &str, info: CustomerInfo) -> Result<(), EngineError> {
        let (_, bot_id, role) = self.session_for(who, session_id).await?;
        if matches!(who, Who::Member { .. }) {
            Self::support_role(role)?;
        }
        crate::leads::check_details(&info).map_err(EngineError::Invalid)?;
        if !parley_store::leads::has_contact(&info) {
            return Ok(());
        }
        self.store.request_contact(session_id, &info).await?;
        let lead = crate::leads::capture(&self.store, &bot_id, session_id, &info).await?;
        self.lead_captured(lead).await;
        Ok(())
    }

    /// `take-session`: exactly one of any number of racing agents wins.
    pub async fn take_session(&self, who: &Who, session_id: &str) -> Result<TakeOutcome, EngineError> {
        let Who::Member { user_id, name } = who else {
            return Err(EngineError::Forbidden("Sign in as a team member to take sessions".into()));
        };
        let (_, bot_id, role) = self.session_for(who, session_id).await?;
        Self::support_role(role)?;
        let (tx, rx) = oneshot::channel();
        self.registry.bot(&bot_id).do_send(Take {
            session_id: session_id.to_string(),
            agent_id: user_id.clone(),
            agent_name: name.clone(),
            reply: tx,
        });
        answer(rx).await
    }

    /// `send-message` from a member: saved, then shown to the session.
    /// An agent's message; `client_id` is the dashboard's id for it (a resend with the same id
    /// and words gets the message saved first, see `resends.rs`).
    pub async fn agent_message(&self, who: &Who, session_id: &str, text: &str, client_id: Option<&str>) -> Result<Arc<ChatMessage>, EngineError> {
        let Who::Member { user_id, name } = who else {
            return Err(EngineError::Forbidden("Visitors send messages through the chat".into()));
        };
        let (addr, _, role) = self.session_for(who, session_id).await?;
        Self::support_role(role)?;
        let text = text.trim();
        if text.is_empty() {
            return Err(EngineError::Invalid("Message cannot be empty".into()));
        }
        if text.chars().count() > AGENT_TEXT_CHARS {
            return Err(EngineError::Invalid(format!("Message is too long (the limit is {AGENT_TEXT_CHARS} characters)")));
        }
        let client_id = client_id.map(|id| Self::checked_client_id(id).map(|id| format!("member {user_id} {id}"))).transpose()?;
        let message = NewMessage {
            role: MessageRole::Agent,
            content: text.to_string(),
            sender_name: Some(name.clone()),
            agent_id: Some(user_id.clone()),
            is_error: false,
            sources: Vec::new(),
            suggestions: Vec::new(),
        };
        self.tell_session(session_id, Some(addr), || {
            let (tx, rx) = oneshot::channel();
            (AgentSays { message: message.clone(), client_id: client_id.clone(), reply: tx }, rx)
        })
        .await
    }

    /// Typing indicators, both ways. Dropped, not queued, when the session is busy: a late
    /// typing indicator is worth nothing.
    pub async fn typing(&self, who: &Who, session_id: &str, is_typing: bool) -> Result<(), EngineError> {
        let (addr, _, role) = self.session_for(who, session_id).await?;
        let from_visitor = matches!(who, Who::Visitor { .. });
        if !from_visitor {
            Self::support_role(role)?;
        }
        let _ = addr.try_send(Typing { from_visitor, is_typing });
        Ok(())
    }

    /// `resolve-session` (and the REST resolve): rating 1–5, and the agent's optional notes
    /// (the spec's resolve "feedback"), which stay private to the team.
    pub async fn resolve(&self, who: &Who, session_id: &str, rating: Option<i32>, notes: Option<String>) -> Result<Arc<ChatSession>, EngineError> {
        let Who::Member { name, .. } = who else {
            return Err(EngineError::Forbidden("Only agents resolve sessions".into()));
        };
        let (addr, _, role) = self.session_for(who, session_id).await?;
        Self::support_role(role)?;
        if let Some(r) = rating {
            if !(1..=5).contains(&r) {
                return Err(EngineError::Invalid("Rating must be between 1 and 5".into()));
            }
        }
        let notes = notes.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
        if notes.as_ref().is_some_and(|f| f.chars().count() > 2000) {
            return Err(EngineError::Invalid("Feedback must be at most 2000 characters".into()));
        }
        self.tell_session(session_id, Some(addr), || {
            let (tx, rx) = oneshot::channel();
            (Resolve { resolved_by: name.clone(), rating, notes: notes.clone(), reply: tx }, rx)
        })
        .await
    }

    /// `transfer-session`: the agent who has it hands it to another online agent of the bot.
    pub async fn transfer(&self, who: &Who, session_id: &str, target_agent_id: &str, reason: &str) -> Result<Arc<ChatSession>, EngineError> {
        let Who::Member { user_id, name } = who else {
            return Err(EngineError::Forbidden("Only agents transfer sessions".into()));
        };
        let (addr, bot_id, role) = self.session_for(who, session_id).await?;
        Self::support_role(role)?;
        if reason.chars().count() > TRANSFER_REASON_CHARS {
            return Err(EngineError::Invalid(format!("Reason must be at most {TRANSFER_REASON_CHARS} characters")));
        }
        let agents = match self.registry.running_bot(&bot_id) {
            Some(bot) => bot.send(ListAgents).await.map_err(|_| EngineError::Gone)?,
            None => Vec::new(),
        };
        let Some((_, target_name, status)) = agents.into_iter().find(|(id, _, _)| id == target_agent_id) else {
            return Err(EngineError::Refused("That agent is not online for this assistant".into()));
        };
        // Set away or offline: not there to take it.
        if !AgentPresence::parse(&status).is_some_and(AgentPresence::available) {
            return Err(EngineError::Refused(format!("That agent is {status} right now")));
        }
        // Checked again against the roles themselves: a demotion or removal a moment ago may
        // not have reached the bot's list of online agents yet.
        if !self.member_role(target_agent_id, &bot_id).await.is_ok_and(Role::can_handle_support) {
            return Err(EngineError::Refused("That agent is not online for this assistant".into()));
        }
        if !self.store.transfer_session(session_id, user_id, target_agent_id, &target_name).await? {
            return Err(EngineError::Refused("Only the agent handling a session can transfer it".into()));
        }
        let view = Arc::new(self.store.session(session_id).await?.ok_or(EngineError::NotFound("Session"))?);
        let bot = self.registry.bot(&bot_id);
        bot.do_send(ToAgents(ServerEvent::SessionTaken { session_id: session_id.to_string(), agent_id: target_agent_id.to_string(), agent_name: target_name.clone() }));
        // Only the new agent's screens take it as theirs.
        bot.do_send(ToUser { user_id: target_agent_id.to_string(), event: ServerEvent::SessionAssigned { session_id: session_id.to_string(), session: view.clone() } });
        let note = if reason.trim().is_empty() {
            format!("{name} transferred the conversation to {target_name}")
        } else {
            format!("{name} transferred the conversation to {target_name}: {}", reason.trim())
        };
        // Answered once the session is with the new agent (a gone session changes nothing).
        let _ = addr.send(super::messages::AgentAssigned { agent_id: target_agent_id.to_string(), agent_name: target_name, note, applied: None }).await;
        Ok(view)
    }

    /// Sessions of a bot for a member with a role on it.
    #[allow(clippy::too_many_arguments)]
    pub async fn sessions(&self, user_id: &str, bot_id: &str, filter: SessionFilter, title_search: Option<&str>, flags: FlagFilter, offset: i64, limit: i64) -> Result<(Vec<ChatSession>, i64), EngineError> {
        self.member_role(user_id, bot_id).await?;
        let agent = (filter == SessionFilter::AssignedTo).then_some(user_id);
        Ok(self.store.sessions_of_bots(&[bot_id.to_string()], filter, agent, title_search, flags, offset, limit).await?)
    }

    /// Sessions of every bot the user owns or is an active member of, in one list.
    #[allow(clippy::too_many_arguments)]
    pub async fn sessions_of_all_bots(&self, user_id: &str, filter: SessionFilter, title_search: Option<&str>, flags: FlagFilter, offset: i64, limit: i64) -> Result<(Vec<ChatSession>, i64), EngineError> {
        let bots = self.store.visible_bot_ids(user_id).await?;
        let agent = (filter == SessionFilter::AssignedTo).then_some(user_id);
        Ok(self.store.sessions_of_bots(&bots, filter, agent, title_search, flags, offset, limit).await?)
    }

    /// Pins, stars or tags a session (the team's own marks, shared by the team; tags replace
    /// the list there was). Whoever works on the
    /// bot's conversations may mark them: editors and the support roles; a viewer only reads.
    /// Saved, then the session's members and the bot's agents hear it, as for a status change.
    pub async fn set_flags(&self, user_id: &str, session_id: &str, flags: FlagFilter, tags: Option<Vec<String>>) -> Result<Arc<ChatSession>, EngineError> {
        let who = Who::Member { user_id: user_id.to_string(), name: String::new() };
        let (addr, _, role) = self.session_for(&who, session_id).await?;
        if !role.is_some_and(|r| r.can_edit_bot() || r.can_handle_support()) {
            return Err(EngineError::Forbidden("Your role does not allow marking or tagging conversations".into()));
        }
        if flags.pinned.is_none() && flags.starred.is_none() && tags.is_none() {
            return Err(EngineError::Invalid("Give pinned, starred or tags".into()));
        }
        let tags = tags.as_deref().map(clean_tags).transpose()?;
        let view = Arc::new(self.store.set_session_flags(session_id, flags, tags.as_deref()).await?);
        // The session tells its members and the bot's other agents.
        addr.do_send(Reload { session: view.clone(), status_changed: false });
        Ok(view)
    }

    /// Tags a session may be given (checked before anything is changed, also by a caller that
    /// resolves first).
    pub fn check_tags(tags: &[String]) -> Result<(), EngineError> {
        clean_tags(tags).map(|_| ())
    }

    /// A status and a priority a session may be given (checked before anything is changed,
    /// also by a caller that resolves first).
    pub fn check_status(status: Option<&str>, priority: Option<&str>) -> Result<(), EngineError> {
        if status.is_some_and(|s| !matches!(s, "active" | "pending" | "resolved")) {
            return Err(EngineError::Invalid("Status must be active, pending or resolved".into()));
        }
        if priority.is_some_and(|p| !matches!(p, "low" | "medium" | "high" | "urgent")) {
            return Err(EngineError::Invalid("Priority must be low, medium, high or urgent".into()));
        }
        Ok(())
    }

    /// Status or priority changed from the dashboard: saved, then the session's members and the
    /// bot's agents hear it.
    pub async fn set_status(&self, user_id: &str, session_id: &str, status: Option<&str>, priority: Option<&str>) -> Result<Arc<ChatSession>, EngineError> {
        let who = Who::Member { user_id: user_id.to_string(), name: String::new() };
        let (addr, _, role) = self.session_for(&who, session_id).await?;
        Self::support_role(role)?;
        Self::check_status(status, priority)?;
        let view = Arc::new(self.store.set_session_status(session_id, status, priority).await?);
        // The session tells its members and the bot's other agents.
        addr.do_send(Reload { session: view.clone(), status_changed: status.is_some() });
        Ok(view)
    }

    pub async fn delete_session(&self, user_id: &str, session_id: &str) -> Result<(), EngineError> {
        let who = Who::Member { user_id: user_id.to_string(), name: String::new() };
        let (addr, _, role) = self.session_for(&who, session_id).await?;
        Self::support_role(role)?;
        self.store.delete_session(session_id).await?;
        addr.do_send(TellTeam(ServerEvent::SessionDeleted { session_id: session_id.to_string() }));
        Ok(())
    }

    /// Inline edit of a bot message (editors and support roles); empty text is refused.
    pub async fn edit_message(&self, user_id: &str, session_id: &str, message_id: &str, content: &str) -> Result<Arc<ChatMessage>, EngineError> {
        let who = Who::Member { user_id: user_id.to_string(), name: String::new() };
        let (addr, _, role) = self.session_for(&who, session_id).await?;
        if !role.is_some_and(|r| r.can_edit_bot() || r.can_handle_support()) {
            return Err(EngineError::Forbidden("Your role does not allow editing messages".into()));
        }
        let content = content.trim();
        if content.is_empty() {
            return Err(EngineError::Invalid("Message cannot be empty".into()));
        }
        if content.chars().count() > AGENT_TEXT_CHARS {
            return Err(EngineError::Invalid(format!("Message is too long (the limit is {AGENT_TEXT_CHARS} characters)")));
        }
        let message = self.store.message(message_id).await?.filter(|m| m.session_id == session_id).ok_or(EngineError::NotFound("Message"))?;
        if message.role != "bot" {
            return Err(EngineError::Refused("Only bot messages can be edited".into()));
        }
        let view = Arc::new(self.store.edit_message(message_id, content).await?);
        addr.do_send(Tell(ServerEvent::MessageUpdated { session_id: session_id.to_string(), message: view.clone() }));
        Ok(view)
    }

    /// A session with its messages, for a member or the session's own visitor.
    pub async fn session_with_messages(&self, who: &Who, session_id: &str, limit: i64) -> Result<(ChatSession, Vec<ChatMessage>), EngineError> {
        self.session_for(who, session_id).await?;
        let session = self.store.session(session_id).await?.ok_or(EngineError::NotFound("Session"))?;
        let messages = self.store.messages(session_id, 0, limit).await?;
        Ok((session, messages))
    }

    /// Tells every member watching the bot (`join-as-agent`) something about it.
    /// Tells the bot's team members who are connected (on any screen) that a lead was saved,
    /// so an open Leads page shows it. Best effort: the lead is saved whatever happens here,
    /// and the page also refreshes on its own.
    async fn lead_captured(&self, lead: Option<parley_store::models::Lead>) {
        let Some(lead) = lead else { return };
        let team: HashSet<String> = match self.store.team_user_ids(&lead.bot_id).await {
            Ok(ids) => ids.into_iter().collect(),
            Err(e) => {
                tracing::warn!("lead-captured not sent: {e}");
                return;
            }
        };
        let sinks: Vec<Arc<dyn Sink>> = self
            .conns()
            .values()
            .filter(|c| c.user_id.as_ref().is_some_and(|u| team.contains(u)))
            .filter_map(|c| c.sink.clone())
            .collect();
        if sinks.is_empty() {
            return;
        }
        let event = Outgoing::new(ServerEvent::LeadCaptured { bot_id: lead.bot_id, lead_id: lead.id });
        for sink in sinks {
            sink.push(&event);
        }
    }

    pub fn tell_bot(&self, bot_id: &str, event: ServerEvent) {
        if let Some(bot) = self.registry.running_bot(bot_id) {
            bot.do_send(ToAgents(event));
        }
    }

    pub fn live_sessions(&self) -> usize {
        self.registry.live_sessions()
    }
}

/// Most tags a conversation keeps, and the longest tag.
pub const MAX_SESSION_TAGS: usize = 20;
pub const MAX_TAG_CHARS: usize = 40;

/// A conversation's tags, cleaned (see `crate::tags`), or the refusal in the API's words.
fn clean_tags(raw: &[String]) -> Result<Vec<String>, EngineError> {
    crate::tags::clean(raw, MAX_SESSION_TAGS, MAX_TAG_CHARS).map_err(|refused| match refused {
        crate::tags::TagsRefused::TooLong => EngineError::Invalid(format!("A tag is at most {MAX_TAG_CHARS} characters")),
        crate::tags::TagsRefused::TooMany => EngineError::Invalid(format!("At most {MAX_SESSION_TAGS} tags")),
    })
}
