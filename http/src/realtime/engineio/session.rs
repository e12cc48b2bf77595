//! The Engine.IO session actor: one per session, owning the transport(s), the outbound queue and
//! the heartbeat.

use std::collections::VecDeque;
use std::sync::Arc;

use actix::prelude::*;
use tokio::sync::{mpsc, oneshot};

use super::inflow::Credit;
use super::outbox::Outbox;
use super::packet::{encode_payload, Packet};
use super::{CloseReason, ConnHandler, EngineConfig, Message as EioMessage};

/// A frame for a WebSocket writer task.
#[derive(Debug)]
pub enum WsFrame {
    /// A whole Engine.IO packet as text.
    Text(String),
    /// An Engine.IO message packet: the text goes out behind its `4` (no copy to prepend it).
    Message(String),
    Binary(bytes::Bytes),
    Close,
}

impl WsFrame {
    pub(crate) fn message(msg: EioMessage) -> WsFrame {
        match msg {
            EioMessage::Text(t) => WsFrame::Message(t),
            EioMessage::Binary(b) => WsFrame::Binary(b),
        }
    }
}

pub use super::wsqueue::WsTx;

/// Called with the session id when the session stops (the server forgets it).
pub type CloseHook = Arc<dyn Fn(&str) + Send + Sync>;

/// Why a request against a session was refused (the HTTP layer answers 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Upgraded,
    DuplicatePoll,
    Closed,
}

enum Transport {
    Polling,
    Ws { id: u64, tx: WsTx },
}

struct Upgrading {
    id: u64,
    tx: WsTx,
    probed: bool,
}

pub struct EioSession {
    sid: Arc<str>,
    cfg: Arc<EngineConfig>,
    on_close: CloseHook,
    handler: Option<Box<dyn ConnHandler>>,
    outbox: Arc<Outbox>,
    transport: Transport,
    upgrading: Option<Upgrading>,
    queue: VecDeque<Packet>,
    pending_poll: Option<oneshot::Sender<Result<String, Refused>>>,
    ping_timer: Option<SpawnHandle>,
    pong_deadline: Option<SpawnHandle>,
    closed: bool,
    /// The server asked to close while the client was switching to a probed WebSocket; the
    /// close happens as soon as the switch ends (or fails), see `close`.
    close_after_upgrade: bool,
    /// Sent as the first frame over a WebSocket-only session.
    open_packet: Option<Packet>,
}

impl EioSession {
    pub(crate) fn new(
        sid: Arc<str>,
        cfg: Arc<EngineConfig>,
        on_close: CloseHook,
        handler: Box<dyn ConnHandler>,
        outbox: Arc<Outbox>,
        ws: Option<(u64, WsTx, Packet)>,
    ) -> Self {
        let (transport, open_packet) = match ws {
            Some((id, tx, open)) => (Transport::Ws { id, tx }, Some(open)),
            None => (Transport::Polling, None),
        };
        EioSession {
            sid,
            cfg,
            on_close,
            handler: Some(handler),
            outbox,
            transport,
            upgrading: None,
            queue: VecDeque::new(),
            pending_poll: None,
            ping_timer: None,
            pong_deadline: None,
            closed: false,
            close_after_upgrade: false,
            open_packet,
        }
    }

    fn schedule_ping(&mut self, ctx: &mut Context<Self>) {
        if let Some(h) = self.ping_timer.take() {
            ctx.cancel_future(h);
        }
        let interval = self.cfg.ping_interval;
        self.ping_timer = Some(ctx.run_later(interval, |act, ctx| {
            act.ping_timer = None;
            act.push(Packet::Ping, ctx);
            let timeout = act.cfg.ping_timeout;
            act.pong_deadline = Some(ctx.run_later(timeout, |act, ctx| {
                act.pong_deadline = None;
                act.close(CloseReason::PingTimeout, ctx);
            }));
        }));
    }

