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

#[derive(Default)]
pub struct Resends {
    latest: VecDeque<(String, Option<Arc<ChatMessage>>)>,
}

impl Resends {
    pub fn seen(&self, client_id: &str) -> Seen {
        match self.latest.iter().find(|(id, _)| id == client_id) {
            None => Seen::New,
            Some((_, None)) => Seen::Saving,
            Some((_, Some(saved))) => Seen::Saved(saved.clone()),
        }
    }

    /// A message with this id is being saved.
    pub fn saving(&mut self, client_id: &str) {
        if self.latest.len() >= REMEMBERED {
            self.latest.pop_front();
        }
        self.latest.push_back((client_id.to_string(), None));
    }

    /// It was saved as `message`.
    pub fn saved(&mut self, client_id: &str, message: Arc<ChatMessage>) {
        if let Some(entry) = self.latest.iter_mut().find(|(id, _)| id == client_id) {
            entry.1 = Some(message);
        }
    }

    /// It was not saved: a resend is a first send again.
    pub fn failed(&mut self, client_id: &str) {
        self.latest.retain(|(id, _)| id != client_id);
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
        assert!(matches!(r.seen("a"), Seen::New));
        r.saving("a");
        assert!(matches!(r.seen("a"), Seen::Saving));
        r.saved("a", message("m1"));
        assert!(matches!(r.seen("a"), Seen::Saved(m) if m.id == "m1"));
        r.saving("b");
        r.failed("b");
        assert!(matches!(r.seen("b"), Seen::New), "a failed save can be sent again");
        for i in 0..REMEMBERED {
            r.saving(&format!("x{i}"));
        }
        assert!(matches!(r.seen("a"), Seen::New), "the oldest is forgotten past the bound");
        assert!(matches!(r.seen(&format!("x{}", REMEMBERED - 1)), Seen::Saving));
    }
}
