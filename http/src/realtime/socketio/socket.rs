//! The server-side socket handle: one per (Engine.IO connection, namespace).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use super::handler::{Admission, DisconnectHandler, EventHandler, Gate};
use super::namespace::{BroadcastOperator, Namespace};
use super::packet::{data_packet, Packet, PacketType};
use super::{Extensions, Payload};
use crate::realtime::engineio::{CloseReason, EngineConn, Message};
use crate::realtime::lock;

/// The connection's sockets by namespace, as far as a socket needs them: to leave. (The
/// connection implements it, so a socket never names the connection's type.)
pub(crate) trait SocketSlots: Send + Sync {
    fn remove(&self, nsp: &str, id: &str);
}

/// A refusal of a CONNECT: sent as `44{"message":…,"data":…}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectError {
    pub message: String,
    pub data: Option<Value>,
}

impl ConnectError {
    pub fn new(message: impl Into<String>) -> Self {
        ConnectError {
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut v = serde_json::json!({ "message": self.message });
        if let (Some(data), Value::Object(map)) = (&self.data, &mut v) {
            map.insert("data".into(), data.clone());
        }
        v
    }
}

/// Why a socket left its namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The client sent DISCONNECT for this namespace.
    ClientNamespaceDisconnect,
    /// The server called [`Socket::disconnect`].
    ServerNamespaceDisconnect,
    /// The Engine.IO connection closed.
    Transport(CloseReason),
}

impl DisconnectReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DisconnectReason::ClientNamespaceDisconnect => "client namespace disconnect",
            DisconnectReason::ServerNamespaceDisconnect => "server namespace disconnect",
            DisconnectReason::Transport(r) => r.as_str(),
        }
    }

    pub(crate) fn recoverable(self) -> bool {
        matches!(
            self,
            DisconnectReason::Transport(
                CloseReason::TransportClose | CloseReason::TransportError | CloseReason::PingTimeout
            )
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AckError {
    #[error("acknowledgement timed out")]
    Timeout,
    #[error("socket disconnected")]
    Disconnected,
}

/// Answers one client acknowledgement request (consumed by sending).
pub struct AckSender {
    socket: Socket,
    id: u64,
}

impl std::fmt::Debug for AckSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AckSender").field("id", &self.id).finish()
    }
}

impl AckSender {
    pub fn send(self, args: Vec<Value>) {
        self.send_payload(Payload::new(args));
    }

    pub fn send_payload(self, payload: Payload) {
        let kind = if payload.binary.is_empty() { PacketType::Ack } else { PacketType::BinaryAck };
        let text = data_packet(kind, self.socket.ns().path(), payload.binary.len(), Some(self.id), 64, |w| {
            payload.args.iter().for_each(|a| w.arg(a));
        });
        self.socket.send_frames(with_attachments(text, payload.binary));
    }

    /// Answers with one argument, serialized straight into the packet.
    pub fn send_json<T: Serialize + ?Sized>(self, arg: &T) {
        let text = data_packet(PacketType::Ack, self.socket.ns().path(), 0, Some(self.id), 128, |w| w.arg(arg));
        self.socket.send_frames(vec![Message::Text(text)]);
    }
}

struct SockState {
    connected: bool,
    closed: bool,
    /// Why it closed, for a disconnect handler registered after that.
    closed_by: Option<DisconnectReason>,
    buffer: Vec<Vec<Message>>,
}

pub(crate) struct SocketInner {
    /// Shared with the recovery buffer, which keeps it beside every event sent to this socket.
    id: Arc<str>,
    pid: Option<String>,
    ns: Namespace,
    conn: EngineConn,
    shared: Arc<dyn SocketSlots>,
    recovered: bool,
    state: Mutex<SockState>,
    handlers: RwLock<HashMap<String, EventHandler>>,
    fallback: RwLock<Option<EventHandler>>,
    gate: RwLock<Option<Gate>>,
    on_disconnect: Mutex<Vec<DisconnectHandler>>,
    acks: Mutex<HashMap<u64, oneshot::Sender<Payload>>>,
    next_ack: AtomicU64,
    rooms: Mutex<HashSet<String>>,
    ext: Extensions,
}

/// A connected client in one namespace. Cheap to clone; every method is non-blocking.
#[derive(Clone)]
pub struct Socket {
    inner: Arc<SocketInner>,
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Socket")
            .field("id", &self.inner.id)
            .field("nsp", &self.inner.ns.path())
            .finish()
    }
}

