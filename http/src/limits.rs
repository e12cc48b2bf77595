//! Rate limits for strangers: token buckets (per socket, per IP for handshakes, per IP and per
//! bot for new conversations) and the per-conversation visitor limit. Every keyed limiter
//! lives in a bounded cache that forgets idle keys, so a flood of made-up keys cannot grow the
//! server.

use std::hash::Hash;
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

/// One token bucket per key (an IP address, a bot id).
pub struct KeyedBuckets<K: Hash + Eq + Send + Sync + 'static> {
    per_sec: f64,
    burst: f64,
    buckets: Cache<K, Arc<Mutex<TokenBucket>>>,
}

/// One token bucket per client network (Engine.IO handshakes, sign-in calls, new
/// conversations): an IPv4 address, or an IPv6 address's /64. One IPv6 host is usually handed
/// a whole /64, so a bucket per address would give it 2^64 fresh budgets.
pub struct IpBuckets(KeyedBuckets<IpAddr>);

impl IpBuckets {
    pub fn new(per_sec: f64, burst: f64) -> IpBuckets {
        IpBuckets(KeyedBuckets::new(per_sec, burst))
    }

    pub fn allow(&self, ip: IpAddr) -> bool {
        self.0.allow(client_network(ip))
    }
}

/// The key a client's address is limited under: IPv4 as is (also when written IPv4-mapped),
/// IPv6 cut to its /64.
pub fn client_network(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

impl<K: Hash + Eq + Send + Sync + 'static> KeyedBuckets<K> {
    pub fn new(per_sec: f64, burst: f64) -> KeyedBuckets<K> {
        // A bucket idle for as long as it takes to refill is the same as a new one.
        let idle = Duration::from_secs_f64((burst.max(1.0) / per_sec.max(0.0001)).clamp(1.0, 86_400.0));
        KeyedBuckets { per_sec, burst, buckets: Cache::builder().max_capacity(KEYS).time_to_idle(idle).build() }
    }

    pub fn allow(&self, key: K) -> bool {
        if self.per_sec <= 0.0 {
            return true;
        }
        let bucket = self.buckets.get_with(key, || Arc::new(Mutex::new(TokenBucket::new(self.per_sec, self.burst))));
        let mut bucket = crate::realtime_lock(&bucket);
        bucket.take()
    }
}

pub const TOO_MANY_NEW_CONVERSATIONS_FROM_YOU: &str =
    "You have started too many conversations in a short time. Please wait a few minutes and try again.";
pub const TOO_MANY_NEW_CONVERSATIONS_ON_BOT: &str =
    "This assistant is receiving too many new conversations right now. Please try again in a few minutes.";

/// Which budget refused a new conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConversationTrip {
    /// The caller's address started too many.
    Ip,
    /// The bot as a whole started too many; `first` is true once per notice period, when its
    /// owner should hear about it.
    Bot { first: bool },
}

/// Budgets for new conversations (each one spends a conversation of the owner's plan, so
/// without them a script could use up a bot's month in minutes): a token bucket per IP and
/// one per bot. The IP's is taken first, so one noisy address is stopped by its own budget
/// before it can use up the bot's, which every visitor shares.
pub struct NewConversations {
    per_ip: IpBuckets,
    per_bot: KeyedBuckets<String>,
    /// Bots whose owner was told within the notice period.
    told: Cache<String, ()>,
}

/// An owner hears about a tripped budget at most once in this long, per bot.
pub const TRIP_NOTICE_EVERY: Duration = Duration::from_secs(3600);

impl NewConversations {
    pub fn from_settings(rt: &parley_config::RealtimeSettings) -> NewConversations {
        NewConversations {
            per_ip: IpBuckets::new(rt.new_conversations_per_ip_per_hour / 3600.0, rt.new_conversation_ip_burst),
            per_bot: KeyedBuckets::new(rt.new_conversations_per_bot_per_hour / 3600.0, rt.new_conversation_bot_burst),
            told: Cache::builder().max_capacity(KEYS).time_to_live(TRIP_NOTICE_EVERY).build(),
        }
    }

    /// Takes one new conversation from `ip`'s budget and from `bot_id`'s.
    pub fn allow(&self, ip: Option<IpAddr>, bot_id: &str) -> Result<(), ConversationTrip> {
        if let Some(ip) = ip {
            if !self.per_ip.allow(ip) {
                return Err(ConversationTrip::Ip);
            }
        }
        if !self.per_bot.allow(bot_id.to_string()) {
            let first = !self.told.contains_key(bot_id);
            if first {
                self.told.insert(bot_id.to_string(), ());
            }
            return Err(ConversationTrip::Bot { first });
        }
        Ok(())
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
    fn an_ipv6_network_shares_one_bucket() {
        let buckets = IpBuckets::new(1.0, 2.0);
        let host: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_net: IpAddr = "2001:db8:1:2:ffff:ffff:ffff:ffff".parse().unwrap();
        assert!(buckets.allow(host) && buckets.allow(same_net));
        assert!(!buckets.allow("2001:db8:1:2:abcd::9".parse().unwrap()), "another address of the same /64 has no fresh budget");
        assert!(buckets.allow("2001:db8:1:3::1".parse().unwrap()), "the next /64 is another network");
        assert_eq!(client_network("::ffff:10.0.0.1".parse().unwrap()), IpAddr::from([10, 0, 0, 1]));
    }

    #[test]
    fn new_conversations_have_a_budget_per_address_and_per_bot() {
        let mut rt = parley_config::Settings::defaults().unwrap().realtime;
        rt.new_conversations_per_ip_per_hour = 1.0;
        rt.new_conversation_ip_burst = 2.0;
        rt.new_conversations_per_bot_per_hour = 1.0;
        rt.new_conversation_bot_burst = 3.0;
        let budget = NewConversations::from_settings(&rt);
        let (a, b, c): (IpAddr, IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), [10, 0, 0, 3].into());
        assert_eq!(budget.allow(Some(a), "bot"), Ok(()));
        assert_eq!(budget.allow(Some(a), "bot"), Ok(()));
        assert_eq!(budget.allow(Some(a), "bot"), Err(ConversationTrip::Ip));
        assert_eq!(budget.allow(Some(b), "bot"), Ok(()));
        assert_eq!(budget.allow(Some(b), "bot"), Err(ConversationTrip::Bot { first: true }));
        assert_eq!(budget.allow(Some(c), "bot"), Err(ConversationTrip::Bot { first: false }), "the owner is told once");
        assert_eq!(budget.allow(Some(c), "other bot"), Ok(()));
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
