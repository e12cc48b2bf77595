//! One Engine.IO connection as Socket.IO sees it (`SioConn`, the Engine.IO session's
//! handler): it decodes packets, routes them to the connection's sockets by namespace, and
//! answers CONNECTs. It reaches the server only through `Namespaces`, so it never names the
//! server's type.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;

use super::deadlines::ConnectDeadlines;
use super::namespace::Namespace;
use super::handler::Admission;
use super::packet::{placeholders_valid, Head, Packet, PacketType};
use super::socket::{ConnectError, DisconnectReason, Socket, SocketSlots};
use super::{Extensions, Payload};
use crate::realtime::engineio::engine::new_sid;
use crate::realtime::engineio::{CloseReason, ConnHandler, EngineConn, EngineHandler, Message};
use crate::realtime::lock;

/// Most attachments accepted on one packet.
const MAX_ATTACHMENTS: usize = 1000;
/// Most bytes of attachments held for one packet (Socket.IO's own default `maxHttpBufferSize`):
/// past it the connection is closed, so a packet announcing many attachments cannot grow the
/// server by a frame's worth for each.
const MAX_ATTACHMENT_BYTES: usize = 1_000_000;
/// Most CONNECT packets one Engine.IO connection may send. A client connects each namespace
/// once per connection (socket.io-client opens a new connection to connect again); a loop of
/// CONNECT and DISCONNECT would make the server check its token at wire speed, outside the
/// socket's event budget, so past this the connection is closed.
const MAX_CONNECTS: u32 = 16;

/// What a connection needs of the server: its namespaces, and how long a client may take to
/// CONNECT one.
pub(crate) trait Namespaces: Send + Sync {
    fn namespace(&self, path: &str) -> Option<Namespace>;
    fn connect_timeout(&self) -> Duration;
}

/// Opens a `SioConn` for each new Engine.IO connection, and closes connections that do not
/// CONNECT a namespace in time.
pub(crate) struct Router {
    server: Weak<dyn Namespaces>,
    deadlines: Arc<ConnectDeadlines>,
}

impl Router {
    pub(crate) fn new(server: Weak<dyn Namespaces>) -> Router {
        Router { server, deadlines: Arc::default() }
    }
}

impl EngineHandler for Router {
    fn on_open(&self, conn: EngineConn) -> Box<dyn ConnHandler> {
        let shared = Arc::new(ConnShared::default());
        if let Some(server) = self.server.upgrade() {
            self.deadlines.add(server.connect_timeout(), &shared, conn.clone());
        }
        Box::new(SioConn {
            server: self.server.clone(),
            conn,
            shared,
            partial: None,
            connects: 0,
        })
    }
}

#[derive(Default)]
pub(crate) struct ConnShared {
    /// Namespace path → socket (connecting or connected). A list, not a map: a connection
    /// joins one namespace or a few (only those the server has), and every event looks its
    /// socket up, so a comparison of short paths beats hashing them; it is smaller when idle too.
    sockets: Mutex<Vec<(Box<str>, Socket)>>,
    any_connected: AtomicBool,
}

impl ConnShared {
    /// Whether a socket of this connection has connected to a namespace.
    pub(crate) fn any_connected(&self) -> bool {
        self.any_connected.load(Ordering::Relaxed)
    }
}

impl SocketSlots for ConnShared {
    fn remove(&self, nsp: &str, id: &str) {
        lock(&self.sockets).retain(|(path, socket)| !(&**path == nsp && socket.id() == id));
    }
}

impl ConnShared {
    fn get(&self, nsp: &str) -> Option<Socket> {
        lock(&self.sockets).iter().find(|(path, _)| &**path == nsp).map(|(_, socket)| socket.clone())
    }

    fn take(&self, nsp: &str) -> Option<Socket> {
        let mut sockets = lock(&self.sockets);
        let at = sockets.iter().position(|(path, _)| &**path == nsp)?;
        Some(sockets.swap_remove(at).1)
    }
}

/// Per-connection Socket.IO state: the Engine.IO session's handler.
struct SioConn {
    server: Weak<dyn Namespaces>,
    conn: EngineConn,
    shared: Arc<ConnShared>,
    /// A binary packet waiting for its attachments, and their bytes so far.
    partial: Option<(Packet, Vec<Bytes>, usize)>,
    /// CONNECT packets received.
    connects: u32,
}

impl SioConn {
    fn fail(&mut self) {
        self.partial = None;
        self.conn.close();
    }

    /// Routes a whole packet; `admitted` is the socket the gate was asked of and its answer,
    /// when it was asked already (the socket is not looked up a second time).
    fn on_packet(&mut self, packet: Packet, binary: Vec<Bytes>, admitted: Option<(Socket, Admission)>) {
        match packet.kind {
            PacketType::Connect => self.on_connect(packet),
            PacketType::Disconnect => {
                let socket = self.shared.take(&packet.nsp);
                if let Some(socket) = socket {
                    socket.closed(DisconnectReason::ClientNamespaceDisconnect);
                }
            }
            PacketType::Event | PacketType::BinaryEvent => {
                let Some(Value::Array(args)) = packet.data else {
                    return self.fail();
                };
                let payload = Payload::with_binary(args, binary);
                match admitted {
                    Some((socket, admission)) => {
                        socket.dispatch_event(payload, packet.id, Some(admission));
                    }
                    None => {
                        if let Some(socket) = self.shared.get(&packet.nsp).filter(Socket::connected) {
                            socket.dispatch_event(payload, packet.id, None);
                        }
                    }
                }
            }
            PacketType::Ack | PacketType::BinaryAck => {
                let (Some(Value::Array(args)), Some(id)) = (packet.data, packet.id) else {
                    return self.fail();
                };
                if let Some(socket) = self.shared.get(&packet.nsp) {
                    socket.resolve_ack(id, Payload::with_binary(args, binary));
                }
            }
            PacketType::ConnectError => self.fail(),
        }
    }

