//! The envelopes the handlers answer with, as schemas (see `entities` for why they are
//! declared apart from the `json!` that writes them).
#![allow(dead_code, non_snake_case)]

use utoipa::ToSchema;

use super::entities::{Bot, Invitation, Lead, Member, Notifications, PersonRef, Platform, QaSource, RoleChoice, Source, Time, User};
use crate::views::chat::{MessageView, SessionView};

#[derive(ToSchema)]
pub struct Health {
    /// `ok` or `degraded`.
    pub status: String,
    pub database: String,
}

/// `GET /api/auth/providers`: true for a provider whose client id and secret are set.
#[derive(ToSchema)]
pub struct SignInProviders {
    pub google: bool,
    pub github: bool,
}

/// A short confirmation.
#[derive(ToSchema)]
pub struct Done {
    pub ok: Option<bool>,
    pub message: Option<String>,
}

#[derive(ToSchema)]
pub struct Signed {
    /// The session's JWT, for `Authorization: Bearer`.
    pub token: String,
    pub user: User,
    pub verificationSent: Option<bool>,
}

/// `POST /api/auth/login`: the session, or (two-factor sign-in on) a challenge for
/// `POST /api/auth/two-factor`.
#[derive(ToSchema)]
pub struct SignedIn {
    pub token: Option<String>,
    pub user: Option<User>,
    pub twoFactorRequired: Option<bool>,
    /// Valid for five minutes.
    pub challenge: Option<String>,
    pub message: Option<String>,
}

#[derive(ToSchema)]
pub struct TwoFactorStatus {
    pub enabled: bool,
    pub recoveryCodesLeft: i64,
}

#[derive(ToSchema)]
pub struct TwoFactorSetup {
    /// Base32, for typing into the app.
    pub secret: String,
    pub otpauthUrl: String,
    /// The same address as an SVG QR code.
    pub qrSvg: Option<String>,
}

#[derive(ToSchema)]
pub struct TwoFactorEnabled {
    pub enabled: bool,
    /// Shown this once; each stands in for a code one time.
    pub recoveryCodes: Vec<String>,
}

#[derive(ToSchema)]
pub struct EmailVerified {
    pub message: String,
    pub emailChanged: bool,
    pub user: User,
}

#[derive(ToSchema)]
pub struct Message {
    pub message: String,
}

#[derive(ToSchema)]
pub struct Me {
    pub user: User,
    pub pendingEmail: Option<String>,
    pub platform: Vec<Platform>,
    pub notifications: Notifications,
}

#[derive(ToSchema)]
pub struct ProfileSaved {
    pub user: User,
    pub pendingEmail: Option<String>,
    pub message: Option<String>,
}

#[derive(ToSchema)]
pub struct Avatar {
    pub profilePicture: String,
}

#[derive(ToSchema)]
pub struct PasswordChanged {
    pub token: String,
    pub message: String,
}

// Notifications are answered bare.
pub type NotificationPrefs = Notifications;

#[derive(ToSchema)]
pub struct Bots {
    pub bots: Vec<Bot>,
}

#[derive(ToSchema)]
pub struct OneBot {
    pub bot: Bot,
}

#[derive(ToSchema)]
pub struct SourceCounts {
    pub pdf: i64,
    pub websites: i64,
    pub text: i64,
    pub qa: i64,
}

#[derive(ToSchema)]
pub struct Sources {
    pub counts: SourceCounts,
    pub pdf: Vec<Source>,
    pub websites: Vec<Source>,
    pub text: Vec<Source>,
    pub qa: Vec<QaSource>,
    pub knowledgeVersion: i64,
}

#[derive(ToSchema)]
pub struct OneSource {
    pub source: Source,
}

#[derive(ToSchema)]
pub struct OneQa {
    pub source: QaSource,
}

#[derive(ToSchema)]
pub struct Training {
    pub training: bool,
}

#[derive(ToSchema)]
pub struct Team {
    pub members: Vec<Member>,
    pub ownerId: String,
    pub owner: Option<PersonRef>,
    pub botId: String,
    pub botName: String,
    pub role: String,
    pub canInvite: bool,
    pub canRemoveMembers: bool,
    pub roles: Vec<RoleChoice>,
}

