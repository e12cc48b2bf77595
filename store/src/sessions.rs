//! Member sessions ended before their token expired ('Sign out'). A session token is
//! stateless and lives its full lifetime unless the server remembers that it was signed out:
//! this table does, for exactly that lifetime, and then forgets it.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::User;
use crate::schema::{signed_out_sessions, users};
use crate::{time, Store, StoreResult};

impl Store {
    /// Records that session `id` of `user_id` is signed out; its token would have expired at
    /// `expires_at`. Signing out twice is the same as once. Rows of sessions past their expiry
    /// are dropped on the way (they cannot be presented any more).
    pub async fn sign_out_session(&self, id: &str, user_id: &str, expires_at: NaiveDateTime) -> StoreResult<()> {
        let now = time::now();
        db_tx!(self, owned(id, user_id), |conn| async move {
            diesel::delete(signed_out_sessions::table.filter(signed_out_sessions::expires_at.lt(now))).execute(conn).await?;
            diesel::insert_into(signed_out_sessions::table)
                .values((
                    signed_out_sessions::id.eq(id),
                    signed_out_sessions::user_id.eq(user_id),
                    signed_out_sessions::expires_at.eq(expires_at),
                ))
                .on_conflict(signed_out_sessions::id)
                .do_nothing()
                .execute(conn)
                .await?;
            Ok(())
        })
    }

    /// The user a session token stands for, and whether that session (`session_id`, when the
    /// token names one) was signed out: both read on one connection for every signed-in call.
    pub async fn user_of_session(&self, user_id: &str, session_id: Option<&str>) -> StoreResult<Option<(User, bool)>> {
        let session_id = session_id.filter(|s| !s.is_empty());
        db_run!(self, |conn| {
            let Some(user) = users::table.find(user_id).first::<User>(conn).await.optional()? else {
                return Ok(None);
            };
            let signed_out = match session_id {
                Some(sid) => diesel::select(diesel::dsl::exists(signed_out_sessions::table.find(sid))).get_result::<bool>(conn).await?,
                None => false,
            };
            Ok::<_, diesel::result::Error>(Some((user, signed_out)))
        })
        .map_err(Into::into)
    }

    /// Ends every session of the user ('Sign out everywhere'): raises the token version, which
    /// every earlier token carries. Returns the user as it now is.
    pub async fn sign_out_everywhere(&self, user_id: &str) -> StoreResult<User> {
        let now = time::now();
        db_tx!(self, owned(user_id), |conn| async move {
            let n = diesel::update(users::table.find(user_id))
                .set((users::token_version.eq(users::token_version + 1), users::updated_at.eq(now)))
                .execute(conn)
                .await?;
            if n == 0 {
                return Err(crate::StoreError::NotFound);
            }
            Ok(users::table.find(user_id).first::<User>(conn).await?)
        })
    }
}
