//! An Engine.IO session: the transport(s) it runs on, its outbound queue, its heartbeat and the
//! upper layer's handler. It outlives a transport across the polling → WebSocket upgrade.
//!
//! Why no actor and no task of its own: an idle session has nothing to do between its pings,
//! and an actor (its context, mailbox and a timer future per ping) cost about a kilobyte per
//! connection for that. The session is shared state instead, changed under its lock by whoever
//! has something for it: its WebSocket's task hands it the packets it reads, a polling request
//! its GET or POST, the upper layer what it sends, and the server's [`Heartbeat`] its pings.
//!
//! Two locks, never held the other way round: `handler` (the upper layer, called with what
//! arrives) may be held while `state` is taken, because the handler sends and closes from
//! within its callbacks. A close found while the handler is busy is told to it as soon as the
//! busy call returns (`close_pending`), never from inside it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError, Weak};
use std::time::Duration;

use tokio::sync::oneshot;

use super::heartbeat::Heartbeat;
use super::outbox::{Outbox, Pushed};
use super::packet::{encode_payload, Packet};
use super::{CloseReason, ConnHandler, EngineConfig, Message as EioMessage};
use crate::realtime::lock;

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
    /// Bytes it holds (what the outbound queues count against `wsqueue::MAX_QUEUED_BYTES`).
    pub(crate) fn size(&self) -> usize {
        match self {
            WsFrame::Text(t) | WsFrame::Message(t) => t.len(),
            WsFrame::Binary(b) => b.len(),
            WsFrame::Close => 1,
        }
    }

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

/// What every session of one server shares: its settings, how a stopped session is forgotten,
/// and the heartbeat that pings them all.
pub(crate) struct SessionEnv {
    pub cfg: Arc<EngineConfig>,
    pub on_close: CloseHook,
    pub heartbeat: Arc<Heartbeat>,
}

enum Transport {
    Polling,
    Ws { id: u64, tx: WsTx },
    /// Closed: the WebSocket's queue is let go, so its task ends even when the close frame
    /// found the queue full (a slow client).
    Gone,
}

struct Upgrading {
    id: u64,
    tx: WsTx,
    probed: bool,
}

struct State {
    transport: Transport,
    upgrading: Option<Upgrading>,
    /// Packets waiting for the next GET (polling only).
    queue: PollQueue,
    pending_poll: Option<oneshot::Sender<Result<String, Refused>>>,
    /// Counts the heartbeat's steps: a ping or pong deadline queued for an earlier step is
    /// stale (see [`Heartbeat`]).
    beat: u32,
    awaiting_pong: bool,
    /// The session is closing or closed: it takes nothing more.
    closed: bool,
    /// The close the handler has yet to hear about.
    closing: Option<CloseReason>,
    /// Forgotten by the server: no request finds it any more.
    stopped: bool,
    /// The server asked to close while the client was switching to a probed WebSocket; the
    /// close happens as soon as the switch ends (or fails), see `close`.
    close_after_upgrade: bool,
}

pub struct Session {
    sid: Arc<str>,
    env: Arc<SessionEnv>,
    outbox: Outbox,
    handler: Mutex<Option<Box<dyn ConnHandler>>>,
    /// `state.closing` holds a close for the handler (read without the lock after each call).
    close_pending: AtomicBool,
    state: Mutex<State>,
}

/// What a change of state leaves to do once the state's lock is let go.
#[must_use]
enum After {
    Nothing,
    /// Tell the handler about the close, and forget the session if `stop`.
    Closed { stop: bool },
    /// Close the session for this reason.
    Close(CloseReason),
}

impl Session {
    /// A session whose handler `make_handler` builds from the session's handle (a `Weak`: the
    /// handler's copies of it must not keep the session alive). `ws` is the WebSocket it starts
    /// on, or `None` for long-polling. Call [`Session::start`] once it is registered.
    pub(crate) fn new(
        sid: Arc<str>,
        env: Arc<SessionEnv>,
        ws: Option<(u64, WsTx)>,
        make_handler: impl FnOnce(&Weak<Session>) -> Box<dyn ConnHandler>,
    ) -> Arc<Session> {
        let transport = match ws {
            Some((id, tx)) => Transport::Ws { id, tx },
            None => Transport::Polling,
        };
        let capacity = env.cfg.max_buffered_packets;
        Arc::new_cyclic(|me| Session {
            sid,
            env,
            outbox: Outbox::new(capacity),
            handler: Mutex::new(Some(make_handler(me))),
            close_pending: AtomicBool::new(false),
            state: Mutex::new(State {
                transport,
                upgrading: None,
                queue: PollQueue::default(),
                pending_poll: None,
                beat: 0,
                awaiting_pong: false,
                closed: false,
                closing: None,
                stopped: false,
                close_after_upgrade: false,
            }),
        })
    }

