//! `ai`: V visitors ask questions of a bot trained on a FAQ (the extractive answerer, no key),
//! each asking its next question as soon as the last is answered. Reports reply latency (from
//! the question sent to the bot's answer arriving) and replies per second.

use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::mpsc;

use super::ACK_TIMEOUT;
use crate::client::{Client, Inbound};
use crate::report::{Latencies, Run};
use crate::setup::Api;
use crate::target::{workspace_root, Server};
use crate::{Args, Res};

/// The plan allows 50 Q&A pairs per bot.
const MAX_PAIRS: usize = 50;

#[derive(Deserialize)]
struct FaqSet {
    pairs: Vec<FaqPair>,
}

#[derive(Deserialize)]
struct FaqPair {
    question: String,
    answer: String,
    tests: Vec<String>,
}

pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let set: FaqSet = serde_json::from_str(&std::fs::read_to_string(workspace_root().join("benches/data/faq-eval.json"))?)?;
    let pairs: Vec<(String, String)> = set.pairs.iter().take(MAX_PAIRS).map(|p| (p.question.clone(), p.answer.clone())).collect();
    let questions: Vec<String> = set.pairs.iter().take(MAX_PAIRS).flat_map(|p| p.tests.clone()).collect();
    let api = Api::new(&server.base)?;
    let owner = api.owner_with_bot("ai").await?;
    let trained = Instant::now();
    api.train_qa(&owner, &pairs).await?;
    let training_secs = trained.elapsed().as_secs_f64();

    let (tx, mut rx) = mpsc::unbounded_channel::<Inbound>();
    let visitors: Vec<(String, Client)> = stream::iter(0..args.visitors)
        .map(|i| {
            let (api, bot, base, tx) = (&api, owner.bot_id.clone(), server.base.clone(), tx.clone());
            async move {
                let conv = api.conversation(&bot, "hello").await?;
                let c = Client::connect(&base, json!({"visitorToken": conv.visitor_token}), i, Some(tx)).await?;
                c.emit_ack("join-session", json!({"sessionId": conv.session_id}), ACK_TIMEOUT).await?;
                Res::Ok((conv.session_id, c))
            }
        })
        .buffered(16)
        .try_collect()
        .await
        .map_err(|e| format!("set-up: {e}"))?;
    drop(tx);
    tokio::time::sleep(Duration::from_millis(300)).await;
    while rx.try_recv().is_ok() {}

    let before = server.usage();
    let started = Instant::now();
    let run_for = Duration::from_secs_f64(args.duration_secs);
    let mut asked_at: Vec<Option<Instant>> = vec![None; visitors.len()];
    let mut next_q = 0usize;
    let mut latencies = Latencies::default();
    let mut failures = 0u64;
    let ask = |i: usize, asked_at: &mut Vec<Option<Instant>>, next_q: &mut usize| {
        let Some((session, client)) = visitors.get(i) else { return false };
        let q = questions.get(*next_q % questions.len().max(1)).cloned().unwrap_or_default();
        *next_q += 1;
        let ok = client.emit("send-message", json!({"sessionId": session, "message": q})).is_ok();
        if let Some(slot) = asked_at.get_mut(i) {
            *slot = ok.then(Instant::now);
        }
        ok
    };
    for i in 0..visitors.len() {
        if !ask(i, &mut asked_at, &mut next_q) {
            failures += 1;
        }
    }
    while asked_at.iter().any(Option::is_some) {
        let deadline = if started.elapsed() < run_for { Duration::from_secs(30) } else { Duration::from_secs(10) };
        let Ok(Some((i, name, payload))) = tokio::time::timeout(deadline, rx.recv()).await else {
            failures += asked_at.iter().filter(|a| a.is_some()).count() as u64;
            break;
        };
        if name != "new-message" || payload["message"]["role"] != "bot" {
            if name == "error" {
                failures += 1;
            }
            continue;
        }
        let Some(at) = asked_at.get_mut(i).and_then(Option::take) else { continue };
        latencies.push(at.elapsed());
        if payload["message"]["isError"] == true {
            failures += 1;
        }
        if started.elapsed() < run_for && !ask(i, &mut asked_at, &mut next_q) {
            failures += 1;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let after = server.usage();
    for (_, c) in &visitors {
        c.close();
    }

    let mut run = Run::new(server.target.name());
    run.set("visitors", visitors.len() as u64);
    run.set("knowledge_pairs", pairs.len() as u64);
    run.set("training_secs", training_secs);
    run.set("replies", latencies.len() as u64);
    run.set("replies_per_s", latencies.len() as f64 / elapsed.max(1e-9));
    run.set("reply_latency", latencies.summary());
    run.set("failures", failures);
    run.set("server_cpu_cores", before.cpu_between(&after));
    run.set("server_rss_mb", after.rss_bytes as f64 / 1_048_576.0);
    Ok(run)
}
