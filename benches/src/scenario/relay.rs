//! `relay`: S sessions, each a visitor and an agent exchanging `send-message` at R messages a
//! second (the two sides take turns). Every message carries its step, sender, session, sequence
//! number and send time, so the receiving side measures end-to-end latency and finds lost and
//! duplicated messages. On Parley the session is a real handed-off conversation (the visitor
//! asked for a human, the agent took it) and every message is saved before it is relayed; the
//! Node peer relays within a room and keeps nothing.
//!
//! The sessions are a [`Rig`]: opened once, then driven through one or more [`Step`]s (one for
//! `relay`, a ramp for `--find-max`, one overloaded step for `overload`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::ACK_TIMEOUT;
use crate::client::{Client, Inbound, TRACKED_ACK};
use crate::report::{Latencies, Run};
use crate::setup::Api;
use crate::target::{Server, Target, Usage};
use crate::{Args, Res};

/// Sessions being set up at once.
const SETUP_IN_FLIGHT: usize = 16;
/// How long a plain relay waits for stragglers after the last send.
const DRAIN: Duration = Duration::from_secs(10);
/// Ack ids of tracked sends start here, far above the ids `emit_ack` hands out.
const TRACKED_BASE: u64 = 1 << 40;

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

/// A message's identity: (session, sender is agent, seq).
type Key = (usize, bool, u64);

/// `v|a : step : session : seq : micros since the run's epoch`
fn encode(agent: bool, step: u32, session: usize, seq: u64, micros: u128) -> String {
    format!("{}:{step}:{session}:{seq}:{micros}", if agent { 'a' } else { 'v' })
}

