//! A visitor's message sent again. The widget gives each message an id of its own (`clientId`)
//! and, when the acknowledgement never came, lets the visitor press Retry with the same id. The
//! first send may well have been saved (only its ack was lost): the session remembers the ids of
//! its latest messages, so a resend is answered with the message already saved instead of
//! saving it, and answering it, a second time.

use std::collections::VecDeque;
use std::sync::Arc;

use parley_store::models::ChatMessage;

/// Messages remembered per session: a retry follows its message within seconds or minutes.
const REMEMBERED: usize = 32;

/// The longest client id taken; a longer one is refused (it is the visitor's to choose).
pub const CLIENT_ID_CHARS: usize = 64;

/// What the session knows of a client id.
pub enum Seen {
    /// Not sent before (or too long ago to be remembered).
    New,
    /// Sent and still being saved: the resend should wait and try again.
    Saving,
    /// Sent and saved as this message.
    Saved(Arc<ChatMessage>),
}

struct Sent {
    client_id: String,
    text: String,
    saved: Option<Arc<ChatMessage>>,
}

#[derive(Default)]
pub struct Resends {
    latest: VecDeque<Sent>,
}

impl Resends {
    /// What became of `text` sent before under `client_id`. Other words under a known id are a
    /// new message (a client reusing ids loses nothing it says).
    pub fn seen(&self, client_id: &str, text: &str) -> Seen {
        match self.latest.iter().find(|s| s.is(client_id, text)) {
            None => Seen::New,
            Some(Sent { saved: None, .. }) => Seen::Saving,
            Some(Sent { saved: Some(saved), .. }) => Seen::Saved(saved.clone()),
        }
    }

    /// `text` is being saved under this id. (Other words under the same id are another message
    /// and keep their own entry.)
    pub fn saving(&mut self, client_id: &str, text: &str) {
        self.latest.retain(|s| !s.is(client_id, text));
        if self.latest.len() >= REMEMBERED {
            self.latest.pop_front();
        }
        self.latest.push_back(Sent { client_id: client_id.to_string(), text: text.to_string(), saved: None });
    }

    /// `text` under this id was saved as `message`.
    pub fn saved(&mut self, client_id: &str, text: &str, message: Arc<ChatMessage>) {
        if let Some(sent) = self.latest.iter_mut().find(|s| s.is(client_id, text)) {
            sent.saved = Some(message);
        }
    }

    /// `text` under this id was not saved: a resend is a first send again.
    pub fn failed(&mut self, client_id: &str, text: &str) {
        self.latest.retain(|s| !s.is(client_id, text));
    }
}

impl Sent {
    fn is(&self, client_id: &str, text: &str) -> bool {
        self.client_id == client_id && self.text == text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str) -> Arc<ChatMessage> {
        Arc::new(ChatMessage {
            id: id.into(),
            session_id: "s".into(),
            seq: 1,
            role: "user".into(),
            content: "hi".into(),
            sender_name: None,
            agent_id: None,
            is_agent: false,
            is_error: false,
            sources: "[]".into(),
            created_at: chrono::NaiveDateTime::default(),
            edited_at: None,
            suggestions: "[]".into(),
        })
    }

    #[test]
    fn remembers_the_latest_ids_and_what_became_of_them() {
        let mut r = Resends::default();
        assert!(matches!(r.seen("a", "hi"), Seen::New));
        r.saving("a", "hi");
        assert!(matches!(r.seen("a", "hi"), Seen::Saving));
        r.saved("a", "hi", message("m1"));
        assert!(matches!(r.seen("a", "hi"), Seen::Saved(m) if m.id == "m1"));
        assert!(matches!(r.seen("a", "other words"), Seen::New), "an id reused for other words is a new message");
        r.saving("b", "x");
        r.failed("b", "x");
        assert!(matches!(r.seen("b", "x"), Seen::New), "a failed save can be sent again");
        for i in 0..REMEMBERED {
            r.saving(&format!("x{i}"), "x");
        }
        assert!(matches!(r.seen("a", "hi"), Seen::New), "the oldest is forgotten past the bound");
        assert!(matches!(r.seen(&format!("x{}", REMEMBERED - 1), "x"), Seen::Saving));
        assert_eq!(r.latest.len(), REMEMBERED);
    }

    #[test]
    fn other_words_under_one_id_keep_apart_while_both_are_saved() {
        let mut r = Resends::default();
        r.saving("x", "hello");
        r.saving("x", "bye");
        r.saved("x", "hello", message("m1"));
        assert!(matches!(r.seen("x", "hello"), Seen::Saved(m) if m.id == "m1"));
        assert!(matches!(r.seen("x", "bye"), Seen::Saving), "hello's save says nothing of bye");
        r.failed("x", "bye");
        assert!(matches!(r.seen("x", "bye"), Seen::New));
        assert!(matches!(r.seen("x", "hello"), Seen::Saved(_)), "bye's failure forgets only bye");
    }
}