    pub fn sid(&self) -> &str {
        &self.sid
    }

    /// Sends `open` first on a WebSocket-only session, lets the upper layer's messages go
    /// straight to the socket, and starts the heartbeat.
    pub(crate) fn start(self: &Arc<Self>, open: Option<Packet>) {
        let after = {
            let mut st = lock(&self.state);
            let mut after = After::Nothing;
            if let Some(open) = open {
                after = self.push(&mut st, open);
            }
            if matches!(after, After::Nothing) {
                after = self.go_direct(&st);
            }
            self.env.heartbeat.ping_later(self, st.beat);
            after
        };
        self.finish(after);
    }

    /// Whether the server has forgotten this session.
    pub(crate) fn is_stopped(&self) -> bool {
        lock(&self.state).stopped
    }

    /// Queues or writes one outbound packet, in order.
    fn push(&self, st: &mut State, packet: Packet) -> After {
        if st.closed {
            return After::Nothing;
        }
        match &st.transport {
            Transport::Ws { tx, .. } => {
                let frame = match packet {
                    Packet::Message(text) => WsFrame::Message(text),
                    Packet::Binary(b) => WsFrame::Binary(b),
                    other => match other.encode_text() {
                        Some(text) => WsFrame::Text(text),
                        None => return After::Nothing,
                    },
                };
                match tx.try_send(frame) {
                    Ok(()) => After::Nothing,
                    Err(super::wsqueue::TrySendError::Full(_)) => After::Close(CloseReason::SlowClient),
                    Err(super::wsqueue::TrySendError::Closed(_)) => After::Close(CloseReason::TransportClose),
                }
            }
            Transport::Gone => After::Nothing,
            Transport::Polling => {
                st.queue.push_back(packet);
                // One packet larger than the byte bound is taken when nothing else waits, as on
                // a WebSocket (a long conversation's join history can be).
                let too_many_bytes = st.queue.len() > 1 && st.queue.bytes > super::wsqueue::MAX_QUEUED_BYTES;
                if st.queue.len() > self.env.cfg.max_buffered_packets || too_many_bytes {
                    st.queue.clear();
                    return After::Close(CloseReason::SlowClient);
                }
                flush_poll(st);
                After::Nothing
            }
        }
    }

    /// On a WebSocket, lets the upper layer's messages go straight to the socket's queue from
    /// now on (after what it queued so far), instead of through the session.
    fn go_direct(&self, st: &State) -> After {
        let Transport::Ws { tx, .. } = &st.transport else {
            return After::Nothing;
        };
        if self.outbox.go_direct(tx.clone()).is_err() {
            return After::Close(CloseReason::SlowClient);
        }
        After::Nothing
    }

    /// Runs what a change of state left to do, outside the state's lock.
    fn finish(self: &Arc<Self>, after: After) {
        match after {
            After::Nothing => {}
            After::Close(reason) => self.close(reason),
            After::Closed { stop } => {
                self.tell_closed();
                if stop {
                    self.stop();
                }
            }
        }
    }

    /// Hands one message to the handler, then tells it of a close its call caused.
    fn deliver(&self, msg: EioMessage) {
        if let Some(handler) = lock(&self.handler).as_mut() {
            handler.on_message(msg);
        }
        if self.close_pending.load(Ordering::Acquire) {
            self.tell_closed();
        }
    }

