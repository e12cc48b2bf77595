//! `BotActor`: one per bot with live traffic. It knows the bot's online agents and tells them
//! what happens (support requests, takes, resolves), and it decides takes: the store's one
//! conditional update picks the winner, the others are told `session-taken`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::prelude::*;
use parley_store::chat::SessionFilter;
use parley_store::Store;

use super::events::{Outgoing, ServerEvent, SessionList};
use super::messages::{AgentAssigned, AgentOffline, AgentOnline, AgentRole, AgentStatus, ListAgents, OnlineAgent, Take, TakeOutcome, ToAgents, ToOtherAgents, ToUser};
use super::peers::Peers;
use super::service::AgentPresence;
use super::types::{ConnId, EngineError, ALREADY_RESOLVED};


pub struct BotActor {
    bot_id: String,
    instance: u64,
    store: Store,
    peers: Arc<dyn Peers>,
    agents: HashMap<ConnId, OnlineAgent>,
    last_activity: Instant,
}

const IDLE_CHECK: Duration = Duration::from_secs(30);
const IDLE_AFTER: Duration = Duration::from_secs(300);

impl BotActor {
    pub fn new(bot_id: &str, instance: u64, store: Store, peers: Arc<dyn Peers>) -> Self {
        BotActor { bot_id: bot_id.to_string(), instance, store, peers, agents: HashMap::new(), last_activity: Instant::now() }
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
            if act.agents.is_empty() && act.last_activity.elapsed() > IDLE_AFTER && act.peers.retire_bot(&act.bot_id, act.instance) {
                ctx.stop();
            }
        });
    }

    fn stopped(&mut self, _: &mut Self::Context) {
        self.peers.retire_bot(&self.bot_id, self.instance);
    }
}


impl Handler<ToAgents> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: ToAgents, _: &mut Self::Context) {
        self.last_activity = Instant::now();
        self.tell_all(&msg.0);
    }
}

impl Handler<ToOtherAgents> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: ToOtherAgents, _: &mut Self::Context) {
        self.last_activity = Instant::now();
        let out = Outgoing::new(msg.event);
        for (conn, agent) in &self.agents {
            if !msg.told.contains(conn) {
                agent.sink.push(&out);
            }
        }
    }
}


impl Handler<ToUser> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: ToUser, _: &mut Self::Context) {
        self.tell_user(&msg.user_id, &msg.event);
    }
}


impl Handler<AgentOnline> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentOnline, _: &mut Self::Context) {
        self.last_activity = Instant::now();
        self.agents.insert(msg.conn, msg.agent);
    }
}


impl Handler<AgentOffline> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentOffline, _: &mut Self::Context) {
        self.agents.remove(&msg.0);
    }
}


impl Handler<AgentRole> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentRole, _: &mut Self::Context) {
        for agent in self.agents.values_mut().filter(|a| a.user_id == msg.user_id) {
            agent.can_take = msg.can_take;
        }
    }
}


impl Handler<AgentStatus> for BotActor {
    type Result = ();

    fn handle(&mut self, msg: AgentStatus, _: &mut Self::Context) {
        if let Some(agent) = self.agents.get_mut(&msg.conn) {
            agent.status = msg.status;
        }
    }
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
                // The taker already has it (taken over REST with assign-agent, then over the live
                // channel as the spec's dashboard does, or asked again after a reconnect): the
                // take stands, and nothing new is announced.
                if !won && session.assigned_agent_id.as_deref() == Some(msg.agent_id.as_str()) && session.status != "resolved" {
                    let _ = msg.reply.send(Ok(TakeOutcome { won: true, session: Arc::new(session) }));
                    return;
                }
                // Resolved (here or a moment ago): nobody takes it, and nobody is told it was taken.
                if !won && session.status == "resolved" {
                    let _ = msg.reply.send(Err(EngineError::Refused(ALREADY_RESOLVED.into())));
                    return;
                }
                let view = Arc::new(session);
                let taken_by = view.assigned_agent_id.clone().unwrap_or_default();
                let taken_name = view.assigned_agent_name.clone().unwrap_or_default();
                if won {
                    act.tell_all(&ServerEvent::SessionTaken { session_id: msg.session_id.clone(), agent_id: taken_by, agent_name: taken_name });
                    act.tell_user(&msg.agent_id, &ServerEvent::SessionAssigned { session_id: msg.session_id.clone(), session: view.clone() });
                    let note = format!("{} joined the conversation", msg.agent_name);
                    let (applied, done) = tokio::sync::oneshot::channel();
                    let assigned = AgentAssigned { agent_id: msg.agent_id.clone(), agent_name: msg.agent_name.clone(), note, applied: Some(applied) };
                    act.peers.assign_agent(msg.session_id.clone(), assigned);
                    // Answered once the session knows (or is gone: the take stands either way).
                    actix::spawn(async move {
                        let _ = done.await;
                        let _ = msg.reply.send(Ok(TakeOutcome { won, session: view }));
                    });
                } else {
                    // The loser's queue drops the entry too: someone else has it.
                    act.tell_user(&msg.agent_id, &ServerEvent::SessionTaken { session_id: msg.session_id.clone(), agent_id: taken_by, agent_name: taken_name });
                    let _ = msg.reply.send(Ok(TakeOutcome { won, session: view }));
                }
            }
        }));
    }
}

impl Handler<ListAgents> for BotActor {
    type Result = Vec<(String, String, String)>;

    /// One entry per agent who may take sessions; an agent on several connections (two tabs)
    /// is as available as the most available of them.
    fn handle(&mut self, _: ListAgents, _: &mut Self::Context) -> Self::Result {
        let available = |status: &str| AgentPresence::parse(status).is_some_and(AgentPresence::available);
        let mut seen: Vec<(String, String, String)> = Vec::new();
        for agent in self.agents.values().filter(|a| a.can_take) {
            match seen.iter_mut().find(|(id, _, _)| id == &agent.user_id) {
                None => seen.push((agent.user_id.clone(), agent.name.clone(), agent.status.clone())),
                Some(entry) if !available(&entry.2) && available(&agent.status) => entry.2 = agent.status.clone(),
                Some(_) => {}
            }
        }
        seen
    }
}

/// The bot's support queue, newest request first.
pub async fn support_queue(store: &Store, bot_id: &str) -> Result<SessionList, EngineError> {
    let (sessions, _) = store.sessions_of_bots(&[bot_id.to_string()], SessionFilter::SupportQueue, None, None, Default::default(), 0, 500).await?;
    Ok(sessions.into())
}
