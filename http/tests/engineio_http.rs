#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Engine.IO over HTTP long-polling against a real server: the 400 rules, the handshake shape,
//! heartbeat timing and maxPayload.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::App;
use parley_http::realtime::engineio::{EchoHandler, EngineConfig, EngineServer};
use parley_http::realtime::{self, LiveMounts, SocketIo};
use serde_json::Value;

const PING_INTERVAL: u64 = 300;
const PING_TIMEOUT: u64 = 200;

fn config(max_payload: usize) -> EngineConfig {
    EngineConfig {
        ping_interval: Duration::from_millis(PING_INTERVAL),
        ping_timeout: Duration::from_millis(PING_TIMEOUT),
        max_payload,
        ..EngineConfig::default()
    }
}

/// Starts an echo Engine.IO server at /engine.io/ and a Socket.IO server at /socket.io/.
fn start(max_payload: usize) -> String {
    start_with(config(max_payload))
}

fn start_with(config: EngineConfig) -> String {
    let echo = EngineServer::new(config.clone(), Arc::new(EchoHandler));
    let io = SocketIo::new(config, Duration::from_millis(1000));
    io.ns("/", |_socket, _auth| async move { Ok(()) });
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mounts = LiveMounts::new().engine("/engine.io/", echo.clone()).socket_io(&io);
    let server = realtime::http_server(vec![listener], 1, mounts, move || {
        let echo = echo.clone();
        let io = io.clone();
        App::new().configure(move |cfg| {
            echo.mount(cfg, "/engine.io/");
            realtime::configure(cfg, io);
        })
    })
    .unwrap()
    .disable_signals()
    .run();
    actix_web::rt::spawn(server);
    format!("http://127.0.0.1:{port}")
}

/// Serves `io` alone at /socket.io/; returns the base URL.
fn serve_socket_io(io: SocketIo) -> String {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let mounts = LiveMounts::new().socket_io(&io);
    let server = realtime::http_server(vec![listener], 1, mounts, move || {
        let io = io.clone();
        App::new().configure(move |cfg| realtime::configure(cfg, io))
    })
    .unwrap()
    .disable_signals()
    .run();
    actix_web::rt::spawn(server);
    base
}

