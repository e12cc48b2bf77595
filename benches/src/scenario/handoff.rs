//! `handoff`: a storm of K support requests while M agents, all online for the bot, race to
//! take each one the moment its `support-request` arrives. Reports the time from the request to
//! the winner's confirmed take, and checks that every request had exactly one winner.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::ACK_TIMEOUT;
use crate::client::{Client, Inbound};
use crate::report::{Latencies, Run};
use crate::setup::{Api, Conversation};
use crate::target::Server;
use crate::{Args, Res};

pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let api = Api::new(&server.base)?;
    let owner = api.owner_with_bot("handoff").await?;
    let conversations: Vec<Conversation> = stream::iter(0..args.requests)
        .map(|_| api.conversation(&owner.bot_id, "hello"))
        .buffered(16)
        .try_collect()
        .await?;
    let visitors: Vec<Client> = stream::iter(conversations.iter().enumerate())
        .map(|(i, c)| Client::connect(&server.base, json!({"visitorToken": c.visitor_token}), i, None))
        .buffered(16)
        .try_collect()
        .await?;
    for (v, c) in visitors.iter().zip(&conversations) {
        v.emit_ack("join-session", json!({"sessionId": c.session_id}), ACK_TIMEOUT).await?;
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<Inbound>();
    let mut agents = Vec::new();
    for m in 0..args.agents.max(1) {
        let a = Client::connect(&server.base, json!({"token": owner.token}), m, Some(tx.clone())).await?;
        a.emit_ack("join-as-agent", json!({"botId": owner.bot_id}), ACK_TIMEOUT).await?;
        agents.push(std::sync::Arc::new(a));
    }
    drop(tx);

    // Requests go out as fast as the visitors can send them.
    let before = server.usage();
    let mut requested_at: HashMap<String, Instant> = HashMap::new();
    for (v, c) in visitors.iter().zip(&conversations) {
        requested_at.insert(c.session_id.clone(), Instant::now());
        v.emit("request-human-support", json!({"sessionId": c.session_id, "message": "A person, please", "customerInfo": {"name": "Visitor"}}))?;
    }

    // Every agent tries to take every request it hears of.
    let (won_tx, mut won_rx) = mpsc::unbounded_channel::<(String, bool)>();
    let mut heard = 0usize;
    let expected_attempts = requested_at.len() * agents.len();
    let deadline = Instant::now() + Duration::from_secs_f64(args.duration_secs.max(30.0));
    while heard < expected_attempts && Instant::now() < deadline {
        let Ok(Some((agent, name, payload))) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await else { break };
        if name != "support-request" {
            continue;
        }
        let Some(session) = session_of(&payload) else { continue };
        heard += 1;
        let Some(a) = agents.get(agent).cloned() else { continue };
        let won_tx = won_tx.clone();
        tokio::spawn(async move {
            let ack = a.emit_ack("take-session", json!({"sessionId": session}), ACK_TIMEOUT).await;
            let won = matches!(&ack, Ok(v) if v["success"] == true);
            let _ = won_tx.send((session, won));
        });
    }
    drop(won_tx);
    let mut winners: HashMap<String, usize> = HashMap::new();
    let mut take_times = Latencies::default();
    let mut attempts = 0usize;
    while let Some((session, won)) = won_rx.recv().await {
        attempts += 1;
        if won {
            let n = winners.entry(session.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                if let Some(at) = requested_at.get(&session) {
                    take_times.push(at.elapsed());
                }
            }
        }
    }
    let after = server.usage();
    let taken = winners.len();
    let double = winners.values().filter(|n| **n > 1).count();
    for c in visitors.iter().chain(agents.iter().map(|a| a.as_ref())) {
        c.close();
    }

    let mut run = Run::new(server.target.name());
    run.set("requests", requested_at.len() as u64);
    run.set("agents", agents.len() as u64);
    run.set("take_attempts", attempts as u64);
    run.set("taken", taken as u64);
    run.set("double_takes", double as u64);
    run.set("failures", (requested_at.len() - taken.min(requested_at.len())) as u64);
    run.set("time_to_take", take_times.summary());
    run.set("server_cpu_cores", before.cpu_between(&after));
    Ok(run)
}

fn session_of(payload: &Value) -> Option<String> {
    payload["sessionId"].as_str().or_else(|| payload["session"]["_id"].as_str()).map(str::to_string)
}
