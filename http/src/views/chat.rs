//! Chat sessions and messages as clients see them (spec 2 §3 "Message" and "Chat session",
//! spec 1 "Sessions list"): on the live channel and in the REST answers alike.
//!
//! Views borrow the rows and serialize straight into the output: no `Value` tree, no copies.
//! Fields are declared in alphabetical order, the order the JSON has always had.

use std::fmt;

use chrono::{Datelike, NaiveDateTime, Timelike};
use parley_store::chat::CustomerInfo;
use parley_store::models::{ChatMessage, ChatSession};
use parley_store::time::to_rfc3339;
use serde::{Serialize, Serializer};
use utoipa::ToSchema;

/// A time as `parley_store::time::to_rfc3339` writes it (`2026-11-23T13:11:30.123Z`), written
/// into the output without a string of its own.
#[derive(Clone, Copy)]
pub struct Time<'a>(pub &'a NaiveDateTime);

impl fmt::Display for Time<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        if !(0..=9999).contains(&t.year()) {
            return f.write_str(&to_rfc3339(t));
        }
        let (mut second, mut nanos) = (t.second(), t.nanosecond());
        if nanos >= 1_000_000_000 {
            // A leap second, as chrono writes it.
            second += 1;
            nanos -= 1_000_000_000;
        }
        write!(f, "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", t.year(), t.month(), t.day(), t.hour(), t.minute(), second, nanos / 1_000_000)
    }
}

impl Serialize for Time<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// JSON kept as text in a column (tags, sources): parsed and written as JSON, or `[]` when
/// the stored text is not JSON.
#[derive(Clone, Copy)]
pub struct StoredJson<'a>(pub &'a str);

impl StoredJson<'_> {
    /// `[]` (or nothing, or not JSON): a field that may then be left out.
    pub fn is_empty_list(&self) -> bool {
        serde_json::from_str::<Vec<serde_json::Value>>(self.0).map_or(true, |v| v.is_empty())
    }
}

impl Serialize for StoredJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match serde_json::from_str::<serde_json::Value>(self.0) {
            Ok(value) => value.serialize(s),
            Err(_) => s.collect_seq(std::iter::empty::<()>()),
        }
    }
}

/// A message (spec 2 §3 "Message").
#[derive(Serialize, ToSchema)]
pub struct MessageView<'a> {
    _id: &'a str,
    #[serde(rename = "agentName")]
    agent_name: Option<&'a str>,
    content: &'a str,
    #[serde(rename = "editedAt")]
    #[schema(value_type = Option<String>, format = DateTime)]
    edited_at: Option<Time<'a>>,
    id: &'a str,
    #[serde(rename = "isAgent")]
    is_agent: bool,
    #[serde(rename = "isError")]
    is_error: bool,
    role: &'a str,
    sender: &'a str,
    #[serde(rename = "senderName")]
    sender_name: Option<&'a str>,
    seq: i64,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
    #[schema(value_type = Vec<serde_json::Value>)]
    sources: StoredJson<'a>,
    /// A bot reply's "did you mean" quick replies; absent when there are none.
    #[serde(skip_serializing_if = "StoredJson::is_empty_list")]
    #[schema(value_type = Option<Vec<String>>)]
    suggestions: StoredJson<'a>,
    #[schema(value_type = String, format = DateTime)]
    timestamp: Time<'a>,
}

impl<'a> From<&'a ChatMessage> for MessageView<'a> {
    fn from(m: &'a ChatMessage) -> Self {
        MessageView {
            _id: &m.id,
            agent_name: if m.is_agent { m.sender_name.as_deref() } else { None },
            content: &m.content,
            edited_at: m.edited_at.as_ref().map(Time),
            id: &m.id,
            is_agent: m.is_agent,
            is_error: m.is_error,
            role: &m.role,
            sender: &m.role,
            sender_name: m.sender_name.as_deref(),
            seq: m.seq,
            session_id: &m.session_id,
            sources: StoredJson(&m.sources),
            suggestions: StoredJson(&m.suggestions),
            timestamp: Time(&m.created_at),
        }
    }
}

pub fn message(m: &ChatMessage) -> MessageView<'_> {
    MessageView::from(m)
}

