//! A chat session as its visitor sees it: what the widget needs (status, whether a person is
//! coming or has come, their name) and the visitor's own details. The team's fields stay with
//! the team: priority, tags, pins and stars, the rating, the agent's resolution notes, the
//! visitor's feedback as the team filed it, and the agent's user id.
//!
//! Fields are declared in alphabetical order, as in `chat::SessionView`.

use parley_store::models::ChatSession;
use serde::Serialize;
use utoipa::ToSchema;

use super::chat::{Messages, Time, Title};

/// The agent a visitor is talking to: a name, never an account id.
#[derive(Serialize, ToSchema)]
pub struct VisitorAgentRef<'a> {
    name: Option<&'a str>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorSessionView<'a> {
    #[serde(rename = "_id")]
    _id: &'a str,
    assigned_agent: Option<VisitorAgentRef<'a>>,
    bot_id: &'a str,
    #[schema(value_type = String, format = DateTime)]
    created_at: Time<'a>,
    customer_company: Option<&'a str>,
    customer_email: Option<&'a str>,
    customer_name: Option<&'a str>,
    customer_phone: Option<&'a str>,
    #[schema(value_type = Option<String>, format = DateTime)]
    human_support_requested_at: Option<Time<'a>>,
    id: &'a str,
    message_count: i32,
    needs_human_support: bool,
    #[schema(value_type = Option<String>, format = DateTime)]
    resolved_at: Option<Time<'a>>,
    status: &'a str,
    #[schema(value_type = String, format = DateTime)]
    timestamp: Time<'a>,
    #[schema(value_type = String)]
    title: Title<'a>,
    #[schema(value_type = String, format = DateTime)]
    updated_at: Time<'a>,
}

impl<'a> From<&'a ChatSession> for VisitorSessionView<'a> {
    fn from(s: &'a ChatSession) -> Self {
        VisitorSessionView {
            _id: &s.id,
            assigned_agent: s.assigned_agent_id.as_ref().map(|_| VisitorAgentRef { name: s.assigned_agent_name.as_deref() }),
            bot_id: &s.bot_id,
            created_at: Time(&s.created_at),
            customer_company: s.customer_company.as_deref(),
            customer_email: s.customer_email.as_deref(),
            customer_name: s.customer_name.as_deref(),
            customer_phone: s.customer_phone.as_deref(),
            human_support_requested_at: s.human_support_requested_at.as_ref().map(Time),
            id: &s.id,
            message_count: s.message_count,
            needs_human_support: s.needs_human_support,
            resolved_at: s.resolved_at.as_ref().map(Time),
            status: &s.status,
            timestamp: Time(&s.updated_at),
            title: Title(s),
            updated_at: Time(&s.updated_at),
        }
    }
}

pub fn session(s: &ChatSession) -> VisitorSessionView<'_> {
    VisitorSessionView::from(s)
}

/// A session with its messages, for its visitor (`GET /api/chat/get-chat-session/{id}`).
#[derive(Serialize, ToSchema)]
pub struct VisitorSessionWithMessages<'a> {
    #[serde(flatten)]
    pub session: VisitorSessionView<'a>,
    #[schema(value_type = Vec<super::chat::MessageView>)]
    pub messages: Messages<'a>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::views::chat::tests::session_row;

    /// Hardening finding 11: nothing the team keeps to itself reaches the visitor.
    #[test]
    fn the_visitor_sees_no_team_only_field() {
        let mut row = session_row(true);
        row.resolution_notes = Some("Rude customer, do not refund".into());
        let json = serde_json::to_value(session(&row)).unwrap();
        for hidden in ["priority", "tags", "rating", "feedback", "resolutionNotes", "resolvedBy", "isPinned", "isStarred", "lastMessage", "name"] {
            assert!(json.get(hidden).is_none(), "{hidden} reached the visitor: {json}");
        }
        assert_eq!(json["assignedAgent"], serde_json::json!({"name": "Ann"}), "the agent's name, not their account id");
        let text = json.to_string();
        assert!(!text.contains("u1") && !text.contains("Rude"), "{text}");
        assert_eq!((json["status"].as_str(), json["needsHumanSupport"].as_bool()), (Some("active"), Some(true)));
        assert_eq!(json["title"], "Where is my order?");
    }
}
