//! `SessionActor`: one per live chat session. It owns the session's mode
//! (`Bot → WaitingForAgent → WithAgent → Resolved`, and back to the bot for the visitor), its
//! live members, and the queue of AI turns, so one session never runs two turns at once.
//! Every message is saved before it is shown to anyone. Saves are pipelined: a message is
//! handed to the store's writer at once (so the writer's order is the order of this mailbox)
//! and shown when its commit is confirmed, strictly in that order, while the actor goes on
//! handling its mailbox. Changes to the session row (reopen, support request, resolve) run in
//! `ctx.wait`, so nothing overtakes them. The AI call runs in `ctx.spawn`, so typing, joins and
//! agent messages are handled while it thinks.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use parley_store::chat::{NewMessage, Role};
use parley_store::models::{ChatMessage, ChatSession};
use parley_store::Store;
use tokio::sync::oneshot;

use super::brain::{Brain, ReplyRequest};
use super::events::{Outgoing, ServerEvent};
use super::messages::{AgentAssigned, AgentSays, Join, Leave, Member, Reload, Requeued, RequestSupport, Resolve, Tell, TellTeam, Typing, VisitorSays};
use super::peers::Peers;
use super::resends::{Resends, Seen};
use super::types::{ConnId, EngineError, SupportAsked, TurnOutcome, ALREADY_RESOLVED, BUSY};
use super::ERROR_REPLY;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Bot,
    WaitingForAgent,
    WithAgent { agent_id: String, agent_name: String },
    Resolved,
}

impl Mode {
    pub fn of(session: &ChatSession) -> Mode {
        if session.status == "resolved" {
            Mode::Resolved
        } else if let Some(agent_id) = &session.assigned_agent_id {
            Mode::WithAgent { agent_id: agent_id.clone(), agent_name: session.assigned_agent_name.clone().unwrap_or_default() }
        } else if session.needs_human_support {
            Mode::WaitingForAgent
        } else {
            Mode::Bot
        }
    }
}


struct PendingTurn {
    question: String,
    user_message: Arc<ChatMessage>,
    /// Who waits for the reply; `None` when the sender was answered once the message was saved.
    reply: Option<oneshot::Sender<Result<TurnOutcome, EngineError>>>,
}

/// What to do once a message is saved (or could not be).
type AfterSave = Box<dyn FnOnce(&mut SessionActor, &mut Context<SessionActor>, Result<Arc<ChatMessage>, EngineError>)>;

/// A message handed to the writer, waiting for its commit.
struct Saving {
    saved: Pin<Box<dyn Future<Output = parley_store::StoreResult<Arc<ChatMessage>>>>>,
    then: AfterSave,
}

fn answer_turn(reply: Option<oneshot::Sender<Result<TurnOutcome, EngineError>>>, outcome: Result<TurnOutcome, EngineError>) {
    if let Some(reply) = reply {
        let _ = reply.send(outcome);
    }
}

pub struct SessionActor {
    pub(crate) id: String,
    bot_id: String,
    instance: u64,
    store: Store,
    brain: Arc<dyn Brain>,
    peers: Arc<dyn Peers>,
    mode: Mode,
    members: HashMap<ConnId, Member>,
    turns: VecDeque<PendingTurn>,
    busy: bool,
    /// Messages being committed, oldest first, and whether a task is waiting on the oldest.
    saving: VecDeque<Saving>,
    draining: bool,
    last_activity: Instant,
    reply_timeout: Duration,
    history_limit: i64,
    /// The latest visitor messages' client ids, so that a resend is not saved twice.
    resends: Resends,
}

const IDLE_CHECK: Duration = Duration::from_secs(30);
const IDLE_AFTER: Duration = Duration::from_secs(300);