    /// Queues or writes one outbound packet, in order.
    fn push(&mut self, packet: Packet, ctx: &mut Context<Self>) {
        if self.closed {
            return;
        }
        match &self.transport {
            Transport::Ws { tx, .. } => {
                let frame = match packet {
                    Packet::Message(text) => WsFrame::Message(text),
                    Packet::Binary(b) => WsFrame::Binary(b),
                    other => match other.encode_text() {
                        Some(text) => WsFrame::Text(text),
                        None => return,
                    },
                };
                match tx.try_send(frame) {
                    Ok(()) => {}
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        self.close(CloseReason::SlowClient, ctx)
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => {
                        self.close(CloseReason::TransportClose, ctx)
                    }
                }
            }
            Transport::Polling => {
                self.queue.push_back(packet);
                if self.queue.len() > self.cfg.max_buffered_packets {
                    self.queue.clear();
                    self.close(CloseReason::SlowClient, ctx);
                    return;
                }
                self.flush_poll();
            }
        }
    }

    /// On a WebSocket, lets the upper layer's messages go straight to the socket's queue from
    /// now on (after what it queued so far), instead of waking this actor for each batch.
    fn go_direct(&mut self, ctx: &mut Context<Self>) {
        let Transport::Ws { tx, .. } = &self.transport else {
            return;
        };
        if self.outbox.go_direct(tx.clone()).is_err() {
            self.close(CloseReason::SlowClient, ctx);
        }
    }

    /// Answers a pending GET with everything queued.
    fn flush_poll(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        if let Some(tx) = self.pending_poll.take() {
            let packets: Vec<Packet> = self.queue.drain(..).collect();
            if tx.send(Ok(encode_payload(&packets))).is_err() {
                // The HTTP request went away: keep the packets for the next GET.
                for p in packets.into_iter().rev() {
                    self.queue.push_front(p);
                }
            }
        }
    }

    fn answer_poll_with(&mut self, packet: Packet) {
        if let Some(tx) = self.pending_poll.take() {
            let mut packets: Vec<Packet> = self.queue.drain(..).collect();
            if packets.is_empty() {
                packets.push(packet);
            }
            let _ = tx.send(Ok(encode_payload(&packets)));
        }
    }

    fn on_packet(&mut self, packet: Packet, ctx: &mut Context<Self>) {
        if self.closed {
            return;
        }
        match packet {
            Packet::Message(text) => {
                if let Some(h) = self.handler.as_mut() {
                    h.on_message(EioMessage::Text(text));
                }
            }
            Packet::Binary(data) => {
                if let Some(h) = self.handler.as_mut() {
                    h.on_message(EioMessage::Binary(data));
                }
            }
            Packet::Pong => {
                if let Some(h) = self.pong_deadline.take() {
                    ctx.cancel_future(h);
                    self.schedule_ping(ctx);
                }
            }
            Packet::Close => self.close(CloseReason::TransportClose, ctx),
            Packet::Open(_) => self.close(CloseReason::ParseError, ctx),
            Packet::Ping
            | Packet::PingProbe
            | Packet::PongProbe
            | Packet::Upgrade
            | Packet::Noop => {}
        }
    }

