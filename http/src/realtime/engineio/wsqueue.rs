//! The queue between a session and its WebSocket's task: bounded, and holding memory only while
//! frames wait in it. (A tokio channel allocates a block of 32 slots and its cache-padded state
//! when it is made, about 2 KB for every connection, idle or not; this one is a mutex, a count
//! and an empty `VecDeque` until something is queued, and lets go of its buffer once drained.)
//!
//! The senders are the session and its outbox; the receiver is the connection's task. As with
//! a channel, a send fails once the receiver is gone, and `recv` ends (`None`) once every sender
//! is gone.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

pub use tokio::sync::mpsc::error::TrySendError;

use super::session::WsFrame;

/// Most bytes one connection's outbound queue holds (a polling session's queue too), whatever
/// the count of frames: a client that stops reading while large frames are queued for it (a
/// join's history, over and over) is closed as a slow client before it costs the server more.
/// A single larger frame is still taken when nothing else waits.
pub const MAX_QUEUED_BYTES: usize = 8 << 20;

/// A queue of at most `capacity` frames and `MAX_QUEUED_BYTES`.
pub fn queue(capacity: usize) -> (WsTx, WsRx) {
    let shared = Arc::new(Shared {
        capacity: capacity.max(1),
        state: Mutex::new(State { frames: VecDeque::new(), bytes: 0, senders: 1, receiving: true, waker: None }),
    });
    (WsTx(shared.clone()), WsRx(shared))
}

struct Shared {
    capacity: usize,
    state: Mutex<State>,
}