fn decode(content: &str) -> Option<(bool, u32, usize, u64, u128)> {
    let mut parts = content.split(':');
    let agent = match parts.next()? {
        "a" => true,
        "v" => false,
        _ => return None,
    };
    Some((agent, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// One stretch of load on a rig.
#[derive(Debug, Clone)]
pub struct Step {
    /// Told apart from the other steps' messages on the wire (late ones are not counted twice).
    pub id: u32,
    /// Messages a second, over all sessions.
    pub total_rate: f64,
    pub duration: Duration,
    /// Ask for an ack of every message and check that every acknowledged one is delivered.
    pub acked: bool,
    /// How long to wait for stragglers after the last send.
    pub drain: Duration,
}

/// What one step measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub offered_per_s: f64,
    pub sent: u64,
    pub delivered: u64,
    /// Delivered while the senders were still sending, per second of sending: the throughput.
    pub delivered_per_s: f64,
    pub duplicated: u64,
    pub lost: u64,
    /// Sends that never reached the wire, plus `error` events.
    pub failures: u64,
    pub acks_ok: u64,
    /// Acks saying no (`success: false`): the server refused the message, visibly.
    pub acks_refused: u64,
    /// Tracked sends that got no ack at all by the end of the drain.
    pub acks_missing: u64,
    /// Acknowledged with success but never delivered: the one thing that must never happen.
    pub lost_acked: u64,
    pub latencies: Latencies,
    pub server_cpu_cores: f64,
    /// The harness's own CPU over the step: on a machine it shares with the server, what is
    /// left for the server is the cores minus this.
    pub bench_cpu_cores: f64,
    pub rss_mb_end: f64,
    pub rss_mb_peak: f64,
    /// (seconds into the step, RSS in MB), one a second.
    pub rss_series: Vec<(f64, f64)>,
    pub first_refusal: Option<String>,
}

impl Outcome {
    pub fn p99_ms(&mut self) -> f64 {
        self.latencies.summary()["p99_ms"].as_f64().unwrap_or(0.0)
    }

    /// Figures into a run, under `prefix` (empty for the top level).
    pub fn write(mut self, run: &mut Run, prefix: &str) {
        let key = |k: &str| if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        run.set(&key("offered_per_s"), self.offered_per_s.round());
        run.set(&key("sent"), self.sent);
        run.set(&key("delivered"), self.delivered);
        run.set(&key("delivered_per_s"), self.delivered_per_s.round());
        run.set(&key("latency"), self.latencies.summary());
        run.set(&key("lost"), self.lost);
        run.set(&key("duplicated"), self.duplicated);
        run.set(&key("failures"), self.failures);
        if self.acks_ok + self.acks_refused + self.acks_missing > 0 {
            run.set(&key("acks_ok"), self.acks_ok);
            run.set(&key("acks_refused"), self.acks_refused);
            run.set(&key("acks_missing"), self.acks_missing);
            run.set(&key("lost_acked"), self.lost_acked);
        }
        run.set(&key("server_cpu_cores"), self.server_cpu_cores);
        run.set(&key("bench_cpu_cores"), self.bench_cpu_cores);
        run.set(&key("server_rss_mb"), self.rss_mb_end);
        run.set(&key("server_rss_peak_mb"), self.rss_mb_peak);
    }
}

/// Open sessions, ready to be driven.
pub struct Rig {
    pairs: Arc<Vec<Pair>>,
    rx: mpsc::UnboundedReceiver<Inbound>,
    epoch: Instant,
    pub setup_secs: f64,
}

impl Rig {
    pub async fn open(server: &Server, sessions: usize) -> Res<Rig> {
        let (tx, rx) = mpsc::unbounded_channel::<Inbound>();
        let (api, owner) = match server.target {
            Target::Parley => {
                let api = Api::new(&server.base)?;
                let owner = api.owner_with_bot("relay").await?;
                (Some(api), Some(owner))
            }
            Target::Node => (None, None),
        };
        let setup_started = Instant::now();
        let pairs: Vec<Pair> = stream::iter(0..sessions)
            .map(|i| pair_up(server, i, api.as_ref(), owner.as_ref(), tx.clone()))
            .buffered(SETUP_IN_FLIGHT)
            .try_collect()
            .await?;
        drop(tx);
        let mut rig = Rig { pairs: Arc::new(pairs), rx, epoch: Instant::now(), setup_secs: setup_started.elapsed().as_secs_f64() };
        // Events of the set-up (the bot's first answer, joins) are not part of the run.
        rig.settle(Duration::from_millis(300), Duration::from_secs(30)).await;
        Ok(rig)
    }

    pub fn sessions(&self) -> usize {
        self.pairs.len()
    }

    /// Discards what arrives until nothing has for `quiet` (at most `max`): a step that left a
    /// backlog behind does not spill into the next one.
    pub async fn settle(&mut self, quiet: Duration, max: Duration) {
        let started = Instant::now();
        while started.elapsed() < max {
            match tokio::time::timeout(quiet, self.rx.recv()).await {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            }
        }
    }

    pub fn close(&self) {
        for p in self.pairs.iter() {
            p.visitor.close();
            p.agent.close();
        }
    }

    /// Drives one step and watches what comes back.
    pub async fn step(&mut self, server: &Server, step: &Step) -> Outcome {
        let sessions = self.pairs.len().max(1);
        let period = Duration::from_secs_f64(sessions as f64 / step.total_rate.max(0.001));
        let sent = Arc::new(AtomicU64::new(0));
        let send_failures = Arc::new(AtomicU64::new(0));
        let before = server.usage();
        let bench_before = Usage::of(std::process::id());
        let started = Instant::now();

        let mut senders = Vec::new();
        for i in 0..self.pairs.len() {
            let (pairs, sent, send_failures, epoch) = (self.pairs.clone(), sent.clone(), send_failures.clone(), self.epoch);
            let step = step.clone();
            senders.push(tokio::spawn(async move {
                let Some(pair) = pairs.get(i) else { return };
                // The sessions' sends are spread over one period (not all at its start), and a
                // sender that fell behind catches up (Burst), so the offered rate is the rate asked.
                let first = tokio::time::Instant::now() + period.mul_f64(i as f64 / pairs.len().max(1) as f64);
                let mut tick = tokio::time::interval_at(first, period);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
                let mut seq = 0u64;
                while started.elapsed() < step.duration {
                    tick.tick().await;
                    let agent = seq % 2 == 1;
                    let text = encode(agent, step.id, i, seq, epoch.elapsed().as_micros());
                    let from = if agent { &pair.agent } else { &pair.visitor };
                    let ack = step.acked.then(|| TRACKED_BASE + (u64::from(step.id) << 32) + seq);
                    let result = from.send_message(&pair.session_id, &text, ack);
                    match result {
                        Ok(()) => sent.fetch_add(1, Ordering::Relaxed),
                        Err(_) => send_failures.fetch_add(1, Ordering::Relaxed),
                    };
                    seq += 1;
                }
            }));
        }

        let mut out = Outcome::default();
        let mut keys: HashSet<Key> = HashSet::new();
        let mut acked_ok: HashSet<Key> = HashSet::new();
        let mut acks_seen = 0u64;
        let mut errors = 0u64;
        let mut delivered_while_sending = 0u64;
        let mut sending_done_at: Option<Instant> = None;
        let mut next_sample = Instant::now();
        loop {
            if next_sample <= Instant::now() {
                let u = server.usage();
                let mb = u.rss_bytes as f64 / 1_048_576.0;
                out.rss_series.push((started.elapsed().as_secs_f64(), mb));
                out.rss_mb_peak = out.rss_mb_peak.max(mb);
                next_sample += Duration::from_secs(1);
            }
            if sending_done_at.is_none() && senders.iter().all(|h| h.is_finished()) {
                sending_done_at = Some(Instant::now());
                delivered_while_sending = out.delivered;
            }
            if let Some(done) = sending_done_at {
                let total = sent.load(Ordering::Relaxed);
                let all_in = out.delivered + out.duplicated >= total && (!step.acked || acks_seen >= total);
                if all_in || done.elapsed() > step.drain {
                    break;
                }
            }
            // Take what has already arrived without arming a timer: at tens of thousands of
            // events a second, a timeout per event was a measurable part of the harness's CPU.
            let (client, name, payload) = match self.rx.try_recv() {
                Ok(e) => e,
                Err(mpsc::error::TryRecvError::Disconnected) => break,
                Err(mpsc::error::TryRecvError::Empty) => match tokio::time::timeout(Duration::from_millis(50), self.rx.recv()).await {
                    Ok(Some(e)) => e,
                    Ok(None) => break,
                    Err(_) => continue,
                },
            };
            match name.as_str() {
                "new-message" => {
                    let Some(content) = payload["message"]["content"].as_str() else { continue };
                    let Some((from_agent, step_id, session, seq, micros)) = decode(content) else { continue };
                    let receiver_is_agent = client % 2 == 1;
                    if from_agent == receiver_is_agent || client / 2 != session || step_id != step.id {
                        continue; // the sender's own echo, another step's straggler, or (never expected) another session's
                    }
                    let now = self.epoch.elapsed().as_micros();
                    if keys.insert((session, from_agent, seq)) {
                        out.delivered += 1;
                        let micros = u64::try_from(now.saturating_sub(micros)).unwrap_or(u64::MAX);
                        out.latencies.push(Duration::from_micros(micros));
                    } else {
                        out.duplicated += 1;
                    }
                }
                n if n == TRACKED_ACK => {
                    let Some(id) = payload["id"].as_u64() else { continue };
                    let Some(local) = id.checked_sub(TRACKED_BASE + (u64::from(step.id) << 32)) else { continue };
                    if local >= 1 << 32 {
                        continue; // another step's
                    }
                    acks_seen += 1;
                    let key = (client / 2, client % 2 == 1, local);
                    if payload["ack"]["success"] == true {
                        out.acks_ok += 1;
                        acked_ok.insert(key);
                    } else {
                        out.acks_refused += 1;
                        if out.first_refusal.is_none() {
                            out.first_refusal = Some(payload["ack"].to_string());
                        }
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
        let sending_secs = sending_done_at.map(|d| d.duration_since(started)).unwrap_or(step.duration).as_secs_f64().max(1e-9);
        let sent = sent.load(Ordering::Relaxed);
        out.offered_per_s = sent as f64 / sending_secs;
        out.sent = sent;
        out.delivered_per_s = if sending_done_at.is_some() { delivered_while_sending } else { out.delivered } as f64 / sending_secs;
        out.failures = send_failures.load(Ordering::Relaxed) + errors;
        out.server_cpu_cores = before.cpu_between(&after);
        out.bench_cpu_cores = bench_before.cpu_between(&Usage::of(std::process::id()));
        out.rss_mb_end = after.rss_bytes as f64 / 1_048_576.0;
        out.rss_mb_peak = out.rss_mb_peak.max(out.rss_mb_end);
        if step.acked {
            // A refused message is not expected to arrive; everything else is.
            out.lost = sent.saturating_sub(out.delivered + out.acks_refused);
            out.acks_missing = sent.saturating_sub(acks_seen);
            out.lost_acked = acked_ok.iter().filter(|k| !keys.contains(k)).count() as u64;
        } else {
            out.lost = sent.saturating_sub(out.delivered);
        }
        out
    }
}

pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let mut rig = Rig::open(server, args.sessions).await?;
    let step = Step {
        id: 0,
        total_rate: args.rate * rig.sessions() as f64,
        duration: Duration::from_secs_f64(args.duration_secs),
        acked: false,
        drain: DRAIN,
    };
    let outcome = rig.step(server, &step).await;
    rig.close();
    let mut run = Run::new(server.target.name());
    run.set("sessions", rig.sessions() as u64);
    run.set("setup_secs", rig.setup_secs);
    outcome.write(&mut run, "");
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_tags_round_trip() {
        assert_eq!(decode(&encode(true, 3, 7, 42, 123_456)), Some((true, 3, 7, 42, 123_456)));
        assert_eq!(decode(&encode(false, 0, 0, 0, 0)), Some((false, 0, 0, 0, 0)));
        assert_eq!(decode("hello"), None);
        assert_eq!(decode("x:1:2:3:4"), None);
    }
}