#[derive(ToSchema)]
pub struct OneMember {
    pub member: Member,
    pub message: String,
}

#[derive(ToSchema)]
pub struct MemberRemoved {
    pub ok: bool,
    /// True when it was a pending invitation.
    pub revoked: bool,
    pub message: String,
}

#[derive(ToSchema)]
pub struct Leads {
    pub leads: Vec<Lead>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
}

#[derive(ToSchema)]
pub struct BotStats {
    pub botId: String,
    pub totalMessages: i64,
    pub totalConversations: i64,
    pub activeUsers: i64,
    /// Milliseconds from a visitor's message to the next reply.
    pub averageResponseTime: Option<f64>,
    pub answeredMessages: i64,
    /// Percent.
    pub resolutionRate: Option<f64>,
    pub lastUpdated: Option<Time>,
}

/// `GET /api/demo`.
#[derive(ToSchema)]
pub struct Demo {
    /// False when the server runs with `PARLEY_DEMO_BOT=off`.
    pub enabled: bool,
    pub botId: Option<String>,
}

/// Messages of one bucket by author.
#[derive(ToSchema)]
pub struct MessagesByAuthor {
    pub visitor: i64,
    pub bot: i64,
    pub agent: i64,
}

/// Agents' first responses to requests for a person: nearest-rank percentiles in seconds.
#[derive(ToSchema)]
pub struct FirstResponse {
    pub medianSeconds: Option<f64>,
    pub p90Seconds: Option<f64>,
    /// Requests an agent answered.
    pub answered: i64,
}

/// Satisfaction ratings (1–5) given at resolve.
#[derive(ToSchema)]
pub struct Csat {
    pub average: Option<f64>,
    pub count: i64,
}

/// The figures of one bucket or of the whole period.
#[derive(ToSchema)]
pub struct AnalyticsFigures {
    /// Only in `buckets`: when the bucket starts, in the requested offset.
    pub start: Option<Time>,
    pub conversations: i64,
    pub messages: MessagesByAuthor,
    pub handoffs: i64,
    pub resolved: i64,
    pub firstResponse: FirstResponse,
    pub csat: Csat,
    /// Bot answers without knowledge behind them ("I don't know").
    pub refused: i64,
    /// Leads visitors left.
    pub leads: i64,
}

#[derive(ToSchema)]
pub struct UnansweredQuestion {
    pub question: String,
    pub count: i64,
    pub lastAskedAt: Time,
}

/// `GET /api/bots/{id}/analytics`.
#[derive(ToSchema)]
pub struct BotAnalytics {
    pub botId: String,
    pub period: String,
    /// The time zone the buckets are aligned to: its IANA name, `Europe/Paris`, or an offset, `+02:00`.
    pub tz: String,
    /// `hour` (24h) or `day`.
    pub bucket: String,
    pub from: Time,
    pub to: Time,
    pub buckets: Vec<AnalyticsFigures>,
    pub totals: AnalyticsFigures,
    pub topUnanswered: Vec<UnansweredQuestion>,
}

/// `POST /api/chat`.
#[derive(ToSchema)]
pub struct ChatReply<'a> {
    pub sessionId: String,
    pub aiResponse: Option<String>,
    /// Bring it back with every later message of this conversation.
    pub visitorToken: String,
    pub message: MessageView<'a>,
    pub reply: Option<MessageView<'a>>,
    pub agentConnected: bool,
    pub offerHandoff: bool,
    /// "Did you mean" quick replies: the bot was not sure, these questions (or source titles)
    /// are near the visitor's. Asking one is sending it as the next message. Empty otherwise.
    pub suggestions: Vec<String>,
}

#[derive(ToSchema)]
pub struct SessionsPage<'a> {
    pub sessions: Vec<SessionView<'a>>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
}

#[derive(ToSchema)]
pub struct OneSession<'a> {
    pub session: SessionView<'a>,
}

#[derive(ToSchema)]
pub struct OneMessage<'a> {
    pub message: MessageView<'a>,
}

