//! A small Socket.IO v5 client over an Engine.IO v4 websocket, built on the server's own packet
//! codecs. Enough for load: CONNECT with an auth payload, events out (with or without an ack),
//! events in, heartbeats answered. Every received event goes to one shared channel, tagged with
//! the client's number, so a scenario can watch thousands of clients from one task.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parley_http::realtime::engineio::packet::Packet as EioPacket;
use parley_http::realtime::socketio::packet::{Packet as SioPacket, PacketType};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// An event a client received: (client tag, event name, first argument).
pub type Inbound = (usize, String, Value);

/// The name under which the ack of a [`Client::send_message`] that asked for one arrives on the
/// inbound channel, with `{"id": ack id, "ack": first ack argument}`. Not a valid event name on
/// the wire (it starts with a control character), so no server event can be mistaken for it.
pub const TRACKED_ACK: &str = "\u{1}ack";

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

pub struct Client {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next_ack: AtomicU64,
}

#[derive(Debug)]
pub struct ClientError(pub String);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

fn err(e: impl std::fmt::Display) -> ClientError {
    ClientError(e.to_string())
}

/// Bytes tungstenite reads at a time. Its default, 128 KiB, is zeroed before every read: with
/// thousands of clients each reading a few hundred bytes at a time, a fifth of the harness's
/// CPU went to that `memset` (perf, relay at 8,000 msg/s), CPU taken from the server it
/// measures on the same machine. The server's frames are a few hundred bytes, batches of them
/// a few KB.
const READ_BUFFER: usize = 8 * 1024;

fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(READ_BUFFER)
}

/// `http://host:port` → the websocket URL of the Socket.IO endpoint.
pub fn socket_url(base: &str) -> String {
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    format!("ws://{host}/socket.io/?EIO=4&transport=websocket")
}

