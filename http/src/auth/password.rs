//! argon2id password hashes. Hashing is deliberately slow and takes 19 MiB of memory, so it
//! runs on the blocking pool, and only so many at once (`auth.max_concurrent_hashes`): without
//! a bound, a burst of sign-in attempts ran one hash per blocking thread (up to 512 of them,
//! 10 GB of memory).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use tokio::sync::Semaphore;

use crate::error::{ApiError, ApiResult};

/// What a caller hears when every hashing slot stayed taken for `hash_wait_secs`.
pub const BUSY: &str = "The server is busy. Please try again in a moment.";

/// Computes and checks password hashes, a bounded number at once. Cheap to clone.
#[derive(Clone)]
pub struct Hasher {
    slots: Arc<Semaphore>,
    size: usize,
    wait: Duration,
    /// Hashes running now, and the most ever at once (for tests and diagnostics).
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl Hasher {
    /// At most `max` hashes at once (0 = one per CPU core); a call waits up to `wait` for a slot.
    pub fn new(max: usize, wait: Duration) -> Hasher {
        let size = if max == 0 { std::thread::available_parallelism().map(usize::from).unwrap_or(2) } else { max };
        Hasher {
            slots: Arc::new(Semaphore::new(size)),
            size,
            wait,
            running: Arc::default(),
            peak: Arc::default(),
        }
    }

    pub fn from_settings(auth: &parley_config::AuthSettings) -> Hasher {
        Hasher::new(auth.max_concurrent_hashes, Duration::from_secs(auth.hash_wait_secs.max(1)))
    }

    /// How many hashes may run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The most hashes that ever ran at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Runs `work` on the blocking pool once a slot is free.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> ApiResult<T> {
        let permit = tokio::time::timeout(self.wait, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::unavailable(BUSY))?
            .map_err(ApiError::internal)?;
        let (running, peak) = (self.running.clone(), self.peak.clone());
        actix_web::web::block(move || {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            let out = work();
            running.fetch_sub(1, Ordering::SeqCst);
            drop(permit);
            out
        })
        .await
        .map_err(ApiError::internal)
    }

    pub async fn hash(&self, password: &str) -> ApiResult<String> {
        let password = password.to_string();
        self.run(move || {
            let salt = SaltString::generate(&mut OsRng);
            Argon2::default()
                .hash_password(password.as_bytes(), &salt)
                .map(|h| h.to_string())
                .map_err(|e| ApiError::internal(format!("hashing: {e}")))
        })
        .await?
    }

    /// True when `password` matches `stored`; a malformed stored hash never matches.
    pub async fn verify(&self, password: &str, stored: &str) -> ApiResult<bool> {
        let password = password.to_string();
        let stored = stored.to_string();
        self.run(move || match PasswordHash::new(&stored) {
            Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
            Err(_) => false,
        })
        .await
    }

    /// Verifies against a hash made at start-up when the email is unknown, so an unknown email
    /// costs the same time as a wrong password and sign-in does not reveal which accounts exist.
    pub async fn dummy_verify(&self, password: &str, dummy_hash: &str) -> ApiResult<()> {
        self.verify(password, dummy_hash).await.map(|_| ())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn round_trip() {
        let hasher = Hasher::new(0, Duration::from_secs(10));
        let h = hasher.hash("correct horse").await.unwrap();
        assert!(hasher.verify("correct horse", &h).await.unwrap());
        assert!(!hasher.verify("wrong horse", &h).await.unwrap());
        assert!(!hasher.verify("x", "not a hash").await.unwrap());
    }

    #[actix_web::test]
    async fn no_more_hashes_run_at_once_than_the_slots() {
        let hasher = Hasher::new(2, Duration::from_secs(60));
        let h = hasher.hash("correct horse").await.unwrap();
        let calls = (0..8).map(|_| hasher.verify("correct horse", &h));
        let results = futures_util::future::join_all(calls).await;
        assert!(results.into_iter().all(|r| r.unwrap()));
        assert!(hasher.peak() <= 2, "{} hashes ran at once", hasher.peak());
    }

    #[actix_web::test]
    async fn a_hash_that_cannot_get_a_slot_in_time_is_refused_as_busy() {
        let hasher = Hasher::new(1, Duration::from_millis(1));
        let h = hasher.hash("correct horse").await.unwrap();
        let (a, b, c) = tokio::join!(hasher.verify("x", &h), hasher.verify("y", &h), hasher.verify("z", &h));
        let busy = [a, b, c].into_iter().filter(|r| matches!(r, Err(e) if e.message == BUSY)).count();
        assert!(busy >= 1, "an argon2 hash takes longer than 1 ms, so someone waited too long");
    }
}
