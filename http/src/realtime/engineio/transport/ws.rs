//! WebSocket transport on the raw connection.
//!
//! The HTTP server hands an upgrade request over together with its socket
//! ([`crate::realtime::server`]); from then on one task owns the connection: it reads frames into
//! its session and writes what the session queues, several frames per system call when they
//! are waiting. Nothing of the HTTP layer stays behind, and the buffers exist only while bytes
//! are in them, so an idle WebSocket costs its socket, its queue and its session.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_http::ws::{self, OpCode, Parser, ProtocolError};
use actix_http::{header, HttpMessage as _, Method, Request};
use actix_web::rt::net::TcpStream;
use bytes::{Bytes, BytesMut};
use futures_util::FutureExt as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::super::engine::{EngineServer, Refusal};
use super::super::packet::Packet;
use super::super::service::{parse_query, TransportKind};
use super::super::session::{Session, WsFrame};
use super::super::wsqueue::{self, WsRx};
use super::super::CloseReason;

/// Frames buffered between the session and the connection.
pub const WS_QUEUE: usize = 1024;

/// Queued frames gathered into one write when a backlog has built up.
const WRITE_BATCH: usize = 64;

/// The backlog from which frames are gathered. Below it each frame leaves in its own write, as
/// a Node server sends them: clients (and the protocol's conformance suite) that handle one
/// message per read keep working, and a frame never waits for another.
const BACKLOG: usize = 8;

/// Bytes asked of the kernel per read.
const READ_CHUNK: usize = 4096;

static NEXT_WS_ID: AtomicU64 = AtomicU64::new(1);

/// An upgrade request as the HTTP server hands it over: the Engine.IO server it is for, the
/// request, its connection, and the bytes the client sent after the request.
pub(crate) struct Upgrade {
    pub srv: EngineServer,
    pub req: Request,
    pub io: TcpStream,
    pub pending: BytesMut,
}

/// Serves one upgrade request on its connection: refuses it with an HTTP answer, or runs the
/// WebSocket until either side closes.
///
/// Why two boxes: a task's future is as large as the largest state it passes through, for its
/// whole life. The handshake's state (the request, its strings, the attach round trip) is
/// several times the connection loop's, so it runs in a future of its own on the heap, gone
/// once the handshake is answered; the request comes boxed for the same reason (an async
/// function's arguments stay in its future). An idle WebSocket's task then holds only the loop.
pub(crate) async fn serve(upgrade: Box<Upgrade>) {
    if let Some(live) = Box::pin(open(upgrade)).await {
        run_until_closed(live).await;
    }
}

/// An answered WebSocket: its connection, the session it serves, and that session's queue
/// of frames to write.
struct Live {
    conn: Connection,
    id: u64,
    session: Arc<Session>,
    rx: WsRx,
}

/// Checks and answers the handshake, and attaches the connection to its session (an existing
/// one, upgrading from polling, or a new one). `None`: refused or gone, nothing left to run.
async fn open(upgrade: Box<Upgrade>) -> Option<Box<Live>> {
    let Upgrade { srv, req, mut io, pending } = *upgrade;
    let accept = match check(&srv, &req) {
        Ok(accept) => accept,
        Err(refusal) => {
            refuse(&mut io, refusal).await;
            return None;
        }
    };
    let sid = parse_query(req.uri().query().unwrap_or("")).and_then(|q| q.sid);
    let existing = match &sid {
        Some(sid) => match srv.lookup(sid) {
            Some(addr) => Some(addr),
            None => {
                refuse(&mut io, Refusal::bad_request("Session ID unknown")).await;
                return None;
            }
        },
        None => None,
    };
    // The request head holds the dispatcher's read buffer (its header values are slices of
    // it): gone before the connection settles in for its life.
    drop(req);
    let id = NEXT_WS_ID.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = wsqueue::queue(WS_QUEUE);
    let switching = format!(
        "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\nsec-websocket-accept: {accept}\r\n\r\n"
    );
    write_within(&mut io, switching.as_bytes(), srv.cfg.ping_timeout).await.ok()?;
    let session = match existing {
        Some(session) => {
            if !session.attach_ws(id, tx) {
                let mut close = BytesMut::new();
                Parser::write_close(&mut close, None, false);
                let _ = write_within(&mut io, &close, srv.cfg.ping_timeout).await;
                return None;
            }
            session
        }
        None => srv.open_session(Some((id, tx))).0,
    };
    let conn = Connection {
        io,
        read: pending,
        fragment: None,
        max_payload: srv.cfg.max_payload.max(1024),
        write_timeout: srv.cfg.ping_timeout,
    };
    Some(Box::new(Live { conn, id, session, rx }))
}