    /// Tells the handler about the close, once, unless it is busy: then the busy call tells it
    /// when it returns (`deliver`), since the close was marked pending before this looked.
    fn tell_closed(&self) {
        let mut guard = match self.handler.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return,
        };
        let reason = {
            let mut st = lock(&self.state);
            self.close_pending.store(false, Ordering::Release);
            st.closing.take()
        };
        if let (Some(reason), Some(mut handler)) = (reason, guard.take()) {
            handler.on_close(reason);
        }
    }

    fn on_packet(self: &Arc<Self>, packet: Packet) {
        match packet {
            Packet::Message(text) => self.deliver(EioMessage::Text(text)),
            Packet::Binary(data) => self.deliver(EioMessage::Binary(data)),
            Packet::Pong => {
                let mut st = lock(&self.state);
                if st.awaiting_pong && !st.closed {
                    st.awaiting_pong = false;
                    st.beat = st.beat.wrapping_add(1);
                    self.env.heartbeat.ping_later(self, st.beat);
                }
            }
            Packet::Close => self.close(CloseReason::TransportClose),
            Packet::Open(_) => self.close(CloseReason::ParseError),
            Packet::Ping | Packet::PingProbe | Packet::PongProbe | Packet::Upgrade | Packet::Noop => {}
        }
    }

    /// Closes the session once: says goodbye on the transport, tells the upper layer, and
    /// has the server forget the session (at once, or once the client has collected the close).
    pub(crate) fn close(self: &Arc<Self>, reason: CloseReason) {
        let after = {
            let mut st = lock(&self.state);
            self.begin_close(&mut st, reason)
        };
        self.finish(after);
    }

    fn begin_close(self: &Arc<Self>, st: &mut State, reason: CloseReason) -> After {
        if st.closed {
            return After::Nothing;
        }
        let grace = self.env.cfg.ping_timeout.min(Duration::from_secs(5));
        if reason == CloseReason::ServerClose
            && !st.close_after_upgrade
            && st.upgrading.as_ref().is_some_and(|u| u.probed)
        {
            // The client got `3probe` and is pausing its polling to switch: it sends no more
            // GETs, and closing the new socket now would leave it stranded on a paused
            // transport until its ping timeout. Close on the new socket once it has switched;
            // if it never does, close anyway after the grace.
            st.close_after_upgrade = true;
            self.later(grace, |session| session.close(CloseReason::ServerClose));
            return After::Nothing;
        }
        st.closed = true;
        st.closing = Some(reason);
        self.close_pending.store(true, Ordering::Release);
        self.outbox.close();
        if let Some(up) = st.upgrading.take() {
            let _ = up.tx.try_send(WsFrame::Close);
        }
        let stop = match &st.transport {
            Transport::Ws { tx, .. } => {
                let _ = tx.try_send(WsFrame::Close);
                st.transport = Transport::Gone;
                true
            }
            Transport::Gone => true,
            Transport::Polling if reason == CloseReason::TransportClose => {
                answer_poll_with(st, Packet::Noop);
                true
            }
            Transport::Polling => {
                st.queue.push_back(Packet::Close);
                if st.pending_poll.is_some() {
                    flush_poll(st);
                    true
                } else if reason == CloseReason::ServerClose {
                    // Let the next GET collect the close packet, then go.
                    self.later(grace, |session| session.stop());
                    false
                } else {
                    true
                }
            }
        };
        After::Closed { stop }
    }

    /// Runs `f` on this session after `delay`, if it still exists then. For the rare timed
    /// steps of a close; the heartbeat has its own queue.
    fn later(self: &Arc<Self>, delay: Duration, f: impl FnOnce(&Arc<Session>) + 'static) {
        let me = Arc::downgrade(self);
        actix_web::rt::spawn(async move {
            tokio::time::sleep(delay).await;
            if let Some(session) = me.upgrade() {
                f(&session);
            }
        });
    }

    /// The server forgets the session: no request finds it any more. Always after `begin_close`
    /// (the handler has been, or is being, told; a WebSocket has its close frame).
    fn stop(&self) {
        {
            let mut st = lock(&self.state);
            if st.stopped {
                return;
            }
            st.stopped = true;
            // A GET still waiting is answered 400, as for a session that is gone.
            st.pending_poll = None;
            st.transport = Transport::Gone;
        }
        (self.env.on_close)(&self.sid);
    }

    /// The heartbeat's ping for step `beat` is due.
    pub(crate) fn ping_due(self: &Arc<Self>, beat: u32) {
        let after = {
            let mut st = lock(&self.state);
            if st.closed || st.awaiting_pong || st.beat != beat {
                return;
            }
            st.awaiting_pong = true;
            st.beat = st.beat.wrapping_add(1);
            self.env.heartbeat.pong_by(self, st.beat);
            self.push(&mut st, Packet::Ping)
        };
        self.finish(after);
    }

    /// The heartbeat's pong deadline for step `beat` has passed.
    pub(crate) fn pong_overdue(self: &Arc<Self>, beat: u32) {
        let late = {
            let st = lock(&self.state);
            st.awaiting_pong && st.beat == beat && !st.closed
        };
        if late {
            self.close(CloseReason::PingTimeout);
        }
    }

    /// The upper layer queued messages in the outbox: write them.
    pub(crate) fn flush(self: &Arc<Self>) {
        let mut after = After::Nothing;
        {
            let mut st = lock(&self.state);
            for m in self.outbox.take() {
                let p = match m {
                    EioMessage::Text(t) => Packet::Message(t),
                    EioMessage::Binary(b) => Packet::Binary(b),
                };
                after = self.push(&mut st, p);
                if !matches!(after, After::Nothing) {
                    break;
                }
            }
        }
        self.finish(after);
    }

    /// Queues messages from the upper layer (see [`super::EngineConn::send_many`]).
    pub(crate) fn send_many(self: &Arc<Self>, msgs: Vec<EioMessage>) {
        match self.outbox.push(msgs) {
            Pushed::Wake => self.flush(),
            Pushed::Overflow => self.close(CloseReason::SlowClient),
            Pushed::Queued | Pushed::Closed | Pushed::Sent => {}
        }
    }

    /// Whether `frames` more messages fit in the outbound queue with headroom to spare.
    pub(crate) fn has_room(&self, frames: usize) -> bool {
        // On long-polling the outbox is emptied into the session's queue at once, where packets
        // wait for the client's next GET: they count too, or a slow poller would be closed
        // (its queue overflowing) instead of its senders being told to retry.
        let polled = {
            let st = lock(&self.state);
            match st.transport {
                Transport::Polling => st.queue.len(),
                _ => 0,
            }
        };
        self.outbox.has_room(frames + polled)
    }

    /// A long-polling GET: answered now with what is queued, or when something is.
    pub(crate) fn poll(self: &Arc<Self>, tx: oneshot::Sender<Result<String, Refused>>) {
        let after = {
            let mut st = lock(&self.state);
            if st.closed {
                // Closed by the server: deliver what is left (the close packet), then refuse.
                if st.queue.is_empty() {
                    let _ = tx.send(Err(Refused::Closed));
                    return;
                }
                let packets: Vec<Packet> = st.queue.take();
                let _ = tx.send(Ok(encode_payload(&packets)));
                drop(st);
                self.stop();
                return;
            }
            if matches!(st.transport, Transport::Ws { .. }) {
                let _ = tx.send(Err(Refused::Upgraded));
                return;
            }
            if st.pending_poll.as_ref().is_some_and(|p| !p.is_closed()) {
                let _ = tx.send(Err(Refused::DuplicatePoll));
                self.begin_close(&mut st, CloseReason::TransportError)
            } else {
                st.pending_poll = Some(tx);
                if st.upgrading.as_ref().is_some_and(|u| u.probed) {
                    answer_poll_with(&mut st, Packet::Noop);
                } else {
                    flush_poll(&mut st);
                }
                After::Nothing
            }
        };
        self.finish(after);
    }

    /// A long-polling POST, already decoded.
    pub(crate) fn post(self: &Arc<Self>, packets: Vec<Packet>) -> Result<(), Refused> {
        {
            let st = lock(&self.state);
            if st.closed {
                return Err(Refused::Closed);
            }
            if matches!(st.transport, Transport::Ws { .. }) {
                return Err(Refused::Upgraded);
            }
        }
        for p in packets {
            self.on_packet(p);
        }
        Ok(())
    }

    /// A WebSocket wants to upgrade this (polling) session.
    pub(crate) fn attach_ws(&self, id: u64, tx: WsTx) -> bool {
        let mut st = lock(&self.state);
        if st.closed || st.upgrading.is_some() || matches!(st.transport, Transport::Ws { .. }) {
            return false;
        }
        st.upgrading = Some(Upgrading { id, tx, probed: false });
        true
    }

    /// Packets read from the WebSocket `id`, in order.
    pub(crate) fn ws_packets(self: &Arc<Self>, id: u64, packets: Vec<Packet>) {
        for packet in packets {
            self.on_ws_packet(id, packet);
        }
    }

    fn on_ws_packet(self: &Arc<Self>, id: u64, packet: Packet) {
        let after = {
            let mut st = lock(&self.state);
            if st.closed {
                return;
            }
            if let Transport::Ws { id: current, .. } = &st.transport {
                let current = *current;
                drop(st);
                if current == id {
                    self.on_packet(packet);
                }
                return;
            }
            self.on_upgrade_packet(&mut st, id, packet)
        };
        self.finish(after);
    }

    /// A packet on a WebSocket that is switching this session over from polling.
    fn on_upgrade_packet(self: &Arc<Self>, st: &mut State, id: u64, packet: Packet) -> After {
        let Some(up) = st.upgrading.as_mut().filter(|u| u.id == id) else {
            return After::Nothing;
        };
        match packet {
            Packet::PingProbe => {
                up.probed = true;
                let _ = up.tx.try_send(WsFrame::Text("3probe".to_owned()));
                // Let the client's pending GET finish so it can complete the upgrade.
                answer_poll_with(st, Packet::Noop);
                After::Nothing
            }
            Packet::Upgrade if up.probed => {
                let tx = up.tx.clone();
                st.upgrading = None;
                answer_poll_with(st, Packet::Noop);
                st.transport = Transport::Ws { id, tx };
                let queued: Vec<Packet> = st.queue.take();
                for p in queued {
                    let after = self.push(st, p);
                    if !matches!(after, After::Nothing) {
                        return after;
                    }
                }
                let after = self.go_direct(st);
                if !matches!(after, After::Nothing) {
                    return after;
                }
                self.close_if_deferred(st)
            }
            _ => {
                // Anything else before the upgrade completes cancels the upgrade.
                let _ = up.tx.try_send(WsFrame::Close);
                st.upgrading = None;
                self.close_if_deferred(st)
            }
        }
    }

    /// Runs a server close that waited for a WebSocket switch to end.
    fn close_if_deferred(self: &Arc<Self>, st: &mut State) -> After {
        if st.close_after_upgrade {
            return self.begin_close(st, CloseReason::ServerClose);
        }
        After::Nothing
    }

    /// The WebSocket `id` ended or failed.
    pub(crate) fn ws_gone(self: &Arc<Self>, id: u64, reason: CloseReason) {
        let after = {
            let mut st = lock(&self.state);
            if st.upgrading.as_ref().is_some_and(|u| u.id == id) {
                st.upgrading = None;
                self.close_if_deferred(&mut st)
            } else if matches!(&st.transport, Transport::Ws { id: current, .. } if *current == id) {
                self.begin_close(&mut st, reason)
            } else {
                After::Nothing
            }
        };
        self.finish(after);
    }
}