impl SessionActor {
    pub fn new(session: &ChatSession, instance: u64, store: Store, brain: Arc<dyn Brain>, peers: Arc<dyn Peers>, reply_timeout: Duration) -> Self {
        SessionActor {
            id: session.id.clone(),
            bot_id: session.bot_id.clone(),
            instance,
            store,
            brain,
            peers,
            mode: Mode::of(session),
            members: HashMap::new(),
            turns: VecDeque::new(),
            busy: false,
            saving: VecDeque::new(),
            draining: false,
            last_activity: Instant::now(),
            reply_timeout,
            history_limit: 100,
            resends: Resends::default(),
        }
    }

    /// Hands `message` to the writer now and runs `then` once it is committed, after the
    /// messages handed over before it.
    fn save(&mut self, ctx: &mut Context<Self>, message: NewMessage, then: impl FnOnce(&mut Self, &mut Context<Self>, Result<Arc<ChatMessage>, EngineError>) + 'static) {
        match self.store.queue_message(&self.id, message) {
            Err(refused) => then(self, ctx, Err(refused.into())),
            Ok(saved) => {
                self.saving.push_back(Saving { saved: Box::pin(saved), then: Box::new(then) });
                if !self.draining {
                    self.drain(ctx);
                }
            }
        }
    }

    fn drain(&mut self, ctx: &mut Context<Self>) {
        let Some(Saving { saved, then }) = self.saving.pop_front() else {
            self.draining = false;
            return;
        };
        self.draining = true;
        ctx.spawn(saved.into_actor(self).map(move |saved, act, ctx| {
            then(act, ctx, saved.map_err(EngineError::from));
            act.drain(ctx);
        }));
    }

    /// Whether a new message may be accepted: every member's connection has room for it.
    /// Refusing it as busy before it is saved (the sender retries) keeps a slow reader from
    /// being closed for overflowing, and keeps the promise that what was acked is delivered.
    fn admit(&self) -> Result<(), EngineError> {
        if self.members.values().all(|m| m.sink.has_room()) {
            Ok(())
        } else {
            Err(EngineError::Busy(BUSY.to_owned()))
        }
    }

    fn broadcast(&self, event: ServerEvent) {
        let out = Outgoing::new(event);
        for member in self.members.values() {
            member.sink.push(&out);
        }
    }

    fn to_visitors(&self, event: ServerEvent) {
        let out = Outgoing::new(event);
        for member in self.members.values().filter(|m| m.user_id.is_none()) {
            member.sink.push(&out);
        }
    }

    /// Tells the session's team members (not its visitor).
    fn to_members(&self, event: ServerEvent) {
        let out = Outgoing::new(event);
        for member in self.members.values().filter(|m| m.user_id.is_some()) {
            member.sink.push(&out);
        }
    }

    /// Tells every online agent of the bot (their dashboards list and preview sessions).
    fn to_bot_agents(&self, event: ServerEvent) {
        self.peers.tell_bot_agents(&self.bot_id, event);
    }

    /// Tells the bot's online agents an event this session's team members were just told:
    /// those who follow the session and the bot hear it once, not twice.
    fn to_other_bot_agents(&self, event: ServerEvent) {
        let told = self.members.iter().filter(|(_, m)| m.user_id.is_some()).map(|(conn, _)| *conn).collect();
        self.peers.tell_other_bot_agents(&self.bot_id, event, told);
    }

