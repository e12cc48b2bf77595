//! The activity log behind "Recent Activity": short sentences of what happened, by whom, where.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::Activity;
use crate::schema::{activity_log, bots};
use crate::{new_id, time, Store, StoreResult};

impl Store {
    pub async fn log_activity(
        &self,
        user_id: Option<&str>,
        bot_id: Option<&str>,
        kind: &str,
        action: &str,
    ) -> StoreResult<()> {
        let row = Activity {
            id: new_id(),
            user_id: user_id.map(str::to_string),
            bot_id: bot_id.map(str::to_string),
            action: action.to_string(),
            kind: kind.to_string(),
            created_at: time::now(),
        };
        db_run!(self, |conn| diesel::insert_into(activity_log::table).values(&row).execute(conn).await)?;
        Ok(())
    }

    /// The newest entries a user may see: their own, and those on bots they own or belong to.
    pub async fn recent_activity(&self, user_id: &str, limit: i64) -> StoreResult<Vec<(Activity, Option<String>)>> {
        let bot_ids = self.visible_bot_ids(user_id).await?;
        db_run!(self, |conn| activity_log::table
            .left_join(bots::table.on(activity_log::bot_id.eq(bots::id.nullable())))
            .filter(activity_log::user_id.eq(user_id).or(activity_log::bot_id.eq_any(&bot_ids)))
            .order(activity_log::created_at.desc())
            .limit(limit)
            .select((Activity::as_select(), bots::name.nullable()))
            .load::<(Activity, Option<String>)>(conn)
            .await)
        .map_err(Into::into)
    }
}