/// Runs an answered WebSocket until either side closes, then tells its session.
async fn run_until_closed(live: Box<Live>) {
    let Live { mut conn, id, session, rx } = *live;
    let reason = conn.run(id, &session, rx).await;
    session.ws_gone(id, reason);
    let _ = conn.io.shutdown().await;
}

/// The handshake rules: an Engine.IO WebSocket GET, within the connection limits, with a valid
/// WebSocket handshake. `Ok` is the `Sec-WebSocket-Accept` value.
fn check(srv: &EngineServer, req: &Request) -> Result<String, Refusal> {
    let Some(query) = parse_query(req.uri().query().unwrap_or("")) else {
        return Err(Refusal::bad_request("Bad request"));
    };
    if query.transport != TransportKind::WebSocket {
        return Err(Refusal::bad_request("Bad request"));
    }
    if req.method() != Method::GET {
        return Err(Refusal::bad_request("Bad handshake method"));
    }
    if ws::verify_handshake(req.head()).is_err() {
        return Err(Refusal::bad_request("Bad request"));
    }
    let key = req
        .headers()
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or(Refusal::bad_request("Bad request"))?;
    let accept = ws::hash_key(key.as_bytes());
    if query.sid.is_none() {
        if let Some(refused) = srv.refusal_for(srv.cfg.client_ip.resolve(req.peer_addr().map(|a| a.ip()), req.headers())) {
            return Err(refused);
        }
    }
    Ok(String::from_utf8_lossy(&accept).into_owned())
}

/// Answers a refused upgrade over plain HTTP and closes the connection.
pub(crate) async fn refuse(io: &mut TcpStream, refusal: Refusal) {
    let body = refusal.body();
    let head = format!(
        "HTTP/1.1 {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        refusal.status_line(),
        body.len()
    );
    let _ = write_within(io, head.as_bytes(), Duration::from_secs(5)).await;
    let _ = io.shutdown().await;
}

