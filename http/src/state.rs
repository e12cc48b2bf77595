//! What every handler shares: the store, settings, token keys and the outbound HTTP client.

use std::sync::Arc;

use parley_config::Settings;
use parley_store::Store;

use crate::auth::oauth::PendingFlows;
use crate::auth::TokenKeys;

pub struct AppState {
    pub store: Store,
    pub engine: parley_engine::chat::Engine,
    /// Turns training sources into indexed knowledge.
    pub trainer: parley_engine::ingest::Trainer,
    pub settings: Settings,
    pub tokens: TokenKeys,
    /// Seals the two-factor secrets in the database (see `totp::SecretSeal`).
    pub two_factor_seal: crate::auth::totp::SecretSeal,
    pub oauth_flows: PendingFlows,
    /// Outbound calls to sign-in providers; never follows redirects (OAuth requires that).
    pub http: reqwest::Client,
    /// A hash of a random password, verified against when an email is unknown (see
    /// `password::dummy_verify`).
    pub dummy_hash: String,
    /// Password hashing, a bounded number at once (argon2 memory).
    pub hasher: crate::auth::password::Hasher,
    /// Per-IP budget of the sign-in family of routes, and per-email lockouts.
    pub auth_throttle: crate::auth::throttle::AuthThrottle,
    /// Visitor messages per minute, for bots with `enableRateLimit`.
    pub visitor_limiter: crate::limits::VisitorLimiter,
    /// Who a request comes from (the peer, or the client a trusted proxy names), for the
    /// per-address budgets.
    pub client_ip: crate::client_ip::ClientIp,
    /// Budgets for new conversations, per IP and per bot.
    pub new_conversations: crate::limits::NewConversations,
    /// First messages of `POST /api/chat` by their client ids, so one sent again is answered once.
    pub first_messages: crate::routes::chat::first_messages::FirstMessages,
    /// Mail to send (verification, invitations, resets, alerts) and links into this server.
    pub mail: crate::mail::Outbox,
    /// The landing page's demo bot (`crate::demo`); `None` with `PARLEY_DEMO_BOT=off`.
    pub demo_bot: Option<String>,
}

pub type SharedState = Arc<AppState>;
