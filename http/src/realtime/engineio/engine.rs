//! The Engine.IO server's state: settings, the live sessions by id, the upper layer's handler
//! and the handshake limits; and the one place a session starts (`open_session`), whichever
//! transport it starts on.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use actix_web::{http::StatusCode, HttpRequest, HttpResponse};

use super::heartbeat::Heartbeat;
use super::packet::Packet;
use super::session::{CloseHook, Session, SessionEnv, WsTx};
use super::{EngineConfig, EngineConn, EngineHandler};
use crate::limits::IpBuckets;
use crate::realtime::lock;

/// The live sessions by id (the key is the session's own copy of its id).
pub(crate) type Registry = Arc<Mutex<HashMap<Arc<str>, Arc<Session>>>>;

/// An Engine.IO server: settings, live sessions and the upper-layer handler.
#[derive(Clone)]
pub struct EngineServer {
    pub(crate) cfg: Arc<EngineConfig>,
    pub(crate) registry: Registry,
    pub(crate) handler: Arc<dyn EngineHandler>,
    handshakes: Arc<IpBuckets>,
    /// What its sessions share.
    env: Arc<SessionEnv>,
}

/// Why a new session was refused (answered with 503 and this text).
pub(crate) const TOO_MANY_CONNECTIONS: &str = "Too many connections, please retry later";

pub(crate) fn bad_request(msg: &'static str) -> HttpResponse {
    Refusal::bad_request(msg).response()
}

impl EngineServer {
    pub fn new(cfg: EngineConfig, handler: Arc<dyn EngineHandler>) -> Self {
        let handshakes = Arc::new(IpBuckets::new(cfg.handshakes_per_ip_per_sec, cfg.handshake_burst));
        let cfg = Arc::new(cfg);
        let registry: Registry = Arc::default();
        // A session forgets itself through this when it stops: it never names the server.
        // (Weak: the registry holds the sessions, which hold this.)
        let forget = Arc::downgrade(&registry);
        let on_close: CloseHook = Arc::new(move |sid: &str| {
            if let Some(registry) = forget.upgrade() {
                lock(&registry).remove(sid);
            }
        });
        let heartbeat = Arc::new(Heartbeat::new(cfg.ping_interval, cfg.ping_timeout));
        let env = Arc::new(SessionEnv { cfg: cfg.clone(), on_close, heartbeat });
        EngineServer { cfg, registry, handler, handshakes, env }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Number of live sessions.
    pub fn session_count(&self) -> usize {
        lock(&self.registry).len()
    }

    pub(crate) fn lookup(&self, sid: &str) -> Option<Arc<Session>> {
        let session = lock(&self.registry).get(sid).cloned()?;
        (!session.is_stopped()).then_some(session)
    }

    pub(crate) fn handshake_json(&self, sid: &str, upgrades: bool) -> String {
        serde_json::json!({
            "sid": sid,
            "upgrades": if upgrades { vec!["websocket"] } else { vec![] },
            "pingInterval": self.cfg.ping_interval.as_millis() as u64,
            "pingTimeout": self.cfg.ping_timeout.as_millis() as u64,
            "maxPayload": self.cfg.max_payload,
        })
        .to_string()
    }

    /// Starts a session, its outbox and the upper layer's handler. `ws` is the WebSocket it
    /// starts on (id, writer queue), or `None` for long-polling; it gets the open packet first.
    pub(crate) fn open_session(&self, ws: Option<(u64, WsTx)>) -> (Arc<Session>, Packet) {
        let sid = new_sid();
        let open = Packet::Open(self.handshake_json(&sid, ws.is_none()));
        let sid: Arc<str> = Arc::from(sid);
        let first = ws.is_some().then(|| open.clone());
        let handler = &self.handler;
        let session = Session::new(sid.clone(), self.env.clone(), ws, |me| {
            handler.on_open(EngineConn { sid: sid.clone(), session: me.clone() })
        });
        lock(&self.registry).insert(sid, session.clone());
        session.start(first);
        (session, open)
    }

    /// Whether a new session may start: under the connection cap, and within the caller's
    /// handshake rate. `Some` is the refusal to answer with.
    pub(crate) fn refusal(&self, req: &HttpRequest) -> Option<HttpResponse> {
        self.refusal_for(self.cfg.client_ip.of(req)).map(|r| r.response())
    }

    /// [`Self::refusal`] for a caller known by address (or not known: then only the cap holds).
    pub(crate) fn refusal_for(&self, peer: Option<IpAddr>) -> Option<Refusal> {
        if self.cfg.max_connections > 0 && self.session_count() >= self.cfg.max_connections {
            return Some(Refusal { status: StatusCode::SERVICE_UNAVAILABLE, code: 5, message: TOO_MANY_CONNECTIONS });
        }
        if self.handshakes.allow(peer?) {
            return None;
        }
        Some(Refusal {
            status: StatusCode::TOO_MANY_REQUESTS,
            code: 5,
            message: "Too many new connections from your address, please retry later",
        })
    }
}

/// A refused Engine.IO request: its status and its `{"code","message"}` body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub status: StatusCode,
    pub code: u8,
    pub message: &'static str,
}

impl Refusal {
    pub(crate) const fn bad_request(message: &'static str) -> Refusal {
        Refusal { status: StatusCode::BAD_REQUEST, code: 3, message }
    }

    pub(crate) fn body(&self) -> String {
        format!(r#"{{"code":{},"message":"{}"}}"#, self.code, self.message)
    }

    /// `400 Bad Request`, as an HTTP/1.1 status line's tail.
    pub(crate) fn status_line(&self) -> String {
        format!("{} {}", self.status.as_u16(), self.status.canonical_reason().unwrap_or(""))
    }

    pub(crate) fn response(&self) -> HttpResponse {
        HttpResponse::build(self.status).content_type("application/json").body(self.body())
    }
}

pub(crate) fn new_sid() -> String {
    use base64::Engine as _;
    let bytes: [u8; 15] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
