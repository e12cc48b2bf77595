//! Parley's typed settings. `config/default.toml` is compiled in and documents every key; an
//! optional file (`PARLEY_CONFIG`) and then `PARLEY_*` environment variables override it.

mod secret;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use secret::ensure_jwt_secret;

const DEFAULTS: &str = include_str!("../default.toml");
const ENV_PREFIX: &str = "PARLEY";

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config file {path}: {source}")]
    File { path: PathBuf, source: std::io::Error },
    #[error("config syntax: {0}")]
    Syntax(#[from] toml::de::Error),
    #[error("environment variable {name}: cannot read {value:?} as {expected}")]
    Env { name: String, value: String, expected: &'static str },
    #[error("setting {key}: {message}")]
    Invalid { key: &'static str, message: String },
    #[error("jwt secret in {path}: {source}")]
    Secret { path: PathBuf, source: std::io::Error },
}

/// Settings print without their secrets (see `redact`): a `{settings:?}` in a log line must
/// not leak the JWT secret, an API key, or a password inside a database or SMTP URL.
#[derive(Clone, Deserialize)]
pub struct Settings {
    pub addr: String,
    pub data_dir: PathBuf,
    pub database_url: String,
    pub database_pool_size: usize,
    /// Bounds on waiting for the database (pool wait, connect, recycle check, statement).
    pub database_wait_timeout_ms: u64,
    pub database_connect_timeout_secs: u64,
    pub database_recycle_timeout_ms: u64,
    pub database_statement_timeout_ms: u64,
    /// SQLite `synchronous = FULL` instead of NORMAL.
    pub sqlite_synchronous_full: bool,
    /// SQLite: the WAL size at which its tail is caught up so that it starts over.
    pub sqlite_wal_restart_bytes: u64,
    /// SQLite: the longest a saved message waits in the journal before it is committed.
    pub sqlite_journal_apply_ms: u64,
    pub public_url: String,
    /// Reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges,
    /// comma-separated); see [`Settings::trusted_proxy_nets`].
    pub trusted_proxies: String,
    /// HTTP worker threads (each an event loop serving connections); 0 = one per core but one.
    pub workers: usize,
    pub auth: AuthSettings,
    pub smtp: SmtpSettings,
    pub oauth: OAuthSettings,
    pub billing: BillingSettings,
    pub stripe: StripeSettings,
    pub web: WebSettings,
    pub uploads: UploadSettings,
    pub training: TrainingSettings,
    pub realtime: RealtimeSettings,
    pub llm: LlmSettings,
    pub embeddings: EmbeddingSettings,
    pub crawler: CrawlerSettings,
    pub reports: ReportSettings,
    /// The landing page's demo bot: on (created on first start from the repository's seed) or
    /// off (`PARLEY_DEMO_BOT=off`: the landing page shows screenshots).
    pub demo_bot: bool,
    /// Accounts (emails, comma-separated) seated as agents of the demo bot at start, so a
    /// landing visitor who asks for a person reaches whoever of them is online.
    pub demo_operators: String,
}

/// When the weekly report goes out (to users who turned "Weekly reports" on).
#[derive(Debug, Clone, Deserialize)]
pub struct ReportSettings {
    /// monday .. sunday, or empty for no weekly reports from this server.
    pub weekly_day: String,
    /// Hour of that day, UTC (0-23).
    pub weekly_hour: u32,
}

/// The days `reports.weekly_day` accepts, Monday first.
pub const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

impl ReportSettings {
    /// The report's day as days from Monday (0-6); `None` when weekly reports are off.
    pub fn weekly_day_from_monday(&self) -> Option<u32> {
        let day = self.weekly_day.trim().to_ascii_lowercase();
        WEEKDAYS.iter().position(|d| *d == day).and_then(|i| u32::try_from(i).ok())
    }
}

#[derive(Clone, Deserialize)]
pub struct AuthSettings {
    pub jwt_secret: String,
    pub token_ttl_hours: u64,
    pub max_avatar_bytes: usize,
    /// Calls to the sign-in family of routes per minute from one IP (token bucket), and the
    /// bucket's size; 0 = no limit.
    pub ip_attempts_per_minute: f64,
    pub ip_burst: f64,
    /// Invitation mails (invites and resends) one member may send per hour (token bucket), and
    /// the bucket's size; 0 = no limit.
    pub invitations_per_hour: f64,
    pub invitation_burst: f64,
    /// Failed sign-ins in a row for one email before it is locked, the first lock, the longest.
    pub lockout_after_failures: u32,
    pub lockout_secs: u64,
    pub lockout_max_secs: u64,
    /// argon2 hashes computed at once (memory bound); 0 = one per core.
    pub max_concurrent_hashes: usize,
    /// How long a hash waits for its turn before the call is refused as busy.
    pub hash_wait_secs: u64,
}

#[derive(Clone, Deserialize)]
pub struct SmtpSettings {
    /// smtp://[user:password@]host[:port]; empty = mail goes to files in `<data_dir>/outbox/`.
    pub url: String,
    pub from: String,
    pub tls: SmtpTls,
    pub timeout_secs: u64,
    pub max_attempts: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpTls {
    /// STARTTLS, required.
    Starttls,
    /// Implicit TLS from the first byte (SMTPS).
    Tls,
    /// STARTTLS when the server offers it, else plain.
    Opportunistic,
    /// Plain text (a relay on the same machine, a test server).
    None,
}

impl SmtpSettings {
    pub fn is_configured(&self) -> bool {
        !self.url.trim().is_empty()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct OAuthSettings {
    pub google: OAuthProvider,
    pub github: OAuthProvider,
}

#[derive(Clone, Deserialize)]
pub struct OAuthProvider {
    pub client_id: String,
    pub client_secret: String,
    pub auth_url: String,
    pub token_url: String,
    pub userinfo_url: String,
    pub scopes: String,
}

impl OAuthProvider {
    /// A provider is usable only with both a client id and a secret.
    pub fn is_configured(&self) -> bool {
        !self.client_id.is_empty() && !self.client_secret.is_empty()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct BillingSettings {
    pub default_plan: String,
    /// Where Enterprise's Contact Sales button writes (`mailto:`); empty = the From address
    /// of outgoing mail.
    pub sales_email: String,
    /// Days a paid plan stays after its renewal payment failed, before the account is on Free.
    pub grace_days: u32,
}

/// Payments through Stripe Billing. Without the two keys the Billing page shows the plans and
/// the usage and says payments are not configured.
#[derive(Clone, Deserialize)]
pub struct StripeSettings {
    pub secret_key: String,
    pub publishable_key: String,
    /// Signs the webhook's deliveries (`whsec_…`); without it every delivery is refused.
    pub webhook_secret: String,
    /// Stripe's API; a local stand-in (localstripe) in tests.
    pub api_base: String,
    /// Where the page loads Stripe.js from (`<api_base>/js.stripe.com/v3/` for localstripe).
    pub js_url: String,
    pub price_pro_monthly: String,
    pub price_pro_yearly: String,
}

impl StripeSettings {
    pub fn is_configured(&self) -> bool {
        !self.secret_key.trim().is_empty() && !self.publishable_key.trim().is_empty()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct WebSettings {
    pub dashboard_dir: PathBuf,
    pub widget_dir: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
pub struct UploadSettings {
    pub max_pdf_bytes: usize,
    pub max_icon_bytes: usize,
    /// Largest multipart request, all fields together.
    pub max_form_bytes: usize,
    /// Disk one user's uploads may take (PDFs and icons of their bots, their avatar); 0 = no quota.
    pub quota_bytes_per_user: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TrainingSettings {
    /// Sources trained at once; 0 = one per CPU core.
    pub max_concurrent: usize,
    /// Most one PDF may decompress to, in bytes.
    pub max_pdf_decompressed_bytes: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RealtimeSettings {
    pub ping_interval_ms: u64,
    pub ping_timeout_ms: u64,
    pub max_payload: usize,
    pub connect_timeout_ms: u64,
    /// Chat messages waiting for the message writer before new ones are refused as busy.
    pub writer_queue: usize,
    /// Messages waiting in one live session's (or bot's) mailbox before senders must retry.
    pub session_mailbox: usize,
    /// Packets waiting to be written to one connection before it is closed as too slow.
    pub outbound_queue: usize,
    /// Events per second one socket may send (token bucket), and the bucket's size.
    pub socket_events_per_sec: f64,
    pub socket_burst: f64,
    /// Events of one socket being handled at once; more are refused.
    pub socket_in_flight: usize,
    /// Refusals in a row after which a socket that keeps flooding is disconnected.
    pub socket_max_refusals: u32,
    /// Longest text (characters) of any string in a socket event's payload.
    pub max_text_chars: usize,
    /// Open Engine.IO connections the server accepts; 0 = no limit.
    pub max_connections: usize,
    /// New Engine.IO connections per second from one IP (token bucket), and the burst; 0 = no limit.
    pub handshakes_per_ip_per_sec: f64,
    pub handshake_burst: f64,
    /// Messages per minute one visitor conversation may send when the bot limits its rate.
    pub visitor_messages_per_minute: usize,
    /// New conversations per hour from one IP (token bucket) and the bucket's size; 0 = no limit.
    pub new_conversations_per_ip_per_hour: f64,
    pub new_conversation_ip_burst: f64,
    /// New conversations per hour on one bot (token bucket) and the bucket's size; 0 = no limit.
    pub new_conversations_per_bot_per_hour: f64,
    pub new_conversation_bot_burst: f64,
    /// Events kept for connection state recovery (socket.io 4.6 semantics), at most.
    pub recovery_max_packets: usize,
    /// Threads of their own for the live session actors; 0 = each runs on the HTTP worker
    /// thread that started it, next to its connections (no thread hop per message).
    pub arbiters: usize,
}

#[derive(Clone, Deserialize)]
pub struct LlmSettings {
    pub answerer: String,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
    pub timeout_secs: u64,
    /// Longest reply one call may generate, in tokens (`max_completion_tokens`).
    pub max_tokens: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EmbeddingSettings {
    pub model_dir: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CrawlerSettings {
    pub allow_private: bool,
    /// Ports the crawler may reach besides 80 and 443, comma-separated ("8080,8443").
    pub allowed_ports: String,
    pub max_pages: usize,
    pub max_depth: usize,
    pub timeout_secs: u64,
    pub max_response_bytes: usize,
}

impl CrawlerSettings {
    /// The ports of `allowed_ports`, or what is wrong with it.
    pub fn extra_ports(&self) -> Result<Vec<u16>, String> {
        self.allowed_ports
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.parse::<u16>().ok().filter(|n| *n > 0).ok_or_else(|| format!("{p:?} is not a port (1-65535)")))
            .collect()
    }
}

/// The shortest JWT secret accepted from the settings (a generated one has 64 characters).
pub const MIN_JWT_SECRET_CHARS: usize = 32;
/// Longest `llm.timeout_secs` accepted.
pub const MAX_LLM_TIMEOUT_SECS: u64 = 600;

/// A secret as it is printed: whether it is set, never what it is.
fn redact(secret: &str) -> &'static str {
    if secret.is_empty() {
        ""
    } else {
        "<redacted>"
    }
}

/// A URL as it is printed: any password in it replaced.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let hidden = if userinfo.contains(':') { format!("{user}:<redacted>") } else { user.to_string() };
            format!("{scheme}://{hidden}@{host}{tail}")
        }
        None => url.to_string(),
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("addr", &self.addr)
            .field("data_dir", &self.data_dir)
            .field("database_url", &redact_url(&self.database_url))
            .field("database_pool_size", &self.database_pool_size)
            .field("database_wait_timeout_ms", &self.database_wait_timeout_ms)
            .field("database_connect_timeout_secs", &self.database_connect_timeout_secs)
            .field("database_recycle_timeout_ms", &self.database_recycle_timeout_ms)
            .field("database_statement_timeout_ms", &self.database_statement_timeout_ms)
            .field("sqlite_synchronous_full", &self.sqlite_synchronous_full)
            .field("sqlite_wal_restart_bytes", &self.sqlite_wal_restart_bytes)
            .field("sqlite_journal_apply_ms", &self.sqlite_journal_apply_ms)
            .field("public_url", &self.public_url)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("workers", &self.workers)
            .field("auth", &self.auth)
            .field("smtp", &self.smtp)
            .field("oauth", &self.oauth)
            .field("billing", &self.billing)
            .field("stripe", &self.stripe)
            .field("web", &self.web)
            .field("uploads", &self.uploads)
            .field("training", &self.training)
            .field("realtime", &self.realtime)
            .field("llm", &self.llm)
            .field("embeddings", &self.embeddings)
            .field("crawler", &self.crawler)
            .field("reports", &self.reports)
            .field("demo_bot", &self.demo_bot)
            .field("demo_operators", &self.demo_operators)
            .finish()
    }
}

impl std::fmt::Debug for AuthSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSettings")
            .field("jwt_secret", &redact(&self.jwt_secret))
            .field("token_ttl_hours", &self.token_ttl_hours)
            .field("max_avatar_bytes", &self.max_avatar_bytes)
            .field("ip_attempts_per_minute", &self.ip_attempts_per_minute)
            .field("ip_burst", &self.ip_burst)
            .field("invitations_per_hour", &self.invitations_per_hour)
            .field("invitation_burst", &self.invitation_burst)
            .field("lockout_after_failures", &self.lockout_after_failures)
            .field("lockout_secs", &self.lockout_secs)
            .field("lockout_max_secs", &self.lockout_max_secs)
            .field("max_concurrent_hashes", &self.max_concurrent_hashes)
            .field("hash_wait_secs", &self.hash_wait_secs)
            .finish()
    }
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("url", &redact_url(&self.url))
            .field("from", &self.from)
            .field("tls", &self.tls)
            .field("timeout_secs", &self.timeout_secs)
            .field("max_attempts", &self.max_attempts)
            .finish()
    }
}

impl std::fmt::Debug for StripeSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeSettings")
            .field("secret_key", &redact(&self.secret_key))
            .field("publishable_key", &self.publishable_key)
            .field("webhook_secret", &redact(&self.webhook_secret))
            .field("api_base", &self.api_base)
            .field("js_url", &self.js_url)
            .field("price_pro_monthly", &self.price_pro_monthly)
            .field("price_pro_yearly", &self.price_pro_yearly)
            .finish()
    }
}

impl std::fmt::Debug for OAuthProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("client_id", &self.client_id)
            .field("client_secret", &redact(&self.client_secret))
            .field("auth_url", &self.auth_url)
            .field("token_url", &self.token_url)
            .field("userinfo_url", &self.userinfo_url)
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl std::fmt::Debug for LlmSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmSettings")
            .field("answerer", &self.answerer)
            .field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &redact(&self.api_key))
            .field("timeout_secs", &self.timeout_secs)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

impl Settings {
    /// Defaults, then the file named by `PARLEY_CONFIG` (if any), then `PARLEY_*` variables.
    pub fn load() -> Result<Self, ConfigError> {
        let env: BTreeMap<String, String> = std::env::vars().collect();
        Self::load_from(&env)
    }

    /// Same as [`Settings::load`] with an explicit environment, for tests.
    pub fn load_from(env: &BTreeMap<String, String>) -> Result<Self, ConfigError> {
        let mut tree: toml::Table = toml::from_str(DEFAULTS)?;
        if let Some(path) = env.get("PARLEY_CONFIG").filter(|p| !p.is_empty()) {
            let text = std::fs::read_to_string(path)
                .map_err(|source| ConfigError::File { path: path.into(), source })?;
            let file: toml::Table = toml::from_str(&text)?;
            merge(&mut tree, file);
        }
        apply_env(&mut tree, ENV_PREFIX, env)?;
        let settings: Settings = toml::Value::Table(tree).try_into()?;
        settings.validate()?;
        Ok(settings)
    }

    /// Defaults only (what tests start from before pointing at their own data dir).
    pub fn defaults() -> Result<Self, ConfigError> {
        Self::load_from(&BTreeMap::new())
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.addr.parse::<SocketAddr>().map_err(|e| ConfigError::Invalid {
            key: "addr",
            message: format!("{:?} is not host:port ({e})", self.addr),
        })?;
        if !self.database_url.is_empty() && !self.uses_postgres() {
            return Err(ConfigError::Invalid {
                key: "database_url",
                message: "only postgres:// URLs are supported; leave it empty for SQLite".into(),
            });
        }
        if self.smtp.is_configured() && !(self.smtp.url.starts_with("smtp://") || self.smtp.url.starts_with("smtps://")) {
            return Err(ConfigError::Invalid { key: "smtp.url", message: "must start with smtp:// (or be empty for mail as files)".into() });
        }
        if self.smtp.max_attempts == 0 {
            return Err(ConfigError::Invalid { key: "smtp.max_attempts", message: "must be at least 1".into() });
        }
        if !self.auth.jwt_secret.is_empty() && self.auth.jwt_secret.chars().count() < MIN_JWT_SECRET_CHARS {
            return Err(ConfigError::Invalid {
                key: "auth.jwt_secret",
                message: format!(
                    "must be at least {MIN_JWT_SECRET_CHARS} characters (or empty, to have one generated and kept in the data directory)"
                ),
            });
        }
        if self.llm.timeout_secs == 0 || self.llm.timeout_secs > MAX_LLM_TIMEOUT_SECS {
            return Err(ConfigError::Invalid { key: "llm.timeout_secs", message: format!("must be between 1 and {MAX_LLM_TIMEOUT_SECS}") });
        }
        for (key, value, most) in [
            ("auth.lockout_secs", self.auth.lockout_secs, 86_400),
            ("auth.lockout_max_secs", self.auth.lockout_max_secs, 86_400),
            ("auth.hash_wait_secs", self.auth.hash_wait_secs, 600),
        ] {
            if value > most {
                return Err(ConfigError::Invalid { key, message: format!("must be at most {most}") });
            }
        }
        for (key, value) in [
            ("auth.ip_attempts_per_minute", self.auth.ip_attempts_per_minute),
            ("auth.ip_burst", self.auth.ip_burst),
            ("auth.invitations_per_hour", self.auth.invitations_per_hour),
            ("auth.invitation_burst", self.auth.invitation_burst),
            ("realtime.new_conversations_per_ip_per_hour", self.realtime.new_conversations_per_ip_per_hour),
            ("realtime.new_conversation_ip_burst", self.realtime.new_conversation_ip_burst),
            ("realtime.new_conversations_per_bot_per_hour", self.realtime.new_conversations_per_bot_per_hour),
            ("realtime.new_conversation_bot_burst", self.realtime.new_conversation_bot_burst),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(ConfigError::Invalid { key, message: "must be a number of at least 0".into() });
            }
        }
        self.crawler.extra_ports().map_err(|message| ConfigError::Invalid { key: "crawler.allowed_ports", message })?;
        self.trusted_proxy_nets().map_err(|message| ConfigError::Invalid { key: "trusted_proxies", message })?;
        if self.uploads.max_form_bytes == 0 {
            return Err(ConfigError::Invalid { key: "uploads.max_form_bytes", message: "must be at least 1".into() });
        }
        if self.llm.max_tokens == 0 {
            return Err(ConfigError::Invalid { key: "llm.max_tokens", message: "must be at least 1".into() });
        }
        if !self.reports.weekly_day.trim().is_empty() && self.reports.weekly_day_from_monday().is_none() {
            return Err(ConfigError::Invalid {
                key: "reports.weekly_day",
                message: format!("{:?} is not a day of the week (monday .. sunday, or empty for no weekly reports)", self.reports.weekly_day),
            });
        }
        if self.reports.weekly_hour > 23 {
            return Err(ConfigError::Invalid { key: "reports.weekly_hour", message: "must be an hour from 0 to 23 (UTC)".into() });
        }
        if self.database_pool_size == 0 {
            return Err(ConfigError::Invalid { key: "database_pool_size", message: "must be at least 1".into() });
        }
        for (key, value, most) in [
            ("database_wait_timeout_ms", self.database_wait_timeout_ms, 600_000),
            ("database_connect_timeout_secs", self.database_connect_timeout_secs, 600),
            ("database_recycle_timeout_ms", self.database_recycle_timeout_ms, 600_000),
            ("database_statement_timeout_ms", self.database_statement_timeout_ms, 86_400_000),
        ] {
            if value == 0 || value > most {
                return Err(ConfigError::Invalid { key, message: format!("must be between 1 and {most}") });
            }
        }
        Ok(())
    }

    pub fn uses_postgres(&self) -> bool {
        self.database_url.starts_with("postgres://") || self.database_url.starts_with("postgresql://")
    }

    /// The SQLite file used when no PostgreSQL URL is configured.
    pub fn sqlite_path(&self) -> PathBuf {
        self.data_dir.join("parley.db")
    }

    pub fn uploads_dir(&self) -> PathBuf {
        self.data_dir.join("uploads")
    }

    /// Base URL the outside world reaches this server at.
    pub fn public_base_url(&self) -> String {
        if self.public_url.is_empty() {
            format!("http://{}", self.addr)
        } else {
            self.public_url.trim_end_matches('/').to_string()
        }
    }

    /// The reverse proxies of `trusted_proxies`: each an address (a one-address range) or a
    /// CIDR range; or what is wrong with the list.
    pub fn trusted_proxy_nets(&self) -> Result<Vec<ipnet::IpNet>, String> {
        self.trusted_proxies
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.parse::<ipnet::IpNet>()
                    .or_else(|_| p.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| format!("{p:?} is not an IP address or a CIDR range (like 10.0.0.0/8)"))
            })
            .collect()
    }

    /// Where mail goes as files when no SMTP server is configured.
    pub fn outbox_dir(&self) -> PathBuf {
        self.data_dir.join("outbox")
    }

    /// Resolve relative web directories against `root` (the directory the binary runs from).
    pub fn resolve_paths(&mut self, root: &Path) {
        for dir in [&mut self.web.dashboard_dir, &mut self.web.widget_dir] {
            if dir.is_relative() {
                *dir = root.join(&*dir);
            }
        }
    }
}

