//! Engine.IO v4 server: long-polling and WebSocket transports, the upgrade, heartbeats.
//!
//! One [`session::Session`] per Engine.IO session, shared state rather than an actor; it outlives
//! a transport across the polling → websocket upgrade, and one [`heartbeat`] queue per server
//! pings them all. Upper layers plug in through [`EngineHandler`] / [`ConnHandler`] and talk
//! back through the cheap, cloneable [`EngineConn`].

pub mod engine;
pub(crate) mod heartbeat;
mod outbox;
pub mod packet;
pub mod service;
pub mod session;
pub mod transport;
pub mod wsqueue;

use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;

pub use engine::EngineServer;

/// Engine.IO settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub ping_interval: Duration,
    pub ping_timeout: Duration,
    pub max_payload: usize,
    /// Packets buffered per connection before a client that cannot keep up is disconnected.
    pub max_buffered_packets: usize,
    /// Open sessions accepted at once; 0 = no limit.
    pub max_connections: usize,
    /// New sessions per second from one IP address, and the burst; 0 = no limit.
    pub handshakes_per_ip_per_sec: f64,
    pub handshake_burst: f64,
    /// Who a handshake comes from, for the per-address rate (the peer, or the client a
    /// trusted proxy names).
    pub client_ip: crate::client_ip::ClientIp,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            ping_interval: Duration::from_millis(25_000),
            ping_timeout: Duration::from_millis(20_000),
            max_payload: 1_000_000,
            max_buffered_packets: 4096,
            max_connections: 0,
            handshakes_per_ip_per_sec: 0.0,
            handshake_burst: 1.0,
            client_ip: crate::client_ip::ClientIp::default(),
        }
    }
}

impl From<&parley_config::RealtimeSettings> for EngineConfig {
    fn from(s: &parley_config::RealtimeSettings) -> Self {
        EngineConfig {
            ping_interval: Duration::from_millis(s.ping_interval_ms),
            ping_timeout: Duration::from_millis(s.ping_timeout_ms),
            max_payload: s.max_payload,
            max_buffered_packets: s.outbound_queue.max(1),
            max_connections: s.max_connections,
            handshakes_per_ip_per_sec: s.handshakes_per_ip_per_sec,
            handshake_burst: s.handshake_burst,
            client_ip: crate::client_ip::ClientIp::default(),
        }
    }
}

/// A message carried by Engine.IO (the `4` packet, or a binary frame).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Text(String),
    Binary(Bytes),
}

/// Why a session closed (names follow the reference implementation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// The client closed the transport or sent a close packet.
    TransportClose,
    /// The transport failed (protocol error, invalid frame, duplicate poll...).
    TransportError,
    /// No pong within `pingTimeout`.
    PingTimeout,
    /// The payload exceeded `maxPayload` or the outbound buffer overflowed.
    PayloadTooLarge,
    /// The client could not keep up with outbound traffic.
    SlowClient,
    /// A packet could not be parsed.
    ParseError,
    /// Closed by the server.
    ServerClose,
}

impl CloseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            CloseReason::TransportClose => "transport close",
            CloseReason::TransportError => "transport error",
            CloseReason::PingTimeout => "ping timeout",
            CloseReason::PayloadTooLarge => "payload too large",
            CloseReason::SlowClient => "slow client",
            CloseReason::ParseError => "parse error",
            CloseReason::ServerClose => "forced server close",
        }
    }
}

/// Creates the per-connection handler of an upper layer (Socket.IO, or the echo server).
pub trait EngineHandler: Send + Sync + 'static {
    fn on_open(&self, conn: EngineConn) -> Box<dyn ConnHandler>;
}

/// Per-connection callbacks, run by whoever brings the session its input (the WebSocket's task,
/// a polling request) with the session's handler lock held: they must be quick and never block
/// (spawn futures for real work). They may send and close through their [`EngineConn`]; a close
/// they cause is reported to `on_close` once the current call has returned.
pub trait ConnHandler: Send + 'static {
    fn on_message(&mut self, msg: Message);
    fn on_close(&mut self, reason: CloseReason);
}

/// Cheap, cloneable handle to one Engine.IO session. It does not keep the session alive: once
/// the session is gone, sends are dropped.
#[derive(Clone)]
pub struct EngineConn {
    pub(crate) sid: Arc<str>,
    pub(crate) session: Weak<session::Session>,
}

impl std::fmt::Debug for EngineConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineConn").field("sid", &self.sid).finish()
    }
}

impl EngineConn {
    pub fn sid(&self) -> &str {
        &self.sid
    }

    /// Queues one message. Never blocks; a client that cannot keep up is disconnected.
    pub fn send(&self, msg: Message) {
        self.send_many(vec![msg]);
    }

    /// Queues messages that must go out together and in order.
    pub fn send_many(&self, msgs: Vec<Message>) {
        if let Some(session) = self.session.upgrade() {
            session.send_many(msgs);
        }
    }

    /// Whether `frames` more messages fit in the outbound queue with headroom to spare
    /// (see `Outbox::has_room`).
    pub fn has_room(&self, frames: usize) -> bool {
        self.session.upgrade().is_none_or(|session| session.has_room(frames))
    }

    /// Closes the session (a close packet is sent when the transport allows).
    pub fn close(&self) {
        if let Some(session) = self.session.upgrade() {
            session.close(CloseReason::ServerClose);
        }
    }

    /// Whether the session is still live.
    pub fn is_open(&self) -> bool {
        self.session.upgrade().is_some_and(|session| !session.is_stopped())
    }
}

/// An Engine.IO echo server: every text or binary message is sent back (conformance tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct EchoHandler;

struct EchoConn(EngineConn);

impl EngineHandler for EchoHandler {
    fn on_open(&self, conn: EngineConn) -> Box<dyn ConnHandler> {
        Box::new(EchoConn(conn))
    }
}

impl ConnHandler for EchoConn {
    fn on_message(&mut self, msg: Message) {
        self.0.send(msg);
    }
    fn on_close(&mut self, _reason: CloseReason) {}
}
