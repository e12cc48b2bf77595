//! Team members of a bot. A member row is an invitation while its status is `pending`; it
//! becomes `active` when the invited person accepts.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::{Bot, TeamMember, User};
use crate::schema::{bots, team_members, users};
use crate::users::normalize_email;
use crate::{new_id, time, Role, Store, StoreError, StoreResult};

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
}

impl Store {
    /// Invites `email` to the bot with `role`. Inviting someone already on the team is a
    /// `Conflict`; the row carries a random token for the acceptance link.
    pub async fn invite_member(&self, bot_id: &str, email: &str, role: Role, invited_by: &str) -> StoreResult<TeamMember> {
        let email = normalize_email(email);
        let existing_user = self.user_by_email(&email).await?;
        let row = TeamMember {
            id: new_id(),
            bot_id: bot_id.to_string(),
            user_id: existing_user.map(|u| u.id),
            email,
            role: role.as_str().to_string(),
            status: "pending".into(),
            invited_by: Some(invited_by.to_string()),
            invite_token: Some(new_id()),
            invited_at: time::now(),
            joined_at: None,
            last_active: None,
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

    pub async fn pending_invitations(&self, email: &str) -> StoreResult<Vec<Invitation>> {
        let email = normalize_email(email);
        let rows: Vec<(TeamMember, Bot, Option<User>)> = db_run!(self, |conn| team_members::table
            .inner_join(bots::table)
            .left_join(users::table.on(team_members::invited_by.eq(users::id.nullable())))
            .filter(team_members::email.eq(&email))
            .filter(team_members::status.eq("pending"))
            .order(team_members::invited_at.desc())
            .select((TeamMember::as_select(), Bot::as_select(), Option::<User>::as_select()))
            .load(conn)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|(m, b, inviter)| Invitation {
                member_id: m.id,
                bot_id: b.id,
                bot_name: b.name,
                bot_icon: b.icon,
                role: m.role,
                invited_by_name: inviter.as_ref().map(|u| u.name.clone()),
                invited_by_email: inviter.map(|u| u.email),
                invited_at: m.invited_at,
            })
            .collect())
    }

    /// Accepts or declines a pending invitation addressed to this user's email. A declined
    /// invitation is removed. `NotFound` when there is no such pending invitation for them.
    pub async fn respond_invitation(&self, member_id: &str, user: &User, accept: bool) -> StoreResult<()> {
        let email = normalize_email(&user.email);
        let user_id = user.id.clone();
        let now = time::now();
        let target = team_members::table
            .filter(team_members::id.eq(member_id))
            .filter(team_members::email.eq(email))
            .filter(team_members::status.eq("pending"));
        let n = if accept {
            db_run!(self, |conn| diesel::update(target.clone())
                .set((
                    team_members::status.eq("active"),
                    team_members::user_id.eq(&user_id),
                    team_members::joined_at.eq(now),
                    team_members::invite_token.eq(None::<String>),
                ))
                .execute(conn)
                .await)?
        } else {
            db_run!(self, |conn| diesel::delete(target.clone()).execute(conn).await)?
        };
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }
}