    fn run_next_turn(&mut self, ctx: &mut Context<Self>) {
        if self.busy {
            return;
        }
        let Some(turn) = self.turns.pop_front() else { return };
        if matches!(self.mode, Mode::WithAgent { .. }) {
            // An agent took over while this turn waited: the agent answers, not the AI.
            answer_turn(turn.reply, Ok(TurnOutcome { session_id: self.id.clone(), user_message: turn.user_message, reply: None, agent_connected: true, offer_handoff: false }));
            return self.run_next_turn(ctx);
        }
        self.busy = true;
        let store = self.store.clone();
        let brain = self.brain.clone();
        let id = self.id.clone();
        let bot_id = self.bot_id.clone();
        let limit = self.history_limit;
        let timeout = self.reply_timeout;
        let me = ctx.address();
        let question = turn.question.clone();
        let before_seq = turn.user_message.seq;
        let think = async move {
            let bot = store.bot_by_id(&bot_id).await.map_err(|e| e.to_string())?.ok_or("bot is gone")?;
            let mut history = store.messages(&id, 0, limit + 1).await.map_err(|e| e.to_string())?;
            history.retain(|m| m.seq < before_seq);
            let session_id = id.clone();
            let deltas = Box::new(move |delta: String| me.do_send(Delta { message_id: format!("pending-{before_seq}"), delta, session_id: session_id.clone() }));
            let request = ReplyRequest { bot, session_id: id, question, history, deltas };
            match tokio::time::timeout(timeout, brain.reply(request)).await {
                Ok(Ok(reply)) => Ok(reply),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err(format!("no reply within {timeout:?}")),
            }
        };
        ctx.spawn(think.into_actor(self).map(move |result, act, ctx| {
            let (message, offer_handoff, refused) = match result {
                Ok(reply) => (
                    NewMessage { role: Role::Bot, content: reply.text, sender_name: None, agent_id: None, is_error: false, sources: reply.citations, suggestions: reply.suggestions },
                    reply.offer_handoff,
                    reply.refused,
                ),
                Err(reason) => {
                    tracing::warn!(session = %act.id, "reply failed: {reason}");
                    (NewMessage { is_error: true, ..NewMessage::simple(Role::Bot, ERROR_REPLY) }, false, false)
                }
            };
            act.save(ctx, message, move |act, ctx, saved| {
                let outcome = saved.map(|saved| {
                    if refused {
                        act.note_refusal(&saved, turn.question.clone());
                    }
                    act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: saved.clone() });
                    if offer_handoff {
                        act.to_visitors(ServerEvent::HandoffOffered { session_id: act.id.clone() });
                    }
                    TurnOutcome { session_id: act.id.clone(), user_message: turn.user_message, reply: Some(saved), agent_connected: false, offer_handoff }
                });
                answer_turn(turn.reply, outcome);
                act.busy = false;
                act.last_activity = Instant::now();
                act.run_next_turn(ctx);
            });
        }));
    }

    /// Keeps a reply the knowledge did not back, with its question, for the analytics' "top
    /// unanswered questions". Off the turn's path: the visitor already has the reply, and a
    /// failure here loses a figure, not a message.
    fn note_refusal(&self, reply: &ChatMessage, question: String) {
        let store = self.store.clone();
        let (bot_id, session_id, message_id, at) = (self.bot_id.clone(), self.id.clone(), reply.id.clone(), reply.created_at);
        actix::spawn(async move {
            if let Err(e) = store.record_refused_answer(&bot_id, &session_id, &message_id, &question, at).await {
                tracing::warn!(session = %session_id, "could not record an unanswered question: {e}");
            }
        });
    }

    /// Saves `message`, then shows it to the session. Replies with the saved message; with the
    /// sender's `client_id` for it, a resend gets that message back (see `resends.rs`).
    fn save_and_show(&mut self, ctx: &mut Context<Self>, message: NewMessage, client_id: Option<String>, reply: oneshot::Sender<Result<Arc<ChatMessage>, EngineError>>) {
        let client_id = client_id.map(|id| {
            self.resends.saving(&id, &message.content);
            (id, message.content.clone())
        });
        self.save(ctx, message, move |act, _, saved| {
            match (&saved, &client_id) {
                (Ok(m), Some((id, words))) => act.resends.saved(id, words, Arc::clone(m)),
                (Err(_), Some((id, words))) => act.resends.failed(id, words),
                _ => {}
            }
            if let Ok(m) = &saved {
                act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: Arc::clone(m) });
            }
            let _ = reply.send(saved);
        });
    }

    /// The visitor's message, once the session is open: saved, shown, then answered by the
    /// agent who has the conversation or queued for the bot.
    fn visitor_says(&mut self, ctx: &mut Context<Self>, msg: VisitorSays) {
        let text = msg.text.clone();
        if let Some(id) = &msg.client_id {
            self.resends.saving(id, &msg.text);
        }
        self.save(ctx, NewMessage::simple(Role::User, text), move |act, ctx, saved| {
            let saved = match saved {
                Ok(saved) => saved,
                Err(e) => {
                    if let Some(id) = &msg.client_id {
                        act.resends.failed(id, &msg.text);
                    }
                    let _ = msg.reply.send(Err(e));
                    return;
                }
            };
            if let Some(id) = &msg.client_id {
                act.resends.saved(id, &msg.text, saved.clone());
            }
            let view = saved.clone();
            act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: view.clone() });
            if act.mode != Mode::Bot {
                act.to_bot_agents(ServerEvent::CustomerMessage { session_id: act.id.clone(), message: view.clone() });
            }
            if let Mode::WithAgent { .. } = act.mode {
                let _ = msg.reply.send(Ok(TurnOutcome { session_id: act.id.clone(), user_message: view, reply: None, agent_connected: true, offer_handoff: false }));
                return;
            }
            let reply = if msg.ack_on_save {
                let _ = msg.reply.send(Ok(TurnOutcome { session_id: act.id.clone(), user_message: view, reply: None, agent_connected: false, offer_handoff: false }));
                None
            } else {
                Some(msg.reply)
            };
            act.turns.push_back(PendingTurn { question: msg.text, user_message: saved, reply });
            act.run_next_turn(ctx);
        });
    }
}