async fn write_within(io: &mut TcpStream, bytes: &[u8], limit: Duration) -> Result<(), ()> {
    match tokio::time::timeout(limit, io.write_all(bytes)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

/// One upgraded connection: the socket, the unparsed input, a message arriving in fragments.
struct Connection {
    io: TcpStream,
    read: BytesMut,
    fragment: Option<(OpCode, BytesMut)>,
    max_payload: usize,
    /// A client that takes longer than this to accept bytes is gone.
    write_timeout: Duration,
}

/// What a complete frame asks of the connection.
enum Incoming {
    Packet(Packet),
    Ping(Bytes),
    Nothing,
    Close(CloseReason),
}

impl Connection {
    async fn run(
        &mut self,
        id: u64,
        session: &Arc<Session>,
        mut rx: WsRx,
    ) -> CloseReason {
        // Bytes that came with the upgrade request are frames already.
        if let Some(reason) = self.drain_frames(id, session).await {
            return reason;
        }
        loop {
            tokio::select! {
                frame = rx.recv() => {
                    let Some(frame) = frame else {
                        // The session is gone: say goodbye on the socket.
                        self.send_close().await;
                        return CloseReason::ServerClose;
                    };
                    match self.write_batch(frame, &mut rx).await {
                        Ok(false) => {}
                        Ok(true) => return CloseReason::ServerClose,
                        Err(reason) => return reason,
                    }
                }
                // What is read is handled before the next read: a client that sends faster
                // than the server handles is held back by TCP, not by the server's memory.
                ready = self.io.readable() => {
                    if ready.is_err() {
                        return CloseReason::TransportError;
                    }
                    self.read.reserve(READ_CHUNK);
                    // One poll of an ordinary read, not `try_read_buf`: a read that comes back
                    // short tells tokio the socket is drained, so the next wait goes straight to
                    // epoll instead of first asking the kernel again for a `WouldBlock` (one
                    // system call less per message received). Not ready yet: back to waiting.
                    match self.io.read_buf(&mut self.read).now_or_never() {
                        Some(Ok(0)) => return CloseReason::TransportClose,
                        Some(Ok(_)) | None => {}
                        Some(Err(e)) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Some(Err(_)) => return CloseReason::TransportError,
                    }
                    if let Some(reason) = self.drain_frames(id, session).await {
                        return reason;
                    }
                }
            }
        }
    }

    /// Handles every complete frame in the read buffer; `Some` ends the connection.
    async fn drain_frames(
        &mut self,
        id: u64,
        session: &Arc<Session>,
    ) -> Option<CloseReason> {
        let mut packets = Vec::new();
        let mut end = None;
        loop {
            let frame = match Parser::parse(&mut self.read, true, self.max_payload) {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(ProtocolError::Overflow) => {
                    end = Some(CloseReason::PayloadTooLarge);
                    break;
                }
                Err(_) => {
                    end = Some(CloseReason::TransportError);
                    break;
                }
            };
            match self.incoming(frame) {
                Incoming::Packet(packet) => packets.push(packet),
                Incoming::Ping(data) => {
                    let mut out = BytesMut::new();
                    Parser::write_message(&mut out, &data, OpCode::Pong, true, false);
                    if write_within(&mut self.io, &out, self.write_timeout).await.is_err() {
                        end = Some(CloseReason::TransportError);
                        break;
                    }
                }
                Incoming::Nothing => {}
                Incoming::Close(reason) => {
                    if reason == CloseReason::TransportClose {
                        self.send_close().await;
                    }
                    end = Some(reason);
                    break;
                }
            }
        }
        // What was read goes to the session, before any ending: the packets came first.
        if !packets.is_empty() {
            if session.is_stopped() {
                return Some(CloseReason::TransportClose);
            }
            session.ws_packets(id, packets);
        }
        if end.is_some() {
            return end;
        }
        // An idle connection keeps no read buffer.
        if self.read.is_empty() {
            self.read = BytesMut::new();
        }
        None
    }

    /// One parsed frame, with fragments put back together (up to the payload limit).
    fn incoming(&mut self, (fin, op, payload): (bool, OpCode, Option<BytesMut>)) -> Incoming {
        let payload = payload.unwrap_or_default();
        match op {
            OpCode::Text | OpCode::Binary if !fin => {
                if self.fragment.is_some() {
                    return Incoming::Close(CloseReason::TransportError);
                }
                self.fragment = Some((op, payload));
                Incoming::Nothing
            }
            OpCode::Continue => {
                let Some((_, buf)) = self.fragment.as_mut() else {
                    return Incoming::Close(CloseReason::TransportError);
                };
                if buf.len() + payload.len() > self.max_payload {
                    return Incoming::Close(CloseReason::PayloadTooLarge);
                }
                buf.extend_from_slice(&payload);
                if !fin {
                    return Incoming::Nothing;
                }
                match self.fragment.take() {
                    Some((op, whole)) => message(op, whole),
                    None => Incoming::Close(CloseReason::TransportError),
                }
            }
            OpCode::Text | OpCode::Binary => {
                if self.fragment.is_some() {
                    return Incoming::Close(CloseReason::TransportError);
                }
                message(op, payload)
            }
            OpCode::Ping => Incoming::Ping(payload.freeze()),
            OpCode::Pong => Incoming::Nothing,
            OpCode::Close => Incoming::Close(CloseReason::TransportClose),
            OpCode::Bad => Incoming::Close(CloseReason::TransportError),
        }
    }

    /// Writes `first`, and with it up to a batch of what is queued when a backlog has built up.
    /// `Ok(true)`: the session asked to close, and the close frame went out.
    async fn write_batch(
        &mut self,
        first: WsFrame,
        rx: &mut WsRx,
    ) -> Result<bool, CloseReason> {
        let mut out = BytesMut::new();
        let mut closing = encode(first, &mut out);
        let batch = if rx.len() >= BACKLOG { WRITE_BATCH } else { 1 };
        let mut count = 1;
        while !closing && count < batch {
            match rx.try_recv() {
                Some(frame) => closing = encode(frame, &mut out),
                None => break,
            }
            count += 1;
        }
        if write_within(&mut self.io, &out, self.write_timeout).await.is_err() {
            return Err(CloseReason::TransportError);
        }
        Ok(closing)
    }

    async fn send_close(&mut self) {
        let mut out = BytesMut::new();
        Parser::write_close(&mut out, None, false);
        let _ = write_within(&mut self.io, &out, self.write_timeout).await;
    }
}

/// A whole data message as an Engine.IO packet.
fn message(op: OpCode, payload: BytesMut) -> Incoming {
    if op == OpCode::Binary {
        return Incoming::Packet(Packet::Binary(payload.freeze()));
    }
    match std::str::from_utf8(&payload).ok().map(Packet::decode_text) {
        Some(Ok(packet)) => Incoming::Packet(packet),
        _ => Incoming::Close(CloseReason::ParseError),
    }
}

/// Appends one frame to `out`; `true` when it is the close frame.
fn encode(frame: WsFrame, out: &mut BytesMut) -> bool {
    match frame {
        WsFrame::Text(text) => {
            Parser::write_message(out, text.as_bytes(), OpCode::Text, true, false);
            false
        }
        WsFrame::Message(text) => {
            write_text_frame(out, b'4', text.as_bytes());
            false
        }
        WsFrame::Binary(data) => {
            Parser::write_message(out, &data, OpCode::Binary, true, false);
            false
        }
        WsFrame::Close => {
            Parser::write_close(out, None, false);
            true
        }
    }
}

/// An unmasked, final text frame whose payload is `prefix` followed by `body` (RFC 6455 §5.2).
fn write_text_frame(out: &mut BytesMut, prefix: u8, body: &[u8]) {
    const FIN_TEXT: u8 = 0x81;
    let len = body.len() + 1;
    out.reserve(len + 10);
    out.extend_from_slice(&[FIN_TEXT]);
    if len < 126 {
        out.extend_from_slice(&[len as u8]);
    } else if let Ok(short) = u16::try_from(len) {
        out.extend_from_slice(&[126]);
        out.extend_from_slice(&short.to_be_bytes());
    } else {
        out.extend_from_slice(&[127]);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    out.extend_from_slice(&[prefix]);
    out.extend_from_slice(body);
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Our message frames read back, through actix's parser, as the text with its `4`.
    #[test]
    fn message_frames_parse_back_at_every_length_class() {
        for len in [0usize, 1, 124, 125, 126, 65_534, 65_535, 70_000] {
            let body = "x".repeat(len);
            let mut out = BytesMut::new();
            write_text_frame(&mut out, b'4', body.as_bytes());
            let (fin, op, payload) = Parser::parse(&mut out, false, 1 << 20).unwrap().unwrap();
            assert!(fin);
            assert_eq!(op, OpCode::Text);
            let payload = payload.unwrap();
            assert_eq!(payload.len(), len + 1);
            assert_eq!(payload[0], b'4');
            assert!(out.is_empty());
        }
    }
}
