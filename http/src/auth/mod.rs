//! Who is asking: session tokens (JWT), password hashing, and the extractors handlers name in
//! their signatures (`AuthUser`, `Caller`, `BotAccess<Policy>`), so no handler can forget a
//! check.

pub mod access;
pub mod caller;
pub mod flow_cookie;
pub mod links;
pub mod oauth;
pub mod password;
pub mod secrets;
pub mod throttle;
pub mod tokens;
pub mod totp;

pub use caller::{Caller, CallerError, Visitor};
pub use access::{BotAccess, DeleteLeads, EditBot, EditLeads, HandleSupport, LeadAccess, ManageTeam, OwnBot, Policy, SetLeadStatus, ViewBot};
pub use tokens::{AuthUser, TokenKeys};
