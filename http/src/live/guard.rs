//! One socket's allowance. Strangers can connect, so every socket is bounded: a token bucket
//! and an in-flight cap on its events, a length cap on every string it sends, and a disconnect
//! when it keeps being refused.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use parley_config::RealtimeSettings;
use parley_engine::chat::EngineError;
use serde_json::Value;

use crate::limits::TokenBucket;

/// What a socket that sends too much hears.
pub const TOO_FAST: &str = "Too many events, please slow down";

/// The smallest in-flight window a busy server shrinks a socket to: an agent's socket carries
/// several conversations, and one event at a time would leave it waiting a whole save for each.
const MIN_WINDOW: usize = 2;

/// A token bucket for the socket's events, how many are being handled, and how many were
/// refused in a row.
pub(crate) struct SocketGuard {
    bucket: Mutex<TokenBucket>,
    in_flight: AtomicUsize,
    /// How many events may be in flight now: `max_in_flight`, halved each time the server
    /// answers one of them busy and grown by one with each event handled without, as TCP
    /// does its window. Under overload the excess of a socket is then refused here, for the
    /// cost of reading its header, instead of after it was decoded and handed to a session
    /// that cannot take it; with no overload it stays at the cap.
    window: AtomicUsize,
    refusals: AtomicU32,
    max_in_flight: usize,
    max_refusals: u32,
    max_text: usize,
}

/// What holds a socket's guard (the socket's live state).
pub(crate) trait Guarded {
    fn guard(&self) -> &SocketGuard;
}

/// An admitted event; dropping it frees its in-flight slot.
pub(crate) struct Ticket<T: Guarded>(Arc<T>);

impl<T: Guarded> Drop for Ticket<T> {
    fn drop(&mut self) {
        self.0.guard().in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why an event was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Over the socket's rate; `disconnect` once it has gone on for `max_refusals` in a row.
    TooFast { disconnect: bool },
    /// Too many of the socket's events are being handled already.
    Busy,
}

impl SocketGuard {
    pub(crate) fn new(settings: &RealtimeSettings) -> SocketGuard {
        SocketGuard {
            bucket: Mutex::new(TokenBucket::new(settings.socket_events_per_sec, settings.socket_burst)),
            in_flight: AtomicUsize::new(0),
            window: AtomicUsize::new(settings.socket_in_flight.max(1)),
            refusals: AtomicU32::new(0),
            max_in_flight: settings.socket_in_flight.max(1),
            max_refusals: settings.socket_max_refusals.max(1),
            max_text: settings.max_text_chars.max(1),
        }
    }

    /// Admits an event for `owner` (what holds this guard), or says why not. Only going over
    /// the rate counts towards a disconnect: a full in-flight allowance is the server being slow
    /// (backpressure), not the client misbehaving, so it is answered "busy" and the client
    /// retries.
    pub(crate) fn admit<T: Guarded>(owner: &Arc<T>) -> Result<Ticket<T>, Refusal> {
        let guard = owner.guard();
        if !crate::realtime_lock(&guard.bucket).take() {
            let refusals = guard.refusals.fetch_add(1, Ordering::AcqRel) + 1;
            return Err(Refusal::TooFast { disconnect: refusals == guard.max_refusals });
        }
        guard.refusals.store(0, Ordering::Release);
        if guard.in_flight.fetch_add(1, Ordering::AcqRel) >= guard.window.load(Ordering::Acquire) {
            guard.in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::Busy);
        }
        Ok(Ticket(owner.clone()))
    }

    /// How an admitted event ended: `busy` when the server had no room for it.
    pub(crate) fn settled(&self, busy: bool) {
        let update = |w: usize| {
            let next = if busy { (w / 2).max(MIN_WINDOW.min(self.max_in_flight)) } else { (w + 1).min(self.max_in_flight) };
            (next != w).then_some(next)
        };
        let _ = self.window.fetch_update(Ordering::AcqRel, Ordering::Acquire, update);
    }

    /// Every string in an event's arguments (keys too) within the socket's length cap.
    pub(crate) fn check_text(&self, args: &[Value]) -> Result<(), EngineError> {
        fn within(v: &Value, max: usize) -> bool {
            match v {
                Value::String(s) => s.len() <= max || s.chars().count() <= max,
                Value::Array(items) => items.iter().all(|i| within(i, max)),
                Value::Object(map) => map.iter().all(|(k, v)| k.chars().count() <= max && within(v, max)),
                _ => true,
            }
        }
        let max = self.max_text;
        if args.iter().all(|a| within(a, max)) {
            Ok(())
        } else {
            Err(EngineError::Invalid(format!("Text is too long (the limit is {max} characters)")))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    struct Owner(SocketGuard);
    impl Guarded for Owner {
        fn guard(&self) -> &SocketGuard {
            &self.0
        }
    }

    fn owner(in_flight: usize) -> Arc<Owner> {
        let mut settings = parley_config::Settings::defaults().expect("defaults").realtime;
        settings.socket_events_per_sec = 0.0;
        settings.socket_in_flight = in_flight;
        Arc::new(Owner(SocketGuard::new(&settings)))
    }

    fn admitted(owner: &Arc<Owner>, n: usize) -> Vec<Ticket<Owner>> {
        (0..n).map_while(|_| SocketGuard::admit(owner).ok()).collect()
    }

    #[test]
    fn a_busy_server_shrinks_the_window_and_success_grows_it_back() {
        let owner = owner(16);
        assert_eq!(admitted(&owner, 20).len(), 16, "the cap, with no overload");
        // Busy answers halve the window, down to its floor.
        for _ in 0..10 {
            owner.0.settled(true);
        }
        assert_eq!(owner.0.window.load(Ordering::Acquire), MIN_WINDOW);
        let held = admitted(&owner, 20);
        assert_eq!(held.len(), MIN_WINDOW);
        assert_eq!(SocketGuard::admit(&owner).err(), Some(Refusal::Busy));
        drop(held);
        // Each event handled without one widens it by one, up to the cap.
        for _ in 0..100 {
            owner.0.settled(false);
        }
        assert_eq!(owner.0.window.load(Ordering::Acquire), 16);
        assert_eq!(admitted(&owner, 20).len(), 16);
    }
}
