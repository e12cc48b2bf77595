//! `relay`: S sessions, each a visitor and an agent exchanging `send-message` at R messages a
//! second (the two sides take turns). Every message carries its sender, session, sequence
//! number and send time, so the receiving side measures end-to-end latency and finds lost and
//! duplicated messages. On Parley the session is a real handed-off conversation (the visitor
//! asked for a human, the agent took it) and every message is saved before it is relayed; the
//! Node peer relays within a room and keeps nothing.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::ACK_TIMEOUT;
use crate::client::{Client, Inbound};
use crate::report::{Latencies, Run};
use crate::setup::Api;
use crate::target::{Server, Target};
use crate::{Args, Res};

/// Sessions being set up at once.
const SETUP_IN_FLIGHT: usize = 16;
/// How long to wait for stragglers after the last send.
const DRAIN: Duration = Duration::from_secs(10);

struct Pair {
    session_id: String,
    visitor: Client,
    agent: Client,
}

/// Tags: session i's visitor is 2i, its agent 2i + 1.
fn tag(session: usize, agent: bool) -> usize {
    session * 2 + usize::from(agent)
}

async fn pair_up(server: &Server, i: usize, api: Option<&Api>, owner: Option<&crate::setup::Owner>, tx: mpsc::UnboundedSender<Inbound>) -> Res<Pair> {
    match (server.target, api, owner) {
        (Target::Parley, Some(api), Some(owner)) => {
            let conv = api.conversation(&owner.bot_id, "I need help with my order").await?;
            let visitor = Client::connect(&server.base, json!({"visitorToken": conv.visitor_token}), tag(i, false), Some(tx.clone())).await?;
            let joined = visitor.emit_ack("join-session", json!({"sessionId": conv.session_id}), ACK_TIMEOUT).await?;
            expect_success("join-session", &joined)?;
            let asked = visitor
                .emit_ack(
                    "request-human-support",
                    json!({"sessionId": conv.session_id, "message": "A person, please", "customerInfo": {"name": format!("Visitor {i}"), "email": format!("v{i}@bench.example")}}),
                    ACK_TIMEOUT,
                )
                .await?;
            expect_success("request-human-support", &asked)?;
            let agent = Client::connect(&server.base, json!({"token": owner.token}), tag(i, true), Some(tx)).await?;
            let took = agent.emit_ack("take-session", json!({"sessionId": conv.session_id}), ACK_TIMEOUT).await?;
            expect_success("take-session", &took)?;
            Ok(Pair { session_id: conv.session_id, visitor, agent })
        }
        _ => {
            let session_id = format!("bench-session-{i}");
            let visitor = Client::connect(&server.base, json!({"visitorToken": "peer"}), tag(i, false), Some(tx.clone())).await?;
            let agent = Client::connect(&server.base, json!({"token": "peer"}), tag(i, true), Some(tx)).await?;
            for c in [&visitor, &agent] {
                let joined = c.emit_ack("join-session", json!({"sessionId": session_id}), ACK_TIMEOUT).await?;
                expect_success("join-session", &joined)?;
            }
            Ok(Pair { session_id, visitor, agent })
        }
    }
}

fn expect_success(what: &str, ack: &Value) -> Res<()> {
    if ack["success"] == true {
        Ok(())
    } else {
        Err(format!("{what} failed: {ack}").into())
    }
}

/// What the receivers saw.
#[derive(Default)]
struct Seen {
    delivered: u64,
    duplicated: u64,
    latencies: Latencies,
    /// (session, sender is agent, seq)
    keys: HashSet<(usize, bool, u64)>,
}

/// `v|a : session : seq : micros since the run's epoch`
fn encode(agent: bool, session: usize, seq: u64, micros: u128) -> String {
    format!("{}:{session}:{seq}:{micros}", if agent { 'a' } else { 'v' })
}

