//! `BotActor`: one per bot with live traffic. It knows the bot's online agents and tells them
//! what happens (support requests, takes, resolves), and it decides takes: the store's one
//! conditional update picks the winner, the others are told `session-taken`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use actix::prelude::*;
use parley_store::chat::SessionFilter;
use parley_store::Store;
use tokio::sync::oneshot;

use super::engine::{ConnId, EngineError};
use super::events::{session_view, Outgoing, ServerEvent, Sink};
use super::registry::Registry;
use super::session::AgentAssigned;

#[derive(Clone)]
pub struct OnlineAgent {
    pub user_id: String,
    pub name: String,
    pub status: String,
    pub can_take: bool,
    pub sink: std::sync::Arc<dyn Sink>,
}

pub struct BotActor {
    bot_id: String,
    instance: u64,
    store: Store,
    registry: Registry,
    agents: HashMap<ConnId, OnlineAgent>,
    last_activity: Instant,
}

const IDLE_CHECK: Duration = Duration::from_secs(30);
const IDLE_AFTER: Duration = Duration::from_secs(300);

impl BotActor {
    pub fn new(bot_id: &str, instance: u64, store: Store, registry: Registry) -> Self {
        BotActor { bot_id: bot_id.to_string(), instance, store, registry, agents: HashMap::new(), last_activity: Instant::now() }
    }

    fn tell_all(&self, event: &ServerEvent) {
        let out = Outgoing::new(event.clone());
        for agent in self.agents.values() {
            agent.sink.push(&out);
        }
    }

    fn tell_user(&self, user_id: &str, event: &ServerEvent) {
        let out = Outgoing::new(event.clone());
        for agent in self.agents.values().filter(|a| a.user_id == user_id) {
            agent.sink.push(&out);
        }
    }
}

impl Actor for BotActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        ctx.run_interval(IDLE_CHECK, |act, ctx| {
            if act.agents.is_empty() && act.last_activity.elapsed() > IDLE_AFTER && act.registry.retire_bot(&act.bot_id, act.instance) {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        self.registry.retire_bot(&self.bot_id, self.instance);
    }
}

/// Something every online agent of the bot should hear.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ToAgents(pub ServerEvent);

impl Handler<ToAgents> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: ToAgents, _: &mut Self::Context) {
        self.last_activity = Instant::now();
        self.tell_all(&msg.0);
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentOnline {
    pub conn: ConnId,
    pub agent: OnlineAgent,
}

impl Handler<AgentOnline> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentOnline, _: &mut Self::Context) {
        self.last_activity = Instant::now();
        self.agents.insert(msg.conn, msg.agent);
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentOffline(pub ConnId);

impl Handler<AgentOffline> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentOffline, _: &mut Self::Context) {
        self.agents.remove(&msg.0);
    }
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct AgentStatus {
    pub conn: ConnId,
    pub status: String,
}

impl Handler<AgentStatus> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentStatus, _: &mut Self::Context) {
        if let Some(agent) = self.agents.get_mut(&msg.conn) {
            agent.status = msg.status;
        }
    }
}

/// Online agents who may take sessions: (user id, name, status).
#[derive(Message)]
#[rtype(result = "Vec<(String, String, String)>")]
pub struct ListAgents;

impl Handler<ListAgents> for BotActor {
    type Result = Vec<(String, String, String)>;

    fn handle(&mut self, _: ListAgents, _: &mut Self::Context) -> Self::Result {
        let mut seen = Vec::new();
        for agent in self.agents.values().filter(|a| a.can_take) {
            if !seen.iter().any(|(id, _, _): &(String, String, String)| id == &agent.user_id) {
                seen.push((agent.user_id.clone(), agent.name.clone(), agent.status.clone()));
            }
        }
        seen
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TakeOutcome {
    pub won: bool,
    pub session: serde_json::Value,
}

/// An agent asks for a session. Handled one at a time per bot, and decided by the store's
/// conditional update, so exactly one of any number of racing agents wins.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Take {
    pub session_id: String,
    pub agent_id: String,
    pub agent_name: String,
    pub reply: oneshot::Sender<Result<TakeOutcome, EngineError>>,
}

impl Handler<Take> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: Take, ctx: &mut Self::Context) {
        self.last_activity = Instant::now();
        let store = self.store.clone();
        let session_id = msg.session_id.clone();
        let agent_id = msg.agent_id.clone();
        let agent_name = msg.agent_name.clone();
        let decide = async move {
            let won = store.take_session(&session_id, &agent_id, &agent_name).await?;
            let session = store.session(&session_id).await?.ok_or(parley_store::StoreError::NotFound)?;
            Ok::<_, parley_store::StoreError>((won, session))
        };
        ctx.wait(decide.into_actor(self).map(move |decided, act, _| match decided {
            Err(e) => {
                let _ = msg.reply.send(Err(e.into()));
            }
            Ok((won, session)) => {
                let view = session_view(&session);
                let taken_by = session.assigned_agent_id.clone().unwrap_or_default();
                let taken_name = session.assigned_agent_name.clone().unwrap_or_default();
                if won {
                    act.tell_all(&ServerEvent::SessionTaken { session_id: msg.session_id.clone(), agent_id: taken_by, agent_name: taken_name });
                    act.tell_user(&msg.agent_id, &ServerEvent::SessionAssigned { session_id: msg.session_id.clone(), session: view.clone() });
                    let registry = act.registry.clone();
                    let session_id = msg.session_id.clone();
                    let note = format!("{} joined the conversation", msg.agent_name);
                    let assigned = AgentAssigned { agent_id: msg.agent_id.clone(), agent_name: msg.agent_name.clone(), note };
                    actix::spawn(async move {
                        if let Ok((addr, _)) = registry.session(&session_id).await {
                            addr.do_send(assigned);
                        }
                    });
                } else {
                    // The loser's queue drops the entry too: someone else has it.
                    act.tell_user(&msg.agent_id, &ServerEvent::SessionTaken { session_id: msg.session_id.clone(), agent_id: taken_by, agent_name: taken_name });
                }
                let _ = msg.reply.send(Ok(TakeOutcome { won, session: view }));
            }
        }));
    }
}

/// The bot's support queue, newest request first.
pub async fn support_queue(store: &Store, bot_id: &str) -> Result<Vec<serde_json::Value>, EngineError> {
    let (sessions, _) = store.sessions_of_bot(bot_id, SessionFilter::SupportQueue, None, None, 0, 500).await?;
    Ok(sessions.iter().map(session_view).collect())
}