impl Client {
    /// Opens the websocket, completes the Socket.IO CONNECT to `/` with `auth`, and starts the
    /// reader and writer tasks. Events go to `inbound` when given.
    pub async fn connect(
        base: &str,
        auth: Value,
        tag: usize,
        inbound: Option<mpsc::UnboundedSender<Inbound>>,
    ) -> Result<Client, ClientError> {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(socket_url(base), Some(ws_config()), true).await.map_err(err)?;
        let (mut sink, mut stream) = ws.split();

        // Engine.IO open, then the Socket.IO CONNECT handshake.
        let open = next_text(&mut stream).await?;
        if !matches!(EioPacket::decode_text(&open), Ok(EioPacket::Open(_))) {
            return Err(ClientError(format!("expected the Engine.IO open packet, got {open:?}")));
        }
        let connect = SioPacket::new(PacketType::Connect, "/", Some(auth));
        sink.send(Message::text(format!("4{}", connect.encode()))).await.map_err(err)?;
        loop {
            let text = next_text(&mut stream).await?;
            match EioPacket::decode_text(&text) {
                Ok(EioPacket::Message(m)) => match SioPacket::decode(&m) {
                    Ok(p) if p.kind == PacketType::Connect => break,
                    Ok(p) if p.kind == PacketType::ConnectError => {
                        return Err(ClientError(format!("connect refused: {}", p.data.unwrap_or(Value::Null))));
                    }
                    _ => {}
                },
                Ok(EioPacket::Ping) => sink.send(Message::text("3")).await.map_err(err)?,
                _ => {}
            }
        }

        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            // What has queued up meanwhile leaves in the same write.
            while let Some(msg) = out_rx.recv().await {
                let mut sent = sink.feed(msg).await;
                while sent.is_ok() {
                    match out_rx.try_recv() {
                        Ok(more) => sent = sink.feed(more).await,
                        Err(_) => break,
                    }
                }
                if sent.is_err() || sink.flush().await.is_err() {
                    break;
                }
            }
        });
        let pending: Pending = Arc::default();
        let (reader_out, reader_pending) = (out.clone(), pending.clone());
        tokio::spawn(async move {
            while let Some(Ok(frame)) = stream.next().await {
                let Message::Text(text) = frame else { continue };
                match EioPacket::decode_text(text.as_str()) {
                    Ok(EioPacket::Ping) => {
                        let _ = reader_out.send(Message::text("3"));
                    }
                    Ok(EioPacket::Message(m)) => dispatch(&m, tag, inbound.as_ref(), &reader_pending),
                    Ok(EioPacket::Close) => break,
                    _ => {}
                }
            }
            // The connection is gone: nobody will answer what is still waiting.
            lock(&reader_pending).clear();
        });
        Ok(Client { out, pending, next_ack: AtomicU64::new(1) })
    }

    /// Sends an event without an ack.
    pub fn emit(&self, event: &str, arg: Value) -> Result<(), ClientError> {
        let packet = SioPacket::new(PacketType::Event, "/", Some(json!([event, arg])));
        self.out.send(Message::text(format!("4{}", packet.encode()))).map_err(|_| ClientError("connection closed".into()))
    }

    /// Sends `send-message {sessionId, message}`, asking for ack `id` when given, without
    /// waiting: the ack arrives on the inbound channel as [`TRACKED_ACK`]. The frame is written
    /// by hand (both strings are plain: ids and the harness's own tags), so a load run spends
    /// its client CPU on sending, not on building JSON.
    pub fn send_message(&self, session_id: &str, message: &str, ack: Option<u64>) -> Result<(), ClientError> {
        let ack = ack.map(|id| id.to_string()).unwrap_or_default();
        let frame = format!("42{ack}[\"send-message\",{{\"sessionId\":\"{session_id}\",\"message\":\"{message}\"}}]");
        self.out.send(Message::text(frame)).map_err(|_| ClientError("connection closed".into()))
    }

    /// Sends an event and waits for its ack (the first ack argument).
    pub async fn emit_ack(&self, event: &str, arg: Value, timeout: Duration) -> Result<Value, ClientError> {
        let id = self.next_ack.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let mut packet = SioPacket::new(PacketType::Event, "/", Some(json!([event, arg])));
        packet.id = Some(id);
        self.out
            .send(Message::text(format!("4{}", packet.encode())))
            .map_err(|_| ClientError("connection closed".into()))?;
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(ClientError(format!("{event}: connection closed before the ack"))),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(ClientError(format!("{event}: no ack within {timeout:?}")))
            }
        }
    }

    /// Closes the websocket politely.
    pub fn close(&self) {
        let _ = self.out.send(Message::Close(None));
    }
}

fn dispatch(text: &str, tag: usize, inbound: Option<&mpsc::UnboundedSender<Inbound>>, pending: &Pending) {
    let Ok(packet) = SioPacket::decode(text) else { return };
    match packet.kind {
        PacketType::Event => {
            let (Some(tx), Some(Value::Array(mut args))) = (inbound, packet.data) else { return };
            if args.is_empty() {
                return;
            }
            let name = match args.remove(0) {
                Value::String(s) => s,
                _ => return,
            };
            let first = if args.is_empty() { Value::Null } else { args.swap_remove(0) };
            let _ = tx.send((tag, name, first));
        }
        PacketType::Ack => {
            let Some(id) = packet.id else { return };
            let first = match packet.data {
                Some(Value::Array(mut a)) if !a.is_empty() => a.swap_remove(0),
                _ => Value::Null,
            };
            if let Some(tx) = lock(pending).remove(&id) {
                let _ = tx.send(first);
            } else if let Some(tx) = inbound {
                let _ = tx.send((tag, TRACKED_ACK.to_string(), json!({"id": id, "ack": first})));
            }
        }
        _ => {}
    }
}

async fn next_text<S>(stream: &mut S) -> Result<String, ClientError>
where
    S: futures_util::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    let wait = Duration::from_secs(20);
    loop {
        match tokio::time::timeout(wait, stream.next()).await {
            Err(_) => return Err(ClientError("handshake timed out".into())),
            Ok(None) => return Err(ClientError("closed during the handshake".into())),
            Ok(Some(Err(e))) => return Err(err(e)),
            Ok(Some(Ok(Message::Text(t)))) => return Ok(t.as_str().to_string()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
