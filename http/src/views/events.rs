//! The live channel's event payloads (spec 2 §7), one typed view per `ServerEvent`, encoded
//! once per event however many sockets it goes to (see `Outgoing::encoded`).

use parley_engine::chat::ServerEvent;
use parley_engine::ingest::{TrainedItem, TrainingEvent};
use serde::Serialize;

use super::chat::{CustomerInfoView, MessageView, SessionView, Sessions};
use super::visitor::VisitorSessionView;

/// The JSON of `event`'s one argument. Every field is plain data, so serializing cannot fail;
/// should it ever, the client hears `null` rather than nothing.
pub fn encode(event: &ServerEvent) -> String {
    serde_json::to_string(&EventView(event)).unwrap_or_else(|e| {
        tracing::error!(event = event.event_name(), "encoding a live event: {e}");
        "null".into()
    })
}

/// `event`'s payload as a serializable view.
pub struct EventView<'a>(pub &'a ServerEvent);

#[derive(Serialize)]
struct SupportRequest<'a> {
    #[serde(rename = "customerInfo")]
    customer_info: CustomerInfoView<'a>,
    #[serde(rename = "customerMessage")]
    customer_message: &'a str,
    session: SessionView<'a>,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
    timestamp: &'a str,
}

#[derive(Serialize)]
struct WithMessage<'a> {
    message: MessageView<'a>,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
}

#[derive(Serialize)]
struct WithSession<'a> {
    session: SessionView<'a>,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
}

/// `session-updated` for the session's visitor.
#[derive(Serialize)]
struct WithVisitorSession<'a> {
    session: VisitorSessionView<'a>,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionTaken<'a> {
    agent_id: &'a str,
    agent_name: &'a str,
    session_id: &'a str,
}

#[derive(Serialize)]
struct SessionsOnly<'a> {
    sessions: Sessions<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CustomerTyping<'a> {
    is_typing: bool,
    session_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageDelta<'a> {
    delta: &'a str,
    message_id: &'a str,
    session_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionResolved<'a> {
    resolved_by: &'a str,
    session_id: &'a str,
    timestamp: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionIdOnly<'a> {
    session_id: &'a str,
}

#[derive(Serialize)]
struct MessageOnly<'a> {
    message: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentJoined<'a> {
    agent_id: &'a str,
    agent_name: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentTyping {
    is_typing: bool,
}

/// `training-status`: a source or pair changed status.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TrainingStatusView<'a> {
    bot_id: &'a str,
    item: &'static str,
    reason: Option<&'a str>,
    source_id: &'a str,
    status: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `training-status`: a website source read one more page.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TrainingPageView<'a> {
    bot_id: &'a str,
    source_id: &'a str,
    title: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    url: &'a str,
}

/// `training-status`: the bot's knowledge changed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TrainingKnowledgeView<'a> {
    bot_id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    version: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeadCapturedView<'a> {
    bot_id: &'a str,
    lead_id: &'a str,
}

impl Serialize for EventView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ServerEvent::SupportRequest { session, customer_message, customer_info, timestamp } => SupportRequest {
                customer_info: customer_info.into(),
                customer_message,
                session: session.as_ref().into(),
                session_id: &session.id,
                timestamp,
            }
            .serialize(s),
            ServerEvent::CustomerMessage { session_id, message }
            | ServerEvent::NewMessage { session_id, message }
            | ServerEvent::MessageUpdated { session_id, message } => WithMessage { message: message.as_ref().into(), session_id }.serialize(s),
            ServerEvent::SessionTaken { session_id, agent_id, agent_name } => SessionTaken { agent_id, agent_name, session_id }.serialize(s),
            ServerEvent::ActiveSupportSessions { sessions } | ServerEvent::AllSessionsUpdate { sessions } => {
                SessionsOnly { sessions: Sessions(sessions) }.serialize(s)
            }
            ServerEvent::SessionAssigned { session_id, session } | ServerEvent::SessionUpdated { session_id, session } => {
                WithSession { session: session.as_ref().into(), session_id }.serialize(s)
            }
            ServerEvent::VisitorSessionUpdated { session_id, session } => WithVisitorSession { session: session.as_ref().into(), session_id }.serialize(s),
            ServerEvent::CustomerTyping { session_id, is_typing } => CustomerTyping { is_typing: *is_typing, session_id }.serialize(s),
            ServerEvent::MessageDelta { session_id, message_id, delta } => MessageDelta { delta, message_id, session_id }.serialize(s),
            ServerEvent::SessionResolved { session_id, resolved_by, timestamp } => SessionResolved { resolved_by, session_id, timestamp }.serialize(s),
            ServerEvent::SessionDeleted { session_id } | ServerEvent::SessionJoined { session_id } | ServerEvent::HandoffOffered { session_id } => {
                SessionIdOnly { session_id }.serialize(s)
            }
            ServerEvent::SupportRequested { message } | ServerEvent::Error { message } => MessageOnly { message }.serialize(s),
            ServerEvent::AgentJoined { agent_name, agent_id, message } => AgentJoined { agent_id, agent_name, message }.serialize(s),
            ServerEvent::AgentTyping { is_typing } => AgentTyping { is_typing: *is_typing }.serialize(s),
            ServerEvent::Training { event } => match event {
                TrainingEvent::Status { bot_id, item, status, reason } => {
                    let (item, source_id) = match item {
                        TrainedItem::Source(id) => ("source", id),
                        TrainedItem::Qa(id) => ("qa", id),
                    };
                    TrainingStatusView { bot_id, item, reason: reason.as_deref(), source_id, status: status.as_str(), kind: "status" }.serialize(s)
                }
                TrainingEvent::PageFetched { bot_id, source_id, url, title } => TrainingPageView { bot_id, source_id, title, kind: "page", url }.serialize(s),
                TrainingEvent::KnowledgeChanged { bot_id, version } => TrainingKnowledgeView { bot_id, kind: "knowledge", version: *version }.serialize(s),
            },
            ServerEvent::LeadCaptured { bot_id, lead_id } => LeadCapturedView { bot_id, lead_id }.serialize(s),
        }
    }
}