/// Overlay `over` onto `base`, recursing into tables.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

/// Every leaf `a.b.c` of the defaults can be set by `PARLEY_A_B_C`; the value is read with the
/// type the default has, so a typo in a number is an error rather than a silent default.
fn apply_env(
    table: &mut toml::Table,
    prefix: &str,
    env: &BTreeMap<String, String>,
) -> Result<(), ConfigError> {
    for (key, value) in table.iter_mut() {
        let name = format!("{prefix}_{}", key.to_ascii_uppercase());
        if let toml::Value::Table(inner) = value {
            apply_env(inner, &name, env)?;
            continue;
        }
        let Some(raw) = env.get(&name) else { continue };
        let bad = |expected| ConfigError::Env { name: name.clone(), value: raw.clone(), expected };
        *value = match value {
            toml::Value::Integer(_) => toml::Value::Integer(raw.trim().parse().map_err(|_| bad("an integer"))?),
            toml::Value::Float(_) => toml::Value::Float(raw.trim().parse().map_err(|_| bad("a number"))?),
            toml::Value::Boolean(_) => toml::Value::Boolean(match raw.trim() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => return Err(bad("true or false")),
            }),
            _ => toml::Value::String(raw.clone()),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_match_the_documented_file() {
        let s = Settings::defaults().unwrap();
        assert_eq!(s.addr, "127.0.0.1:8080");
        assert_eq!(s.data_dir, PathBuf::from("./data"));
        assert!(s.database_url.is_empty());
        assert!(!s.uses_postgres());
        assert_eq!(s.realtime.ping_interval_ms, 25000);
        assert_eq!(s.realtime.ping_timeout_ms, 20000);
        assert_eq!(s.realtime.max_payload, 1_000_000);
        assert_eq!(s.uploads.max_pdf_bytes, 10 * 1024 * 1024);
        assert!(!s.oauth.google.is_configured());
        assert!(!s.smtp.is_configured());
        assert_eq!(s.smtp.tls, SmtpTls::Starttls);
    }

    #[test]
    fn the_weekly_report_schedule_comes_from_the_environment() {
        let s = Settings::defaults().unwrap();
        assert_eq!((s.reports.weekly_day_from_monday(), s.reports.weekly_hour), (Some(0), 8), "Monday 08:00 UTC by default");
        let s = Settings::load_from(&env(&[("PARLEY_REPORTS_WEEKLY_DAY", "Friday"), ("PARLEY_REPORTS_WEEKLY_HOUR", "17")])).unwrap();
        assert_eq!((s.reports.weekly_day_from_monday(), s.reports.weekly_hour), (Some(4), 17));
        let off = Settings::load_from(&env(&[("PARLEY_REPORTS_WEEKLY_DAY", "")])).unwrap();
        assert_eq!(off.reports.weekly_day_from_monday(), None);
        let err = Settings::load_from(&env(&[("PARLEY_REPORTS_WEEKLY_DAY", "someday")])).unwrap_err();
        assert!(err.to_string().contains("reports.weekly_day"), "{err}");
        let err = Settings::load_from(&env(&[("PARLEY_REPORTS_WEEKLY_HOUR", "24")])).unwrap_err();
        assert!(err.to_string().contains("reports.weekly_hour"), "{err}");
    }

    #[test]
    fn trusted_proxies_are_addresses_or_ranges() {
        let nets = Settings::defaults().unwrap().trusted_proxy_nets().unwrap();
        let loopback: std::net::IpAddr = [127, 0, 0, 1].into();
        assert!(nets.iter().any(|n| n.contains(&loopback)), "loopback is trusted by default: {nets:?}");
        assert!(nets.iter().any(|n| n.contains(&std::net::IpAddr::from(std::net::Ipv6Addr::LOCALHOST))));
        let s = Settings::load_from(&env(&[("PARLEY_TRUSTED_PROXIES", " 10.1.2.3/8 , 192.168.0.7,, fd00::/8")])).unwrap();
        let nets: Vec<String> = s.trusted_proxy_nets().unwrap().iter().map(ToString::to_string).collect();
        assert_eq!(nets, ["10.0.0.0/8", "192.168.0.7/32", "fd00::/8"]);
        let none = Settings::load_from(&env(&[("PARLEY_TRUSTED_PROXIES", "")])).unwrap();
        assert!(none.trusted_proxy_nets().unwrap().is_empty());
        let err = Settings::load_from(&env(&[("PARLEY_TRUSTED_PROXIES", "10.0.0.0/8,proxy.local")])).unwrap_err();
        assert!(err.to_string().contains("trusted_proxies") && err.to_string().contains("proxy.local"), "{err}");
    }

    #[test]
    fn smtp_settings_come_from_the_environment() {
        let s = Settings::load_from(&env(&[
            ("PARLEY_SMTP_URL", "smtp://127.0.0.1:2525"),
            ("PARLEY_SMTP_TLS", "none"),
            ("PARLEY_SMTP_FROM", "Help <help@shop.example>"),
        ]))
        .unwrap();
        assert!(s.smtp.is_configured());
        assert_eq!(s.smtp.tls, SmtpTls::None);
        assert_eq!(s.smtp.from, "Help <help@shop.example>");
        let err = Settings::load_from(&env(&[("PARLEY_SMTP_TLS", "sometimes")])).unwrap_err();
        assert!(err.to_string().contains("tls") || err.to_string().contains("variant"), "{err}");
        let err = Settings::load_from(&env(&[("PARLEY_SMTP_URL", "http://mail")])).unwrap_err();
        assert!(err.to_string().contains("smtp.url"), "{err}");
    }

    #[test]
    fn environment_overrides_top_level_and_nested_keys() {
        let s = Settings::load_from(&env(&[
            ("PARLEY_ADDR", "0.0.0.0:9000"),
            ("PARLEY_DATABASE_URL", "postgres://u@h/db"),
            ("PARLEY_CRAWLER_ALLOW_PRIVATE", "true"),
            ("PARLEY_REALTIME_PING_INTERVAL_MS", "300"),
            ("PARLEY_OAUTH_GOOGLE_CLIENT_ID", "abc"),
        ]))
        .unwrap();
        assert_eq!(s.addr, "0.0.0.0:9000");
        assert!(s.uses_postgres());
        assert!(s.crawler.allow_private);
        assert_eq!(s.realtime.ping_interval_ms, 300);
        assert_eq!(s.oauth.google.client_id, "abc");
    }

    #[test]
    fn a_badly_typed_variable_is_an_error_naming_it() {
        let err = Settings::load_from(&env(&[("PARLEY_REALTIME_MAX_PAYLOAD", "lots")])).unwrap_err();
        assert!(err.to_string().contains("PARLEY_REALTIME_MAX_PAYLOAD"), "{err}");
        let err = Settings::load_from(&env(&[("PARLEY_ADDR", "nowhere")])).unwrap_err();
        assert!(err.to_string().contains("addr"), "{err}");
        let err = Settings::load_from(&env(&[("PARLEY_DATABASE_URL", "mysql://x")])).unwrap_err();
        assert!(err.to_string().contains("postgres"), "{err}");
    }

    /// Hardening finding 13: `{settings:?}` in a log line leaked every secret.
    #[test]
    fn settings_print_without_their_secrets() {
        let s = Settings::load_from(&env(&[
            ("PARLEY_AUTH_JWT_SECRET", "jwt-secret-jwt-secret-jwt-secret-0123"),
            ("PARLEY_LLM_API_KEY", "sk-live-key"),
            ("PARLEY_OAUTH_GOOGLE_CLIENT_SECRET", "google-client-secret"),
            ("PARLEY_OAUTH_GITHUB_CLIENT_SECRET", "github-client-secret"),
            ("PARLEY_DATABASE_URL", "postgres://parley:db-password@db.internal:5432/parley"),
            ("PARLEY_SMTP_URL", "smtp://mailer:smtp-password@mail.internal:587"),
        ]))
        .unwrap();
        let printed = format!("{s:?} {:#?}", s);
        for secret in ["jwt-secret-jwt", "sk-live-key", "google-client-secret", "github-client-secret", "db-password", "smtp-password"] {
            assert!(!printed.contains(secret), "{secret} printed");
        }
        assert!(printed.contains("postgres://parley:<redacted>@db.internal:5432/parley"), "{printed}");
        assert!(printed.contains("mail.internal"));
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url(""), "");
    }

    #[test]
    fn a_short_jwt_secret_and_an_absurd_llm_timeout_are_refused() {
        let err = Settings::load_from(&env(&[("PARLEY_AUTH_JWT_SECRET", "secret")])).unwrap_err();
        assert!(err.to_string().contains("auth.jwt_secret") && err.to_string().contains("32"), "{err}");
        assert!(Settings::load_from(&env(&[("PARLEY_AUTH_JWT_SECRET", &"x".repeat(32))])).is_ok());
        for bad in ["0", "9223372036854775807", "601"] {
            let err = Settings::load_from(&env(&[("PARLEY_LLM_TIMEOUT_SECS", bad)])).unwrap_err();
            assert!(err.to_string().contains("llm.timeout_secs"), "{bad}: {err}");
        }
        let err = Settings::load_from(&env(&[("PARLEY_LLM_MAX_TOKENS", "0")])).unwrap_err();
        assert!(err.to_string().contains("llm.max_tokens"), "{err}");
        let err = Settings::load_from(&env(&[("PARLEY_DATABASE_WAIT_TIMEOUT_MS", "0")])).unwrap_err();
        assert!(err.to_string().contains("database_wait_timeout_ms"), "{err}");
    }

    #[test]
    fn a_config_file_overrides_defaults_and_env_overrides_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(&path, "addr = \"127.0.0.1:1\"\n[llm]\nmodel = \"m\"\n").unwrap();
        let p = path.to_string_lossy().to_string();
        let s = Settings::load_from(&env(&[("PARLEY_CONFIG", &p), ("PARLEY_ADDR", "127.0.0.1:2")])).unwrap();
        assert_eq!(s.addr, "127.0.0.1:2");
        assert_eq!(s.llm.model, "m");
        assert_eq!(s.llm.answerer, "extractive");
    }
}
