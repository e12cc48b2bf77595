//! At most one training run per item at a time. Training the same source twice at once (a
//! "Start Training" click while the source is still being crawled, a re-train racing a resume)
//! would interleave two writers of one source's chunks and flip its status back and forth. A
//! request that arrives while a run is under way is folded into one more run after it, so the
//! newest request is always honoured and never runs beside another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Keys currently being trained, each with "run again when done" set by a folded request.
#[derive(Debug, Default)]
pub struct InFlight {
    running: Mutex<HashMap<String, bool>>,
}

impl InFlight {
    /// Claims `key`. `None` when a run is already under way: the request is folded into it
    /// (that run will go once more) and the caller has nothing to do.
    pub fn claim(self: &Arc<Self>, key: String) -> Option<Claim> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.get_mut(&key) {
            Some(again) => {
                *again = true;
                None
            }
            None => {
                running.insert(key.clone(), false);
                Some(Claim { set: Arc::clone(self), key, released: false })
            }
        }
    }

    pub fn is_running(&self, key: &str) -> bool {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).contains_key(key)
    }
}

/// The right to train one key. Dropping it (also on an early return or a panic) releases it.
#[derive(Debug)]
pub struct Claim {
    set: Arc<InFlight>,
    key: String,
    released: bool,
}

impl Claim {
    /// Called after a run: `true` if a request was folded in meanwhile (run again, still
    /// holding the claim); `false` releases the key. Checked and released under one lock, so a
    /// request arriving now either is seen here or claims the key afresh — never lost.
    pub fn run_again(&mut self) -> bool {
        let mut running = self.set.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.get_mut(&self.key) {
            Some(again) if *again => {
                *again = false;
                true
            }
            _ => {
                running.remove(&self.key);
                self.released = true;
                false
            }
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if !self.released {
            self.set.running.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_request_is_folded_into_one_more_run() {
        let set = Arc::new(InFlight::default());
        let mut first = set.claim("s1".into()).expect("free key");
        assert!(set.claim("s1".into()).is_none(), "folded while running");
        assert!(set.claim("s1".into()).is_none(), "two requests fold into one re-run");
        assert!(set.claim("s2".into()).is_some(), "other keys are independent");
        assert!(first.run_again(), "the folded request runs once more");
        assert!(!first.run_again(), "and only once");
        assert!(!set.is_running("s1"));
        assert!(set.claim("s1".into()).is_some(), "free again after release");
    }

    #[test]
    fn dropping_a_claim_releases_the_key() {
        let set = Arc::new(InFlight::default());
        let claim = set.claim("s1".into());
        assert!(claim.is_some());
        drop(claim);
        assert!(set.claim("s1".into()).is_some());
    }
}
