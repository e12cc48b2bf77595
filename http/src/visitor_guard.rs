//! The one check a visitor's message passes before the engine sees it, on the chat call and on
//! the live channel alike: the bot's website whitelist (when the call says where it comes
//! from) and the per-conversation rate limit (`enableRateLimit`), keyed by the session the
//! visitor token proved. Also where a call's origin is read, for every route that checks one.

use actix_web::http::{header, StatusCode};
use actix_web::HttpRequest;
use parley_engine::chat::{BotInfo, EngineError};
use parley_store::bots::BotSettings;

use crate::error::ApiError;
use crate::limits::RATE_LIMITED;
use crate::state::AppState;

pub const NOT_ON_THIS_SITE: &str = "This assistant is not available on this website";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The page's origin is not on the bot's whitelist.
    Origin,
    /// The conversation sends faster than a person types.
    RateLimited,
}

impl Refusal {
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Origin => NOT_ON_THIS_SITE,
            Refusal::RateLimited => RATE_LIMITED,
        }
    }
}

/// REST: a foreign site is 403, a fast conversation 429.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        match refusal {
            Refusal::Origin => ApiError::forbidden(refusal.message()),
            Refusal::RateLimited => ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", refusal.message()),
        }
    }
}

/// The live channel: an error ack with the same words.
impl From<Refusal> for EngineError {
    fn from(refusal: Refusal) -> EngineError {
        EngineError::Refused(refusal.message().into())
    }
}

/// Where a call comes from: its `Origin` header and Parley's own origin.
pub struct CallOrigin {
    pub origin: String,
    pub own: String,
}

impl CallOrigin {
    /// The origin of a request that names one (browsers do on cross-site calls).
    pub fn of(req: &HttpRequest) -> Option<CallOrigin> {
        let origin = req.headers().get(header::ORIGIN).and_then(|v| v.to_str().ok())?;
        let own = req.connection_info();
        Some(CallOrigin { origin: origin.to_string(), own: format!("{}://{}", own.scheme(), own.host()) })
    }

    /// Whether a bot with these settings may be used from this origin.
    pub fn allowed(&self, settings: &BotSettings) -> bool {
        crate::embedding::origin_allowed(settings, &self.origin, &self.own)
    }
}

/// Checks a visitor's message. `verified_session` must come from a checked visitor token;
/// a new conversation (none yet) is bounded by the plan's conversation limit instead.
pub fn check(state: &AppState, bot: &BotInfo, from: Option<&CallOrigin>, verified_session: Option<&str>) -> Result<(), Refusal> {
    if from.is_some_and(|from| !from.allowed(&bot.settings)) {
        return Err(Refusal::Origin);
    }
    if let (true, Some(session)) = (bot.enable_rate_limit, verified_session) {
        if !state.visitor_limiter.allow(session) {
            return Err(Refusal::RateLimited);
        }
    }
    Ok(())
}
