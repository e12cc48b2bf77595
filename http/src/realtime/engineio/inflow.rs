//! The bound between a WebSocket's reader and its session actor. The reader stops reading while
//! too many of its frames wait in the actor's mailbox, so a client that sends faster than the
//! server can handle is held back by TCP (its kernel buffers, then its own queue), not by the
//! server's memory. Without it, the reader hands frames over as fast as the kernel has them and
//! the mailbox grows for as long as the overload lasts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// Frames of one connection that may wait for its session. A read brings at most a few dozen;
/// a session that keeps up never has more than a read's worth waiting.
pub(crate) const MAX_WAITING: usize = 256;

/// Frames read and not yet handled by the session.
#[derive(Default)]
pub(crate) struct Inflow {
    waiting: AtomicUsize,
    room: Notify,
}

impl Inflow {
    /// Takes a credit for `frames` frames on their way to the session.
    pub(crate) fn credit(self: &Arc<Self>, frames: usize) -> Credit {
        self.waiting.fetch_add(frames, Ordering::AcqRel);
        Credit { inflow: self.clone(), frames }
    }

    /// Whether the reader should wait before reading more.
    pub(crate) fn full(&self) -> bool {
        self.waiting.load(Ordering::Acquire) >= MAX_WAITING
    }

    /// Resolves when a credit has been given back since the reader found the inflow full
    /// (possibly at once, for a credit given back earlier: the caller checks `full` again).
    pub(crate) async fn room(&self) {
        self.room.notified().await;
    }
}

/// Frames in the session's mailbox; dropping it (handled, or dropped with a stopped actor's
/// mailbox) gives them back and wakes the reader if it was held back.
pub struct Credit {
    inflow: Arc<Inflow>,
    frames: usize,
}

impl Drop for Credit {
    fn drop(&mut self) {
        let before = self.inflow.waiting.fetch_sub(self.frames, Ordering::AcqRel);
        if before >= MAX_WAITING && before - self.frames < MAX_WAITING {
            self.inflow.room.notify_one();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn full_until_a_credit_comes_back() {
        let inflow = Arc::new(Inflow::default());
        let small = inflow.credit(10);
        assert!(!inflow.full());
        let big = inflow.credit(MAX_WAITING);
        assert!(inflow.full());
        drop(small);
        assert!(inflow.full(), "still over the bound");
        drop(big);
        assert!(!inflow.full());
        // The reader waiting for room is woken by the credit that brought it under the bound.
        tokio::time::timeout(std::time::Duration::from_secs(1), inflow.room()).await.unwrap();
    }
}