impl Socket {
    pub(crate) fn new(
        id: String,
        pid: Option<String>,
        ns: Namespace,
        conn: EngineConn,
        shared: Arc<dyn SocketSlots>,
        recovered: bool,
        ext: Extensions,
    ) -> Socket {
        Socket {
            inner: Arc::new(SocketInner {
                id: id.into(),
                pid,
                ns,
                conn,
                shared,
                recovered,
                state: Mutex::new(SockState {
                    connected: false,
                    closed: false,
                    closed_by: None,
                    buffer: Vec::new(),
                }),
                handlers: RwLock::new(HashMap::new()),
                fallback: RwLock::new(None),
                gate: RwLock::new(None),
                on_disconnect: Mutex::new(Vec::new()),
                acks: Mutex::new(HashMap::new()),
                next_ack: AtomicU64::new(0),
                rooms: Mutex::new(HashSet::new()),
                ext,
            }),
        }
    }

    /// The socket id (sent to the client in the CONNECT reply; kept across recovery).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The Engine.IO session id of the underlying connection.
    pub fn engine_sid(&self) -> &str {
        self.inner.conn.sid()
    }

    pub fn ns(&self) -> &Namespace {
        &self.inner.ns
    }

    /// Whether this socket's state was recovered after a short disconnection.
    pub fn recovered(&self) -> bool {
        self.inner.recovered
    }

    pub(crate) fn pid(&self) -> Option<&str> {
        self.inner.pid.as_deref()
    }

    /// Typed data attached to this socket (e.g. the authenticated user).
    pub fn data(&self) -> &Extensions {
        &self.inner.ext
    }

    pub fn connected(&self) -> bool {
        let st = lock(&self.inner.state);
        st.connected && !st.closed
    }

    /// Whether `frames` more packets fit in the connection's outbound queue with headroom.
    pub fn has_room(&self, frames: usize) -> bool {
        self.inner.conn.has_room(frames)
    }

    /// Registers the handler of `event`. It runs as a spawned future.
    pub fn on<F, Fut>(&self, event: impl Into<String>, handler: F)
    where
        F: Fn(Socket, Payload, Option<AckSender>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let h: EventHandler = Arc::new(move |s, p, a| Box::pin(handler(s, p, a)));
        self.while_open(|| {
            if let Ok(mut map) = self.inner.handlers.write() {
                map.insert(event.into(), h);
            }
        });
    }

    /// Handles events with no specific handler; the event name is `payload.args[0]`.
    pub fn on_any<F, Fut>(&self, handler: F)
    where
        F: Fn(Socket, Payload, Option<AckSender>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let h: EventHandler = Arc::new(move |s, p, a| Box::pin(handler(s, p, a)));
        self.while_open(|| {
            if let Ok(mut slot) = self.inner.fallback.write() {
                *slot = Some(h);
            }
        });
    }

    /// Puts `gate` in front of this socket's events (see [`Admission`]).
    pub fn gate<F>(&self, gate: F)
    where
        F: Fn(&Socket, Option<AckSender>) -> Admission + Send + Sync + 'static,
    {
        self.while_open(|| {
            if let Ok(mut slot) = self.inner.gate.write() {
                *slot = Some(Arc::new(gate));
            }
        });
    }

    /// Registers a handler unless the socket has closed: `closed` lets go of the handlers, and
    /// one registered after it would never be let go of. Under the state lock, so a close
    /// comes wholly before or wholly after.
    fn while_open(&self, register: impl FnOnce()) {
        let st = lock(&self.inner.state);
        if !st.closed {
            register();
        }
    }

    /// Asks the gate about an event with ack id `ack`; no gate admits everything.
    pub(crate) fn admit(&self, ack: Option<u64>) -> Admission {
        let ack = ack.map(|id| AckSender { socket: self.clone(), id });
        match self.inner.gate.read().ok().and_then(|g| g.clone()) {
            Some(gate) => gate(self, ack),
            None => Admission::Handle { pass: Box::new(()), ack },
        }
    }

