//! Throttling the sign-in family of routes (sign-up, sign-in, OAuth callbacks, emailed links):
//! a token bucket per IP address, and per email address a lockout after repeated failed
//! sign-ins that doubles with each further failure. Unknown emails are locked exactly like
//! known ones, so neither the answer nor its timing tells who has an account. Both live in
//! bounded caches that forget idle keys (see `limits`).

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use moka::sync::Cache;
use parley_config::AuthSettings;

use crate::error::ApiError;
use crate::limits::{IpBuckets, KeyedBuckets};

/// Most email addresses whose failures are remembered; idle ones go first.
const ACCOUNTS: u64 = 100_000;

pub const TOO_MANY_ATTEMPTS: &str = "Too many attempts from your network. Please wait a minute and try again.";
pub const TOO_MANY_INVITATIONS: &str = "You have sent many invitations in a short time. Please try again later.";

#[derive(Debug, Default)]
struct Failures {
    count: u32,
    locked_until: Option<Instant>,
}

pub struct AuthThrottle {
    per_ip: IpBuckets,
    /// Invitation mails per inviting member.
    invitations: KeyedBuckets<String>,
    after: u32,
    first: Duration,
    longest: Duration,
    failures: Cache<String, Arc<Mutex<Failures>>>,
}

impl AuthThrottle {
    pub fn from_settings(auth: &AuthSettings) -> AuthThrottle {
        let longest = Duration::from_secs(auth.lockout_max_secs.max(auth.lockout_secs));
        AuthThrottle {
            per_ip: IpBuckets::new(auth.ip_attempts_per_minute / 60.0, auth.ip_burst),
            invitations: KeyedBuckets::new(auth.invitations_per_hour / 3600.0, auth.invitation_burst),
            after: auth.lockout_after_failures,
            first: Duration::from_secs(auth.lockout_secs),
            longest,
            // Failures are forgotten once nothing happened for twice the longest lock.
            failures: Cache::builder().max_capacity(ACCOUNTS).time_to_idle(longest.saturating_mul(2).max(Duration::from_secs(60))).build(),
        }
    }

    /// One call of the sign-in family from `ip`; refused (429) past the address's budget.
    pub fn attempt_from(&self, ip: Option<IpAddr>) -> Result<(), ApiError> {
        match ip {
            Some(ip) if !self.per_ip.allow(ip) => {
                Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", TOO_MANY_ATTEMPTS).retry_after(60))
            }
            _ => Ok(()),
        }
    }

    /// One invitation mail sent by `user_id`; refused (429) past their budget.
    pub fn invitation_mail(&self, user_id: &str) -> Result<(), ApiError> {
        if self.invitations.allow(user_id.to_string()) {
            return Ok(());
        }
        Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", TOO_MANY_INVITATIONS).retry_after(3600))
    }

    /// Refuses (429) a sign-in for `email` while it is locked after failures.
    pub fn check_account(&self, email: &str) -> Result<(), ApiError> {
        let Some(entry) = self.failures.get(&key(email)) else { return Ok(()) };
        let failures = crate::realtime_lock(&entry);
        match failures.locked_until {
            Some(until) if until > Instant::now() => {
                let wait = until.saturating_duration_since(Instant::now());
                Err(locked(wait))
            }
            _ => Ok(()),
        }
    }

    /// A failed sign-in for `email`: from the `after`-th in a row on, the address is locked,
    /// for longer each time.
    pub fn failed(&self, email: &str) {
        if self.after == 0 {
            return;
        }
        let entry = self.failures.get_with(key(email), || Arc::new(Mutex::new(Failures::default())));
        let mut failures = crate::realtime_lock(&entry);
        failures.count = failures.count.saturating_add(1);
        if failures.count >= self.after {
            let doublings = (failures.count - self.after).min(20);
            let lock = self.first.saturating_mul(1u32 << doublings).min(self.longest);
            failures.locked_until = Some(Instant::now() + lock);
        }
    }

    /// A successful sign-in: the count starts again.
    pub fn succeeded(&self, email: &str) {
        self.failures.invalidate(&key(email));
    }
}

/// Longest key kept: no email address is longer (RFC 5321 caps a path at 256 octets), so a
/// longer "email" cannot sign in anyway, and cutting it keeps a flood of megabyte-long ones
/// from filling the cache with megabytes each.
const KEY_CHARS: usize = 254;

fn key(email: &str) -> String {
    email.trim().chars().take(KEY_CHARS).collect::<String>().to_lowercase()
}

fn locked(wait: Duration) -> ApiError {
    // Rounded up: a lock with 59.9 s left is "a minute", not "59 seconds".
    let secs = wait.saturating_add(Duration::from_millis(999)).as_secs().max(1);
    let when = if secs < 60 {
        format!("{secs} seconds")
    } else {
        let minutes = secs.div_ceil(60);
        if minutes == 1 { "a minute".to_string() } else { format!("{minutes} minutes") }
    };
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "account_locked",
        format!("Too many failed sign-in attempts for this email. Please try again in {when}, or use 'Forgot password?'."),
    )
    .retry_after(secs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn settings(after: u32, secs: u64, max: u64) -> AuthSettings {
        let mut s = parley_config::Settings::defaults().unwrap().auth;
        s.lockout_after_failures = after;
        s.lockout_secs = secs;
        s.lockout_max_secs = max;
        s.ip_attempts_per_minute = 60.0;
        s.ip_burst = 3.0;
        s
    }

    #[test]
    fn an_account_locks_after_repeated_failures_for_longer_each_time() {
        let t = AuthThrottle::from_settings(&settings(3, 30, 100));
        for _ in 0..2 {
            t.failed("Ann@Example.com");
            assert!(t.check_account("ann@example.com").is_ok());
        }
        t.failed("ann@example.com");
        let err = t.check_account("ANN@example.com").unwrap_err();
        assert_eq!(err.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(err.message.contains("30 seconds"), "{}", err.message);
        t.failed("ann@example.com");
        assert!(t.check_account("ann@example.com").unwrap_err().message.contains("a minute"));
        t.failed("ann@example.com");
        assert!(t.check_account("ann@example.com").unwrap_err().message.contains("2 minutes"), "capped at 100 s");
        assert!(t.check_account("bob@example.com").is_ok(), "other accounts are not affected");
        t.succeeded("ann@example.com");
        assert!(t.check_account("ann@example.com").is_ok());
    }

    #[test]
    fn an_overlong_email_is_remembered_by_a_bounded_key() {
        let t = AuthThrottle::from_settings(&settings(1, 30, 100));
        let huge = "a".repeat(1 << 20);
        assert!(key(&huge).len() <= KEY_CHARS * 4);
        t.failed(&huge);
        assert!(t.check_account(&huge).is_err(), "still locked like any other key");
    }

    #[test]
    fn each_address_has_its_own_budget() {
        let t = AuthThrottle::from_settings(&settings(5, 30, 900));
        let a: IpAddr = [10, 0, 0, 1].into();
        assert!((0..3).all(|_| t.attempt_from(Some(a)).is_ok()));
        assert_eq!(t.attempt_from(Some(a)).unwrap_err().status, StatusCode::TOO_MANY_REQUESTS);
        assert!(t.attempt_from(Some([10, 0, 0, 2].into())).is_ok());
    }
}
