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

/// A token bucket for the socket's events, how many are being handled, and how many were
/// refused in a row.
pub(crate) struct SocketGuard {
    bucket: Mutex<TokenBucket>,
    in_flight: AtomicUsize,
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
        if guard.in_flight.fetch_add(1, Ordering::AcqRel) >= guard.max_in_flight {
            guard.in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(Refusal::Busy);
        }
        Ok(Ticket(owner.clone()))
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
