//! Rate limits for strangers: token buckets (per socket, per IP for handshakes) and the
//! per-conversation visitor limit. Every keyed limiter lives in a bounded cache that forgets
//! idle keys, so a flood of made-up keys cannot grow the server.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use moka::sync::Cache;

/// A token bucket: `burst` tokens, refilled at `per_sec`. `per_sec <= 0` never limits.
#[derive(Debug)]
pub struct TokenBucket {
    per_sec: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl TokenBucket {
    pub fn new(per_sec: f64, burst: f64) -> TokenBucket {
        let burst = burst.max(1.0);
        TokenBucket { per_sec, burst, tokens: burst, at: Instant::now() }
    }

    /// Takes a token; false when none is left.
    pub fn take(&mut self) -> bool {
        if self.per_sec <= 0.0 {
            return true;
        }
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.per_sec;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Most keys a keyed limiter remembers; idle ones go first.
const KEYS: u64 = 100_000;

/// One token bucket per IP address (Engine.IO handshakes).
pub struct IpBuckets {
    per_sec: f64,
    burst: f64,
    buckets: Cache<IpAddr, Arc<Mutex<TokenBucket>>>,
}

impl IpBuckets {
    pub fn new(per_sec: f64, burst: f64) -> IpBuckets {
        // A bucket idle for as long as it takes to refill is the same as a new one.
        let idle = Duration::from_secs_f64((burst.max(1.0) / per_sec.max(0.001)).clamp(1.0, 3600.0));
        IpBuckets { per_sec, burst, buckets: Cache::builder().max_capacity(KEYS).time_to_idle(idle).build() }
    }

    pub fn allow(&self, ip: IpAddr) -> bool {
        if self.per_sec <= 0.0 {
            return true;
        }
        let bucket = self.buckets.get_with(ip, || Arc::new(Mutex::new(TokenBucket::new(self.per_sec, self.burst))));
        let mut bucket = crate::realtime_lock(&bucket);
        bucket.take()
    }
}

pub const RATE_LIMITED: &str = "You're sending messages too quickly. Please wait a moment and try again.";

/// A sliding window of message times per conversation. Keyed by the *verified* session id
/// (checked against the visitor token first), so only real conversations take a slot.
pub struct VisitorLimiter {
    window: Duration,
    max: usize,
    seen: Cache<String, Arc<Mutex<Vec<Instant>>>>,
}

impl VisitorLimiter {
    pub fn new(max: usize, window: Duration) -> VisitorLimiter {
        VisitorLimiter { window, max, seen: Cache::builder().max_capacity(KEYS).time_to_idle(window).build() }
    }

    /// Records a message for `session`; false when it is over the limit (and is not counted).
    pub fn allow(&self, session: &str) -> bool {
        let now = Instant::now();
        let times = self.seen.get_with_by_ref(session, || Arc::new(Mutex::new(Vec::new())));
        let mut times = crate::realtime_lock(&times);
        times.retain(|t| now.duration_since(*t) < self.window);
        if times.len() >= self.max {
            return false;
        }
        times.push(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_allows_a_burst_then_the_rate() {
        let mut bucket = TokenBucket::new(100.0, 3.0);
        assert!(bucket.take() && bucket.take() && bucket.take());
        assert!(!bucket.take());
        std::thread::sleep(Duration::from_millis(25));
        assert!(bucket.take());
        let mut unlimited = TokenBucket::new(0.0, 1.0);
        assert!((0..1000).all(|_| unlimited.take()));
    }

    #[test]
    fn ip_buckets_are_per_address() {
        let buckets = IpBuckets::new(1.0, 2.0);
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        assert!(buckets.allow(a) && buckets.allow(a));
        assert!(!buckets.allow(a));
        assert!(buckets.allow(b));
    }

    #[test]
    fn visitor_limit_is_a_sliding_window() {
        let limiter = VisitorLimiter::new(3, Duration::from_millis(200));
        assert!(limiter.allow("v") && limiter.allow("v") && limiter.allow("v"));
        assert!(!limiter.allow("v"));
        assert!(limiter.allow("other"));
        std::thread::sleep(Duration::from_millis(220));
        assert!(limiter.allow("v"));
    }
}