    /// Closes the session once: tells the upper layer, says goodbye on the transport, stops.
    pub(crate) fn close(&mut self, reason: CloseReason, ctx: &mut Context<Self>) {
        if self.closed {
            return;
        }
        if reason == CloseReason::ServerClose
            && !self.close_after_upgrade
            && self.upgrading.as_ref().is_some_and(|u| u.probed)
        {
            // The client got `3probe` and is pausing its polling to switch: it sends no more
            // GETs, and closing the new socket now would leave it stranded on a paused
            // transport until its ping timeout. Close on the new socket once it has switched;
            // if it never does, close anyway after the grace.
            self.close_after_upgrade = true;
            let grace = self.cfg.ping_timeout.min(std::time::Duration::from_secs(5));
            ctx.run_later(grace, |act, ctx| act.close(CloseReason::ServerClose, ctx));
            return;
        }
        if let Some(mut h) = self.handler.take() {
            h.on_close(reason);
        }
        self.closed = true;
        self.outbox.close();
        if let Some(up) = self.upgrading.take() {
            let _ = up.tx.try_send(WsFrame::Close);
        }
        match &self.transport {
            Transport::Ws { tx, .. } => {
                let _ = tx.try_send(WsFrame::Close);
                ctx.stop();
            }
            Transport::Polling => {
                if reason == CloseReason::TransportClose {
                    self.answer_poll_with(Packet::Noop);
                    ctx.stop();
                } else {
                    self.queue.push_back(Packet::Close);
                    if self.pending_poll.is_some() {
                        self.flush_poll();
                        ctx.stop();
                    } else if reason == CloseReason::ServerClose {
                        // Let the next GET collect the close packet, then go.
                        let grace = self.cfg.ping_timeout.min(std::time::Duration::from_secs(5));
                        ctx.run_later(grace, |_, ctx| ctx.stop());
                    } else {
                        ctx.stop();
                    }
                }
            }
        }
    }
}

impl Actor for EioSession {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        if let Some(open) = self.open_packet.take() {
            self.push(open, ctx);
        }
        self.go_direct(ctx);
        self.schedule_ping(ctx);
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        if let Some(mut h) = self.handler.take() {
            h.on_close(CloseReason::TransportError);
        }
        (self.on_close)(&self.sid);
        if let Transport::Ws { tx, .. } = &self.transport {
            let _ = tx.try_send(WsFrame::Close);
        }
    }
}

/// A long-polling GET.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Poll(pub oneshot::Sender<Result<String, Refused>>);

impl Handler<Poll> for EioSession {
    type Result = ();
    fn handle(&mut self, Poll(tx): Poll, ctx: &mut Context<Self>) {
        if self.closed {
            // Closed by the server: deliver what is left (the close packet), then refuse.
            if !self.queue.is_empty() {
                let packets: Vec<Packet> = self.queue.drain(..).collect();
                let _ = tx.send(Ok(encode_payload(&packets)));
                ctx.stop();
            } else {
                let _ = tx.send(Err(Refused::Closed));
            }
            return;
        }
        if matches!(self.transport, Transport::Ws { .. }) {
            let _ = tx.send(Err(Refused::Upgraded));
            return;
        }
        if self.pending_poll.as_ref().is_some_and(|p| !p.is_closed()) {
            let _ = tx.send(Err(Refused::DuplicatePoll));
            self.close(CloseReason::TransportError, ctx);
            return;
        }
        self.pending_poll = Some(tx);
        if self.upgrading.as_ref().is_some_and(|u| u.probed) {
            self.answer_poll_with(Packet::Noop);
        } else {
            self.flush_poll();
        }
    }
}

/// A long-polling POST, already decoded.
#[derive(Message)]
#[rtype(result = "Result<(), Refused>")]
pub struct Post(pub Vec<Packet>);

impl Handler<Post> for EioSession {
    type Result = Result<(), Refused>;
    fn handle(&mut self, Post(packets): Post, ctx: &mut Context<Self>) -> Self::Result {
        if self.closed {
            return Err(Refused::Closed);
        }
        if matches!(self.transport, Transport::Ws { .. }) {
            return Err(Refused::Upgraded);
        }
        for p in packets {
            self.on_packet(p, ctx);
        }
        Ok(())
    }
}

/// The HTTP layer saw a fatal error for this session (bad payload, too large...).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Fail(pub CloseReason);

impl Handler<Fail> for EioSession {
    type Result = ();
    fn handle(&mut self, Fail(reason): Fail, ctx: &mut Context<Self>) {
        self.close(reason, ctx);
    }
}

/// A WebSocket wants to upgrade this (polling) session.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct AttachWs {
    pub id: u64,
    pub tx: WsTx,
}

