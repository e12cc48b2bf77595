//! `idle`: open N visitor connections and hold them. Reports the server's RSS before and after,
//! bytes per connection, the connect rate and failures. With `--procs P` the connections are
//! opened by P client processes (one process can hold fewer sockets than its file limit).

use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use crate::client::Client;
use crate::report::Run;
use crate::setup::Api;
use crate::target::{Server, Target};
use crate::{Args, Res};

/// Connections being opened at once by one process.
const IN_FLIGHT: usize = 256;

/// Visitor tokens to spread the connections over (several tabs of one visitor each).
const CONVERSATIONS: usize = 20;

async fn open(base: &str, auths: &[Value], count: usize) -> (Vec<Client>, usize, Duration) {
    let started = Instant::now();
    let results: Vec<_> = stream::iter(0..count)
        .map(|i| {
            let auth = auths.get(i % auths.len().max(1)).cloned().unwrap_or(Value::Null);
            async move { Client::connect(base, auth, i, None).await }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let elapsed = started.elapsed();
    let mut clients = Vec::new();
    let mut failed = 0;
    for r in results {
        match r {
            Ok(c) => clients.push(c),
            Err(e) => {
                if failed == 0 {
                    eprintln!("idle: a connection failed: {e}");
                }
                failed += 1;
            }
        }
    }
    (clients, failed, elapsed)
}

pub async fn run(server: &Server, args: &Args) -> Res<Run> {
    let auths: Vec<Value> = match server.target {
        Target::Parley => {
            let api = Api::new(&server.base)?;
            let owner = api.owner_with_bot("idle").await?;
            let mut auths = Vec::new();
            for _ in 0..CONVERSATIONS.min(args.connections.max(1)) {
                let c = api.conversation(&owner.bot_id, "hello").await?;
                auths.push(json!({"visitorToken": c.visitor_token}));
            }
            auths
        }
        Target::Node => vec![json!({"visitorToken": "peer"})],
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = server.usage();

    let procs = args.procs.max(1);
    let mine = args.connections / procs + args.connections % procs;
    let mut workers = Vec::new();
    for _ in 1..procs {
        let exe = std::env::current_exe()?;
        let mut cmd = Command::new(exe);
        cmd.arg("idle").arg("--worker").arg(&server.base).arg("--connections").arg((args.connections / procs).to_string());
        for a in &auths {
            cmd.arg("--auth").arg(a.to_string());
        }
        cmd.stdout(std::process::Stdio::piped()).stdin(std::process::Stdio::piped()).kill_on_drop(true);
        workers.push(cmd.spawn()?);
    }
    let (clients, mut failed, elapsed) = open(&server.base, &auths, mine).await;
    let mut connected = clients.len();
    let mut slowest = elapsed;
    for w in &mut workers {
        let Some(out) = w.stdout.take() else { continue };
        let mut lines = BufReader::new(out).lines();
        if let Ok(Some(line)) = lines.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            connected += v["connected"].as_u64().unwrap_or(0) as usize;
            failed += v["failed"].as_u64().unwrap_or(0) as usize;
            slowest = slowest.max(Duration::from_secs_f64(v["secs"].as_f64().unwrap_or(0.0)));
        }
    }

    // Hold: the server's memory settles with every connection idle (heartbeats only).
    tokio::time::sleep(Duration::from_secs_f64(args.duration_secs)).await;
    let after = server.usage();
    for c in &clients {
        c.close();
    }
    drop(workers); // kill_on_drop closes the workers' connections

    let mut run = Run::new(server.target.name());
    run.set("connections", connected as u64);
    run.set("failures", failed as u64);
    run.set("connect_rate_per_s", connected as f64 / slowest.as_secs_f64().max(1e-9));
    run.set("rss_before_mb", before.rss_bytes as f64 / 1_048_576.0);
    run.set("rss_after_mb", after.rss_bytes as f64 / 1_048_576.0);
    let per = after.rss_bytes.saturating_sub(before.rss_bytes) as f64 / connected.max(1) as f64;
    run.set("bytes_per_connection", per.round());
    run.set("server_cpu_cores_while_holding", before.cpu_between(&after));
    Ok(run)
}

/// A client process: opens its share, prints one JSON line, holds until the parent is gone.
pub async fn worker(base: &str, args: &Args) -> Res<()> {
    let auths: Vec<Value> = args.auth.iter().filter_map(|a| serde_json::from_str(a).ok()).collect();
    let (clients, failed, elapsed) = open(base, &auths, args.connections).await;
    println!("{}", json!({"connected": clients.len(), "failed": failed, "secs": elapsed.as_secs_f64()}));
    // Hold until stdin closes (the parent dropped us) — reading stdin ends then.
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(_)) = stdin.next_line().await {}
    drop(clients);
    Ok(())
}