    fn on_connect(&mut self, packet: Packet) {
        self.connects += 1;
        if self.connects > MAX_CONNECTS {
            return self.fail();
        }
        let nsp = packet.nsp;
        let Some(server) = self.server.upgrade() else {
            return self.fail();
        };
        let ns = server.namespace(&nsp);
        let Some(ns) = ns else {
            let err = Packet::new(
                PacketType::ConnectError,
                &nsp,
                Some(ConnectError::new("Invalid namespace").to_json()),
            );
            self.conn.send(Message::Text(err.encode()));
            return;
        };
        if self.shared.get(&nsp).is_some() {
            return; // already connected (or connecting) to this namespace
        }
        let mut auth = match packet.data {
            Some(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let mut restored = None;
        if let Some(store) = ns.recovery() {
            let pid = auth.remove("pid");
            let offset = auth.remove("offset");
            if let (Some(Value::String(pid)), Some(Value::String(offset))) = (pid, offset) {
                restored = store.restore(&pid, &offset);
            }
        }
        let (id, pid, ext, rooms, replay, recovered) = match restored {
            Some((session, missed)) => (
                session.sid,
                Some(session.pid),
                session.ext,
                session.rooms,
                missed,
                true,
            ),
            None => (
                new_sid(),
                ns.recovery_enabled().then(new_sid),
                Extensions::default(),
                Default::default(),
                Vec::new(),
                false,
            ),
        };
        let auth = Value::Object(auth);
        let socket = Socket::new(
            id.clone(),
            pid.clone(),
            ns.clone(),
            self.conn.clone(),
            self.shared.clone(),
            recovered,
            ext,
        );
        lock(&self.shared.sockets).push((nsp.clone().into_boxed_str(), socket.clone()));
        ns.add_socket(socket.clone());
        socket.join(id.clone());
        for room in rooms {
            socket.join(room);
        }
        let handler = ns.connect_handler();
        let shared = self.shared.clone();
        let conn = self.conn.clone();
        actix_web::rt::spawn(async move {
            match handler(socket.clone(), auth).await {
                Ok(()) => {
                    let mut reply = serde_json::json!({ "sid": id });
                    if let (Some(pid), Value::Object(map)) = (pid, &mut reply) {
                        map.insert("pid".into(), Value::String(pid));
                    }
                    shared.any_connected.store(true, Ordering::Relaxed);
                    socket.mark_connected(Packet::new(PacketType::Connect, &nsp, Some(reply)), replay);
                }
                Err(err) => {
                    shared.remove(&nsp, &id);
                    socket.closed(DisconnectReason::ServerNamespaceDisconnect);
                    let packet = Packet::new(PacketType::ConnectError, &nsp, Some(err.to_json()));
                    conn.send(Message::Text(packet.encode()));
                }
            }
        });
    }
}

impl ConnHandler for SioConn {
    fn on_message(&mut self, msg: Message) {
        match msg {
            Message::Text(text) => {
                if self.partial.is_some() {
                    return self.fail();
                }
                let Ok((head, body)) = Head::decode(&text) else {
                    return self.fail();
                };
                // An event is admitted or refused on its header alone: a refused flood is
                // never decoded.
                let mut admitted = None;
                if head.kind == PacketType::Event {
                    if let Some(socket) = self.shared.get(&head.nsp).filter(Socket::connected) {
                        match socket.admit(head.id) {
                            Admission::Refused => return,
                            handle => admitted = Some((socket, handle)),
                        }
                    }
                }
                let Ok(packet) = Packet::decode_body(head, body) else {
                    return self.fail();
                };
                if packet.kind.is_binary() {
                    // Attachments are held only for a socket that can take them: one connected
                    // (an event) or at least present (an ack).
                    let socket = self.shared.get(&packet.nsp);
                    let addressed = match packet.kind {
                        PacketType::BinaryEvent => socket.is_some_and(|s| s.connected()),
                        _ => socket.is_some(),
                    };
                    let valid = addressed
                        && packet.attachments <= MAX_ATTACHMENTS
                        && packet
                            .data
                            .as_ref()
                            .is_some_and(|d| placeholders_valid(d, packet.attachments));
                    if !valid {
                        return self.fail();
                    }
                    if packet.attachments > 0 {
                        self.partial = Some((packet, Vec::new(), 0));
                        return;
                    }
                }
                self.on_packet(packet, Vec::new(), admitted);
            }
            Message::Binary(data) => {
                let Some((packet, mut bins, bytes)) = self.partial.take() else {
                    return self.fail();
                };
                let bytes = bytes + data.len();
                if bytes > MAX_ATTACHMENT_BYTES {
                    return self.fail();
                }
                bins.push(data);
                if bins.len() == packet.attachments {
                    self.on_packet(packet, bins, None);
                } else {
                    self.partial = Some((packet, bins, bytes));
                }
            }
        }
    }

    fn on_close(&mut self, reason: CloseReason) {
        let sockets: Vec<Socket> = lock(&self.shared.sockets).drain(..).map(|(_, s)| s).collect();
        for socket in sockets {
            socket.closed(DisconnectReason::Transport(reason));
        }
    }
}
