//! The servers under test: started by the harness on a free loopback port, watched through
//! /proc (RSS, CPU time), stopped when the scenario ends (also if the harness fails).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::Res;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Parley,
    Node,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "parley" => Some(Target::Parley),
            "node" => Some(Target::Node),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Parley => "parley",
            Target::Node => "node",
        }
    }
}

/// How to run Parley.
#[derive(Debug, Clone, Default)]
pub struct ParleyOptions {
    /// The binary (`--parley-bin`); else the release build, else the debug build.
    pub bin: Option<PathBuf>,
    /// `--database-url postgres://user@host:port`: run on a fresh PostgreSQL database made on
    /// that server for this run (and dropped after); else embedded SQLite in a temporary dir.
    pub database_url: Option<String>,
}

/// A running server.
pub struct Server {
    pub target: Target,
    pub base: String,
    child: Child,
    pid: u32,
    _data_dir: Option<TempDir>,
    database: Option<ScratchDatabase>,
}

/// A PostgreSQL database made for one run, dropped by [`Server::stop`].
struct ScratchDatabase {
    admin_url: String,
    name: String,
}

impl ScratchDatabase {
    /// `postgres://user@host:port[/db]` → a new empty database on that server, through `psql`.
    fn create(server_url: &str) -> Res<(ScratchDatabase, String)> {
        let rest = server_url.strip_prefix("postgres://").or_else(|| server_url.strip_prefix("postgresql://")).ok_or("--database-url must start with postgres://")?;
        let authority = rest.split('/').next().unwrap_or_default();
        let admin_url = format!("postgres://{authority}/postgres");
        let name = format!("parley_bench_{}_{}", std::process::id(), unique() % 1_000_000_000);
        psql(&admin_url, &format!("create database {name}"))?;
        let url = format!("postgres://{authority}/{name}");
        Ok((ScratchDatabase { admin_url, name }, url))
    }

    fn drop_now(&self) {
        let _ = psql(&self.admin_url, &format!("drop database if exists {} with (force)", self.name));
    }
}

fn psql(url: &str, sql: &str) -> Res<()> {
    let out = std::process::Command::new("psql").arg(url).arg("-qc").arg(sql).output().map_err(|e| format!("psql: {e} (is the PostgreSQL client installed?)"))?;
    if !out.status.success() {
        return Err(format!("psql {sql:?}: {}", String::from_utf8_lossy(&out.stderr).trim()).into());
    }
    Ok(())
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A server is quiet once it uses less than this share of a core ...
const QUIET_CORES: f64 = 0.05;
/// ... over this long.
const QUIET_WINDOW: Duration = Duration::from_millis(500);
/// The longest a start may take to fall quiet before the scenario runs anyway.
const SETTLE_LIMIT: Duration = Duration::from_secs(120);

/// The `parley` binary: `--parley-bin`, else the release build, else the debug build.
pub fn parley_binary(explicit: Option<&Path>) -> Res<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| workspace_root().join("target"));
    for profile in ["release", "debug"] {
        let bin = target_dir.join(profile).join("parley");
        if bin.exists() {
            return Ok(bin);
        }
    }
    Err(format!("no parley binary under {}: run `cargo build --release -p parley-http --bin parley` or pass --parley-bin", target_dir.display()).into())
}

