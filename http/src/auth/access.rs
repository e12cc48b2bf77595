//! Access to one bot: the `BotAccess<P>` extractor loads the bot named by the `bot_id` path
//! segment, finds the caller's role on it, and applies policy `P`. A bot the caller has no
//! part in is 404 (its existence does not leak); a role that may not is 403.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use actix_web::{FromRequest, HttpRequest};
use parley_store::models::{Bot, Lead, User};
use parley_store::Role;

use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::state::AppState;

pub trait Policy {
    fn allows(role: Role) -> bool;
    const REFUSAL: &'static str;
}

/// Any member may read.
pub struct ViewBot;
/// Owner, admin, editor: configuration and training.
pub struct EditBot;
/// Owner only: deleting the bot.
pub struct OwnBot;
/// Owner, admin: the team.
pub struct ManageTeam;
/// Owner, admin, agent: live support.
pub struct HandleSupport;

impl Policy for ViewBot {
    fn allows(_: Role) -> bool {
        true
    }
    const REFUSAL: &'static str = "You do not have access to this bot";
}
impl Policy for EditBot {
    fn allows(role: Role) -> bool {
        role.can_edit_bot()
    }
    const REFUSAL: &'static str = "Your role does not allow editing this bot";
}
impl Policy for OwnBot {
    fn allows(role: Role) -> bool {
        role.can_delete_bot()
    }
    const REFUSAL: &'static str = "Only the owner can do this";
}
impl Policy for ManageTeam {
    fn allows(role: Role) -> bool {
        role.can_manage_team()
    }
    const REFUSAL: &'static str = "Your role does not allow managing the team";
}
impl Policy for HandleSupport {
    fn allows(role: Role) -> bool {
        role.can_handle_support()
    }
    const REFUSAL: &'static str = "Your role does not allow handling support sessions";
}

/// Owner, admin, editor: New Lead and the Edit form.
pub struct EditLeads;
/// Owner, admin, editor, agent: a lead's status.
pub struct SetLeadStatus;
/// Owner, admin: deleting a lead.
pub struct DeleteLeads;

impl Policy for EditLeads {
    fn allows(role: Role) -> bool {
        role.can_edit_leads()
    }
    const REFUSAL: &'static str = "Your role does not allow editing leads";
}
impl Policy for SetLeadStatus {
    fn allows(role: Role) -> bool {
        role.can_set_lead_status()
    }
    const REFUSAL: &'static str = "Your role does not allow updating lead status";
}
impl Policy for DeleteLeads {
    fn allows(role: Role) -> bool {
        role.can_delete_leads()
    }
    const REFUSAL: &'static str = "Your role does not allow deleting leads";
}

pub struct BotAccess<P: Policy> {
    pub user: User,
    pub bot: Bot,
    pub role: Role,
    _policy: PhantomData<P>,
}

impl<P: Policy + 'static> FromRequest for BotAccess<P> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let user = AuthUser::from_request(req, payload);
        let state = req.app_data::<actix_web::web::Data<AppState>>().cloned();
        let bot_id = req.match_info().get("bot_id").map(str::to_string);
        Box::pin(async move {
            let AuthUser(user) = user.await?;
            let state = state.ok_or_else(|| ApiError::internal("app state missing"))?;
            let bot_id = bot_id.ok_or_else(|| ApiError::internal("route has no bot_id"))?;
            let (bot, role) = state
                .store
                .bot_for_user(&bot_id, &user.id)
                .await?
                .ok_or_else(|| ApiError::not_found("Bot"))?;
            if !P::allows(role) {
                return Err(ApiError::forbidden(P::REFUSAL));
            }
            Ok(BotAccess { user, bot, role, _policy: PhantomData })
        })
    }
}

/// Access to one lead, through its bot: the `LeadAccess<P>` extractor loads the lead named by
/// the `lead_id` path segment and applies policy `P` to the caller's role on the lead's bot. A
/// lead of a bot the caller has no part in is 404, as the bot would be.
pub struct LeadAccess<P: Policy> {
    pub user: User,
    pub lead: Lead,
    pub role: Role,
    _policy: PhantomData<P>,
}

impl<P: Policy + 'static> FromRequest for LeadAccess<P> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let user = AuthUser::from_request(req, payload);
        let state = req.app_data::<actix_web::web::Data<AppState>>().cloned();
        let lead_id = req.match_info().get("lead_id").map(str::to_string);
        Box::pin(async move {
            let AuthUser(user) = user.await?;
            let state = state.ok_or_else(|| ApiError::internal("app state missing"))?;
            let lead_id = lead_id.ok_or_else(|| ApiError::internal("route has no lead_id"))?;
            let lead = state.store.lead(&lead_id).await?.ok_or_else(|| ApiError::not_found("Lead"))?;
            let (_, role) = state.store.bot_for_user(&lead.bot_id, &user.id).await?.ok_or_else(|| ApiError::not_found("Lead"))?;
            if !P::allows(role) {
                return Err(ApiError::forbidden(P::REFUSAL));
            }
            Ok(LeadAccess { user, lead, role, _policy: PhantomData })
        })
    }
}
