//! Protocol conformance server for the official engine.io-protocol and socket.io-protocol test
//! suites: `cargo run --release -p parley-http --example conformance` (port 3000, or `PORT`).

use std::sync::Arc;
use std::time::Duration;

use actix_web::App;
use parley_http::realtime::engineio::{EchoHandler, EngineConfig, EngineServer};
use parley_http::realtime::{self, LiveMounts, Payload, SocketIo};

fn config() -> EngineConfig {
    EngineConfig {
        ping_interval: Duration::from_millis(300),
        ping_timeout: Duration::from_millis(200),
        max_payload: 1_000_000,
        ..EngineConfig::default()
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3000);
    let echo = EngineServer::new(config(), Arc::new(EchoHandler));
    let io = SocketIo::new(config(), Duration::from_millis(1000));
    io.ns("/", |socket, auth| async move {
        socket.emit("auth", vec![auth]);
        socket.on("message", |socket, payload: Payload, _ack| async move {
            socket.emit_payload("message-back", payload);
        });
        socket.on("message-with-ack", |_socket, payload, ack| async move {
            if let Some(ack) = ack {
                ack.send_payload(payload);
            }
        });
        Ok(())
    });
    io.ns("/custom", |socket, auth| async move {
        socket.emit("auth", vec![auth]);
        Ok(())
    });

    let mut bound = port;
    let listeners = listeners(port)?;
    if let Some(first) = listeners.first() {
        bound = first.local_addr()?.port();
    }
    let mounts = LiveMounts::new().engine("/engine.io/", echo.clone()).socket_io(&io);
    let server = realtime::http_server(listeners, 2, mounts, move || {
        let echo = echo.clone();
        let io = io.clone();
        App::new().configure(move |cfg| {
            echo.mount(cfg, "/engine.io/");
            realtime::configure(cfg, io);
        })
    })?;
    println!("listening on port {bound}");
    server.run().await
}

/// `[::]:port` (dual-stack where the OS allows) plus `0.0.0.0:port` when that is separate.
pub fn listeners(port: u16) -> std::io::Result<Vec<std::net::TcpListener>> {
    use std::net::TcpListener;
    match TcpListener::bind(("::", port)) {
        Ok(v6) => {
            let port = v6.local_addr()?.port();
            let mut all = vec![v6];
            if let Ok(v4) = TcpListener::bind(("0.0.0.0", port)) {
                all.push(v4);
            }
            Ok(all)
        }
        Err(_) => Ok(vec![TcpListener::bind(("0.0.0.0", port))?]),
    }
}