/// The title shown when a session has none (spec 2 §9: 'Chat Session' + last 6 of the id).
#[derive(Clone, Copy)]
pub struct Title<'a>(pub(crate) &'a ChatSession);

impl fmt::Display for Title<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        if !s.title.is_empty() {
            return f.write_str(&s.title);
        }
        let start = s.id.char_indices().rev().nth(5).map_or(0, |(i, _)| i);
        f.write_str("Chat Session ")?;
        f.write_str(s.id.get(start..).unwrap_or_default())
    }
}

impl Serialize for Title<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.title.is_empty() {
            s.collect_str(self)
        } else {
            s.serialize_str(&self.0.title)
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AgentRef<'a> {
    _id: &'a str,
    id: &'a str,
    name: Option<&'a str>,
}

/// A session as the team sees it: lists (spec 1 "Sessions list", spec 2 §3 "Chat session")
/// and the dashboard's calls and events. Its visitor gets `visitor::VisitorSessionView`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView<'a> {
    #[serde(rename = "_id")]
    _id: &'a str,
    assigned_agent: Option<AgentRef<'a>>,
    bot_id: &'a str,
    #[schema(value_type = String, format = DateTime)]
    created_at: Time<'a>,
    customer_company: Option<&'a str>,
    customer_email: Option<&'a str>,
    customer_name: Option<&'a str>,
    customer_phone: Option<&'a str>,
    feedback: Option<&'a str>,
    #[schema(value_type = Option<String>, format = DateTime)]
    human_support_requested_at: Option<Time<'a>>,
    id: &'a str,
    is_pinned: bool,
    is_starred: bool,
    last_message: Option<&'a str>,
    message_count: i32,
    name: Option<&'a str>,
    needs_human_support: bool,
    priority: &'a str,
    rating: Option<i32>,
    resolution_notes: Option<&'a str>,
    #[schema(value_type = Option<String>, format = DateTime)]
    resolved_at: Option<Time<'a>>,
    resolved_by: Option<&'a str>,
    status: &'a str,
    #[schema(value_type = Vec<serde_json::Value>)]
    tags: StoredJson<'a>,
    #[schema(value_type = String, format = DateTime)]
    timestamp: Time<'a>,
    #[schema(value_type = String)]
    title: Title<'a>,
    #[schema(value_type = String, format = DateTime)]
    updated_at: Time<'a>,
}

impl<'a> From<&'a ChatSession> for SessionView<'a> {
    fn from(s: &'a ChatSession) -> Self {
        SessionView {
            _id: &s.id,
            assigned_agent: s.assigned_agent_id.as_deref().map(|id| AgentRef { _id: id, id, name: s.assigned_agent_name.as_deref() }),
            bot_id: &s.bot_id,
            created_at: Time(&s.created_at),
            customer_company: s.customer_company.as_deref(),
            customer_email: s.customer_email.as_deref(),
            customer_name: s.customer_name.as_deref(),
            customer_phone: s.customer_phone.as_deref(),
            feedback: s.feedback.as_deref(),
            human_support_requested_at: s.human_support_requested_at.as_ref().map(Time),
            id: &s.id,
            is_pinned: s.is_pinned,
            is_starred: s.is_starred,
            last_message: s.last_message.as_deref(),
            message_count: s.message_count,
            name: s.customer_name.as_deref(),
            needs_human_support: s.needs_human_support,
            priority: &s.priority,
            rating: s.rating,
            resolution_notes: s.resolution_notes.as_deref(),
            resolved_at: s.resolved_at.as_ref().map(Time),
            resolved_by: s.resolved_by.as_deref(),
            status: &s.status,
            tags: StoredJson(&s.tags),
            timestamp: Time(&s.updated_at),
            title: Title(s),
            updated_at: Time(&s.updated_at),
        }
    }
}

pub fn session(s: &ChatSession) -> SessionView<'_> {
    SessionView::from(s)
}

/// A session with its messages (`GET /api/chat/get-chat-session/{id}`).
#[derive(Serialize, ToSchema)]
pub struct SessionWithMessages<'a> {
    #[serde(flatten)]
    pub session: SessionView<'a>,
    #[schema(value_type = Vec<MessageView>)]
    pub messages: Messages<'a>,
}