async fn get(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn post(url: &str, body: impl Into<reqwest::Body>) -> (u16, String) {
    let r = reqwest::Client::new().post(url).body(body).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn open(base: &str) -> (String, Value) {
    let (status, body) = get(&format!("{base}/engine.io/?EIO=4&transport=polling")).await;
    assert_eq!(status, 200);
    assert!(body.starts_with('0'), "{body}");
    let v: Value = serde_json::from_str(&body[1..]).unwrap();
    (v["sid"].as_str().unwrap().to_owned(), v)
}

#[actix_web::test]
async fn handshake_shape() {
    let base = start(1_000_000);
    let (_, v) = open(&base).await;
    let mut keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["maxPayload", "pingInterval", "pingTimeout", "sid", "upgrades"]);
    assert_eq!(v["upgrades"], serde_json::json!(["websocket"]));
    assert_eq!(v["pingInterval"], PING_INTERVAL);
    assert_eq!(v["pingTimeout"], PING_TIMEOUT);
    assert_eq!(v["maxPayload"], 1_000_000);
    // Same shape on the Socket.IO mount.
    let (status, body) = get(&format!("{base}/socket.io/?EIO=4&transport=polling")).await;
    assert_eq!(status, 200);
    assert!(body.starts_with("0{"));
}

#[actix_web::test]
async fn bad_requests_get_400() {
    let base = start(1_000_000);
    let e = format!("{base}/engine.io/");
    for q in ["?transport=polling", "?EIO=abc&transport=polling", "?EIO=3&transport=polling", "?EIO=4", "?EIO=4&transport=abc", "?EIO=4&transport=polling&sid=unknown"] {
        assert_eq!(get(&format!("{e}{q}")).await.0, 400, "{q}");
    }
    // POST without sid, PUT.
    assert_eq!(post(&format!("{e}?EIO=4&transport=polling"), "4x").await.0, 400);
    let put = reqwest::Client::new().put(format!("{e}?EIO=4&transport=polling")).send().await.unwrap();
    assert_eq!(put.status().as_u16(), 400);
    // A websocket request that is not an upgrade.
    assert_eq!(get(&format!("{e}?EIO=4&transport=websocket")).await.0, 400);
    // POST to an unknown sid.
    assert_eq!(post(&format!("{e}?EIO=4&transport=polling&sid=nope"), "4x").await.0, 400);
}

#[actix_web::test]
async fn echo_and_close_rules() {
    let base = start(1_000_000);
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    assert_eq!(post(&url, "4hello\x1ebAQIDBA==").await, (200, "ok".to_owned()));
    assert_eq!(get(&url).await, (200, "4hello\x1ebAQIDBA==".to_owned()));
    // Malformed payload closes the session.
    assert_eq!(post(&url, "abc").await.0, 400);
    assert_eq!(get(&url).await.0, 400);

    // A second concurrent GET closes the session; the first gets a close packet.
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    let first = actix_web::rt::spawn({
        let url = url.clone();
        async move { get(&url).await }
    });
    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(get(&url).await.0, 400);
    assert_eq!(first.await.unwrap(), (200, "1".to_owned()));
    assert_eq!(get(&url).await.0, 400);

    // Client close: the pending GET gets a noop, then the sid is gone.
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    let pending = actix_web::rt::spawn({
        let url = url.clone();
        async move { get(&url).await }
    });
    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(post(&url, "1").await.0, 200);
    assert_eq!(pending.await.unwrap(), (200, "6".to_owned()));
    assert_eq!(get(&url).await.0, 400);
}

/// Waits for `count` pings on a polling session, each within `within` ms of the last answer,
/// and answers each.
async fn answer_pings(url: &str, count: usize, within: std::ops::Range<u64>) {
    for _ in 0..count {
        let started = Instant::now();
        assert_eq!(get(url).await, (200, "2".to_owned()));
        let waited = started.elapsed().as_millis() as u64;
        assert!(within.contains(&waited), "ping after {waited} ms");
        assert_eq!(post(url, "3").await.0, 200);
    }
}

#[actix_web::test]
async fn heartbeat_timing() {
    let base = start(1_000_000);
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    answer_pings(&url, 3, PING_INTERVAL - 50..PING_INTERVAL + 150).await;
    // No pong: closed after pingInterval + pingTimeout.
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    assert_eq!(get(&url).await, (200, "2".to_owned()));
    actix_web::rt::time::sleep(Duration::from_millis(PING_TIMEOUT + 100)).await;
    assert_eq!(get(&url).await.0, 400);
}

/// Every session's heartbeat runs from one queue per server: a ping due sooner than the
/// deadline the queue is waiting for (here, another session's pong deadline) still goes out on
/// time, and a session that answers is never closed by a stale deadline.
#[actix_web::test]
async fn a_ping_due_before_another_sessions_pong_deadline_is_on_time() {
    let base = start_with(EngineConfig {
        ping_interval: Duration::from_millis(150),
        ping_timeout: Duration::from_millis(900),
        ..EngineConfig::default()
    });
    let (quiet, _) = open(&base).await;
    let quiet = format!("{base}/engine.io/?EIO=4&transport=polling&sid={quiet}");
    // Pinged at 150 ms and never answers: the queue now waits for its deadline at 1,050 ms.
    assert_eq!(get(&quiet).await, (200, "2".to_owned()));
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    answer_pings(&url, 3, 100..400).await;
    // The quiet one is closed at its deadline; the one that answered lives on.
    actix_web::rt::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(get(&quiet).await.0, 400);
    assert_eq!(get(&url).await, (200, "2".to_owned()));
}

#[actix_web::test]
async fn max_payload_closes() {
    let base = start(100);
    let (sid, _) = open(&base).await;
    let url = format!("{base}/engine.io/?EIO=4&transport=polling&sid={sid}");
    assert_eq!(post(&url, format!("4{}", "x".repeat(50))).await.0, 200);
    let (status, _) = post(&url, format!("4{}", "x".repeat(200))).await;
    assert_eq!(status, 413);
    assert_eq!(get(&url).await.0, 400);
}

#[actix_web::test]
async fn socketio_over_polling() {
    let base = start(1_000_000);
    let (status, body) = get(&format!("{base}/socket.io/?EIO=4&transport=polling")).await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body[1..]).unwrap();
    let url = format!("{base}/socket.io/?EIO=4&transport=polling&sid={}", v["sid"].as_str().unwrap());
    assert_eq!(post(&url, "40/nope,").await.0, 200);
    assert_eq!(get(&url).await.1, r#"44/nope,{"message":"Invalid namespace"}"#);
    assert_eq!(post(&url, "40").await.0, 200);
    let (_, body) = get(&url).await;
    assert!(body.starts_with("40{\"sid\":"), "{body}");
    // A malformed Socket.IO packet closes the connection.
    assert_eq!(post(&url, "42{}").await.0, 200);
    let (status, body) = get(&url).await;
    assert!(status == 400 || body == "1", "{status} {body}");
}

/// Answers any message with a flood of 500 messages.
struct Flood;
struct FloodConn(parley_http::realtime::EngineConn);
impl parley_http::realtime::engineio::EngineHandler for Flood {
    fn on_open(&self, conn: parley_http::realtime::EngineConn) -> Box<dyn parley_http::realtime::engineio::ConnHandler> {
        Box::new(FloodConn(conn))
    }
}
impl parley_http::realtime::engineio::ConnHandler for FloodConn {
    fn on_message(&mut self, _msg: parley_http::realtime::engineio::Message) {
        for i in 0..500 {
            self.0.send(parley_http::realtime::engineio::Message::Text(i.to_string()));
        }
    }
    fn on_close(&mut self, _reason: parley_http::realtime::CloseReason) {}
}

#[actix_web::test]
async fn slow_client_is_disconnected_not_buffered() {
    let small = EngineConfig { max_buffered_packets: 100, ..config(1_000_000) };
    let big = EngineConfig { max_buffered_packets: 1000, ..config(1_000_000) };
    let mut bases = Vec::new();
    for cfg in [small, big] {
        let srv = EngineServer::new(cfg, Arc::new(Flood));
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        bases.push(format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port()));
        let mounts = LiveMounts::new().engine("/engine.io/", srv.clone());
        let server = realtime::http_server(vec![listener], 1, mounts, move || {
            let srv = srv.clone();
            App::new().configure(move |c| srv.mount(c, "/engine.io/"))
        })
        .unwrap()
        .disable_signals()
        .run();
        actix_web::rt::spawn(server);
    }
    // Over the bound: the session is closed (close packet, then 400).
    let (sid, _) = open(&bases[0]).await;
    let url = format!("{}/engine.io/?EIO=4&transport=polling&sid={sid}", bases[0]);
    assert_eq!(post(&url, "4go").await.0, 200);
    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    let (status, body) = get(&url).await;
    assert!(status == 400 || body == "1", "{status} {body}");
    assert_eq!(get(&url).await.0, 400);
    // Within the bound: everything arrives, in order.
    let (sid, _) = open(&bases[1]).await;
    let url = format!("{}/engine.io/?EIO=4&transport=polling&sid={sid}", bases[1]);
    assert_eq!(post(&url, "4go").await.0, 200);
    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    let (status, body) = get(&url).await;
    assert_eq!(status, 200);
    let got: Vec<String> = body.split('\x1e').map(str::to_owned).collect();
    let want: Vec<String> = (0..500).map(|i| format!("4{i}")).collect();
    assert_eq!(got, want);
}

