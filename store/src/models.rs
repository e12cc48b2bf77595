//! Rows as stored. Text-encoded fields (JSON lists, status words) are decoded by the modules
//! that own them; these structs are the raw shape of each table.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::schema::*;

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
    pub password_hash: Option<String>,
    pub profile_picture: Option<String>,
    pub timezone: String,
    pub language: String,
    pub two_factor_enabled: bool,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// A link sent to `email` was followed (or a provider vouched for it).
    pub email_verified: bool,
    /// Carried in session tokens; raised by a password change or reset, which ends every
    /// session issued before.
    pub token_version: i32,
}

/// An account's two-factor sign-in (see `two_factor`).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = two_factor)]
pub struct TwoFactor {
    pub user_id: String,
    /// The TOTP secret, sealed by the caller (`http::auth::totp::SecretSeal`).
    pub secret: String,
    /// Confirmed with a code: sign-in asks for one.
    pub enabled: bool,
    /// The last 30-second step a code was accepted for; older and equal steps are refused.
    pub last_step: i64,
    /// JSON list of the unused recovery codes' SHA-256 hashes.
    pub recovery_hashes: String,
    pub created_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = email_tokens)]
pub struct EmailToken {
    pub id: String,
    pub user_id: String,
    /// `verify_email`, `change_email` or `reset_password` (see `tokens::Purpose`).
    pub purpose: String,
    /// The address the link was sent to (the new address, for a change).
    pub email: String,
    pub token_hash: String,
    pub expires_at: NaiveDateTime,
    pub used_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = mail_outbox)]
pub struct OutboxMail {
    pub id: String,
    pub to_address: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    /// The action link in the mail, logged when mail goes to files instead of a server.
    pub link: Option<String>,
    /// `pending`, `sent` or `failed` (gave up after the last attempt).
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: NaiveDateTime,
    pub last_error: Option<String>,
    pub created_at: NaiveDateTime,
    pub sent_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = user_identities)]
pub struct UserIdentity {
    pub id: String,
    pub user_id: String,
    pub provider: String,
    pub subject: String,
    pub email: Option<String>,
    pub created_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = notification_preferences)]
pub struct NotificationPrefs {
    pub user_id: String,
    pub email_notifications: bool,
    pub push_notifications: bool,
    pub weekly_reports: bool,
    pub security_alerts: bool,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = bots)]
pub struct Bot {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub description: String,
    pub icon: Option<String>,
    pub status: String,
    pub website_url: Option<String>,
    pub system_prompt: String,
    /// The widget configuration as JSON (see `bots::WidgetConfig`).
    pub widget: String,
    pub knowledge_version: i64,
    pub last_active: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = bot_settings)]
pub struct BotSettingsRow {
    pub bot_id: String,
    pub max_chat_text_size: i32,
    pub url_whitelist: String,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = team_members)]
pub struct TeamMember {
    pub id: String,
    pub bot_id: String,
    pub user_id: Option<String>,
    pub email: String,
    pub role: String,
    pub status: String,
    pub invited_by: Option<String>,
    pub invite_token: Option<String>,
    pub invited_at: NaiveDateTime,
    pub joined_at: Option<NaiveDateTime>,
    pub last_active: Option<NaiveDateTime>,
    /// When a pending invitation's link stops working.
    pub invite_expires_at: Option<NaiveDateTime>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = knowledge_sources)]
pub struct KnowledgeSource {
    pub id: String,
    pub bot_id: String,
    pub kind: String,
    pub name: String,
    pub status: String,
    pub error: Option<String>,
    pub url: Option<String>,
    pub content: Option<String>,
    pub file_path: Option<String>,
    pub size_bytes: Option<i64>,
    pub pages: Option<i32>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = qa_pairs)]
pub struct QaPair {
    pub id: String,
    pub bot_id: String,
    pub question: String,
    pub answer: String,
    pub status: String,
    /// Why training failed, for a `failed` pair.
    pub error: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = chunks)]
pub struct Chunk {
    pub id: String,
    pub bot_id: String,
    pub source_id: Option<String>,
    pub qa_id: Option<String>,
    pub position: i32,
    pub title: String,
    pub url: Option<String>,
    pub page: Option<i32>,
    pub content: String,
    pub embedding: Option<Vec<u8>>,
    pub created_at: NaiveDateTime,
    pub sentence_embeddings: Option<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = chat_sessions)]
