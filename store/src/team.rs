//! Team members of a bot. A member row is an invitation while its status is `pending`; it
//! becomes `active` when the invited person accepts. An invitation carries the hash of its
//! link's token (the caller makes and checks tokens) and expires after `INVITATION_TTL_DAYS`.
//! The owner is not a row here: it is whoever owns the bot.

use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::{Bot, TeamMember, User};
use crate::schema::{bots, team_members, users};
use crate::users::normalize_email;
use crate::{new_id, time, Role, Store, StoreError, StoreResult};

/// How long an invitation's link works (spec: 7 days); a resend starts it again.
pub const INVITATION_TTL_DAYS: i64 = 7;

/// A pending invitation as the invited person sees it.
#[derive(Debug, Clone)]
pub struct Invitation {
    pub member_id: String,
    pub bot_id: String,
    pub bot_name: String,
    pub bot_icon: Option<String>,
    pub role: String,
    pub invited_by_name: Option<String>,
    pub invited_by_email: Option<String>,
    pub invited_at: NaiveDateTime,
    pub expires_at: Option<NaiveDateTime>,
}

/// One invitation with its bot and who sent it (the acceptance link's confirmation step).
#[derive(Debug, Clone)]
pub struct InvitationDetails {
    pub member: TeamMember,
    pub bot: Bot,
    pub inviter: Option<User>,
}

impl InvitationDetails {
    pub fn invitation(&self) -> Invitation {
        Invitation {
            member_id: self.member.id.clone(),
            bot_id: self.bot.id.clone(),
            bot_name: self.bot.name.clone(),
            bot_icon: self.bot.icon.clone(),
            role: self.member.role.clone(),
            invited_by_name: self.inviter.as_ref().map(|u| u.name.clone()),
            invited_by_email: self.inviter.as_ref().map(|u| u.email.clone()),
            invited_at: self.member.invited_at,
            expires_at: self.member.invite_expires_at,
        }
    }
}

/// A member row with the account behind it (none for an invitation not yet accepted).
#[derive(Debug, Clone)]
pub struct RosterEntry {
    pub member: TeamMember,
    pub user: Option<User>,
}

pub fn invitation_expired(member: &TeamMember, now: NaiveDateTime) -> bool {
    member.status == "pending" && member.invite_expires_at.is_some_and(|at| at <= now)
}

fn invitation_ttl() -> Duration {
    Duration::days(INVITATION_TTL_DAYS)
}


/// Deletes the pending invitations `inviter` sent for the bot. Inside a transaction body; a
/// macro because the body is expanded once per backend.
macro_rules! withdraw_invitations {
    ($conn:ident, $bot_id:expr, $inviter:expr) => {{
        let inviter: &str = $inviter;
        diesel::delete(
            team_members::table
                .filter(team_members::bot_id.eq($bot_id))
                .filter(team_members::invited_by.eq(inviter))
                .filter(team_members::status.eq("pending")),
        )
        .execute($conn)
        .await?;
    }};
}

impl Store {
    /// Invites `email` to the bot with `role`, with no link token (the person accepts from
    /// their invitation list once their address is verified). See `create_invitation`.
    pub async fn invite_member(&self, bot_id: &str, email: &str, role: Role, invited_by: &str) -> StoreResult<TeamMember> {
        self.create_invitation(bot_id, email, role, invited_by, None).await
    }

    /// Invites `email` to the bot with `role`; `token_hash` is the hash of the link's token.
    /// Inviting someone already on the team or invited is a `Conflict`.
    pub async fn create_invitation(
        &self,
        bot_id: &str,
        email: &str,
        role: Role,
        invited_by: &str,
        token_hash: Option<&str>,
    ) -> StoreResult<TeamMember> {
        let now = time::now();
        let row = TeamMember {
            id: new_id(),
            bot_id: bot_id.to_string(),
            user_id: None,
            email: normalize_email(email),
            role: role.as_str().to_string(),
            status: "pending".into(),
            invited_by: Some(invited_by.to_string()),
            invite_token: token_hash.map(str::to_string),
            invited_at: now,
            joined_at: None,
            last_active: None,
            invite_expires_at: Some(now + invitation_ttl()),
        };
        db_run!(self, |conn| diesel::insert_into(team_members::table).values(&row).execute(conn).await)?;
        Ok(row)
    }