/// A socket's handlers often hold state that holds the socket (to send to it). Once the
/// connection closes, the server lets go of them, so neither outlives it.
#[actix_web::test]
async fn a_closed_socket_lets_go_of_its_handlers() {
    use std::sync::{Mutex, Weak};
    static HELD: Mutex<Vec<Weak<()>>> = Mutex::new(Vec::new());
    let io = SocketIo::new(config(1_000_000), Duration::from_millis(1000));
    io.ns("/", |socket, _auth| async move {
        let marker = Arc::new(());
        HELD.lock().unwrap().push(Arc::downgrade(&marker));
        // Each handler keeps the socket and the marker: a cycle unless the socket drops them.
        let (s, m) = (socket.clone(), marker.clone());
        socket.on_any(move |_, _, _| {
            let _keep = (&s, &m);
            async {}
        });
        let (s, m) = (socket.clone(), marker.clone());
        socket.on("named", move |_, _, _| {
            let _keep = (&s, &m);
            async {}
        });
        let (s, m) = (socket.clone(), marker.clone());
        socket.gate(move |_, ack| {
            let _keep = (&s, &m);
            parley_http::realtime::Admission::Handle { pass: Box::new(()), ack }
        });
        let (s, m) = (socket.clone(), marker);
        socket.on_disconnect(move |_, _| {
            let _keep = (&s, &m);
            async {}
        });
        Ok(())
    });
    let base = serve_socket_io(io);

    for _ in 0..3 {
        let (_, body) = get(&format!("{base}/socket.io/?EIO=4&transport=polling")).await;
        let v: Value = serde_json::from_str(&body[1..]).unwrap();
        let url = format!("{base}/socket.io/?EIO=4&transport=polling&sid={}", v["sid"].as_str().unwrap());
        assert_eq!(post(&url, "40").await.0, 200);
        assert!(get(&url).await.1.starts_with("40{"));
        assert_eq!(post(&url, "1").await.0, 200);
    }
    actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    let held = HELD.lock().unwrap();
    assert_eq!(held.len(), 3);
    assert!(held.iter().all(|w| w.upgrade().is_none()), "a closed socket's handlers are still alive");
}