pub struct ChatSession {
    pub id: String,
    pub bot_id: String,
    pub title: String,
    pub status: String,
    pub priority: String,
    pub tags: String,
    pub needs_human_support: bool,
    pub assigned_agent_id: Option<String>,
    pub assigned_agent_name: Option<String>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub customer_phone: Option<String>,
    pub customer_company: Option<String>,
    pub human_support_requested_at: Option<NaiveDateTime>,
    pub resolved_at: Option<NaiveDateTime>,
    pub resolved_by: Option<String>,
    pub rating: Option<i32>,
    /// The visitor's own feedback on the conversation (they may see it).
    pub feedback: Option<String>,
    pub is_pinned: bool,
    pub is_starred: bool,
    pub message_count: i32,
    pub last_message: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The agent's private notes from resolving it: members only, never the visitor.
    pub resolution_notes: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = chat_messages)]
pub struct ChatMessage {
    pub id: String,
    pub session_id: String,
    pub seq: i64,
    pub role: String,
    pub content: String,
    pub sender_name: Option<String>,
    pub agent_id: Option<String>,
    pub is_agent: bool,
    pub is_error: bool,
    pub sources: String,
    pub created_at: NaiveDateTime,
    pub edited_at: Option<NaiveDateTime>,
    /// A bot reply's "did you mean" quick replies: a JSON array of strings, usually `[]`.
    pub suggestions: String,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = leads)]
pub struct Lead {
    pub id: String,
    pub bot_id: String,
    pub session_id: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub status: String,
    pub priority: String,
    pub source: String,
    pub notes: Option<String>,
    pub tags: String,
    pub lead_score: i32,
    pub assigned_to: Option<String>,
    pub captured_at: NaiveDateTime,
    pub last_contact: Option<NaiveDateTime>,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = plans)]
pub struct Plan {
    pub id: String,
    pub name: String,
    pub price_monthly_cents: Option<i32>,
    pub price_yearly_cents: Option<i32>,
    pub conversations_limit: i32,
    pub bots_limit: i32,
    pub credits_limit: i32,
    pub features: String,
    pub sort_order: i32,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = subscriptions)]
pub struct Subscription {
    pub id: String,
    pub user_id: String,
    pub plan_id: String,
    pub status: String,
    pub billing_cycle: String,
    pub current_period_start: NaiveDateTime,
    pub current_period_end: NaiveDateTime,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The plan stops at the end of the current period (a cancellation or a downgrade).
    pub cancel_at_period_end: bool,
    /// When the plan stops; from then the account is on Free. `None`: it goes on.
    pub ends_at: Option<NaiveDateTime>,
    pub stripe_customer_id: Option<String>,
    pub stripe_subscription_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = usage_counters)]
pub struct UsageCounter {
    pub user_id: String,
    pub period_start: NaiveDateTime,
    pub conversations: i32,
    pub credits_used: i32,
}

/// A plan limit first reached in a billing period; the owner is told once (`sent_at`).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = limit_notices)]
pub struct LimitNotice {
    pub user_id: String,
    pub period_start: NaiveDateTime,
    pub limit_kind: String,
    pub reached_at: NaiveDateTime,
    pub sent_at: Option<NaiveDateTime>,
}

impl LimitNotice {
    /// `limit` reached now in the period starting `period_start`, not yet told.
    pub fn reached(user_id: &str, period_start: NaiveDateTime, limit: crate::billing::Limit) -> LimitNotice {
        LimitNotice { user_id: user_id.to_string(), period_start, limit_kind: limit.as_str().to_string(), reached_at: crate::time::now(), sent_at: None }
    }
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = payments)]
pub struct Payment {
    pub id: String,
    pub user_id: String,
    pub description: String,
    pub amount_cents: i32,
    pub currency: String,
    pub status: String,
    pub paid_at: NaiveDateTime,
    /// The Stripe invoice this payment is an outcome of (one row per invoice and outcome).
    pub stripe_invoice_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = activity_log)]
pub struct Activity {
    pub id: String,
    pub user_id: Option<String>,
    pub bot_id: Option<String>,
    pub action: String,
    pub kind: String,
    pub created_at: NaiveDateTime,
}