/// `GET /api/chat/get-chat-session/{id}`: the team's view for a member, the reduced one for the
/// session's visitor.
#[derive(Serialize)]
#[serde(untagged)]
pub enum SessionFor<'a> {
    Team(SessionWithMessages<'a>),
    Visitor(super::visitor::VisitorSessionWithMessages<'a>),
}

// By hand, as `anyOf`: the derive would say `oneOf`, and a team view also matches the
// visitor's (it has every field the visitor's has), so no answer would be valid.
impl utoipa::PartialSchema for SessionFor<'_> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::AnyOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name(SessionWithMessages::name()))
            .item(utoipa::openapi::Ref::from_schema_name(super::visitor::VisitorSessionWithMessages::name()))
            .into()
    }
}

impl ToSchema for SessionFor<'_> {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push((SessionWithMessages::name().into(), <SessionWithMessages as utoipa::PartialSchema>::schema()));
        <SessionWithMessages as ToSchema>::schemas(schemas);
        let visitor = super::visitor::VisitorSessionWithMessages::name();
        schemas.push((visitor.into(), <super::visitor::VisitorSessionWithMessages as utoipa::PartialSchema>::schema()));
        <super::visitor::VisitorSessionWithMessages as ToSchema>::schemas(schemas);
    }
}

/// The answer of `GET /api/chat/get-chat-session/{id}`.
#[derive(Serialize, ToSchema)]
pub struct OneSessionWithMessages<'a> {
    pub session: SessionFor<'a>,
}

/// Sessions, each as [`SessionView`].
#[derive(Clone, Copy)]
pub struct Sessions<'a>(pub &'a [ChatSession]);

impl Serialize for Sessions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(SessionView::from))
    }
}

/// Messages, each as [`MessageView`].
#[derive(Clone, Copy)]
pub struct Messages<'a>(pub &'a [ChatMessage]);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(MessageView::from))
    }
}

/// A visitor's contact details.
#[derive(Serialize, ToSchema)]
pub struct CustomerInfoView<'a> {
    company: Option<&'a str>,
    email: Option<&'a str>,
    name: Option<&'a str>,
    phone: Option<&'a str>,
}

