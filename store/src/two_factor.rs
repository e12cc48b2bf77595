//! Two-factor sign-in (TOTP, RFC 6238) as stored: each account's shared secret, whether a code
//! confirmed it, the last time step a code was accepted for, and the hashes of its unused
//! recovery codes. The codes are computed and compared by the caller; the store makes each
//! acceptance atomic, so a code or a recovery code works once even when two sign-ins race.
//!
//! `users.two_factor_enabled` mirrors `two_factor.enabled` (it is what the user's view shows and
//! what sign-in reads first); both change in one transaction.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::TwoFactor;
use crate::schema::{two_factor, users};
use crate::{time, Store, StoreError, StoreResult};

impl Store {
    /// The account's two-factor row, confirmed or still being set up.
    pub async fn two_factor(&self, user_id: &str) -> StoreResult<Option<TwoFactor>> {
        db_run!(self, |conn| two_factor::table.find(user_id).first::<TwoFactor>(conn).await.optional()).map_err(Into::into)
    }

    /// Starts setting up with a new secret, replacing one that was never confirmed. `Conflict`
    /// when two-factor sign-in is already on (turning it off first needs a code).
    pub async fn start_two_factor(&self, user_id: &str, secret: &str) -> StoreResult<()> {
        let row = TwoFactor {
            user_id: user_id.to_string(),
            secret: secret.to_string(),
            enabled: false,
            last_step: 0,
            recovery_hashes: "[]".into(),
            created_at: time::now(),
        };
        db_tx!(self, owned(user_id), |conn| async move {
            let current = two_factor::table.find(user_id).first::<TwoFactor>(conn).await.optional()?;
            if current.is_some_and(|c| c.enabled) {
                return Err(StoreError::Conflict("two-factor sign-in is already on".into()));
            }
            diesel::delete(two_factor::table.find(user_id)).execute(conn).await?;
            diesel::insert_into(two_factor::table).values(&row).execute(conn).await?;
            Ok(())
        })
    }

    /// Confirms the secret being set up: the code for `step` matched it. Sign-in asks for a code
    /// from now on, and `recovery_hashes` are the recovery codes that may stand in for one.
    /// `NotFound` when no setup is under way (or it was confirmed already).
    pub async fn enable_two_factor(&self, user_id: &str, step: i64, recovery_hashes: &[String]) -> StoreResult<()> {
        let hashes = serde_json::to_string(recovery_hashes)?;
        db_tx!(self, owned(user_id), |conn| async move {
            let n = diesel::update(two_factor::table.find(user_id).filter(two_factor::enabled.eq(false)))
                .set((two_factor::enabled.eq(true), two_factor::last_step.eq(step), two_factor::recovery_hashes.eq(hashes)))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound);
            }
            diesel::update(users::table.find(user_id))
                .set((users::two_factor_enabled.eq(true), users::updated_at.eq(time::now())))
                .execute(conn)
                .await?;
            Ok(())
        })
    }

    /// Turns two-factor sign-in off and forgets the secret and the recovery codes.
    pub async fn disable_two_factor(&self, user_id: &str) -> StoreResult<()> {
        db_tx!(self, owned(user_id), |conn| async move {
            diesel::delete(two_factor::table.find(user_id)).execute(conn).await?;
            diesel::update(users::table.find(user_id))
                .set((users::two_factor_enabled.eq(false), users::updated_at.eq(time::now())))
                .execute(conn)
                .await?;
            Ok(())
        })
    }

    /// Accepts a code of time step `step` when no code of that step or a later one was accepted
    /// before: false for a code used again (a replay, or a second sign-in racing the first).
    pub async fn accept_two_factor_step(&self, user_id: &str, step: i64) -> StoreResult<bool> {
        let n = db_run!(self, |conn| diesel::update(
            two_factor::table.find(user_id).filter(two_factor::enabled.eq(true)).filter(two_factor::last_step.lt(step))
        )
        .set(two_factor::last_step.eq(step))
        .execute(conn)
        .await)?;
        Ok(n == 1)
    }

    /// Uses the recovery code whose hash is `hash`: true, and it is gone, when it was one of the
    /// account's unused codes.
    pub async fn use_recovery_code(&self, user_id: &str, hash: &str) -> StoreResult<bool> {
        db_tx!(self, owned(user_id, hash), |conn| async move {
            let Some(row) = two_factor::table.find(user_id).filter(two_factor::enabled.eq(true)).first::<TwoFactor>(conn).await.optional()? else {
                return Ok(false);
            };
            let mut hashes: Vec<String> = serde_json::from_str(&row.recovery_hashes).unwrap_or_default();
            let before = hashes.len();
            hashes.retain(|h| h != hash);
            if hashes.len() == before {
                return Ok(false);
            }
            diesel::update(two_factor::table.find(user_id))
                .set(two_factor::recovery_hashes.eq(serde_json::to_string(&hashes)?))
                .execute(conn)
                .await?;
            Ok(true)
        })
    }

    /// How many recovery codes the account has left.
    pub async fn recovery_codes_left(&self, user_id: &str) -> StoreResult<usize> {
        let row = self.two_factor(user_id).await?;
        Ok(row.filter(|r| r.enabled).map_or(0, |r| serde_json::from_str::<Vec<String>>(&r.recovery_hashes).map_or(0, |h| h.len())))
    }
}