impl Handler<AttachWs> for EioSession {
    type Result = bool;
    fn handle(&mut self, msg: AttachWs, _ctx: &mut Context<Self>) -> bool {
        if self.closed || self.upgrading.is_some() || matches!(self.transport, Transport::Ws { .. })
        {
            return false;
        }
        self.upgrading = Some(Upgrading {
            id: msg.id,
            tx: msg.tx,
            probed: false,
        });
        true
    }
}

/// Packets read from a WebSocket attached to this session, in order, with the reader's credit
/// for them (given back when this message is handled or dropped).
#[derive(Message)]
#[rtype(result = "()")]
pub struct WsPackets {
    pub id: u64,
    pub packets: Vec<Packet>,
    pub credit: Credit,
}

impl Handler<WsPackets> for EioSession {
    type Result = ();
    fn handle(&mut self, WsPackets { id, packets, credit }: WsPackets, ctx: &mut Context<Self>) {
        for packet in packets {
            self.on_ws_packet(id, packet, ctx);
        }
        drop(credit);
    }
}

impl EioSession {
    fn on_ws_packet(&mut self, id: u64, packet: Packet, ctx: &mut Context<Self>) {
        if let Transport::Ws { id: current, .. } = &self.transport {
            if *current == id {
                self.on_packet(packet, ctx);
            }
            return;
        }
        let Some(up) = self.upgrading.as_mut().filter(|u| u.id == id) else {
            return;
        };
        match packet {
            Packet::PingProbe => {
                up.probed = true;
                let _ = up.tx.try_send(WsFrame::Text("3probe".to_owned()));
                // Let the client's pending GET finish so it can complete the upgrade.
                self.answer_poll_with(Packet::Noop);
            }
            Packet::Upgrade if up.probed => {
                let tx = up.tx.clone();
                self.upgrading = None;
                self.answer_poll_with(Packet::Noop);
                self.transport = Transport::Ws { id, tx };
                let queued: Vec<Packet> = self.queue.drain(..).collect();
                for p in queued {
                    self.push(p, ctx);
                }
                self.go_direct(ctx);
                self.close_if_deferred(ctx);
            }
            _ => {
                // Anything else before the upgrade completes cancels the upgrade.
                let _ = up.tx.try_send(WsFrame::Close);
                self.upgrading = None;
                self.close_if_deferred(ctx);
            }
        }
    }
}

impl EioSession {
    /// Runs a server close that waited for a WebSocket switch to end.
    fn close_if_deferred(&mut self, ctx: &mut Context<Self>) {
        if self.close_after_upgrade {
            self.close(CloseReason::ServerClose, ctx);
        }
    }
}

/// A WebSocket attached to this session ended or failed.
#[derive(Message)]
#[rtype(result = "()")]
pub struct WsGone {
    pub id: u64,
    pub reason: CloseReason,
}

impl Handler<WsGone> for EioSession {
    type Result = ();
    fn handle(&mut self, WsGone { id, reason }: WsGone, ctx: &mut Context<Self>) {
        if self.upgrading.as_ref().is_some_and(|u| u.id == id) {
            self.upgrading = None;
            self.close_if_deferred(ctx);
            return;
        }
        if matches!(&self.transport, Transport::Ws { id: current, .. } if *current == id) {
            self.close(reason, ctx);
        }
    }
}

/// The upper layer queued messages in the outbox.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Flush;

impl Handler<Flush> for EioSession {
    type Result = ();
    fn handle(&mut self, _: Flush, ctx: &mut Context<Self>) {
        for m in self.outbox.take() {
            let p = match m {
                EioMessage::Text(t) => Packet::Message(t),
                EioMessage::Binary(b) => Packet::Binary(b),
            };
            self.push(p, ctx);
        }
    }
}

/// Close requested by the upper layer.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ServerClose;

impl Handler<ServerClose> for EioSession {
    type Result = ();
    fn handle(&mut self, _: ServerClose, ctx: &mut Context<Self>) {
        self.close(CloseReason::ServerClose, ctx);
    }
}
