//! A connection's outbound queue: what the upper layer sent and the session has not yet
//! written. Bounded: a client whose queue fills (it does not read) is closed as too slow,
//! rather than the server holding its backlog. The session is woken once per batch, not once
//! per message, so a burst of events costs one hop. Once the session runs on a WebSocket the
//! outbox goes direct: messages go straight into the socket's bounded queue, with no hop at all.

use std::sync::Mutex;

use tokio::sync::mpsc::error::TrySendError;

use super::session::{WsFrame, WsTx};
use super::Message;
use crate::realtime::lock;

/// A sender may add work only while this share of the queue (a quarter) stays free: the rest
/// is the room for what is already accepted elsewhere (replies, typing, acks) to still fit.
const HEADROOM_DIVISOR: usize = 4;

pub(crate) struct Outbox {
    capacity: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    frames: Vec<Message>,
    /// The session has been told to flush and has not yet taken the frames.
    woken: bool,
    closed: bool,
    /// The WebSocket's queue, once the session has handed it over.
    direct: Option<WsTx>,
}

/// What `push` did, and so what the caller must tell the session.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Queued behind frames the session will flush anyway.
    Queued,
    /// Queued; the session must be told to flush.
    Wake,
    /// The queue is full: the connection must be closed (nothing was queued).
    Overflow,
    /// The connection is closed; dropped.
    Closed,
    /// Handed straight to the WebSocket's queue.
    Sent,
}

impl Outbox {
    pub(crate) fn new(capacity: usize) -> Outbox {
        Outbox { capacity: capacity.max(1), state: Mutex::new(State::default()) }
    }

    /// Queues messages that go out together and in order.
    pub(crate) fn push(&self, msgs: Vec<Message>) -> Pushed {
        let mut st = lock(&self.state);
        if st.closed {
            return Pushed::Closed;
        }
        if let Some(tx) = &st.direct {
            for msg in msgs {
                match tx.try_send(WsFrame::message(msg)) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => {
                        st.closed = true;
                        st.direct = None;
                        return Pushed::Overflow;
                    }
                    Err(TrySendError::Closed(_)) => {
                        st.closed = true;
                        st.direct = None;
                        return Pushed::Closed;
                    }
                }
            }
            return Pushed::Sent;
        }
        if st.frames.len() + msgs.len() > self.capacity {
            st.closed = true;
            st.frames = Vec::new();
            return Pushed::Overflow;
        }
        st.frames.extend(msgs);
        if st.woken {
            Pushed::Queued
        } else {
            st.woken = true;
            Pushed::Wake
        }
    }

    /// Whether `frames` more frames fit with a quarter of the queue still free. The engine asks
    /// before it accepts a message that will be relayed here, so a reader that falls behind
    /// makes new messages "busy" (the sender retries) instead of overflowing and being closed.
    pub(crate) fn has_room(&self, frames: usize) -> bool {
        let st = lock(&self.state);
        if st.closed {
            return true; // nothing will be queued: a closed connection holds nobody back
        }
        let (free, capacity) = match &st.direct {
            Some(tx) => (tx.capacity(), tx.max_capacity()),
            None => (self.capacity.saturating_sub(st.frames.len()), self.capacity),
        };
        free >= frames + capacity / HEADROOM_DIVISOR
    }

    /// Everything queued, oldest first; the next push wakes the session again.
    pub(crate) fn take(&self) -> Vec<Message> {
        let mut st = lock(&self.state);
        st.woken = false;
        std::mem::take(&mut st.frames)
    }

    pub(crate) fn close(&self) {
        let mut st = lock(&self.state);
        st.closed = true;
        st.frames = Vec::new();
        st.direct = None;
    }

    /// Sends what is queued into `tx` and sends every later message there at once. `Err`: the
    /// socket's queue is full (the client does not read).
    pub(crate) fn go_direct(&self, tx: WsTx) -> Result<(), ()> {
        let mut st = lock(&self.state);
        if st.closed {
            return Ok(());
        }
        st.woken = false;
        for msg in std::mem::take(&mut st.frames) {
            if tx.try_send(WsFrame::message(msg)).is_err() {
                st.closed = true;
                return Err(());
            }
        }
        st.direct = Some(tx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Message {
        Message::Text(s.to_owned())
    }

    #[test]
    fn wakes_once_per_batch_and_keeps_order() {
        let outbox = Outbox::new(10);
        assert_eq!(outbox.push(vec![text("a")]), Pushed::Wake);
        assert_eq!(outbox.push(vec![text("b"), text("c")]), Pushed::Queued);
        assert_eq!(outbox.take(), vec![text("a"), text("b"), text("c")]);
        assert_eq!(outbox.push(vec![text("d")]), Pushed::Wake);
    }

    #[test]
    fn room_keeps_a_quarter_of_the_queue_free() {
        let outbox = Outbox::new(8);
        assert!(outbox.has_room(1));
        assert_eq!(outbox.push((0..5).map(|i| text(&i.to_string())).collect()), Pushed::Wake);
        // 3 free: one more frame would leave 2 free, the quarter of 8 the queue keeps.
        assert!(outbox.has_room(1));
        assert!(!outbox.has_room(2));
        outbox.push(vec![text("5")]);
        assert!(!outbox.has_room(1));
        outbox.take();
        assert!(outbox.has_room(6));
        assert!(!outbox.has_room(7));
    }

    #[test]
    fn a_full_queue_overflows_and_then_drops() {
        let outbox = Outbox::new(2);
        assert_eq!(outbox.push(vec![text("a"), text("b")]), Pushed::Wake);
        assert_eq!(outbox.push(vec![text("c")]), Pushed::Overflow);
        assert_eq!(outbox.push(vec![text("d")]), Pushed::Closed);
        assert!(outbox.take().is_empty());
    }
}
