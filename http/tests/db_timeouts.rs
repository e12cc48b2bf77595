//! Hardening finding 10: a database that stops answering gives quick 503s instead of a queue
//! of calls that wait forever, and the server recovers by itself when it answers again.
//!
//! The test starts a PostgreSQL cluster of its own (initdb into a temporary directory, pg_ctl
//! on a free port, as the `postgres` user) and freezes it with SIGSTOP: the postmaster and
//! every backend, as a hung machine or a stalled disk would look. Without Debian's PostgreSQL
//! binaries, or without the rights to run them as `postgres`, it says so and passes.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use support::TestApp;

/// A private PostgreSQL cluster, stopped (and thawed first) when dropped.
struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .map_err(|e| format!("no /usr/lib/postgresql: {e}"))?
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .find(|b| b.join("initdb").exists())
            .ok_or("no initdb under /usr/lib/postgresql/*/bin")?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        run("chown", &["-R", "postgres", &dir.path().to_string_lossy()])?;
        let data = dir.path().join("data");
        let initdb = bin.join("initdb");
        as_postgres(&initdb, &["-D", &data.to_string_lossy(), "-U", "postgres", "--auth=trust", "-N"])?;
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let options = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", dir.path().display());
        let log = dir.path().join("log");
        as_postgres(&bin.join("pg_ctl"), &["-D", &data.to_string_lossy(), "-o", &options, "-l", &log.to_string_lossy(), "-w", "start"])?;
        Ok(Cluster { dir, bin, port })
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The postmaster and its children (every backend and helper).
    fn pids(&self) -> Vec<String> {
        let pidfile = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid")).unwrap_or_default();
        let Some(main) = pidfile.lines().next().map(str::trim).map(str::to_string) else { return Vec::new() };
        let children = Command::new("pgrep").args(["-P", &main]).output().map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default();
        std::iter::once(main).chain(children.split_whitespace().map(str::to_string)).collect()
    }

    fn signal(&self, signal: &str) {
        for pid in self.pids() {
            let _ = Command::new("kill").args([signal, &pid]).status();
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.signal("-CONT");
        let data = self.dir.path().join("data");
        let _ = as_postgres(&self.bin.join("pg_ctl"), &["-D", &data.to_string_lossy(), "-m", "immediate", "stop"]);
    }
}

fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(program).args(args).output().map_err(|e| format!("{program}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

fn as_postgres(program: &Path, args: &[&str]) -> Result<(), String> {
    let program = program.to_string_lossy();
    let mut all = vec!["-u", "postgres", "--", program.as_ref()];
    all.extend_from_slice(args);
    run("runuser", &all)
}

#[actix_web::test]
async fn a_database_that_stops_answering_gives_quick_503s_and_recovers() {
    let cluster = match Cluster::start() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("SKIPPED: cannot start a private PostgreSQL cluster to pause: {why}");
            return;
        }
    };
    let url = cluster.url();
    let app = TestApp::spawn_with(parley_store::Backend::Sqlite, |s| {
        s.database_url = url;
        s.database_pool_size = 4;
        s.database_wait_timeout_ms = 500;
        s.database_connect_timeout_secs = 1;
        s.database_recycle_timeout_ms = 500;
        s.database_statement_timeout_ms = 1000;
    })
    .await;
    let (token, _) = app.signup("owner@x.co").await;
    let (status, _) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);

    cluster.signal("-STOP");
    let started = Instant::now();
    let calls = (0..12).map(|i| {
        let path = if i % 2 == 0 { "/api/health" } else { "/api/bots" };
        let request = app.client.get(app.url(path)).bearer_auth(&token).timeout(Duration::from_secs(20));
        async move {
            let sent = Instant::now();
            let res = request.send().await;
            (path, res.map(|r| r.status()), sent.elapsed())
        }
    });
    for (path, status, took) in futures_util::future::join_all(calls).await {
        let status = status.unwrap_or_else(|e| panic!("{path}: no answer ({e}) after {took:?}"));
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{path}");
        assert!(took < Duration::from_secs(6), "{path} answered after {took:?}");
    }
    eprintln!("12 calls to a frozen database answered 503 within {:?}", started.elapsed());
    let (status, body) = app.post_json("/api/auth/login", None, serde_json::json!({"email": "owner@x.co", "password": "password123"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(support::message(&body), parley_store::DATABASE_UNAVAILABLE);

    cluster.signal("-CONT");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, _) = app.get("/api/health", None).await;
        if status == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not recover");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, _) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    app.signup("after@x.co").await;
}
