//! parley-bench: drives a running server through the real protocol (Engine.IO v4 / Socket.IO v5
//! over websocket) and reports what it measured, as a table and a JSON file.
//!
//!   parley-bench idle    [--connections N] [--procs P]
//!   parley-bench relay   [--sessions S] [--rate R] [--find-max]
//!   parley-bench overload [--sessions S] [--max N] [--factor F]
//!   parley-bench ai      [--visitors V]
//!   parley-bench handoff [--requests K] [--agents M]
//!   common: --target parley|node  --compare node  --duration SECONDS  --parley-bin PATH
//!           --json PATH  --assert-clean (exit 1 on a lost or duplicated message or a failure)
//!           --database-url postgres://user@host:port (Parley on a fresh PostgreSQL database)
//!
//! `relay --find-max` ramps the offered rate (from S × R, by half again each step of --duration
//! seconds) until p99 passes 100 ms or a message is late, narrows the edge, and reports each
//! server's sustained maximum. `overload` offers F × Parley's maximum (`--max`, else found
//! first) with every message acked, and reports the plateau, refusals, RSS and lost acks.
//!
//! `--harness-threads N` sets the harness's own threads. `relay` (and so `--find-max`) runs on one
//! by default: the harness shares the machine with the server it measures, and on one thread its
//! tasks hand messages to each other without waking another thread (on two, a quarter more CPU
//! per message went to those wake-ups, CPU taken from the server). `overload` and the rest use
//! one per core, to offer as much as they can.
//!
//! The harness starts and stops the servers itself (Parley on a fresh SQLite data dir, the Node
//! socket.io peer from benches/peers/socketio-node), loopback only, and raises its open-file
//! limit to the hard limit first (the servers it starts inherit it).

mod client;
mod report;
mod scenario;
mod setup;
mod target;

use std::path::PathBuf;

use serde_json::json;

use report::Run;
use target::{ParleyOptions, Server, Target};

pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Debug, Clone)]
pub struct Args {
    pub scenario: String,
    pub targets: Vec<Target>,
    pub duration_secs: f64,
    pub connections: usize,
    pub procs: usize,
    pub sessions: usize,
    pub rate: f64,
    pub visitors: usize,
    pub requests: usize,
    pub agents: usize,
    pub parley_bin: Option<PathBuf>,
    pub database_url: Option<String>,
    pub find_max: bool,
    /// `overload`: the peak to multiply, msg/s (else measured).
    pub max_rate: Option<f64>,
    /// `overload`: how many times the peak to offer.
    pub factor: f64,
    pub json: PathBuf,
    pub assert_clean: bool,
    /// Internal: a client worker process of `idle` (`--worker BASE`).
    pub worker: Option<String>,
    pub auth: Vec<String>,
    /// The harness's runtime threads (`--harness-threads`; 1: a single-threaded runtime).
    pub harness_threads: Option<usize>,
}

const USAGE: &str = "usage: parley-bench <idle|relay|overload|ai|handoff> [--target parley|node] [--compare node] \
[--duration S] [--connections N] [--procs P] [--sessions S] [--rate R] [--find-max] [--max N] [--factor F] \
[--visitors V] [--requests K] [--agents M] [--parley-bin PATH] [--database-url URL] [--json PATH] [--assert-clean] \
[--harness-threads N]";