impl Server {
    pub async fn start(target: Target, parley: &ParleyOptions) -> Res<Server> {
        let mut database = None;
        let (mut cmd, data_dir) = match target {
            Target::Parley => {
                let bin = parley_binary(parley.bin.as_deref())?;
                let dir = std::env::temp_dir().join(format!("parley-bench-{}-{}", std::process::id(), unique()));
                std::fs::create_dir_all(&dir)?;
                let mut cmd = Command::new(bin);
                cmd.arg("serve")
                    .current_dir(workspace_root())
                    .env("PARLEY_ADDR", "127.0.0.1:0")
                    .env("PARLEY_DATA_DIR", &dir)
                    .env("PARLEY_BILLING_DEFAULT_PLAN", "enterprise")
                    // Every load client connects from loopback and a relay socket may send faster
                    // than a person: no handshake rate, connection cap or per-socket event rate
                    // (a real deployment keeps them; the Node peer has none).
                    .env("PARLEY_REALTIME_HANDSHAKES_PER_IP_PER_SEC", "0")
                    .env("PARLEY_REALTIME_MAX_CONNECTIONS", "0")
                    .env("PARLEY_REALTIME_SOCKET_EVENTS_PER_SEC", "0")
                    // Nor budgets for sign-ins and new conversations: the harness opens
                    // thousands of conversations from one address.
                    .env("PARLEY_AUTH_IP_ATTEMPTS_PER_MINUTE", "0")
                    .env("PARLEY_REALTIME_NEW_CONVERSATIONS_PER_IP_PER_HOUR", "0")
                    .env("PARLEY_REALTIME_NEW_CONVERSATIONS_PER_BOT_PER_HOUR", "0")
                    .env("PARLEY_LOG", std::env::var("PARLEY_LOG").unwrap_or_else(|_| "warn".into()));
                if let Some(server_url) = &parley.database_url {
                    let (db, url) = ScratchDatabase::create(server_url)?;
                    cmd.env("PARLEY_DATABASE_URL", url);
                    database = Some(db);
                }
                (cmd, Some(TempDir(dir)))
            }
            Target::Node => {
                let peer = workspace_root().join("benches/peers/socketio-node");
                if !peer.join("node_modules/socket.io").exists() {
                    return Err(format!("the Node peer needs its packages: (cd {} && npm install)", peer.display()).into());
                }
                let mut cmd = Command::new("node");
                cmd.arg("server.mjs").current_dir(peer).env("PORT", "0");
                (cmd, None)
            }
        };
        cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let pid = child.id().ok_or("the server exited at once")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let started = Instant::now();
        let base = loop {
            let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
                .await
                .map_err(|_| format!("{} did not start within 60 s", target.name()))??
                .ok_or_else(|| format!("{} exited before listening", target.name()))?;
            if let Some(at) = line.find("listening on http://") {
                let rest = line.get(at + "listening on ".len()..).unwrap_or_default();
                break rest.split_whitespace().next().unwrap_or_default().to_string();
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("{} did not start", target.name()).into());
            }
        };
        // Keep draining its stdout (its log) so the server never blocks on a full pipe; what it
        // logs (warnings and errors by default) is passed on.
        let name = target.name();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("[{name}] {line}");
            }
        });
        let server = Server { target, base, child, pid, _data_dir: data_dir, database };
        server.settle().await;
        Ok(server)
    }

    /// Waits until the server has finished its start-up work (Parley trains its demo bot's
    /// knowledge on a first start, seconds of embedding on both cores), so a scenario's CPU
    /// and latency figures are the scenario's: quiet means under [`QUIET_CORES`] over a
    /// [`QUIET_WINDOW`], checked for at most [`SETTLE_LIMIT`].
    async fn settle(&self) {
        let started = Instant::now();
        let mut before = self.usage();
        while started.elapsed() < SETTLE_LIMIT {
            tokio::time::sleep(QUIET_WINDOW).await;
            let now = self.usage();
            if before.cpu_between(&now) < QUIET_CORES {
                return;
            }
            before = now;
        }
        eprintln!("{} was still busy {} s after it started listening; measuring anyway", self.target.name(), SETTLE_LIMIT.as_secs());
    }

    pub fn usage(&self) -> Usage {
        Usage::of(self.pid)
    }

    pub async fn stop(mut self) {
        if let Ok(pid) = i32::try_from(self.pid) {
            let _ = nix_kill(pid);
        }
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        let _ = self.child.kill().await;
        if let Some(db) = &self.database {
            db.drop_now();
        }
    }
}

fn nix_kill(pid: i32) -> std::io::Result<()> {
    // SIGTERM through the `kill` command: a clean shutdown without unsafe code.
    std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status().map(|_| ())
}

fn unique() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

/// A process's resident memory and CPU time at one moment, from /proc.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub rss_bytes: u64,
    pub cpu_secs: f64,
    pub at: Option<Instant>,
}

impl Usage {
    pub fn of(pid: u32) -> Usage {
        let rss_bytes = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
            .map(|kb| kb * 1024)
            .unwrap_or(0);
        let cpu_secs = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                // Fields after the command name (which may hold spaces) start after ')'.
                let rest = s.rsplit_once(')')?.1;
                let fields: Vec<&str> = rest.split_whitespace().collect();
                let utime: f64 = fields.get(11)?.parse().ok()?;
                let stime: f64 = fields.get(12)?.parse().ok()?;
                Some((utime + stime) / clock_ticks())
            })
            .unwrap_or(0.0);
        Usage { rss_bytes, cpu_secs, at: Some(Instant::now()) }
    }

    /// Share of one core used between `self` and `later` (1.0 = one core busy).
    pub fn cpu_between(&self, later: &Usage) -> f64 {
        match (self.at, later.at) {
            (Some(a), Some(b)) if b > a => (later.cpu_secs - self.cpu_secs) / (b - a).as_secs_f64(),
            _ => 0.0,
        }
    }
}

fn clock_ticks() -> f64 {
    // USER_HZ is 100 on every Linux this runs on; `getconf CLK_TCK` says otherwise if not.
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// Raises this process's soft open-file limit to the hard one (servers started afterwards
/// inherit it). Returns the new soft limit.
pub fn raise_file_limit() -> u64 {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) => {
            if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
                hard
            } else {
                soft
            }
        }
        Err(_) => 1024,
    }
}