impl Actor for SessionActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(IDLE_CHECK, |act, ctx| {
            let idle = act.members.is_empty() && !act.busy && act.turns.is_empty() && !act.draining && act.last_activity.elapsed() > IDLE_AFTER;
            if idle && act.peers.retire_session(&act.id, act.instance) {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        self.peers.retire_session(&self.id, self.instance);
    }
}


impl Handler<VisitorSays> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: VisitorSays, ctx: &mut Self::Context) {
        self.last_activity = Instant::now();
        // A resend of a message already saved gets that message back, as its first send's
        // lost ack would have; one still being saved is asked to come back a moment later.
        match msg.client_id.as_deref().map(|id| self.resends.seen(id, &msg.text)) {
            Some(Seen::Saved(message)) => {
                let agent_connected = matches!(self.mode, Mode::WithAgent { .. });
                let _ = msg.reply.send(Ok(TurnOutcome { session_id: self.id.clone(), user_message: message, reply: None, agent_connected, offer_handoff: false }));
                return;
            }
            Some(Seen::Saving) => {
                let _ = msg.reply.send(Err(EngineError::Busy(BUSY.into())));
                return;
            }
            Some(Seen::New) | None => {}
        }
        if let Err(busy) = self.admit() {
            let _ = msg.reply.send(Err(busy));
            return;
        }
        if self.mode != Mode::Resolved {
            return self.visitor_says(ctx, msg);
        }
        // A resolved conversation reopens with the bot before the message is saved.
        let store = self.store.clone();
        let id = self.id.clone();
        ctx.wait(async move { store.reopen_session(&id).await }.into_actor(self).map(move |reopened, act, ctx| match reopened {
            Err(e) => {
                let _ = msg.reply.send(Err(e.into()));
            }
            Ok(_) => {
                act.mode = Mode::Bot;
                act.visitor_says(ctx, msg);
            }
        }));
    }
}

/// A piece of a reply being streamed.
#[derive(Message)]
#[rtype(result = "()")]
struct Delta {
    session_id: String,
    message_id: String,
    delta: String,
}

impl Handler<Delta> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Delta, _: &mut Self::Context) {
        self.broadcast(ServerEvent::MessageDelta { session_id: msg.session_id, message_id: msg.message_id, delta: msg.delta });
    }
}


impl Handler<Join> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Join, _: &mut Self::Context) {
        msg.member.sink.push(&Outgoing::new(ServerEvent::SessionJoined { session_id: self.id.clone() }));
        self.members.insert(msg.conn, msg.member);
        self.last_activity = Instant::now();
        let _ = msg.joined.send(());
    }
}