/// A long-polling client that has not collected its packets has them waiting in the session's
/// queue, not the outbox: asking whether the connection has room must count them, so senders
/// hear "busy" before the slow poller overflows and is closed.
#[actix_web::test]
async fn a_slow_pollers_waiting_packets_leave_no_room() {
    let cfg = EngineConfig { max_buffered_packets: 100, ..config(1_000_000) };
    let io = SocketIo::new(cfg, Duration::from_millis(1000));
    io.ns("/", |socket, _auth| async move {
        socket.on("fill", |socket, _payload, _ack| async move {
            for i in 0..80 {
                socket.emit("x", vec![Value::from(i)]);
            }
        });
        socket.on("room?", |socket, _payload, ack| async move {
            if let Some(ack) = ack {
                ack.send(vec![Value::Bool(socket.has_room(1))]);
            }
        });
        Ok(())
    });
    let base = serve_socket_io(io);

    let (_, body) = get(&format!("{base}/socket.io/?EIO=4&transport=polling")).await;
    let v: Value = serde_json::from_str(&body[1..]).unwrap();
    let url = format!("{base}/socket.io/?EIO=4&transport=polling&sid={}", v["sid"].as_str().unwrap());
    assert_eq!(post(&url, "40").await.0, 200);
    assert!(get(&url).await.1.starts_with("40{"));
    let pause = || actix_web::rt::time::sleep(Duration::from_millis(150));
    assert_eq!(post(&url, r#"42["fill"]"#).await.0, 200);
    pause().await;
    assert_eq!(post(&url, r#"421["room?"]"#).await.0, 200);
    pause().await;
    let (status, body) = get(&url).await;
    assert_eq!(status, 200);
    assert!(body.contains(r#"42["x",79]"#), "{body}");
    // (A heartbeat ping may ride along.)
    assert!(body.split('\x1e').any(|p| p == "431[false]"), "80 of 100 packets wait for the GET: no room with headroom ({body})");
    assert_eq!(post(&url, r#"422["room?"]"#).await.0, 200);
    pause().await;
    let (_, body) = get(&url).await;
    assert!(body.split('\x1e').any(|p| p == "432[true]"), "collected: room again ({body})");
}