fn parse_args() -> Res<Args> {
    let mut it = std::env::args().skip(1);
    let scenario = it.next().ok_or(USAGE)?;
    if !["idle", "relay", "overload", "ai", "handoff"].contains(&scenario.as_str()) {
        return Err(format!("unknown scenario {scenario:?}\n{USAGE}").into());
    }
    let mut a = Args {
        scenario: scenario.clone(),
        targets: vec![Target::Parley],
        duration_secs: 10.0,
        connections: 1000,
        procs: 1,
        sessions: 100,
        rate: 10.0,
        visitors: 20,
        requests: 50,
        agents: 5,
        parley_bin: None,
        database_url: None,
        find_max: false,
        max_rate: None,
        factor: 5.0,
        json: PathBuf::from(format!("bench-{scenario}.json")),
        assert_clean: false,
        worker: None,
        auth: Vec::new(),
        harness_threads: None,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--target" => a.targets = vec![Target::parse(&value()?).ok_or("--target is parley or node")?],
            "--compare" => {
                let other = Target::parse(&value()?).ok_or("--compare takes node")?;
                if !a.targets.contains(&other) {
                    a.targets.push(other);
                }
            }
            "--duration" => a.duration_secs = value()?.parse()?,
            "--connections" => a.connections = value()?.parse()?,
            "--procs" => a.procs = value()?.parse::<usize>()?.max(1),
            "--sessions" => a.sessions = value()?.parse()?,
            "--rate" => a.rate = value()?.parse()?,
            "--visitors" => a.visitors = value()?.parse()?,
            "--requests" => a.requests = value()?.parse()?,
            "--agents" => a.agents = value()?.parse()?,
            "--parley-bin" => a.parley_bin = Some(PathBuf::from(value()?)),
            "--database-url" => a.database_url = Some(value()?),
            "--find-max" => a.find_max = true,
            "--max" => a.max_rate = Some(value()?.parse()?),
            "--factor" => a.factor = value()?.parse()?,
            "--json" => a.json = PathBuf::from(value()?),
            "--assert-clean" => a.assert_clean = true,
            "--worker" => a.worker = Some(value()?),
            "--auth" => a.auth.push(value()?),
            "--harness-threads" => a.harness_threads = Some(value()?.parse::<usize>()?.max(1)),
            other => return Err(format!("unknown option {other}\n{USAGE}").into()),
        }
    }
    if a.targets.contains(&Target::Node) && matches!(a.scenario.as_str(), "ai" | "handoff") {
        return Err("the Node peer implements idle and relay only".into());
    }
    Ok(a)
}

impl Args {
    /// The harness's runtime threads: as asked, else one for `relay` and one per core otherwise.
    fn harness_threads(&self) -> usize {
        let default = if self.scenario == "relay" { 1 } else { std::thread::available_parallelism().map_or(2, |n| n.get()) };
        self.harness_threads.unwrap_or(default)
    }

    fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        match self.harness_threads() {
            1 => tokio::runtime::Builder::new_current_thread().enable_all().build(),
            n => tokio::runtime::Builder::new_multi_thread().worker_threads(n).enable_all().build(),
        }
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("parley-bench: {e}");
            std::process::exit(2);
        }
    };
    let code = match args.runtime() {
        Ok(rt) => match rt.block_on(run(args)) {
            Ok(clean) => i32::from(!clean),
            Err(e) => {
                eprintln!("parley-bench: {e}");
                2
            }
        },
        Err(e) => {
            eprintln!("parley-bench: {e}");
            2
        }
    };
    std::process::exit(code);
}

/// Runs the scenario on each target in turn; `Ok(false)` when --assert-clean found a problem.
async fn run(args: Args) -> Res<bool> {
    let limit = target::raise_file_limit();
    if let Some(base) = &args.worker {
        scenario::idle::worker(base, &args).await?;
        return Ok(true);
    }
    println!("parley-bench {}: open-file limit {limit}", args.scenario);
    let mut runs: Vec<Run> = Vec::new();
    let mut clean = true;
    let parley = ParleyOptions { bin: args.parley_bin.clone(), database_url: args.database_url.clone() };
    let mut overload = scenario::overload::Shared::default();
    for &t in &args.targets {
        let server = Server::start(t, &parley).await?;
        println!("{} listening on {}", t.name(), server.base);
        let outcome = match args.scenario.as_str() {
            "idle" => scenario::idle::run(&server, &args).await,
            "relay" if args.find_max => scenario::find_max::run(&server, &args).await,
            "relay" => scenario::relay::run(&server, &args).await,
            "overload" => scenario::overload::run(&server, &args, &mut overload).await,
            "ai" => scenario::ai::run(&server, &args).await,
            _ => scenario::handoff::run(&server, &args).await,
        };
        server.stop().await;
        let run = outcome?;
        clean &= scenario::is_clean(&run);
        runs.push(run);
    }
    report::print_table(&args.scenario, &runs);
    let settings = json!({
        "duration_secs": args.duration_secs, "connections": args.connections, "procs": args.procs,
        "sessions": args.sessions, "rate": args.rate, "visitors": args.visitors,
        "requests": args.requests, "agents": args.agents, "open_file_limit": limit,
        "find_max": args.find_max, "max": args.max_rate, "factor": args.factor,
        "harness_threads": args.harness_threads(),
        "database": if args.database_url.is_some() { "postgres" } else { "sqlite" },
    });
    std::fs::write(&args.json, serde_json::to_string_pretty(&report::to_json(&args.scenario, &settings, &runs))?)?;
    println!("\nJSON written to {}", args.json.display());
    if args.assert_clean && !clean {
        eprintln!("parley-bench: lost or duplicated messages, or failures (see the table)");
        return Ok(false);
    }
    Ok(true)
}
