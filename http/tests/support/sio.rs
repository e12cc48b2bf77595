//! A small Socket.IO v5 client over Engine.IO v4 long-polling, enough for the tests to be a
//! visitor or an agent: connect with an auth payload, emit with an acknowledgement, and keep
//! the events received meanwhile. (The official client is exercised by the e2e suite.)
#![allow(dead_code)]

use serde_json::{json, Value};

use super::TestApp;

const SEPARATOR: char = '\u{1e}';

pub struct SioClient {
    client: reqwest::Client,
    url: String,
    next_ack: u64,
    /// Events received, as (name, first argument).
    pub events: Vec<(String, Value)>,
}

impl SioClient {
    /// Opens a session and connects to the default namespace with `auth` ({token} for a
    /// member, {visitorToken} for a visitor); panics when the server refuses.
    pub async fn connect(app: &TestApp, auth: Value) -> SioClient {
        let client = reqwest::Client::new();
        let open = client.get(app.url("/socket.io/?EIO=4&transport=polling")).send().await.expect("handshake").text().await.expect("body");
        let handshake: Value = serde_json::from_str(open.strip_prefix('0').expect("open packet")).expect("handshake json");
        let sid = handshake["sid"].as_str().expect("sid").to_string();
        let url = app.url(&format!("/socket.io/?EIO=4&transport=polling&sid={sid}"));
        let mut sio = SioClient { client, url, next_ack: 1, events: Vec::new() };
        sio.post(&format!("40{auth}")).await;
        loop {
            for packet in sio.poll().await {
                if packet.starts_with("40") {
                    return sio;
                }
                assert!(!packet.starts_with("44"), "connection refused: {packet}");
            }
        }
    }

    async fn post(&self, body: &str) {
        let res = self.client.post(&self.url).body(body.to_string()).send().await.expect("post");
        assert!(res.status().is_success(), "post {body}: {}", res.status());
    }

    /// One long-poll: the packets the server had for us (answering its pings).
    pub async fn poll(&mut self) -> Vec<String> {
        let text = self.client.get(&self.url).send().await.expect("poll").text().await.expect("poll body");
        let mut packets = Vec::new();
        for packet in text.split(SEPARATOR) {
            if packet == "2" {
                self.post("3").await;
            } else if let Some(event) = packet.strip_prefix("42") {
                let args: Value = serde_json::from_str(event).expect("event json");
                self.events.push((args[0].as_str().unwrap_or_default().to_string(), args[1].clone()));
            } else {
                packets.push(packet.to_string());
            }
        }
        packets
    }

    /// Emits `event` with `payload` and waits for the server's acknowledgement (its first
    /// argument).
    pub async fn emit_with_ack(&mut self, event: &str, payload: Value) -> Value {
        let id = self.next_ack;
        self.next_ack += 1;
        self.post(&format!("42{id}{}", json!([event, payload]))).await;
        let prefix = format!("43{id}");
        loop {
            for packet in self.poll().await {
                if let Some(args) = packet.strip_prefix(&prefix) {
                    let args: Value = serde_json::from_str(args).expect("ack json");
                    return args[0].clone();
                }
            }
        }
    }

    /// Waits until the server ends the connection (a disconnect or close packet, or a poll the
    /// server no longer knows); panics if it is still open after 10 seconds.
    pub async fn wait_closed(&mut self) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            let res = self.client.get(&self.url).send().await.expect("poll");
            if !res.status().is_success() {
                return;
            }
            let text = res.text().await.expect("poll body");
            if text.split(SEPARATOR).any(|p| p == "1" || p.starts_with("41")) {
                return;
            }
            if text.split(SEPARATOR).any(|p| p == "2") {
                self.post("3").await;
            }
        }
        panic!("the connection is still open");
    }

    /// Waits for the first event named `name` (received now or earlier) and returns its argument.
    pub async fn wait_for(&mut self, name: &str) -> Value {
        loop {
            if let Some((_, arg)) = self.events.iter().find(|(n, _)| n == name) {
                return arg.clone();
            }
            self.poll().await;
        }
    }
}