/// The bot a training event is about (its `training-status` goes to that bot's members).
pub fn training_bot(event: &TrainingEvent) -> &str {
    match event {
        TrainingEvent::Status { bot_id, .. } | TrainingEvent::PageFetched { bot_id, .. } | TrainingEvent::KnowledgeChanged { bot_id, .. } => bot_id,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    //! Every event's payload against the `json!` payloads it replaced: the same bytes.
    use std::sync::Arc;

    use parley_store::chat::CustomerInfo;
    use parley_store::knowledge::TrainingStatus;
    use serde_json::{json, Value};

    use super::*;
    use crate::views::chat::tests::{message_row, old_message_view, old_session_view, session_row};

    fn old_payload(event: &ServerEvent) -> Value {
        match event {
            ServerEvent::SupportRequest { session, customer_message, customer_info, timestamp } => {
                let session = old_session_view(session);
                json!({"sessionId": session["_id"], "session": session, "customerMessage": customer_message, "customerInfo": customer_info, "timestamp": timestamp})
            }
            ServerEvent::CustomerMessage { session_id, message } | ServerEvent::NewMessage { session_id, message } | ServerEvent::MessageUpdated { session_id, message } => {
                json!({"sessionId": session_id, "message": old_message_view(message)})
            }
            ServerEvent::SessionTaken { session_id, agent_id, agent_name } => json!({"sessionId": session_id, "agentId": agent_id, "agentName": agent_name}),
            ServerEvent::ActiveSupportSessions { sessions } | ServerEvent::AllSessionsUpdate { sessions } => {
                json!({"sessions": sessions.iter().map(old_session_view).collect::<Vec<_>>()})
            }
            ServerEvent::SessionAssigned { session_id, session } | ServerEvent::SessionUpdated { session_id, session } => {
                json!({"sessionId": session_id, "session": old_session_view(session)})
            }
            ServerEvent::VisitorSessionUpdated { session_id, session } => {
                json!({"sessionId": session_id, "session": serde_json::to_value(crate::views::visitor::session(session)).unwrap()})
            }
            ServerEvent::CustomerTyping { session_id, is_typing } => json!({"sessionId": session_id, "isTyping": is_typing}),
            ServerEvent::MessageDelta { session_id, message_id, delta } => json!({"sessionId": session_id, "messageId": message_id, "delta": delta}),
            ServerEvent::SessionResolved { session_id, resolved_by, timestamp } => json!({"sessionId": session_id, "resolvedBy": resolved_by, "timestamp": timestamp}),
            ServerEvent::SessionDeleted { session_id } | ServerEvent::SessionJoined { session_id } | ServerEvent::HandoffOffered { session_id } => json!({"sessionId": session_id}),
            ServerEvent::SupportRequested { message } | ServerEvent::Error { message } => json!({"message": message}),
            ServerEvent::AgentJoined { agent_name, agent_id, message } => json!({"agentName": agent_name, "agentId": agent_id, "message": message}),
            ServerEvent::AgentTyping { is_typing } => json!({"isTyping": is_typing}),
            ServerEvent::Training { event } => match event {
                TrainingEvent::Status { bot_id, item, status, reason } => {
                    let (kind, id) = match item {
                        TrainedItem::Source(id) => ("source", id),
                        TrainedItem::Qa(id) => ("qa", id),
                    };
                    json!({"type": "status", "botId": bot_id, "item": kind, "sourceId": id, "status": status.as_str(), "reason": reason})
                }
                TrainingEvent::PageFetched { bot_id, source_id, url, title } => json!({"type": "page", "botId": bot_id, "sourceId": source_id, "url": url, "title": title}),
                TrainingEvent::KnowledgeChanged { bot_id, version } => json!({"type": "knowledge", "botId": bot_id, "version": version}),
            },
            ServerEvent::LeadCaptured { bot_id, lead_id } => json!({"botId": bot_id, "leadId": lead_id}),
        }
    }

    #[test]
    fn every_event_looks_as_it_always_did() {
        let s = || "s1".to_string();
        let session = Arc::new(session_row(true));
        let message = Arc::new(message_row(true));
        let info = CustomerInfo { name: Some("Vic".into()), email: Some("vic@v.co".into()), phone: None, company: Some("ACME".into()) };
        let events = vec![
            ServerEvent::SupportRequest { session: session.clone(), customer_message: "help".into(), customer_info: info, timestamp: "2026-11-23T13:05:09.000Z".into() },
            ServerEvent::SupportRequest { session: Arc::new(session_row(false)), customer_message: String::new(), customer_info: CustomerInfo::default(), timestamp: String::new() },
            ServerEvent::CustomerMessage { session_id: s(), message: message.clone() },
            ServerEvent::NewMessage { session_id: s(), message: Arc::new(message_row(false)) },
            ServerEvent::MessageUpdated { session_id: s(), message },
            ServerEvent::SessionTaken { session_id: s(), agent_id: "u1".into(), agent_name: "Ann".into() },
            ServerEvent::ActiveSupportSessions { sessions: vec![session_row(true), session_row(false)].into() },
            ServerEvent::AllSessionsUpdate { sessions: Vec::new().into() },
            ServerEvent::SessionAssigned { session_id: s(), session: session.clone() },
            ServerEvent::VisitorSessionUpdated { session_id: s(), session: session.clone() },
            ServerEvent::SessionUpdated { session_id: s(), session },
            ServerEvent::CustomerTyping { session_id: s(), is_typing: true },
            ServerEvent::MessageDelta { session_id: s(), message_id: "pending-3".into(), delta: "par\"t".into() },
            ServerEvent::SessionResolved { session_id: s(), resolved_by: "Ann".into(), timestamp: "t".into() },
            ServerEvent::SessionDeleted { session_id: s() },
            ServerEvent::SessionJoined { session_id: s() },
            ServerEvent::HandoffOffered { session_id: s() },
            ServerEvent::SupportRequested { message: "An agent will be with you".into() },
            ServerEvent::AgentJoined { agent_name: "Ann".into(), agent_id: "u1".into(), message: "Ann joined".into() },
            ServerEvent::AgentTyping { is_typing: false },
            ServerEvent::Error { message: "nope".into() },
            ServerEvent::Training { event: TrainingEvent::Status { bot_id: "b1".into(), item: TrainedItem::Source("src".into()), status: TrainingStatus::Failed, reason: Some("bad pdf".into()) } },
            ServerEvent::Training { event: TrainingEvent::Status { bot_id: "b1".into(), item: TrainedItem::Qa("qa".into()), status: TrainingStatus::Completed, reason: None } },
            ServerEvent::Training { event: TrainingEvent::PageFetched { bot_id: "b1".into(), source_id: "src".into(), url: "https://x.example/".into(), title: "X".into() } },
            ServerEvent::Training { event: TrainingEvent::KnowledgeChanged { bot_id: "b1".into(), version: 4 } },
            ServerEvent::LeadCaptured { bot_id: "b1".into(), lead_id: "l1".into() },
        ];
        for event in &events {
            assert_eq!(encode(event), old_payload(event).to_string(), "{}", event.event_name());
        }
    }

    /// Hardening finding 11: the visitor's `session-updated` carries none of the team's fields.
    #[test]
    fn the_visitors_session_updated_keeps_team_fields_out() {
        let session = Arc::new(session_row(true));
        let payload: Value = serde_json::from_str(&encode(&ServerEvent::VisitorSessionUpdated { session_id: "s1".into(), session })).unwrap();
        for hidden in ["priority", "tags", "rating", "feedback", "resolutionNotes"] {
            assert!(payload["session"].get(hidden).is_none(), "{hidden}: {payload}");
        }
        assert_eq!(payload["session"]["assignedAgent"], json!({"name": "Ann"}));
    }
}