fn decode(content: &str) -> Option<(bool, usize, u64, u128)> {
    let mut parts = content.split(':');
    let agent = match parts.next()? {
        "a" => true,
        "v" => false,
        _ => return None,
    };
    Some((agent, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Inbound>();
    let (api, owner) = match server.target {
        Target::Parley => {
            let api = Api::new(&server.base)?;
            let owner = api.owner_with_bot("relay").await?;
            (Some(api), Some(owner))
        }
        Target::Node => (None, None),
    };
    let setup_started = Instant::now();
    let pairs: Vec<Pair> = stream::iter(0..args.sessions)
        .map(|i| pair_up(server, i, api.as_ref(), owner.as_ref(), tx.clone()))
        .buffered(SETUP_IN_FLIGHT)
        .try_collect()
        .await?;
    drop(tx);
    let setup_secs = setup_started.elapsed().as_secs_f64();
    // Events of the set-up (the bot's first answer, joins) are not part of the run.
    tokio::time::sleep(Duration::from_millis(300)).await;
    while rx.try_recv().is_ok() {}

    let epoch = Instant::now();
    let sent = Arc::new(AtomicU64::new(0));
    let send_failures = Arc::new(AtomicU64::new(0));
    let pairs = Arc::new(pairs);
    let run_for = Duration::from_secs_f64(args.duration_secs);
    let period = Duration::from_secs_f64(1.0 / args.rate.max(0.001));
    let before = server.usage();

    let mut senders = Vec::new();
    for i in 0..pairs.len() {
        let (pairs, sent, send_failures) = (pairs.clone(), sent.clone(), send_failures.clone());
        senders.push(tokio::spawn(async move {
            let Some(pair) = pairs.get(i) else { return };
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Spread the sessions' first sends over one period.
            tokio::time::sleep(period.mul_f64(i as f64 / pairs.len().max(1) as f64)).await;
            let mut seq = 0u64;
            while epoch.elapsed() < run_for {
                tick.tick().await;
                let agent = seq % 2 == 1;
                let text = encode(agent, i, seq, epoch.elapsed().as_micros());
                let from = if agent { &pair.agent } else { &pair.visitor };
                match from.emit("send-message", json!({"sessionId": pair.session_id, "message": text})) {
                    Ok(()) => {
                        sent.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(_) => {
                        send_failures.fetch_add(1, Ordering::Relaxed);
                    }
                }
                seq += 1;
            }
        }));
    }

    let mut seen = Seen::default();
    let mut errors = 0u64;
    let mut sending_done_at: Option<Instant> = None;
    loop {
        let all_sent = senders.iter().all(|h| h.is_finished());
        if all_sent && sending_done_at.is_none() {
            sending_done_at = Some(Instant::now());
        }
        if let Some(done) = sending_done_at {
            if seen.delivered + seen.duplicated >= sent.load(Ordering::Relaxed) || done.elapsed() > DRAIN {
                break;
            }
        }
        let event = match tokio::time::timeout(Duration::from_millis(50), rx.recv()).await {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(_) => continue,
        };
        let (client, name, payload) = event;
        match name.as_str() {
            "new-message" => {
                let Some(content) = payload["message"]["content"].as_str() else { continue };
                let Some((from_agent, session, seq, micros)) = decode(content) else { continue };
                let receiver_is_agent = client % 2 == 1;
                if from_agent == receiver_is_agent || client / 2 != session {
                    continue; // the sender's own echo, or (never expected) another session's
                }
                let now = epoch.elapsed().as_micros();
                if seen.keys.insert((session, from_agent, seq)) {
                    seen.delivered += 1;
                    let micros = u64::try_from(now.saturating_sub(micros)).unwrap_or(u64::MAX);
                    seen.latencies.push(Duration::from_micros(micros));
                } else {
                    seen.duplicated += 1;
                }
            }
            "error" => errors += 1,
            _ => {}
        }
    }
    for h in senders {
        let _ = h.await;
    }
    let after = server.usage();
    let elapsed = sending_done_at.map(|d| d.duration_since(epoch)).unwrap_or(run_for).as_secs_f64();
    for p in pairs.iter() {
        p.visitor.close();
        p.agent.close();
    }

    let sent = sent.load(Ordering::Relaxed);
    let mut run = Run::new(server.target.name());
    run.set("sessions", pairs.len() as u64);
    run.set("setup_secs", setup_secs);
    run.set("sent", sent);
    run.set("delivered", seen.delivered);
    run.set("delivered_per_s", seen.delivered as f64 / elapsed.max(1e-9));
    run.set("latency", seen.latencies.summary());
    run.set("lost", sent.saturating_sub(seen.delivered));
    run.set("duplicated", seen.duplicated);
    run.set("failures", send_failures.load(Ordering::Relaxed) + errors);
    run.set("server_cpu_cores", before.cpu_between(&after));
    run.set("server_rss_mb", after.rss_bytes as f64 / 1_048_576.0);
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_tags_round_trip() {
        assert_eq!(decode(&encode(true, 7, 42, 123_456)), Some((true, 7, 42, 123_456)));
        assert_eq!(decode(&encode(false, 0, 0, 0)), Some((false, 0, 0, 0)));
        assert_eq!(decode("hello"), None);
        assert_eq!(decode("x:1:2:3"), None);
    }
}
