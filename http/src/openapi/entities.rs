//! The shapes of the entities that handlers still build with `json!` (the `views` functions),
//! as schemas. The JSON and these types are kept in step by the contract run
//! (`scripts/contract.sh`): schemathesis checks every answer against them.
//!
//! Field names are the JSON's (camelCase, `_id`); `Option` means the field may be `null`.
#![allow(dead_code, non_snake_case)]

use utoipa::ToSchema;

/// A time as RFC 3339 in UTC with milliseconds (`2026-11-23T13:11:30.123Z`).
pub type Time = String;

/// `{"error": {"code", "message"}}`: every refusal.
#[derive(ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(ToSchema)]
pub struct ErrorDetail {
    /// Machine-readable: `validation_failed`, `unauthorized`, `not_found`, ...
    pub code: String,
    /// For people; validation messages are the spec's words.
    pub message: String,
    /// With `plan_limit`: the limit reached (`conversations`, `bots`, `credits`).
    pub limit: Option<String>,
    /// With `plan_limit`: where the owner raises it (`/billing`).
    pub upgradeUrl: Option<String>,
}

/// `views::user`.
#[derive(ToSchema)]
pub struct User {
    pub _id: String,
    pub id: String,
    pub name: String,
    pub email: String,
    pub profilePicture: Option<String>,
    pub timezone: String,
    pub language: String,
    pub hasPassword: bool,
    pub emailVerified: bool,
    /// Sign-in asks for a code from an authenticator app.
    pub twoFactorEnabled: bool,
    pub createdAt: Time,
}

/// `views::platform`: the plan and what is left of it.
#[derive(ToSchema)]
pub struct Platform {
    pub planType: String,
    pub planName: String,
    pub remainingCredits: i64,
    pub creditsUsed: i64,
    pub creditsTotal: i64,
    pub conversationsUsed: i64,
    pub conversationsTotal: i64,
    pub botsUsed: i64,
    pub botsTotal: i64,
    pub periodStart: Time,
    pub periodEnd: Time,
}

/// `views::notifications`.
#[derive(ToSchema)]
pub struct Notifications {
    pub emailNotifications: bool,
    pub pushNotifications: bool,
    pub weeklyReports: bool,
    pub securityAlerts: bool,
}

/// `views::bot`: the bot with its widget configuration flattened in (the widget's fields,
/// `primaryColour`, `welcomeMessage`, ..., are further properties).
#[derive(ToSchema)]
pub struct Bot {
    pub _id: String,
    pub id: String,
    pub name: String,
    pub description: String,
    pub icon: Option<String>,
    /// `active` or `inactive`.
    pub status: String,
    pub websiteUrl: Option<String>,
    pub systemPrompt: String,
    pub lastActive: Option<Time>,
    pub createdAt: Time,
    pub updatedAt: Time,
    /// The caller's role on the bot.
    pub role: String,
    /// In lists only.
    pub conversationCount: Option<i64>,
}

/// `views::bot_settings`: abuse protection.
#[derive(ToSchema)]
pub struct BotSettings {
    pub maxChatTextSize: i64,
    pub urlWhitelist: Vec<String>,
}

/// The public look of a bot's chat (`GET /api/bots/{id}/theme`): widget fields plus these.
#[derive(ToSchema)]
pub struct Theme {
    pub _id: String,
    pub name: String,
    pub icon: Option<String>,
    pub status: String,
    /// The owner's CSS for the chat page (checked on save: no loading from other sites, no script).
    pub customCSS: String,
    /// With `enableFAQ`: up to 5 questions of the bot's trained Q&A pairs, oldest first.
    pub faqQuestions: Vec<String>,
    /// Whether any member is online as an agent of the bot right now.
    pub agentsOnline: bool,
}

/// A training source (PDF, website or text).
#[derive(ToSchema)]
pub struct Source {
    pub _id: String,
    pub id: String,
    /// `pdf`, `website`, `text`.
    pub kind: String,
    pub name: String,
    /// `processing`, `completed` or `failed`.
    pub status: String,
    pub error: Option<String>,
    pub url: Option<String>,
    pub content: Option<String>,
    pub sizeBytes: Option<i64>,
    pub pages: Option<i64>,
    pub createdAt: Time,
    pub updatedAt: Time,
}