impl<'a> From<&'a CustomerInfo> for CustomerInfoView<'a> {
    fn from(c: &'a CustomerInfo) -> Self {
        CustomerInfoView { company: c.company.as_deref(), email: c.email.as_deref(), name: c.name.as_deref(), phone: c.phone.as_deref() }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
pub(crate) mod tests {
    //! The typed views against the `json!` views they replaced (kept here as the reference):
    //! the same bytes.
    use super::*;
    use chrono::NaiveDate;
    use serde_json::{json, Value};

    pub(crate) fn at(ms: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap().and_hms_milli_opt(13, 5, 9, ms).unwrap()
    }

    pub(crate) fn message_row(full: bool) -> ChatMessage {
        ChatMessage {
            id: "m1".into(),
            session_id: "s1".into(),
            seq: 7,
            role: if full { "agent" } else { "user" }.into(),
            content: "Hello \"there\"\n\u{e9}".into(),
            sender_name: full.then(|| "Ann".into()),
            agent_id: full.then(|| "u1".into()),
            is_agent: full,
            is_error: false,
            sources: if full { r#"[{"title":"Doc"},{"title":"Page"}]"# } else { "[]" }.into(),
            created_at: at(42),
            edited_at: full.then(|| at(999)),
            suggestions: if full { r#"["Do you ship abroad?"]"# } else { "[]" }.into(),
        }
    }

    pub(crate) fn session_row(full: bool) -> ChatSession {
        let some = |s: &str| full.then(|| s.to_string());
        ChatSession {
            id: "0123456789abcdef".into(),
            bot_id: "b1".into(),
            title: if full { "Where is my order?" } else { "" }.into(),
            status: "active".into(),
            priority: "high".into(),
            tags: if full { r#"["vip","eu"]"# } else { "not json" }.into(),
            needs_human_support: full,
            assigned_agent_id: some("u1"),
            assigned_agent_name: some("Ann"),
            customer_name: some("Vic"),
            customer_email: some("vic@v.co"),
            customer_phone: some("+1"),
            customer_company: some("ACME"),
            human_support_requested_at: full.then(|| at(1)),
            resolved_at: full.then(|| at(2)),
            resolved_by: some("Ann"),
            rating: full.then_some(5),
            feedback: some("Sorted"),
            resolution_notes: some("Refunded"),
            is_pinned: full,
            is_starred: !full,
            message_count: 3,
            last_message: some("bye"),
            created_at: at(0),
            updated_at: at(500),
        }
    }

    fn old_fallback_title(id: &str) -> String {
        let tail: String = id.chars().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
        format!("Chat Session {tail}")
    }

    pub(crate) fn old_message_view(m: &ChatMessage) -> Value {
        let sources: Value = serde_json::from_str(&m.sources).unwrap_or_else(|_| json!([]));
        let suggestions: Vec<Value> = serde_json::from_str(&m.suggestions).unwrap_or_default();
        let mut view = json!({
            "_id": m.id, "id": m.id, "sessionId": m.session_id, "seq": m.seq, "role": m.role, "sender": m.role,
            "content": m.content, "timestamp": to_rfc3339(&m.created_at), "isAgent": m.is_agent,
            "agentName": if m.is_agent { m.sender_name.clone() } else { None }, "senderName": m.sender_name,
            "isError": m.is_error, "sources": sources, "editedAt": m.edited_at.as_ref().map(to_rfc3339),
        });
        if !suggestions.is_empty() {
            view["suggestions"] = Value::Array(suggestions);
        }
        view
    }

    pub(crate) fn old_session_view(s: &ChatSession) -> Value {
        let tags: Value = serde_json::from_str(&s.tags).unwrap_or_else(|_| json!([]));
        json!({
            "_id": s.id, "id": s.id, "botId": s.bot_id,
            "title": if s.title.is_empty() { old_fallback_title(&s.id) } else { s.title.clone() },
            "name": s.customer_name, "status": s.status, "priority": s.priority, "tags": tags,
            "needsHumanSupport": s.needs_human_support,
            "assignedAgent": s.assigned_agent_id.as_ref().map(|id| json!({"_id": id, "id": id, "name": s.assigned_agent_name})),
            "customerName": s.customer_name, "customerEmail": s.customer_email, "customerPhone": s.customer_phone,
            "customerCompany": s.customer_company,
            "humanSupportRequestedAt": s.human_support_requested_at.as_ref().map(to_rfc3339),
            "resolvedAt": s.resolved_at.as_ref().map(to_rfc3339), "resolvedBy": s.resolved_by, "rating": s.rating,
            "resolutionNotes": s.resolution_notes,
            "feedback": s.feedback, "isPinned": s.is_pinned, "isStarred": s.is_starred, "messageCount": s.message_count,
            "lastMessage": s.last_message, "timestamp": to_rfc3339(&s.updated_at),
            "createdAt": to_rfc3339(&s.created_at), "updatedAt": to_rfc3339(&s.updated_at),
        })
    }

    #[test]
    fn messages_look_as_they_always_did() {
        for full in [false, true] {
            let m = message_row(full);
            assert_eq!(serde_json::to_string(&message(&m)).unwrap(), old_message_view(&m).to_string());
        }
    }

    #[test]
    fn sessions_look_as_they_always_did() {
        for full in [false, true] {
            let s = session_row(full);
            assert_eq!(serde_json::to_string(&session(&s)).unwrap(), old_session_view(&s).to_string());
        }
        let mut short = session_row(false);
        short.id = "abc".into();
        assert_eq!(serde_json::to_string(&session(&short)).unwrap(), old_session_view(&short).to_string());
    }

    #[test]
    fn stored_sources_are_written_as_json() {
        let mut m = message_row(true);
        m.sources = r#"[{"title":"Guide","url":"https://x.example/a","page":3,"sourceId":"src1"}]"#.into();
        assert_eq!(serde_json::to_string(&message(&m)).unwrap(), old_message_view(&m).to_string());
        m.sources = "{broken".into();
        assert_eq!(serde_json::to_string(&message(&m)).unwrap(), old_message_view(&m).to_string());
    }

    #[test]
    fn times_are_written_as_to_rfc3339_writes_them() {
        for t in [at(0), at(7), at(999), NaiveDate::from_ymd_opt(1999, 1, 2).unwrap().and_hms_opt(3, 4, 5).unwrap()] {
            assert_eq!(Time(&t).to_string(), to_rfc3339(&t));
        }
    }
}
