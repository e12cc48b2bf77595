//! Engine.IO HTTP entry point: query validation (the 400 rules), session lookup, dispatch to a
//! transport.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix::Addr;
use actix_web::{http::Method, web, HttpRequest, HttpResponse};

use super::outbox::Outbox;
use super::packet::Packet;
use super::session::{EioSession, WsTx};
use super::{transport_polling, transport_ws, EngineConfig, EngineConn, EngineHandler};
use crate::limits::IpBuckets;

pub(crate) type Registry = Arc<Mutex<HashMap<String, Addr<EioSession>>>>;

/// An Engine.IO server: settings, live sessions and the upper-layer handler.
#[derive(Clone)]
pub struct EngineServer {
    pub(crate) cfg: Arc<EngineConfig>,
    pub(crate) registry: Registry,
    pub(crate) handler: Arc<dyn EngineHandler>,
    handshakes: Arc<IpBuckets>,
}

/// Why a new session was refused (answered with 503 and this text).
pub(crate) const TOO_MANY_CONNECTIONS: &str = "Too many connections, please retry later";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TransportKind {
    Polling,
    WebSocket,
}

pub(crate) struct Query {
    pub transport: TransportKind,
    pub sid: Option<String>,
}

/// Validates `EIO`, `transport` and `sid`; `None` means HTTP 400.
pub(crate) fn parse_query(qs: &str) -> Option<Query> {
    let mut eio = None;
    let mut transport = None;
    let mut sid = None;
    for (k, v) in url::form_urlencoded::parse(qs.as_bytes()) {
        match &*k {
            "EIO" => eio = Some(v.into_owned()),
            "transport" => transport = Some(v.into_owned()),
            "sid" => sid = Some(v.into_owned()),
            _ => {}
        }
    }
    if eio.as_deref() != Some("4") {
        return None;
    }
    let transport = match transport.as_deref() {
        Some("polling") => TransportKind::Polling,
        Some("websocket") => TransportKind::WebSocket,
        _ => return None,
    };
    Some(Query { transport, sid })
}

