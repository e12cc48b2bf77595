//! Socket.IO server for the e2e tests in `e2e/realtime/` (driven by the npm socket.io-client).
//! Prints `listening on port N`; `PORT` picks the port (0 = any).

use std::time::Duration;

use actix_web::App;
use parley_http::realtime::{self, ConnectError, EngineConfig, LiveMounts, Payload, RecoveryConfig, SocketIo};
use serde_json::{json, Value};

#[derive(Debug)]
struct User(String);

fn main_ns(io: &SocketIo) {
    io.ns("/", |socket, auth: Value| async move {
        let token = auth.get("token").and_then(Value::as_str).unwrap_or("");
        if token == "bad" {
            return Err(ConnectError::new("unauthorized").with_data(json!({ "code": 401 })));
        }
        let name = auth.get("name").and_then(Value::as_str).unwrap_or("anonymous");
        socket.data().insert(User(name.to_owned()));
        socket.emit("welcome", vec![json!(socket.id()), auth.clone()]);
        socket.on("echo", |socket, payload, _ack| async move {
            socket.emit_payload("echo-back", payload);
        });
        socket.on("echo-ack", |_socket, payload, ack| async move {
            if let Some(ack) = ack {
                ack.send_payload(payload);
            }
        });
        socket.on("whoami", |socket, _payload, ack| async move {
            let name = socket.data().get::<User>().map(|u| u.0.clone()).unwrap_or_default();
            if let Some(ack) = ack {
                ack.send(vec![json!(name)]);
            }
        });
        // The server asks the client for an ack, then reports what came back.
        socket.on("server-ack", |socket, payload, _ack| async move {
            let res = socket
                .emit_with_ack("need-ack", payload, Duration::from_secs(5))
                .await;
            match res {
                Ok(reply) => socket.emit_payload("got-ack", reply),
                Err(e) => socket.emit("got-ack-error", vec![json!(e.to_string())]),
            }
        });
        socket.on("join", |socket, payload, ack| async move {
            if let Some(room) = payload.arg::<String>(0) {
                socket.join(room);
            }
            if let Some(ack) = ack {
                ack.send(vec![json!(true)]);
            }
        });
        socket.on("to-room", |socket, payload, _ack| async move {
            if let (Some(room), Some(msg)) = (payload.arg::<String>(0), payload.args.get(1)) {
                socket.to(room).emit("room-msg", vec![msg.clone()]);
            }
        });
        socket.on("kick", |socket, _payload, _ack| async move {
            socket.disconnect();
        });
        socket.on("close-connection", |socket, _payload, _ack| async move {
            socket.close_connection();
        });
        socket.on("binary-please", |socket, _payload, _ack| async move {
            let mut p = Payload::default();
            let a = p.bin(vec![1u8, 2, 3]);
            let b = p.bin(vec![255u8]);
            p.args = vec![json!({ "first": a, "nested": [b] }), json!("text")];
            socket.emit_payload("binary", p);
        });
        Ok(())
    });
}

fn recovery_ns(io: &SocketIo) {
    io.ns_with_recovery("/recovery", RecoveryConfig::default(), |socket, _auth| async move {
        if !socket.recovered() {
            socket.emit("hello", vec![json!(socket.id())]);
        }
        socket.on("join", |socket, payload, ack| async move {
            if let Some(room) = payload.arg::<String>(0) {
                socket.join(room);
            }
            if let Some(ack) = ack {
                ack.send(vec![json!(true)]);
            }
        });
        socket.on("broadcast", |socket, payload, ack| async move {
            if let (Some(room), Some(msg)) = (payload.arg::<String>(0), payload.args.get(1)) {
                socket.ns().to(room).emit("news", vec![msg.clone()]);
            }
            if let Some(ack) = ack {
                ack.send(vec![json!(true)]);
            }
        });
        socket.on("status", |socket, _payload, ack| async move {
            if let Some(ack) = ack {
                ack.send(vec![json!({ "id": socket.id(), "recovered": socket.recovered() })]);
            }
        });
        Ok(())
    });
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3001);
    // How long a connection may go without CONNECTing a namespace (the tests shorten it).
    let connect_timeout_ms: u64 = std::env::var("CONNECT_TIMEOUT_MS").ok().and_then(|t| t.parse().ok()).unwrap_or(5000);
    let io = SocketIo::new(
        EngineConfig {
            ping_interval: Duration::from_millis(1000),
            ping_timeout: Duration::from_millis(1000),
            max_payload: 1_000_000,
            ..EngineConfig::default()
        },
        Duration::from_millis(connect_timeout_ms),
    );
    main_ns(&io);
    recovery_ns(&io);
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
    let bound = listener.local_addr()?.port();
    let mounts = LiveMounts::new().socket_io(&io);
    let server = realtime::http_server(vec![listener], 2, mounts, move || {
        let io = io.clone();
        App::new().configure(move |cfg| realtime::configure(cfg, io))
    })?;
    println!("listening on port {bound}");
    server.run().await
}