/// Answers a pending GET with everything queued.
fn flush_poll(st: &mut State) {
    if st.queue.is_empty() {
        return;
    }
    if let Some(tx) = st.pending_poll.take() {
        let packets: Vec<Packet> = st.queue.take();
        if tx.send(Ok(encode_payload(&packets))).is_err() {
            // The HTTP request went away: keep the packets for the next GET.
            for p in packets.into_iter().rev() {
                st.queue.push_front(p);
            }
        }
    }
}

fn answer_poll_with(st: &mut State, packet: Packet) {
    if let Some(tx) = st.pending_poll.take() {
        let mut packets: Vec<Packet> = st.queue.take();
        if packets.is_empty() {
            packets.push(packet);
        }
        let _ = tx.send(Ok(encode_payload(&packets)));
    }
}

/// A polling session's packets waiting for the client's next GET, with their bytes counted (see
/// `wsqueue::MAX_QUEUED_BYTES`).
#[derive(Default)]
struct PollQueue {
    packets: VecDeque<Packet>,
    bytes: usize,
}

impl PollQueue {
    fn size(packet: &Packet) -> usize {
        match packet {
            Packet::Open(t) | Packet::Message(t) => t.len(),
            Packet::Binary(b) => b.len(),
            _ => 1,
        }
    }

    fn push_back(&mut self, packet: Packet) {
        self.bytes += Self::size(&packet);
        self.packets.push_back(packet);
    }

    fn push_front(&mut self, packet: Packet) {
        self.bytes += Self::size(&packet);
        self.packets.push_front(packet);
    }

    /// Every packet, oldest first; the queue is left empty, its buffer given back.
    fn take(&mut self) -> Vec<Packet> {
        self.bytes = 0;
        std::mem::take(&mut self.packets).into()
    }

    fn clear(&mut self) {
        self.bytes = 0;
        self.packets = VecDeque::new();
    }

    fn len(&self) -> usize {
        self.packets.len()
    }

    fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
}
