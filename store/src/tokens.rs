//! Single-use links sent by email: verify an address, confirm a new address, reset a password.
//! The store keeps only a hash of each link's secret (the caller hashes and compares); redeeming
//! marks the link used and applies its effect in one transaction, so a link works once.

use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::{EmailToken, User};
use crate::schema::{email_tokens, users};
use crate::users::normalize_email;
use crate::{new_id, time, Store, StoreError, StoreResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    VerifyEmail,
    ChangeEmail,
    ResetPassword,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => "verify_email",
            Purpose::ChangeEmail => "change_email",
            Purpose::ResetPassword => "reset_password",
        }
    }

    pub fn parse(s: &str) -> Option<Purpose> {
        match s {
            "verify_email" => Some(Purpose::VerifyEmail),
            "change_email" => Some(Purpose::ChangeEmail),
            "reset_password" => Some(Purpose::ResetPassword),
            _ => None,
        }
    }
}

/// What following a link does, given by the caller (a reset brings its new password hash).
#[derive(Debug, Clone)]
pub enum Redeem {
    /// `verify_email` or `change_email`: the address the link went to becomes the user's,
    /// verified.
    ConfirmEmail,
    ResetPassword { password_hash: String },
}

impl Store {
    /// A new link for `user_id`; earlier unused links of the same purpose stop working (only
    /// the newest mail counts).
    pub async fn create_email_token(
        &self,
        user_id: &str,
        purpose: Purpose,
        email: &str,
        token_hash: &str,
        ttl: Duration,
    ) -> StoreResult<EmailToken> {
        let now = time::now();
        let row = EmailToken {
            id: new_id(),
            user_id: user_id.to_string(),
            purpose: purpose.as_str().to_string(),
            email: normalize_email(email),
            token_hash: token_hash.to_string(),
            expires_at: now + ttl,
            used_at: None,
            created_at: now,
        };
        let insert = row.clone();
        db_tx!(self, owned(user_id), |conn| async move {
            diesel::update(
                email_tokens::table
                    .filter(email_tokens::user_id.eq(user_id))
                    .filter(email_tokens::purpose.eq(purpose.as_str()))
                    .filter(email_tokens::used_at.is_null()),
            )
            .set(email_tokens::used_at.eq(now))
            .execute(conn)
            .await?;
            diesel::insert_into(email_tokens::table).values(&insert).execute(conn).await?;
            Ok(())
        })?;
        Ok(row)
    }

    pub async fn email_token(&self, id: &str) -> StoreResult<Option<EmailToken>> {
        db_run!(self, |conn| email_tokens::table.find(id).first::<EmailToken>(conn).await.optional())
            .map_err(Into::into)
    }

    /// The newest link of this purpose sent to the user, used or not.
    pub async fn latest_email_token(&self, user_id: &str, purpose: Purpose) -> StoreResult<Option<EmailToken>> {
        db_run!(self, |conn| email_tokens::table
            .filter(email_tokens::user_id.eq(user_id))
            .filter(email_tokens::purpose.eq(purpose.as_str()))
            .order(email_tokens::created_at.desc())
            .first::<EmailToken>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    /// Uses the link `id` (unused and unexpired at `now`) and applies its effect; returns the
    /// user as it now is. `NotFound` when the link is unknown, used, expired, of another kind
    /// than `effect`, or no longer matches the account (a verification sent to an address the
    /// user has since changed, a reset for an address that is no longer theirs). `Conflict`
    /// when a new address was taken by another account meanwhile.
    pub async fn redeem_email_token(&self, id: &str, effect: Redeem, now: NaiveDateTime) -> StoreResult<User> {
        db_tx!(self, owned(id), |conn| async move {
            let token: EmailToken = email_tokens::table
                .find(id)
                .filter(email_tokens::used_at.is_null())
                .filter(email_tokens::expires_at.gt(now))
                .first(conn)
                .await
                .optional()?
                .ok_or(StoreError::NotFound)?;
            let purpose = Purpose::parse(&token.purpose).ok_or(StoreError::NotFound)?;
            let user: User = users::table.find(&token.user_id).first(conn).await?;
            let used = diesel::update(email_tokens::table.find(id).filter(email_tokens::used_at.is_null()))
                .set(email_tokens::used_at.eq(now))
                .execute(conn)
                .await?;
            if used != 1 {
                return Err(StoreError::NotFound);
            }
            match (purpose, effect) {
                (Purpose::VerifyEmail, Redeem::ConfirmEmail) => {
                    if user.email != token.email {
                        return Err(StoreError::NotFound);
                    }
                    diesel::update(users::table.find(&user.id))
                        .set(users::email_verified.eq(true))
                        .execute(conn)
                        .await?;
                    // The address is now proven to be this account's: a move to another address
                    // asked for before (by whoever held the password then) needs asking again.
                    diesel::update(
                        email_tokens::table
                            .filter(email_tokens::user_id.eq(&user.id))
                            .filter(email_tokens::purpose.eq(Purpose::ChangeEmail.as_str()))
                            .filter(email_tokens::used_at.is_null()),
                    )
                    .set(email_tokens::used_at.eq(now))
                    .execute(conn)
                    .await?;
                }
                (Purpose::ChangeEmail, Redeem::ConfirmEmail) => {
                    diesel::update(users::table.find(&user.id))
                        .set((users::email.eq(&token.email), users::email_verified.eq(true), users::updated_at.eq(now)))
                        .execute(conn)
                        .await?;
                    // Links sent to the old address mean nothing now.
                    diesel::update(
                        email_tokens::table
                            .filter(email_tokens::user_id.eq(&user.id))
                            .filter(email_tokens::used_at.is_null()),
                    )
                    .set(email_tokens::used_at.eq(now))
                    .execute(conn)
                    .await?;
                }
                (Purpose::ResetPassword, Redeem::ResetPassword { password_hash }) => {
                    if user.email != token.email {
                        return Err(StoreError::NotFound);
                    }
                    // Following the link proves the mailbox is theirs, so the address is verified.
                    diesel::update(users::table.find(&user.id))
                        .set((
                            users::password_hash.eq(&password_hash),
                            users::token_version.eq(users::token_version + 1),
                            users::email_verified.eq(true),
                            users::updated_at.eq(now),
                        ))
                        .execute(conn)
                        .await?;
                    // Every other link ends with the old password: another reset, and an email
                    // change someone holding the account before may have started (its link
                    // would otherwise move the recovered account to their address).
                    diesel::update(
                        email_tokens::table
                            .filter(email_tokens::user_id.eq(&user.id))
                            .filter(email_tokens::used_at.is_null()),
                    )
                    .set(email_tokens::used_at.eq(now))
                    .execute(conn)
                    .await?;
                }
                _ => return Err(StoreError::NotFound),
            }
            let user: User = users::table.find(&token.user_id).first(conn).await?;
            Ok(user)
        })
    }
}