struct State {
    frames: VecDeque<WsFrame>,
    /// The frames' bytes.
    bytes: usize,
    senders: usize,
    /// The receiver still exists.
    receiving: bool,
    /// The receiver waiting for a frame or for the last sender to go.
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding it; a poisoned lock still holds whole frames.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sending side; cloning it adds a sender.
pub struct WsTx(Arc<Shared>);

impl WsTx {
    /// Queues `frame`, or gives it back when the queue is full or the receiver is gone.
    pub fn try_send(&self, frame: WsFrame) -> Result<(), TrySendError<WsFrame>> {
        let waker = {
            let mut st = self.0.lock();
            if !st.receiving {
                return Err(TrySendError::Closed(frame));
            }
            let size = frame.size();
            if st.frames.len() >= self.0.capacity || (st.bytes > 0 && st.bytes + size > MAX_QUEUED_BYTES) {
                return Err(TrySendError::Full(frame));
            }
            st.bytes += size;
            st.frames.push_back(frame);
            st.waker.take()
        };
        // Woken outside the lock: the receiver's task may run on another thread at once.
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Frames that can still be queued.
    pub fn capacity(&self) -> usize {
        self.0.capacity.saturating_sub(self.0.lock().frames.len())
    }

    /// Frames the queue holds at most.
    pub fn max_capacity(&self) -> usize {
        self.0.capacity
    }
}

impl Clone for WsTx {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        WsTx(self.0.clone())
    }
}

impl Drop for WsTx {
    fn drop(&mut self) {
        let waker = {
            let mut st = self.0.lock();
            st.senders = st.senders.saturating_sub(1);
            if st.senders > 0 {
                return;
            }
            st.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The receiving side.
pub struct WsRx(Arc<Shared>);

impl WsRx {
    /// The next frame; `None` once the queue is empty and every sender is gone. Cancel-safe:
    /// a frame is taken only by the poll that returns it.
    pub async fn recv(&mut self) -> Option<WsFrame> {
        poll_fn(|cx| {
            let mut st = self.0.lock();
            if let Some(frame) = st.pop() {
                return Poll::Ready(Some(frame));
            }
            if st.senders == 0 {
                return Poll::Ready(None);
            }
            if !st.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                st.waker = Some(cx.waker().clone());
            }
            Poll::Pending
        })
        .await
    }

    /// The next frame if one is queued.
    pub fn try_recv(&mut self) -> Option<WsFrame> {
        self.0.lock().pop()
    }

    /// Frames queued.
    pub fn len(&self) -> usize {
        self.0.lock().frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl State {
    /// Takes the oldest frame; a queue left empty gives its buffer back.
    fn pop(&mut self) -> Option<WsFrame> {
        let frame = self.frames.pop_front()?;
        self.bytes = self.bytes.saturating_sub(frame.size());
        if self.frames.is_empty() {
            self.frames = VecDeque::new();
        }
        Some(frame)
    }
}

impl Drop for WsRx {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.receiving = false;
        st.frames = VecDeque::new();
        st.bytes = 0;
        st.waker = None;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn text(s: &str) -> WsFrame {
        WsFrame::Text(s.to_string())
    }

    fn body(frame: Option<WsFrame>) -> String {
        match frame {
            Some(WsFrame::Text(t)) => t,
            other => panic!("not a text frame: {other:?}"),
        }
    }

    #[tokio::test]
    async fn frames_come_out_in_order_up_to_the_bound() {
        let (tx, mut rx) = queue(3);
        for s in ["a", "b", "c"] {
            tx.try_send(text(s)).unwrap();
        }
        assert!(matches!(tx.try_send(text("d")), Err(TrySendError::Full(_))));
        assert_eq!((tx.capacity(), tx.max_capacity(), rx.len()), (0, 3, 3));
        assert_eq!(body(rx.recv().await), "a");
        assert_eq!(body(rx.try_recv()), "b");
        tx.try_send(text("d")).unwrap();
        assert_eq!(body(rx.recv().await), "c");
        assert_eq!(body(rx.recv().await), "d");
        assert!(rx.try_recv().is_none());
        assert_eq!(tx.capacity(), 3);
    }

    #[tokio::test]
    async fn the_queue_holds_a_bounded_number_of_bytes() {
        let (tx, mut rx) = queue(100);
        let big = "x".repeat(MAX_QUEUED_BYTES / 2);
        tx.try_send(text(&big)).unwrap();
        tx.try_send(text(&big)).unwrap();
        assert!(matches!(tx.try_send(text("one byte more")), Err(TrySendError::Full(_))));
        assert_eq!(body(rx.recv().await).len(), big.len());
        tx.try_send(text("fits again")).unwrap();
        let (_, _) = (rx.try_recv(), rx.try_recv());
        assert!(rx.is_empty());
        tx.try_send(text(&"y".repeat(MAX_QUEUED_BYTES + 1))).expect("one frame larger than the bound, alone, is taken");
    }

    #[tokio::test]
    async fn a_waiting_receiver_is_woken_by_a_send_from_another_thread() {
        let (tx, mut rx) = queue(8);
        let waiting = tokio::spawn(async move { body(rx.recv().await) });
        tokio::task::yield_now().await;
        std::thread::spawn(move || tx.try_send(text("hello")).unwrap()).join().unwrap();
        assert_eq!(tokio::time::timeout(std::time::Duration::from_secs(5), waiting).await.unwrap().unwrap(), "hello");
    }

    #[tokio::test]
    async fn recv_ends_after_the_queued_frames_once_every_sender_is_gone() {
        let (tx, mut rx) = queue(8);
        let other = tx.clone();
        tx.try_send(text("last")).unwrap();
        drop(tx);
        let waiting = tokio::spawn(async move { (body(rx.recv().await), rx.recv().await.is_none()) });
        tokio::task::yield_now().await;
        drop(other);
        let (last, ended) = tokio::time::timeout(std::time::Duration::from_secs(5), waiting).await.unwrap().unwrap();
        assert_eq!(last, "last");
        assert!(ended);
    }

    #[test]
    fn a_send_after_the_receiver_is_gone_is_refused_as_closed() {
        let (tx, rx) = queue(8);
        tx.try_send(text("queued")).unwrap();
        drop(rx);
        assert!(matches!(tx.try_send(text("late")), Err(TrySendError::Closed(_))));
    }
}
