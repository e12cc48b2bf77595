//! The one check a visitor's message passes before the engine sees it, on the chat call and on
//! the live channel alike: the bot's website whitelist (when the call says where it comes
//! from) and the per-conversation rate limit (`enableRateLimit`), keyed by the session the
//! visitor token proved.

use parley_engine::chat::BotInfo;

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

/// Where a call comes from: its `Origin` header and Parley's own origin.
pub struct CallOrigin<'a> {
    pub origin: &'a str,
    pub own: &'a str,
}

/// Checks a visitor's message. `verified_session` must come from a checked visitor token;
/// a new conversation (none yet) is bounded by the plan's conversation limit instead.
pub fn check(state: &AppState, bot: &BotInfo, from: Option<CallOrigin<'_>>, verified_session: Option<&str>) -> Result<(), Refusal> {
    if let Some(from) = from {
        if !crate::embedding::origin_allowed(&bot.settings, from.origin, from.own) {
            return Err(Refusal::Origin);
        }
    }
    if let (true, Some(session)) = (bot.enable_rate_limit, verified_session) {
        if !state.visitor_limiter.allow(session) {
            return Err(Refusal::RateLimited);
        }
    }
    Ok(())
}