impl Handler<Leave> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Leave, _: &mut Self::Context) {
        self.members.remove(&msg.0);
    }
}


impl Handler<RequestSupport> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: RequestSupport, ctx: &mut Self::Context) {
        if let Mode::WithAgent { .. } = self.mode {
            let _ = msg.reply.send(Err(EngineError::Refused(parley_store::chat::AGENT_HELPING.into())));
            return;
        }
        self.last_activity = Instant::now();
        let waiting = self.mode == Mode::WaitingForAgent;
        let store = self.store.clone();
        let id = self.id.clone();
        let info = msg.info.clone();
        ctx.wait(async move { store.request_support(&id, &info).await }.into_actor(self).map(move |saved, act, ctx| match saved {
            Err(e) => {
                let _ = msg.reply.send(Err(e.into()));
            }
            Ok(session) if waiting => {
                let _ = msg.reply.send(Ok(SupportAsked { session: Arc::new(session), new: false }));
            }
            Ok(session) => {
                act.mode = Mode::WaitingForAgent;
                let note = NewMessage::simple(Role::System, msg.handover_message.clone());
                act.save(ctx, note, move |act, _, note| {
                    // The request itself is saved: the agents hear of it and the visitor waits,
                    // even when the note could not be saved with it (a busy writer). Refusing now
                    // would leave a request nobody is told of, as a retry finds it already made.
                    match note {
                        Ok(note) => act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: note }),
                        Err(e) => tracing::warn!("session {}: the support request's note was not saved: {e}", act.id),
                    }
                    let view = Arc::new(session);
                    act.to_visitors(ServerEvent::SupportRequested { message: msg.handover_message });
                    let customer_message = if msg.message.trim().is_empty() { "Requested human support".to_string() } else { msg.message };
                    act.to_bot_agents(ServerEvent::SupportRequest {
                        session: view.clone(),
                        customer_message,
                        customer_info: msg.info,
                        timestamp: parley_store::time::to_rfc3339(&parley_store::time::now()),
                    });
                    let _ = msg.reply.send(Ok(SupportAsked { session: view, new: true }));
                });
            }
        }));
    }
}


impl Handler<AgentAssigned> for SessionActor {
    type Result = ();

    fn handle(&mut self, mut msg: AgentAssigned, ctx: &mut Self::Context) {
        if let Some(applied) = msg.applied.take() {
            let _ = applied.send(());
        }
        // A take or transfer is stored only while the session is not resolved, so one that
        // arrives after this actor resolved it was overtaken: the resolve cleared the agent in
        // the row, and the conversation stays with the bot.
        if self.mode == Mode::Resolved {
            return;
        }
        self.mode = Mode::WithAgent { agent_id: msg.agent_id.clone(), agent_name: msg.agent_name.clone() };
        self.last_activity = Instant::now();
        let note = NewMessage::simple(Role::System, msg.note.clone());
        self.save(ctx, note, move |act, _, saved| {
            if let Ok(saved) = saved {
                act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: saved });
            }
            // The visitor gets an alias, never the agent's account id (see `alias`).
            let agent_id = super::alias::visitor_alias(&act.id, &msg.agent_id);
            act.to_visitors(ServerEvent::AgentJoined { agent_name: msg.agent_name, agent_id, message: msg.note });
        });
    }
}


impl Handler<AgentSays> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: AgentSays, ctx: &mut Self::Context) {
        self.last_activity = Instant::now();
        // A resend (the agent pressed Send again after no ack came): the message saved first.
        match msg.client_id.as_deref().map(|id| self.resends.seen(id, &msg.message.content)) {
            Some(Seen::Saved(message)) => {
                let _ = msg.reply.send(Ok(message));
                return;
            }
            Some(Seen::Saving) => {
                let _ = msg.reply.send(Err(EngineError::Busy(BUSY.into())));
                return;
            }
            Some(Seen::New) | None => {}
        }
        if let Err(busy) = self.admit() {
            let _ = msg.reply.send(Err(busy));
            return;
        }
        self.save_and_show(ctx, msg.message, msg.client_id, msg.reply);
    }
}


