//! The heartbeat of every session of one server: a ping `pingInterval` after the session opened
//! or last answered one, and a close when no pong comes within `pingTimeout`.
//!
//! Why queues and not a timer per session: a timer future per ping, on top of the session's
//! own actor, was most of what an idle connection cost beyond its socket. Every ping is the
//! same interval after it is asked for, and every pong deadline the same timeout after its
//! ping, so each queue is in deadline order as it is filled, and one task per server works
//! through both. An entry made stale (its pong came; the session moved on a step or went) is
//! skipped when it comes due: each session has at most one live entry.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::session::Session;
use crate::realtime::lock;

pub(crate) struct Heartbeat {
    interval: Duration,
    timeout: Duration,
    queues: Mutex<Queues>,
    added: Notify,
    /// Whether the task that works through the queues has been started.
    started: AtomicBool,
}

#[derive(Default)]
struct Queues {
    pings: VecDeque<Due>,
    pongs: VecDeque<Due>,
    /// When the task will next look, if it sleeps until a deadline (`None`: until woken).
    planned: Option<Instant>,
}

/// A step of one session's heartbeat, due at `at`.
struct Due {
    at: Instant,
    session: Weak<Session>,
    beat: u32,
}

impl Heartbeat {
    pub(crate) fn new(interval: Duration, timeout: Duration) -> Heartbeat {
        Heartbeat {
            interval,
            timeout,
            queues: Mutex::default(),
            added: Notify::new(),
            started: AtomicBool::new(false),
        }
    }

    /// Pings `session` an interval from now, if it is still at step `beat` then. Call from
    /// within the server's runtime: the first call starts the task.
    pub(crate) fn ping_later(self: &Arc<Self>, session: &Arc<Session>, beat: u32) {
        let due = Due { at: Instant::now() + self.interval, session: Arc::downgrade(session), beat };
        self.add(due, |q| &mut q.pings);
    }

    /// Closes `session` a timeout from now unless it has moved past step `beat` (its pong came).
    pub(crate) fn pong_by(self: &Arc<Self>, session: &Arc<Session>, beat: u32) {
        let due = Due { at: Instant::now() + self.timeout, session: Arc::downgrade(session), beat };
        self.add(due, |q| &mut q.pongs);
    }

    /// Queues `due`, and wakes the task when it would otherwise look too late (the two queues
    /// interleave when the interval and the timeout differ).
    fn add(self: &Arc<Self>, due: Due, queue: impl FnOnce(&mut Queues) -> &mut VecDeque<Due>) {
        let at = due.at;
        let wake = {
            let mut queues = lock(&self.queues);
            queue(&mut queues).push_back(due);
            let wake = queues.planned.is_none_or(|planned| at < planned);
            if wake {
                queues.planned = Some(at);
            }
            wake
        };
        if !self.started.swap(true, Ordering::AcqRel) {
            actix_web::rt::spawn(self.clone().run());
        }
        if wake {
            self.added.notify_one();
        }
    }

    async fn run(self: Arc<Self>) {
        loop {
            let (pings, pongs) = self.take_due(Instant::now());
            // Outside the queues' lock: a ping queues its pong deadline.
            for due in pings {
                if let Some(session) = due.session.upgrade() {
                    session.ping_due(due.beat);
                }
            }
            for due in pongs {
                if let Some(session) = due.session.upgrade() {
                    session.pong_overdue(due.beat);
                }
            }
            match self.plan() {
                Some(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at.into()) => {}
                        // Something due earlier than planned was added.
                        () = self.added.notified() => {}
                    }
                }
                // `notify_one` keeps a permit when nobody waits: an add in between is not missed.
                None => self.added.notified().await,
            }
        }
    }

    /// The pings and pong deadlines due at `now`.
    fn take_due(&self, now: Instant) -> (Vec<Due>, Vec<Due>) {
        let mut queues = lock(&self.queues);
        (take_due(&mut queues.pings, now), take_due(&mut queues.pongs, now))
    }

    /// The next deadline, which the task sleeps until (adds due before it wake the task).
    fn plan(&self) -> Option<Instant> {
        let mut queues = lock(&self.queues);
        let next = [queues.pings.front(), queues.pongs.front()].into_iter().flatten().map(|d| d.at).min();
        queues.planned = next;
        next
    }
}

fn take_due(queue: &mut VecDeque<Due>, now: Instant) -> Vec<Due> {
    let mut due = Vec::new();
    while queue.front().is_some_and(|d| d.at <= now) {
        due.extend(queue.pop_front());
    }
    if queue.len() * 4 < queue.capacity() && queue.capacity() > 1024 {
        // A burst of sessions must not keep its queue's memory for good.
        queue.shrink_to_fit();
    }
    due
}