pub(crate) fn bad_request(msg: &'static str) -> HttpResponse {
    HttpResponse::BadRequest()
        .content_type("application/json")
        .body(format!(r#"{{"code":3,"message":"{msg}"}}"#))
}

impl EngineServer {
    pub fn new(cfg: EngineConfig, handler: Arc<dyn EngineHandler>) -> Self {
        let handshakes = Arc::new(IpBuckets::new(cfg.handshakes_per_ip_per_sec, cfg.handshake_burst));
        EngineServer {
            cfg: Arc::new(cfg),
            registry: Arc::new(Mutex::new(HashMap::new())),
            handler,
            handshakes,
        }
    }

    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Number of live sessions.
    pub fn session_count(&self) -> usize {
        self.registry.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub(crate) fn lookup(&self, sid: &str) -> Option<Addr<EioSession>> {
        let map = self.registry.lock().ok()?;
        map.get(sid).filter(|a| a.connected()).cloned()
    }

    pub(crate) fn insert(&self, sid: &str, addr: Addr<EioSession>) {
        if let Ok(mut map) = self.registry.lock() {
            map.insert(sid.to_owned(), addr);
        }
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

    /// Starts a session: its actor, its outbox and the upper layer's handler. `ws` is the
    /// WebSocket it starts on (id, writer queue), or `None` for long-polling.
    pub(crate) fn open_session(&self, ws: Option<(u64, WsTx)>) -> (String, Addr<EioSession>, Packet) {
        use actix::{Actor as _, AsyncContext as _};
        let sid = new_sid();
        let open = Packet::Open(self.handshake_json(&sid, ws.is_none()));
        let sid_arc: Arc<str> = Arc::from(sid.as_str());
        let (cfg, registry, handler) = (self.cfg.clone(), self.registry.clone(), self.handler.clone());
        let outbox = Arc::new(Outbox::new(cfg.max_buffered_packets));
        let ws = ws.map(|(id, tx)| (id, tx, open.clone()));
        let addr = EioSession::create(move |ctx| {
            let conn = EngineConn { sid: sid_arc.clone(), addr: ctx.address(), outbox: outbox.clone() };
            let h = handler.on_open(conn);
            EioSession::new(sid_arc, cfg, registry, h, outbox, ws)
        });
        self.insert(&sid, addr.clone());
        (sid, addr, open)
    }

    /// Whether a new session may start: under the connection cap, and within the caller's
    /// handshake rate. `Some` is the refusal to answer with.
    fn refusal(&self, req: &HttpRequest) -> Option<HttpResponse> {
        if self.cfg.max_connections > 0 && self.session_count() >= self.cfg.max_connections {
            return Some(
                HttpResponse::ServiceUnavailable()
                    .content_type("application/json")
                    .body(format!(r#"{{"code":5,"message":"{TOO_MANY_CONNECTIONS}"}}"#)),
            );
        }
        let peer = req.peer_addr()?;
        if self.handshakes.allow(peer.ip()) {
            return None;
        }
        Some(
            HttpResponse::TooManyRequests()
                .content_type("application/json")
                .body(r#"{"code":5,"message":"Too many new connections from your address, please retry later"}"#),
        )
    }

    /// Handles any request under the mount path.
    pub async fn handle(&self, req: HttpRequest, body: web::Payload) -> HttpResponse {
        let Some(query) = parse_query(req.query_string()) else {
            return bad_request("Bad request");
        };
        if query.sid.is_none() && req.method() == Method::GET {
            if let Some(refused) = self.refusal(&req) {
                return refused;
            }
        }
        match query.transport {
            TransportKind::Polling => {
                if req.method() == Method::GET {
                    transport_polling::get(self, query.sid).await
                } else if req.method() == Method::POST {
                    match query.sid {
                        Some(sid) => transport_polling::post(self, &sid, body).await,
                        None => bad_request("Bad handshake method"),
                    }
                } else if req.method() == Method::OPTIONS {
                    HttpResponse::NoContent().finish()
                } else {
                    bad_request("Bad handshake method")
                }
            }
            TransportKind::WebSocket => {
                if req.method() != Method::GET {
                    return bad_request("Bad handshake method");
                }
                transport_ws::open(self, &req, body, query.sid).await
            }
        }
    }

    /// Mounts this server at `path` (e.g. `/engine.io/`), with and without the trailing slash.
    pub fn mount(self, cfg: &mut web::ServiceConfig, path: &str) {
        let trimmed = path.trim_end_matches('/').to_owned();
        for p in [format!("{trimmed}/"), trimmed] {
            if p.is_empty() {
                continue;
            }
            let srv = self.clone();
            cfg.service(web::resource(p).route(web::route().to(
                move |req: HttpRequest, body: web::Payload| {
                    let srv = srv.clone();
                    async move { srv.handle(req, body).await }
                },
            )));
        }
    }
}

pub(crate) fn new_sid() -> String {
    use base64::Engine as _;
    let bytes: [u8; 15] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn query_rules() {
        assert!(parse_query("EIO=4&transport=polling").is_some());
        assert!(parse_query("EIO=4&transport=websocket&sid=abc").is_some());
        assert!(parse_query("transport=polling").is_none());
        assert!(parse_query("EIO=abc&transport=polling").is_none());
        assert!(parse_query("EIO=3&transport=polling").is_none());
        assert!(parse_query("EIO=4").is_none());
        assert!(parse_query("EIO=4&transport=abc").is_none());
        assert!(parse_query("%%%&&==").is_none());
        let q = parse_query("EIO=4&transport=polling&sid=a%2Bb&t=x").unwrap();
        assert_eq!(q.sid.as_deref(), Some("a+b"));
        assert_eq!(q.transport, TransportKind::Polling);
    }
}