    pub fn on_disconnect<F, Fut>(&self, handler: F)
    where
        F: Fn(Socket, DisconnectReason) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let h: DisconnectHandler = Arc::new(move |s, r| Box::pin(handler(s, r)));
        let mut registered = Some(h.clone());
        self.while_open(|| lock(&self.inner.on_disconnect).extend(registered.take()));
        if registered.is_some() {
            // Closed already (while the CONNECT handler was waiting, say): the clean-up it
            // registers runs now instead of never.
            let reason = lock(&self.inner.state).closed_by.unwrap_or(DisconnectReason::ServerNamespaceDisconnect);
            actix_web::rt::spawn(h(self.clone(), reason));
        }
    }

    /// Emits `event` with JSON arguments.
    pub fn emit(&self, event: &str, args: Vec<Value>) {
        self.emit_payload(event, Payload::new(args));
    }

    /// Emits `event` with arguments and binary attachments.
    pub fn emit_payload(&self, event: &str, payload: Payload) {
        self.emit_with(|nsp, offset| event_frames(nsp, event, payload, None, offset));
    }

    /// Emits `event` with one argument given as JSON text, serialized once by the caller for
    /// every socket it goes to.
    pub fn emit_json(&self, event: &str, arg_json: &str) {
        self.emit_with(|nsp, offset| {
            let text = data_packet(PacketType::Event, nsp, 0, None, arg_json.len() + event.len() + 32, |w| {
                w.arg(event);
                w.json(arg_json);
                if let Some(offset) = offset {
                    w.arg(offset);
                }
            });
            vec![Message::Text(text)]
        });
    }

    /// Emits `event` with one argument, serialized straight into the packet.
    pub fn emit_arg<T: Serialize + ?Sized>(&self, event: &str, arg: &T) {
        self.emit_with(|nsp, offset| {
            let text = data_packet(PacketType::Event, nsp, 0, None, event.len() + 64, |w| {
                w.arg(event);
                w.arg(arg);
                if let Some(offset) = offset {
                    w.arg(offset);
                }
            });
            vec![Message::Text(text)]
        });
    }

    /// Sends the frames `build` makes (given the namespace and, with recovery on, the offset
    /// the event is stored under).
    fn emit_with(&self, build: impl FnOnce(&str, Option<&str>) -> Vec<Message>) {
        let nsp = self.inner.ns.path();
        let frames = match self.inner.ns.recovery() {
            Some(store) => store.append_for(&self.inner.id, |offset| build(nsp, Some(offset))),
            None => build(nsp, None),
        };
        self.send_frames(frames);
    }

    /// Emits `event` and waits for the client's acknowledgement.
    pub async fn emit_with_ack(
        &self,
        event: &str,
        payload: Payload,
        timeout: Duration,
    ) -> Result<Payload, AckError> {
        let id = self.inner.next_ack.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.inner.acks).insert(id, tx);
        self.send_frames(event_frames(self.inner.ns.path(), event, payload, Some(id), None));
        let res = tokio::time::timeout(timeout, rx).await;
        lock(&self.inner.acks).remove(&id);
        match res {
            Ok(Ok(p)) => Ok(p),
            Ok(Err(_)) => Err(AckError::Disconnected),
            Err(_) => Err(AckError::Timeout),
        }
    }


    /// Sends frames that go out together and in order (a packet and its attachments), or keeps
    /// them until the CONNECT reply is out.
    pub(crate) fn send_frames(&self, frames: Vec<Message>) {
        let mut st = lock(&self.inner.state);
        if st.closed {
            return;
        }
        if st.connected {
            self.inner.conn.send_many(frames);
        } else {
            st.buffer.push(frames);
        }
    }

    /// Sends the CONNECT reply, then `replay`, then whatever was emitted meanwhile.
    pub(crate) fn mark_connected(&self, reply: Packet, replay: Vec<crate::realtime::recovery::Frames>) {
        let mut st = lock(&self.inner.state);
        if st.closed {
            return;
        }
        self.inner.conn.send(Message::Text(reply.encode()));
        for frames in replay {
            self.inner.conn.send_many(frames);
        }
        for msgs in st.buffer.drain(..) {
            self.inner.conn.send_many(msgs);
        }
        st.connected = true;
    }

    /// Runs the handler of an event. `admitted` is the gate's answer when it was asked before
    /// the arguments were decoded; otherwise it is asked now.
    pub(crate) fn dispatch_event(&self, payload: Payload, ack: Option<u64>, admitted: Option<Admission>) {
        let Some(Value::String(event)) = payload.args.first() else {
            return;
        };
        let handler = self
            .inner
            .handlers
            .read()
            .ok()
            .and_then(|m| m.get(event).cloned());
        let (handler, payload) = match handler {
            Some(h) => {
                let mut payload = payload;
                payload.args.remove(0);
                (h, payload)
            }
            None => match self.inner.fallback.read().ok().and_then(|f| f.clone()) {
                Some(h) => (h, payload),
                None => return,
            },
        };
        let Admission::Handle { pass, ack } = admitted.unwrap_or_else(|| self.admit(ack)) else {
            return;
        };
        let handled = handler(self.clone(), payload, ack);
        actix_web::rt::spawn(async move {
            handled.await;
            drop(pass);
        });
    }

    pub(crate) fn resolve_ack(&self, id: u64, payload: Payload) {
        if let Some(tx) = lock(&self.inner.acks).remove(&id) {
            let _ = tx.send(payload);
        }
    }

    /// Joins a room of this namespace.
    pub fn join(&self, room: impl Into<String>) {
        let room = room.into();
        lock(&self.inner.rooms).insert(room.clone());
        self.inner.ns.add_to_room(&room, &self.inner.id);
    }

    pub fn leave(&self, room: &str) {
        lock(&self.inner.rooms).remove(room);
        self.inner.ns.remove_from_room(room, &self.inner.id);
    }

    pub fn rooms(&self) -> HashSet<String> {
        lock(&self.inner.rooms).clone()
    }

    /// Broadcast to `room`, excluding this socket.
    pub fn to(&self, room: impl Into<String>) -> BroadcastOperator {
        self.inner.ns.to(room).except(self.inner.id.to_string())
    }

    /// Broadcast to every socket of the namespace but this one.
    pub fn broadcast(&self) -> BroadcastOperator {
        self.inner.ns.broadcast().except(self.inner.id.to_string())
    }

    /// Disconnects from this namespace (sends DISCONNECT; the client will not reconnect by itself).
    pub fn disconnect(&self) {
        let packet = Packet::new(PacketType::Disconnect, self.inner.ns.path(), None);
        self.send_frames(vec![Message::Text(packet.encode())]);
        self.inner.shared.remove(self.inner.ns.path(), &self.inner.id);
        self.closed(DisconnectReason::ServerNamespaceDisconnect);
    }

    /// Closes the whole underlying Engine.IO connection (all namespaces).
    pub fn close_connection(&self) {
        self.inner.conn.close();
    }

    /// Cleans up once: leaves rooms, fails pending acks, persists for recovery, runs handlers.
    pub(crate) fn closed(&self, reason: DisconnectReason) {
        let was_connected = {
            let mut st = lock(&self.inner.state);
            if st.closed {
                return;
            }
            st.closed = true;
            st.closed_by = Some(reason);
            st.buffer.clear();
            st.connected
        };
        lock(&self.inner.acks).clear();
        // The handlers hold the application's state for this socket, which often holds the
        // socket (to send to it): let go of them, or the two keep each other alive forever.
        if let Ok(mut handlers) = self.inner.handlers.write() {
            handlers.clear();
        }
        if let Ok(mut fallback) = self.inner.fallback.write() {
            *fallback = None;
        }
        if let Ok(mut gate) = self.inner.gate.write() {
            *gate = None;
        }
        let on_disconnect = std::mem::take(&mut *lock(&self.inner.on_disconnect));
        let rooms = self.rooms();
        for room in &rooms {
            self.inner.ns.remove_from_room(room, &self.inner.id);
        }
        self.inner.ns.remove_socket(&self.inner.id);
        if !was_connected {
            return;
        }
        if let (Some(store), Some(pid)) = (self.inner.ns.recovery(), self.pid()) {
            if reason.recoverable() {
                store.persist(self.inner.id.to_string(), pid.to_owned(), rooms, self.inner.ext.clone());
            }
        }
        for h in on_disconnect {
            actix_web::rt::spawn(h(self.clone(), reason));
        }
    }
}

/// The frames of an event packet `[event, ...args, offset?]` and its attachments.
pub(crate) fn event_frames(nsp: &str, event: &str, payload: Payload, ack: Option<u64>, offset: Option<&str>) -> Vec<Message> {
    let kind = if payload.binary.is_empty() { PacketType::Event } else { PacketType::BinaryEvent };
    let text = data_packet(kind, nsp, payload.binary.len(), ack, event.len() + 64, |w| {
        w.arg(event);
        payload.args.iter().for_each(|a| w.arg(a));
        if let Some(offset) = offset {
            w.arg(offset);
        }
    });
    with_attachments(text, payload.binary)
}

/// A packet's text followed by its binary attachments, to go out together and in order.
pub(crate) fn with_attachments(text: String, binary: Vec<Bytes>) -> Vec<Message> {
    let mut frames = Vec::with_capacity(1 + binary.len());
    frames.push(Message::Text(text));
    frames.extend(binary.into_iter().map(Message::Binary));
    frames
}