    /// Every member row of the bot (active, pending, inactive), oldest first.
    pub async fn team_members(&self, bot_id: &str) -> StoreResult<Vec<TeamMember>> {
        db_run!(self, |conn| team_members::table
            .filter(team_members::bot_id.eq(bot_id))
            .order(team_members::invited_at)
            .load::<TeamMember>(conn)
            .await)
        .map_err(Into::into)
    }

    /// Every member row of the bot with its account, oldest first.
    pub async fn team_roster(&self, bot_id: &str) -> StoreResult<Vec<RosterEntry>> {
        let rows: Vec<(TeamMember, Option<User>)> = db_run!(self, |conn| team_members::table
            .left_join(users::table.on(team_members::user_id.eq(users::id.nullable())))
            .filter(team_members::bot_id.eq(bot_id))
            .order(team_members::invited_at)
            .select((TeamMember::as_select(), Option::<User>::as_select()))
            .load(conn)
            .await)?;
        Ok(rows.into_iter().map(|(member, user)| RosterEntry { member, user }).collect())
    }

    /// One member row of the bot.
    pub async fn team_member(&self, bot_id: &str, member_id: &str) -> StoreResult<Option<TeamMember>> {
        db_run!(self, |conn| team_members::table
            .find(member_id)
            .filter(team_members::bot_id.eq(bot_id))
            .first::<TeamMember>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    /// An invitation (any status) with its bot and inviter.
    pub async fn invitation_details(&self, bot_id: &str, member_id: &str) -> StoreResult<Option<InvitationDetails>> {
        let row: Option<(TeamMember, Bot, Option<User>)> = db_run!(self, |conn| team_members::table
            .inner_join(bots::table)
            .left_join(users::table.on(team_members::invited_by.eq(users::id.nullable())))
            .filter(team_members::id.eq(member_id))
            .filter(team_members::bot_id.eq(bot_id))
            .select((TeamMember::as_select(), Bot::as_select(), Option::<User>::as_select()))
            .first(conn)
            .await
            .optional())?;
        Ok(row.map(|(member, bot, inviter)| InvitationDetails { member, bot, inviter }))
    }

    /// Pending, unexpired invitations addressed to `email`, newest first. The caller makes
    /// sure the address is the signed-in user's *verified* one.
    pub async fn pending_invitations(&self, email: &str) -> StoreResult<Vec<Invitation>> {
        let email = normalize_email(email);
        let now = time::now();
        let rows: Vec<(TeamMember, Bot, Option<User>)> = db_run!(self, |conn| team_members::table
            .inner_join(bots::table)
            .left_join(users::table.on(team_members::invited_by.eq(users::id.nullable())))
            .filter(team_members::email.eq(&email))
            .filter(team_members::status.eq("pending"))
            .filter(team_members::invite_expires_at.is_null().or(team_members::invite_expires_at.gt(now)))
            .order(team_members::invited_at.desc())
            .select((TeamMember::as_select(), Bot::as_select(), Option::<User>::as_select()))
            .load(conn)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|(member, bot, inviter)| InvitationDetails { member, bot, inviter }.invitation())
            .collect())
    }

    /// Accepts or declines a pending, unexpired invitation addressed to this user's email. A
    /// declined invitation is removed. `NotFound` when there is no such invitation for them.
    /// The caller makes sure the user's address is verified.
    pub async fn respond_invitation(&self, member_id: &str, user: &User, accept: bool) -> StoreResult<()> {
        let email = normalize_email(&user.email);
        let found = db_run!(self, |conn| team_members::table
            .find(member_id)
            .filter(team_members::email.eq(&email))
            .filter(team_members::status.eq("pending"))
            .first::<TeamMember>(conn)
            .await
            .optional())?;
        let member = found.ok_or(StoreError::NotFound)?;
        if invitation_expired(&member, time::now()) {
            return Err(StoreError::NotFound);
        }
        if accept {
            self.accept_invitation(&member.bot_id, member_id, &user.id).await.map(|_| ())
        } else {
            self.decline_invitation(&member.bot_id, member_id).await
        }
    }

    /// Makes `user_id` the member of a pending, unexpired invitation. `NotFound` when there is
    /// no such invitation; `Conflict` when the user already owns the bot or is on its team.
    pub async fn accept_invitation(&self, bot_id: &str, member_id: &str, user_id: &str) -> StoreResult<TeamMember> {
        let now = time::now();
        db_tx!(self, owned(bot_id, member_id, user_id), |conn| async move {
            let member: TeamMember = team_members::table
                .find(member_id)
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::status.eq("pending"))
                .first(conn)
                .await
                .optional()?
                .ok_or(StoreError::NotFound)?;
            if invitation_expired(&member, now) {
                return Err(StoreError::NotFound);
            }
            let owner: String = bots::table.find(bot_id).select(bots::owner_id).first(conn).await?;
            let already: i64 = team_members::table
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::user_id.eq(user_id))
                .filter(team_members::status.eq("active"))
                .count()
                .get_result(conn)
                .await?;
            if owner == *user_id || already > 0 {
                return Err(StoreError::Conflict("already on the team".into()));
            }
            // Still pending when written: of two accepts of one invitation at once (PostgreSQL
            // reads above without a lock), the second changes nothing.
            let n = diesel::update(team_members::table.find(member_id).filter(team_members::status.eq("pending")))
                .set((
                    team_members::status.eq("active"),
                    team_members::user_id.eq(user_id),
                    team_members::joined_at.eq(now),
                    team_members::invite_token.eq(None::<String>),
                    team_members::invite_expires_at.eq(None::<NaiveDateTime>),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            let member: TeamMember = team_members::table.find(member_id).first(conn).await?;
            Ok(member)
        })
    }

    /// Removes a pending invitation (declined by the invitee). `NotFound` if none.
    pub async fn decline_invitation(&self, bot_id: &str, member_id: &str) -> StoreResult<()> {
        let n = db_run!(self, |conn| diesel::delete(
            team_members::table
                .find(member_id)
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::status.eq("pending"))
        )
        .execute(conn)
        .await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// A new token and a new 7 days for a pending invitation (resend). `NotFound` if none.
    pub async fn renew_invitation(&self, bot_id: &str, member_id: &str, token_hash: &str) -> StoreResult<TeamMember> {
        let now = time::now();
        let n = db_run!(self, |conn| diesel::update(
            team_members::table
                .find(member_id)
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::status.eq("pending"))
        )
        .set((
            team_members::invite_token.eq(token_hash),
            team_members::invited_at.eq(now),
            team_members::invite_expires_at.eq(now + invitation_ttl()),
        ))
        .execute(conn)
        .await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.team_member(bot_id, member_id).await?.ok_or(StoreError::NotFound)
    }

    /// Changes a member's (or a pending invitation's) role. `NotFound` if no such row. A member
    /// who may no longer manage the team loses the invitations they sent that nobody accepted
    /// yet (a demoted admin must not get back in through one).
    pub async fn set_member_role(&self, bot_id: &str, member_id: &str, role: Role) -> StoreResult<TeamMember> {
        let inviter = self.team_member(bot_id, member_id).await?.and_then(|m| m.user_id).filter(|_| !role.can_manage_team());
        let n = db_tx!(self, owned(bot_id, member_id), |conn| async move {
            let n = diesel::update(team_members::table.find(member_id).filter(team_members::bot_id.eq(bot_id)))
                .set(team_members::role.eq(role.as_str()))
                .execute(conn)
                .await?;
            if let Some(inviter) = inviter.filter(|_| n > 0) {
                withdraw_invitations!(conn, bot_id, &inviter);
            }
            Ok::<_, StoreError>(n)
        })?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.team_member(bot_id, member_id).await?.ok_or(StoreError::NotFound)
    }

    /// Removes a member, or revokes an invitation; returns the row as it was. The invitations
    /// a removed member sent that nobody accepted yet go with them.
    pub async fn remove_member(&self, bot_id: &str, member_id: &str) -> StoreResult<TeamMember> {
        let member = self.team_member(bot_id, member_id).await?.ok_or(StoreError::NotFound)?;
        let inviter = member.user_id.clone();
        let n = db_tx!(self, owned(bot_id, member_id), |conn| async move {
            let n = diesel::delete(team_members::table.find(member_id).filter(team_members::bot_id.eq(bot_id))).execute(conn).await?;
            if let Some(inviter) = inviter.filter(|_| n > 0) {
                withdraw_invitations!(conn, bot_id, &inviter);
            }
            Ok::<_, StoreError>(n)
        })?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(member)
    }

    /// Notes that an active member worked on the bot now (the team list's "last active").
    pub async fn touch_member(&self, bot_id: &str, user_id: &str) -> StoreResult<()> {
        let now = time::now();
        db_run!(self, |conn| diesel::update(
            team_members::table
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::user_id.eq(user_id))
                .filter(team_members::status.eq("active"))
        )
        .set(team_members::last_active.eq(now))
        .execute(conn)
        .await)?;
        Ok(())
    }
}