/// A Q&A pair, listed among the sources.
#[derive(ToSchema)]
pub struct QaSource {
    pub _id: String,
    pub id: String,
    /// Always `qa`.
    pub kind: String,
    pub question: String,
    pub answer: String,
    pub status: String,
    pub error: Option<String>,
    pub createdAt: Time,
    pub updatedAt: Time,
}

/// A lead a visitor left.
#[derive(ToSchema)]
pub struct Lead {
    pub _id: String,
    pub id: String,
    pub botId: String,
    pub sessionId: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub status: String,
    pub priority: String,
    pub source: String,
    pub notes: Option<String>,
    pub tags: Vec<serde_json::Value>,
    pub leadScore: i64,
    pub assignedTo: Option<String>,
    pub capturedAt: Time,
    pub lastContact: Option<Time>,
}

/// A row of the team page (the owner's row included).
#[derive(ToSchema)]
pub struct Member {
    pub _id: String,
    pub id: String,
    pub userId: Option<String>,
    pub name: String,
    pub email: String,
    pub invitedEmail: String,
    pub avatar: Option<String>,
    pub role: String,
    pub roleLabel: String,
    pub isOwner: bool,
    /// `active`, `pending` or `expired`.
    pub status: String,
    pub lastActive: Option<Time>,
    pub joinedAt: Option<Time>,
    pub invitedAt: Option<Time>,
    pub expiresAt: Option<Time>,
    pub chips: Vec<String>,
    pub permissions: Vec<String>,
    pub canEdit: bool,
    pub canRemove: bool,
}

/// A role an invitation may give, as the Invite Member modal offers it.
#[derive(ToSchema)]
pub struct RoleChoice {
    pub value: String,
    pub label: String,
    pub chips: Vec<String>,
    pub permissions: Vec<String>,
}

#[derive(ToSchema)]
pub struct PersonRef {
    pub _id: String,
    pub name: String,
    pub email: String,
}

#[derive(ToSchema)]
pub struct Inviter {
    pub name: Option<String>,
    pub email: Option<String>,
}

/// `views::invitation`.
#[derive(ToSchema)]
pub struct Invitation {
    pub _id: String,
    pub id: String,
    pub botId: String,
    pub botName: String,
    pub botIcon: Option<String>,
    pub role: String,
    pub invitedBy: Inviter,
    pub invitedAt: Time,
    pub expiresAt: Option<Time>,
    /// In the link's preview only: the address it was sent to.
    pub email: Option<String>,
}

/// `PUT /api/bots/{id}`: any of these, and any widget field (`primaryColour`,
/// `welcomeMessage`, `customQuestions`, ...); an unknown field is refused.
#[derive(ToSchema)]
pub struct BotUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `active` or `inactive`.
    pub status: Option<String>,
    pub websiteUrl: Option<String>,
    pub systemPrompt: Option<String>,
}

/// `POST /api/bots` (`multipart/form-data`): the new-bot wizard.
#[derive(ToSchema)]
pub struct BotForm {
    pub name: String,
    pub description: Option<String>,
    pub websiteUrl: Option<String>,
    /// `skip`, `upload` (with `faqFile`) or `text` (with `faqText`).
    pub faqMethod: Option<String>,
    pub faqText: Option<String>,
    /// A PDF.
    #[schema(value_type = Option<String>, format = Binary)]
    pub faqFile: Option<Vec<u8>>,
    /// A PNG, JPEG, GIF or WebP image.
    #[schema(value_type = Option<String>, format = Binary)]
    pub icon: Option<Vec<u8>>,
}

/// `POST /api/bots/{id}/icon` (`multipart/form-data`).
#[derive(ToSchema)]
pub struct IconForm {
    /// A PNG, JPEG, GIF or WebP image.
    #[schema(value_type = String, format = Binary)]
    pub icon: Vec<u8>,
}

/// `POST /api/bots/{id}/sources/pdf` (`multipart/form-data`).
#[derive(ToSchema)]
pub struct PdfForm {
    /// A PDF of at most 10 MB.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// Contact details a visitor leaves (`POST /api/chat`'s `leadData`).
#[derive(ToSchema)]
pub struct LeadData {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
}
