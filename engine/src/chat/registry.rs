//! The registry: which session and bot actors are alive, starting them on demand (a session
//! reloads from the store) and forgetting them when they retire. Actors run either on dedicated
//! arbiters (round robin) or, with none configured, on the arbiter of the thread that asked for
//! them: the HTTP worker holding the connection, so its messages need no thread hop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix::prelude::*;
use parley_store::Store;

use super::bot::BotActor;
use super::brain::Brain;
use super::events::ServerEvent;
use super::messages::{AgentAssigned, ToAgents, ToOtherAgents};
use super::peers::Peers;
use super::session::SessionActor;
use super::types::{ConnId, EngineError};

/// A running session actor: its instance number, address and bot.
struct Running {
    instance: u64,
    addr: Addr<SessionActor>,
    bot_id: Arc<str>,
}

struct Inner {
    sessions: HashMap<String, Running>,
    bots: HashMap<String, (u64, Addr<BotActor>)>,
}

#[derive(Clone)]
pub struct Registry {
    inner: Arc<Mutex<Inner>>,
    store: Store,
    brain: Arc<dyn Brain>,
    arbiters: Arc<Vec<ArbiterHandle>>,
    /// Where actors start when there are no dedicated arbiters and the caller is not on one.
    spare: Option<ArbiterHandle>,
    next_arbiter: Arc<AtomicUsize>,
    next_instance: Arc<AtomicU64>,
    reply_timeout: Duration,
    mailbox: usize,
}

impl Registry {
    pub fn new(store: Store, brain: Arc<dyn Brain>, arbiters: Vec<ArbiterHandle>, spare: Option<ArbiterHandle>, reply_timeout: Duration, mailbox: usize) -> Registry {
        Registry {
            inner: Arc::new(Mutex::new(Inner { sessions: HashMap::new(), bots: HashMap::new() })),
            store,
            brain,
            arbiters: Arc::new(arbiters),
            spare,
            next_arbiter: Arc::new(AtomicUsize::new(0)),
            next_instance: Arc::new(AtomicU64::new(1)),
            reply_timeout,
            mailbox,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding this lock cannot leave the maps half-updated (every change is
        // one insert or remove), so a poisoned lock is still sound to use.
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Where a new actor starts; `None` = here, on the caller's arbiter.
    fn arbiter(&self) -> Option<ArbiterHandle> {
        if self.arbiters.is_empty() {
            return match Arbiter::try_current() {
                Some(_) => None,
                None => self.spare.clone(),
            };
        }
        let i = self.next_arbiter.fetch_add(1, Ordering::Relaxed) % self.arbiters.len();
        self.arbiters.get(i).cloned()
    }

    /// The live actor of a session and its bot, started from the store if it is not running
    /// (the only read: a live session answers from memory).
    pub async fn session(&self, id: &str) -> Result<(Addr<SessionActor>, Arc<str>), EngineError> {
        if let Some(running) = self.lock().sessions.get(id).filter(|r| r.addr.connected()) {
            return Ok((running.addr.clone(), running.bot_id.clone()));
        }
        let row = self.store.session(id).await?.ok_or(EngineError::NotFound("Session"))?;
        let mut inner = self.lock();
        if let Some(running) = inner.sessions.get(id).filter(|r| r.addr.connected()) {
            return Ok((running.addr.clone(), running.bot_id.clone()));
        }
        let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
        let bot_id: Arc<str> = Arc::from(row.bot_id.as_str());
        let (store, brain, registry, timeout, mailbox) = (self.store.clone(), self.brain.clone(), self.clone(), self.reply_timeout, self.mailbox);
        let make = move |ctx: &mut Context<SessionActor>| {
            ctx.set_mailbox_capacity(mailbox);
            SessionActor::new(&row, instance, store, brain, Arc::new(registry), timeout)
        };
        let addr = match self.arbiter() {
            Some(arbiter) => SessionActor::start_in_arbiter(&arbiter, make),
            None => SessionActor::create(make),
        };
        inner.sessions.insert(id.to_string(), Running { instance, addr: addr.clone(), bot_id: bot_id.clone() });
        Ok((addr, bot_id))
    }

    /// The session's actor if it is running (no store round trip).
    pub fn running_session(&self, id: &str) -> Option<Addr<SessionActor>> {
        self.lock().sessions.get(id).map(|r| r.addr.clone())
    }

    /// The bot's actor if it is running: a bot with agents online has one.
    pub fn running_bot(&self, bot_id: &str) -> Option<Addr<BotActor>> {
        self.lock().bots.get(bot_id).map(|(_, a)| a.clone()).filter(Addr::connected)
    }

    pub fn bot(&self, bot_id: &str) -> Addr<BotActor> {
        let mut inner = self.lock();
        if let Some((_, addr)) = inner.bots.get(bot_id) {
            if addr.connected() {
                return addr.clone();
            }
        }
        let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
        let (store, registry, id) = (self.store.clone(), self.clone(), bot_id.to_string());
        let make = move |_: &mut Context<BotActor>| BotActor::new(&id, instance, store, Arc::new(registry));
        let addr = match self.arbiter() {
            Some(arbiter) => BotActor::start_in_arbiter(&arbiter, make),
            None => BotActor::create(make),
        };
        inner.bots.insert(bot_id.to_string(), (instance, addr.clone()));
        addr
    }

    fn forget_session(&self, id: &str, instance: u64) -> bool {
        let mut inner = self.lock();
        match inner.sessions.get(id) {
            Some(running) if running.instance == instance => {
                inner.sessions.remove(id);
                true
            }
            _ => false,
        }
    }

    fn forget_bot(&self, id: &str, instance: u64) -> bool {
        let mut inner = self.lock();
        match inner.bots.get(id) {
            Some((i, _)) if *i == instance => {
                inner.bots.remove(id);
                true
            }
            _ => false,
        }
    }

    /// Forgets a session actor whose mailbox is closed.
    pub fn retire_if_dead(&self, id: &str) {
        let mut inner = self.lock();
        if inner.sessions.get(id).is_some_and(|r| !r.addr.connected()) {
            inner.sessions.remove(id);
        }
    }

    pub fn live_sessions(&self) -> usize {
        self.lock().sessions.len()
    }
}

impl Peers for Registry {
    fn tell_bot_agents(&self, bot_id: &str, event: ServerEvent) {
        self.bot(bot_id).do_send(ToAgents(event));
    }

    fn tell_other_bot_agents(&self, bot_id: &str, event: ServerEvent, told: Vec<ConnId>) {
        self.bot(bot_id).do_send(ToOtherAgents { event, told });
    }

    fn assign_agent(&self, session_id: String, assigned: AgentAssigned) {
        let registry = self.clone();
        actix::spawn(async move {
            if let Ok((addr, _)) = registry.session(&session_id).await {
                addr.do_send(assigned);
            }
        });
    }

    fn retire_session(&self, id: &str, instance: u64) -> bool {
        self.forget_session(id, instance)
    }

    fn retire_bot(&self, id: &str, instance: u64) -> bool {
        self.forget_bot(id, instance)
    }
}
