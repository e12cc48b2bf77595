//! A first message sent again. `POST /api/chat` without a `sessionId` starts a conversation, so a
//! client whose call got no answer (the network dropped the response after the server had the
//! message) and sends it again would start a second conversation, and the bot would answer twice.
//! A first message may carry the client's id for it (`clientId`, as live messages do): the same id
//! with the same words from the same address, within `REMEMBERED_FOR`, gets the first call's
//! answer (the same conversation, the same visitor token), and one still being answered is told
//! the server is busy (the widget asks again with backoff).
//!
//! The answer carries the conversation's visitor token, so it is given only to a repeat that
//! matches in everything but time: a client that reused one id for two visitors' different words,
//! or from two addresses, starts two conversations. Remembered in memory: a restart forgets.

use std::hash::{BuildHasher, RandomState};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use moka::sync::Cache;

/// How long a first message's answer is kept for a repeat (a widget's retries end well before).
const REMEMBERED_FOR: Duration = Duration::from_secs(600);
/// The most bytes of remembered answers (each weighs its JSON's length): a flood of first
/// messages evicts the oldest, it does not grow the server.
const MAX_BYTES: u64 = 16 << 20;

type Key = (String, String);

struct First {
    /// A hash of the message's words (the words themselves can be long).
    words: u64,
    from: Option<IpAddr>,
    /// The response body, once answered.
    answer: Option<Arc<str>>,
}

/// First messages by bot and client id.
pub struct FirstMessages {
    seen: Cache<Key, Arc<First>>,
    hasher: RandomState,
}

/// What a first message with a client id is.
pub enum Seen {
    /// Not seen: answer it, and give the answer to the claim (`None`: the id was taken by other
    /// words or another address, so this one is not remembered).
    New(Option<Claim>),
    /// The same message is being answered.
    Answering,
    /// The same message was answered: this is the response body.
    Answered(Arc<str>),
}

/// A first message being answered. Dropped without [`Claim::answered`] (refused, failed), the id
/// is forgotten, so asking again starts afresh. It owns its handle on the remembered messages, so
/// the answer can be finished, and kept, by a task that outlives the call (see `send`).
pub struct Claim {
    seen: Cache<Key, Arc<First>>,
    key: Key,
    words: u64,
    from: Option<IpAddr>,
    done: bool,
}

impl Claim {
    /// Keeps `body` as the answer to a repeat.
    pub fn answered(mut self, body: &str) {
        let first = First { words: self.words, from: self.from, answer: Some(Arc::from(body)) };
        self.seen.insert(std::mem::take(&mut self.key), Arc::new(first));
        self.done = true;
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if !self.done {
            self.seen.invalidate(&self.key);
        }
    }
}

impl Default for FirstMessages {
    fn default() -> Self {
        FirstMessages::new(MAX_BYTES, REMEMBERED_FOR)
    }
}

impl FirstMessages {
    fn new(max_bytes: u64, remembered_for: Duration) -> FirstMessages {
        let seen = Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|(bot, id): &Key, first: &Arc<First>| {
                let size = bot.len() + id.len() + first.answer.as_ref().map_or(0, |a| a.len()) + 64;
                u32::try_from(size).unwrap_or(u32::MAX)
            })
            .time_to_live(remembered_for)
            // Least recently used out first, and every new message taken: moka's default
            // (TinyLFU) may refuse a new entry when full, and a message being answered must be
            // remembered.
            .eviction_policy(moka::policy::EvictionPolicy::lru())
            .build();
        FirstMessages { seen, hasher: RandomState::new() }
    }

    /// Looks up, or claims, the first message `words` (trimmed, as saved) with `client_id` to
    /// `bot_id` from `from`.
    pub fn claim(&self, bot_id: &str, client_id: &str, words: &str, from: Option<IpAddr>) -> Seen {
        let key = (bot_id.to_string(), client_id.to_string());
        let words = self.hasher.hash_one(words);
        let entry = self.seen.entry(key.clone()).or_insert_with(|| Arc::new(First { words, from, answer: None }));
        if entry.is_fresh() {
            return Seen::New(Some(Claim { seen: self.seen.clone(), key, words, from, done: false }));
        }
        let first = entry.into_value();
        if first.words != words || first.from != from {
            return Seen::New(None);
        }
        match &first.answer {
            Some(answer) => Seen::Answered(answer.clone()),
            None => Seen::Answering,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, last]))
    }

    #[test]
    fn a_repeat_is_told_to_wait_then_gets_the_first_answer() {
        let firsts = FirstMessages::default();
        let Seen::New(Some(claim)) = firsts.claim("bot", "c1", "Hello", ip(1)) else { panic!("a new message is claimed") };
        assert!(matches!(firsts.claim("bot", "c1", "Hello", ip(1)), Seen::Answering));
        claim.answered(r#"{"sessionId":"s1"}"#);
        match firsts.claim("bot", "c1", "Hello", ip(1)) {
            Seen::Answered(body) => assert_eq!(&*body, r#"{"sessionId":"s1"}"#),
            _ => panic!("the repeat gets the first answer"),
        };
    }

    #[test]
    fn other_words_another_address_or_another_bot_are_not_the_same_message() {
        let firsts = FirstMessages::default();
        let Seen::New(Some(claim)) = firsts.claim("bot", "c1", "Hello", ip(1)) else { panic!() };
        claim.answered("{}");
        assert!(matches!(firsts.claim("bot", "c1", "Hello again", ip(1)), Seen::New(None)));
        assert!(matches!(firsts.claim("bot", "c1", "Hello", ip(2)), Seen::New(None)));
        assert!(matches!(firsts.claim("bot", "c1", "Hello", None), Seen::New(None)));
        assert!(matches!(firsts.claim("other", "c1", "Hello", ip(1)), Seen::New(Some(_))));
    }

    #[test]
    fn a_message_that_was_not_answered_is_forgotten() {
        let firsts = FirstMessages::default();
        let Seen::New(Some(claim)) = firsts.claim("bot", "c1", "Hello", ip(1)) else { panic!() };
        drop(claim);
        assert!(matches!(firsts.claim("bot", "c1", "Hello", ip(1)), Seen::New(Some(_))), "refused or failed: asked again afresh");
    }

    #[test]
    fn answers_are_forgotten_after_a_while() {
        let firsts = FirstMessages::new(MAX_BYTES, Duration::from_millis(50));
        let Seen::New(Some(claim)) = firsts.claim("bot", "c1", "Hello", ip(1)) else { panic!() };
        claim.answered("{}");
        std::thread::sleep(Duration::from_millis(120));
        assert!(matches!(firsts.claim("bot", "c1", "Hello", ip(1)), Seen::New(Some(_))));
    }
}