#[derive(ToSchema)]
pub struct SupportStats {
    pub waiting: i64,
    pub activeChats: i64,
    pub resolvedToday: i64,
    pub totalResolved: i64,
    pub averageResponseSeconds: Option<f64>,
    pub answeredHandoffs: i64,
    /// The average rating given at resolve (1 to 5).
    pub satisfaction: Option<f64>,
    pub ratedSessions: i64,
    /// The same as `waiting`, under the spec's name.
    pub pendingQueue: i64,
    /// The same as `averageResponseSeconds`, under the spec's name.
    pub averageResponseTime: Option<f64>,
    /// The same as `satisfaction`, under the spec's name.
    pub customerSatisfaction: Option<f64>,
}

#[derive(ToSchema)]
pub struct Window {
    pub conversations: i64,
    pub activeUsers: i64,
    pub resolvedSessions: i64,
    pub aiReplies: i64,
}

#[derive(ToSchema)]
pub struct OverviewTotals {
    pub totalBots: i64,
    pub activeBots: i64,
    pub totalConversations: i64,
    pub totalMessages: i64,
    pub activeUsers: i64,
    pub resolvedSessions: i64,
    pub creditsUsed: i64,
}

/// Percentage change from the previous period; `null` when it had none.
#[derive(ToSchema)]
pub struct Growth {
    pub conversations: Option<f64>,
    pub users: Option<f64>,
    pub resolution: Option<f64>,
    pub credits: Option<f64>,
}

#[derive(ToSchema)]
pub struct ActivityEntry {
    pub id: String,
    pub action: String,
    pub time: Time,
    pub r#type: String,
    pub botName: Option<String>,
}

#[derive(ToSchema)]
pub struct Overview {
    pub period: String,
    pub stats: OverviewTotals,
    pub current: Window,
    pub previous: Window,
    pub growth: Growth,
    pub recentActivity: Vec<ActivityEntry>,
}

#[derive(ToSchema)]
pub struct Invitations {
    pub invitations: Vec<Invitation>,
    /// Set when the caller must verify their email before seeing invitations.
    pub emailUnverified: Option<bool>,
}

#[derive(ToSchema)]
pub struct InvitationPreview {
    pub invitation: Invitation,
}

#[derive(ToSchema)]
pub struct JoinedAs {
    pub _id: String,
    pub role: String,
    pub status: String,
}

#[derive(ToSchema)]
pub struct InvitationAccepted {
    pub ok: bool,
    pub message: String,
    pub bot: Bot,
    pub member: JoinedAs,
}

#[derive(ToSchema)]
pub struct InvitationAnswered {
    pub ok: bool,
    pub accepted: bool,
}

/// A row of the Leads table: the lead, and what the table shows beside it.
#[derive(ToSchema)]
pub struct LeadRow {
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
    pub tags: Vec<String>,
    pub leadScore: i64,
    pub assignedTo: Option<String>,
    pub capturedAt: Time,
    pub lastContact: Option<Time>,
    pub updatedAt: Time,
    pub botName: Option<String>,
    pub sessionTitle: Option<String>,
    pub assignedToName: Option<String>,
}

#[derive(ToSchema)]
pub struct LeadsPage {
    pub leads: Vec<LeadRow>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
}

#[derive(ToSchema)]
pub struct LeadSaved {
    pub lead: LeadRow,
    pub message: String,
}

#[derive(ToSchema)]
pub struct MonthConversion {
    pub captured: i64,
    pub converted: i64,
    /// Percent; null when the month captured no lead.
    pub rate: Option<f64>,
}

#[derive(ToSchema)]
pub struct Conversion {
    pub thisMonth: MonthConversion,
    pub lastMonth: MonthConversion,
}

#[derive(ToSchema)]
pub struct SourceShare {
    pub source: String,
    pub count: i64,
    pub percent: f64,
}

#[derive(ToSchema)]
pub struct LeadStatsBody {
    pub total: i64,
    pub new: i64,
    pub contacted: i64,
    pub qualified: i64,
    pub converted: i64,
    pub lost: i64,
    pub withEmail: i64,
    pub withName: i64,
    pub withPhone: i64,
    pub conversionRate: Option<f64>,
    pub conversion: Conversion,
    pub sources: Vec<SourceShare>,
}

#[derive(ToSchema)]
pub struct LeadStats {
    pub stats: LeadStatsBody,
}