impl Handler<Typing> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Typing, _: &mut Self::Context) {
        if msg.from_visitor {
            let event = ServerEvent::CustomerTyping { session_id: self.id.clone(), is_typing: msg.is_typing };
            self.to_members(event.clone());
            self.to_other_bot_agents(event);
        } else {
            self.to_visitors(ServerEvent::AgentTyping { is_typing: msg.is_typing });
        }
    }
}


impl Handler<Resolve> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Resolve, ctx: &mut Self::Context) {
        self.last_activity = Instant::now();
        // Once is enough: a second resolve would move its time, replace its rating and tell
        // every dashboard again (each counting it once more in "Resolved Today").
        if self.mode == Mode::Resolved {
            let _ = msg.reply.send(Err(EngineError::Refused(ALREADY_RESOLVED.into())));
            return;
        }
        let store = self.store.clone();
        let id = self.id.clone();
        let by = msg.resolved_by.clone();
        let rating = msg.rating;
        let notes = msg.notes.clone();
        let save = async move { store.resolve_session(&id, &by, rating, notes.as_deref()).await };
        ctx.wait(save.into_actor(self).map(move |saved, act, ctx| match saved {
            Err(e) => {
                let _ = msg.reply.send(Err(e.into()));
            }
            Ok(session) => {
                act.mode = Mode::Resolved;
                let note = NewMessage::simple(Role::System, format!("Session resolved by {}", msg.resolved_by));
                act.save(ctx, note, move |act, _, note| {
                    if let Ok(note) = note {
                        act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: note });
                    }
                    let event = ServerEvent::SessionResolved {
                        session_id: act.id.clone(),
                        resolved_by: msg.resolved_by,
                        timestamp: session.resolved_at.as_ref().map(parley_store::time::to_rfc3339).unwrap_or_default(),
                    };
                    act.broadcast(event.clone());
                    act.to_other_bot_agents(event);
                    let _ = msg.reply.send(Ok(Arc::new(session)));
                });
            }
        }));
    }
}


impl Handler<Reload> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Reload, _: &mut Self::Context) {
        if msg.status_changed {
            self.mode = Mode::of(&msg.session);
        }
        // The team sees every field; the visitor only what is theirs to see (an event's
        // encoding is made once for all its connections, so each audience gets its own). The
        // bot's other agents list the session, and hear it too.
        let for_team = ServerEvent::SessionUpdated { session_id: self.id.clone(), session: msg.session.clone() };
        self.to_members(for_team.clone());
        self.to_other_bot_agents(for_team);
        self.to_visitors(ServerEvent::VisitorSessionUpdated { session_id: self.id.clone(), session: msg.session });
    }
}


/// What the visitor and the team read when a session goes back to the queue.
pub const REQUEUED_NOTE: &str = "The agent who was helping is no longer available. Another agent will join as soon as possible.";

impl Handler<Requeued> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Requeued, ctx: &mut Self::Context) {
        <Self as Handler<Reload>>::handle(self, Reload { session: msg.0, status_changed: true }, ctx);
        self.save(ctx, NewMessage::simple(Role::System, REQUEUED_NOTE), |act, _, saved| {
            if let Ok(saved) = saved {
                act.broadcast(ServerEvent::NewMessage { session_id: act.id.clone(), message: saved });
            }
        });
    }
}


impl Handler<TellTeam> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: TellTeam, ctx: &mut Self::Context) {
        self.to_other_bot_agents(msg.0.clone());
        <Self as Handler<Tell>>::handle(self, Tell(msg.0), ctx);
    }
}

impl Handler<Tell> for SessionActor {
    type Result = ();

    fn handle(&mut self, msg: Tell, ctx: &mut Self::Context) {
        let deleted = matches!(msg.0, ServerEvent::SessionDeleted { .. });
        self.broadcast(msg.0);
        if deleted {
            self.peers.retire_session(&self.id, self.instance);
            ctx.stop();
        }
    }
}
