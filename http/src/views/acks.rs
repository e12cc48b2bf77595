//! What the live channel answers to a client's event (its ack): `{…, "success": true}`, or
//! `{"error": "…", "success": false}`; and the `error` event `{"message": "…"}`.
//! Written field by field in the order the JSON has always had (alphabetical).

use std::sync::Arc;

use parley_engine::chat::events::SessionList;
use parley_store::models::{ChatMessage, ChatSession};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::chat::{MessageView, Messages, SessionView, Sessions};
use super::visitor::VisitorSessionView;

/// A successful answer, by the shape of what it carries.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `{success}`
    Empty,
    /// `{session}`, as the team sees it.
    Session(Arc<ChatSession>),
    /// `{session}`, as its visitor sees it.
    VisitorSession(Arc<ChatSession>),
    /// `{sessions}`
    Sessions(SessionList),
    /// `{message}` (a member's message), or `{agentConnected, message}` (a visitor's).
    Message { message: Arc<ChatMessage>, agent_connected: Option<bool> },
    /// `join-session`: `{messages, session, sessionId}`; the session as the joiner may see it.
    Joined { session: Box<ChatSession>, messages: Vec<ChatMessage>, for_visitor: bool },
    /// `{botId}`
    BotId(String),
    /// `{status}`
    Status(String),
}

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self {
            Reply::Empty => {}
            Reply::Session(session) => map.serialize_entry("session", &SessionView::from(session.as_ref()))?,
            Reply::VisitorSession(session) => map.serialize_entry("session", &VisitorSessionView::from(session.as_ref()))?,
            Reply::Sessions(sessions) => map.serialize_entry("sessions", &Sessions(sessions))?,
            Reply::Message { message, agent_connected } => {
                if let Some(connected) = agent_connected {
                    map.serialize_entry("agentConnected", connected)?;
                }
                map.serialize_entry("message", &MessageView::from(message.as_ref()))?;
            }
            Reply::Joined { session, messages, for_visitor } => {
                map.serialize_entry("messages", &Messages(messages))?;
                if *for_visitor {
                    map.serialize_entry("session", &VisitorSessionView::from(session.as_ref()))?;
                } else {
                    map.serialize_entry("session", &SessionView::from(session.as_ref()))?;
                }
                map.serialize_entry("sessionId", &session.id)?;
            }
            Reply::BotId(bot_id) => map.serialize_entry("botId", bot_id)?,
            Reply::Status(status) => map.serialize_entry("status", status)?,
        }
        // Last: every key above sorts before it.
        map.serialize_entry("success", &true)?;
        map.end()
    }
}

/// A refused event's ack: `{"error": message, "success": false}`.
pub struct Failure<'a>(pub &'a str);

impl Serialize for Failure<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("error", self.0)?;
        map.serialize_entry("success", &false)?;
        map.end()
    }
}

/// The `error` event: `{"message": message}`.
#[derive(serde::Serialize)]
pub struct ErrorEvent<'a> {
    pub message: &'a str,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    //! Acks against the `json!` acks they replaced (their object plus `success`): the same bytes.
    use serde_json::{json, Value};

    use super::*;
    use crate::views::chat::tests::{message_row, old_message_view, old_session_view, session_row};

    fn ok(mut value: Value) -> String {
        if let Value::Object(map) = &mut value {
            map.insert("success".into(), Value::Bool(true));
        }
        value.to_string()
    }

    #[test]
    fn acks_look_as_they_always_did() {
        let session = session_row(true);
        let messages = vec![message_row(false), message_row(true)];
        let cases = vec![
            (Reply::Empty, json!({})),
            (Reply::Session(Arc::new(session.clone())), json!({"session": old_session_view(&session)})),
            (Reply::Sessions(vec![session.clone()].into()), json!({"sessions": [old_session_view(&session)]})),
            (Reply::Message { message: Arc::new(messages[1].clone()), agent_connected: None }, json!({"message": old_message_view(&messages[1])})),
            (
                Reply::Message { message: Arc::new(messages[0].clone()), agent_connected: Some(false) },
                json!({"message": old_message_view(&messages[0]), "agentConnected": false}),
            ),
            (
                Reply::Joined { session: Box::new(session.clone()), messages: messages.clone(), for_visitor: false },
                json!({"sessionId": session.id, "session": old_session_view(&session), "messages": messages.iter().map(old_message_view).collect::<Vec<_>>()}),
            ),
            (Reply::BotId("b1".into()), json!({"botId": "b1"})),
            (Reply::VisitorSession(Arc::new(session.clone())), json!({"session": serde_json::to_value(crate::views::visitor::session(&session)).unwrap()})),
            (
                Reply::Joined { session: Box::new(session.clone()), messages: messages.clone(), for_visitor: true },
                json!({"sessionId": session.id, "session": serde_json::to_value(crate::views::visitor::session(&session)).unwrap(), "messages": messages.iter().map(old_message_view).collect::<Vec<_>>()}),
            ),
            (Reply::Status("away".into()), json!({"status": "away"})),
        ];
        for (reply, old) in cases {
            assert_eq!(serde_json::to_string(&reply).unwrap(), ok(old));
        }
        assert_eq!(serde_json::to_string(&Failure("Nope")).unwrap(), json!({"success": false, "error": "Nope"}).to_string());
        assert_eq!(serde_json::to_string(&ErrorEvent { message: "Nope" }).unwrap(), json!({"message": "Nope"}).to_string());
    }
}
