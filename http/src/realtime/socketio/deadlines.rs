//! Connections that must CONNECT a namespace within the server's connect timeout, or be
//! closed (socket.io's `connectTimeout`).
//!
//! Why a queue and not a timer per connection: a sleeping task per new connection cost ~340
//! bytes for the whole timeout (45 s by default), measured on 19,000 idle connections. Every
//! deadline is the same timeout after its connection opened, so connections queued in the
//! order they open are in deadline order, and one task per server works through them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::client::ConnShared;
use crate::realtime::engineio::EngineConn;
use crate::realtime::lock;

/// The connections waiting for their first CONNECT, oldest first.
#[derive(Default)]
pub(crate) struct ConnectDeadlines {
    waiting: Mutex<VecDeque<Waiting>>,
    added: Notify,
    /// Whether the task that works through `waiting` has been started.
    started: AtomicBool,
}

struct Waiting {
    deadline: Instant,
    shared: Weak<ConnShared>,
    conn: EngineConn,
}

impl ConnectDeadlines {
    /// Closes `conn` after `timeout` unless one of its sockets has connected by then (or it is
    /// gone). Call from within the server's runtime: the first call starts the task.
    pub(crate) fn add(self: &Arc<Self>, timeout: Duration, shared: &Arc<ConnShared>, conn: EngineConn) {
        let deadline = Instant::now() + timeout;
        lock(&self.waiting).push_back(Waiting { deadline, shared: Arc::downgrade(shared), conn });
        if !self.started.swap(true, Ordering::AcqRel) {
            actix_web::rt::spawn(self.clone().run());
        }
        self.added.notify_one();
    }

    async fn run(self: Arc<Self>) {
        loop {
            let (due, next) = self.take_due(Instant::now());
            for waiting in due {
                if waiting.shared.upgrade().is_some_and(|shared| !shared.any_connected()) {
                    waiting.conn.close();
                }
            }
            match next {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                // `notify_one` keeps a permit when nobody waits: an add in between is not missed.
                None => self.added.notified().await,
            }
        }
    }

    /// The connections whose deadline has passed, and the next deadline.
    fn take_due(&self, now: Instant) -> (Vec<Waiting>, Option<Instant>) {
        let mut waiting = lock(&self.waiting);
        let mut due = Vec::new();
        while waiting.front().is_some_and(|w| w.deadline <= now) {
            due.extend(waiting.pop_front());
        }
        if waiting.is_empty() && waiting.capacity() > 1024 {
            // A burst of connections must not keep its queue's memory for good.
            waiting.shrink_to_fit();
        }
        (due, waiting.front().map(|w| w.deadline))
    }
}
