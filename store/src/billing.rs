//! Plans, subscriptions and usage: what a user may spend and has spent in the current period.
//! Periods are calendar months from the subscription's start; a limit of 999 means unlimited.
//! A subscription with an `ends_at` in the past counts as Free: a plan set until a date, a
//! cancellation at the period's end and a failed renewal's grace all lapse without a job.

use chrono::{Months, NaiveDateTime};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::{LimitNotice, Plan, Subscription, UsageCounter};
use crate::schema::{bots, limit_notices, plans, subscriptions, usage_counters};
use crate::{new_id, time, Store, StoreError, StoreResult};

pub const UNLIMITED: i32 = 999;

/// Exactly 999 means unlimited (spec 2 §3): Pro's 5,000 conversations are a real limit.
pub fn is_unlimited(limit: i32) -> bool {
    limit == UNLIMITED
}

pub(crate) fn new_subscription(user_id: &str, plan_id: &str, now: NaiveDateTime) -> Subscription {
    Subscription {
        id: new_id(),
        user_id: user_id.to_string(),
        plan_id: plan_id.to_string(),
        status: "active".into(),
        billing_cycle: "monthly".into(),
        current_period_start: now,
        current_period_end: now.checked_add_months(Months::new(1)).unwrap_or(now),
        created_at: now,
        updated_at: now,
        cancel_at_period_end: false,
        ends_at: None,
        stripe_customer_id: None,
        stripe_subscription_id: None,
    }
}

/// The plan every account falls back to.
pub const FREE: &str = "free";

/// The plan a subscription gives at `now`: its own until it ends, then Free.
pub fn plan_in_force(sub: &Subscription, now: NaiveDateTime) -> &str {
    match sub.ends_at {
        Some(end) if end <= now => FREE,
        _ => &sub.plan_id,
    }
}

/// A limit of the plan, as refusals name it (`"limit": "bots"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Conversations,
    Bots,
    Credits,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Conversations => "conversations",
            Limit::Bots => "bots",
            Limit::Credits => "credits",
        }
    }
}

/// What a period's usage counter counts.
#[derive(Debug, Clone, Copy)]
enum Metered {
    Credits,
    Conversations,
}

impl Metered {
    /// The plan limit a refusal of it reaches.
    fn limit(self) -> Limit {
        match self {
            Metered::Credits => Limit::Credits,
            Metered::Conversations => Limit::Conversations,
        }
    }
}

/// Where an owner goes to raise a limit; every refusal of a plan limit points here.
pub const BILLING_PATH: &str = "/billing";

/// The start of the period `now` falls in, stepping whole months from `anchor`.
pub fn period_start(anchor: NaiveDateTime, now: NaiveDateTime) -> NaiveDateTime {
    let mut start = anchor;
    // At most a few hundred steps even for a decade-old subscription.
    for months in 1..=1200u32 {
        match anchor.checked_add_months(Months::new(months)) {
            Some(next) if next <= now => start = next,
            _ => break,
        }
    }
    start
}

/// What a user has and has used this period.
#[derive(Debug, Clone)]
pub struct Allowance {
    pub plan: Plan,
    pub subscription: Subscription,
    pub period_start: NaiveDateTime,
    pub period_end: NaiveDateTime,
    pub conversations_used: i32,
    pub credits_used: i32,
    pub bots_used: i32,
}

impl Allowance {
    pub fn remaining_credits(&self) -> i32 {
        if is_unlimited(self.plan.credits_limit) {
            return UNLIMITED;
        }
        (self.plan.credits_limit - self.credits_used).max(0)
    }

    pub fn can_create_bot(&self) -> bool {
        is_unlimited(self.plan.bots_limit) || self.bots_used < self.plan.bots_limit
    }
}

impl Store {
    pub async fn plans(&self) -> StoreResult<Vec<Plan>> {
        db_run!(self, |conn| plans::table.order(plans::sort_order).load::<Plan>(conn).await)
            .map_err(Into::into)
    }

    /// The user's plan and this period's usage. A user without a subscription row (possible
    /// only for data from outside Parley) is treated as on Free.
    pub async fn allowance(&self, user_id: &str) -> StoreResult<Allowance> {
        let now = time::now();
        let (subscription, plan, bots_used) = db_run!(self, |conn| {
            let sub: Option<Subscription> = subscriptions::table
                .filter(subscriptions::user_id.eq(user_id))
                .first(conn)
                .await
                .optional()?;
            let sub = sub.unwrap_or_else(|| new_subscription(user_id, FREE, now));
            let plan: Plan = plans::table.find(plan_in_force(&sub, now)).first(conn).await?;
            let bots_used: i64 = bots::table.filter(bots::owner_id.eq(user_id)).count().get_result(conn).await?;
            Ok::<_, StoreError>((sub, plan, bots_used))
        })?;
        let start = period_start(subscription.current_period_start, now);
        let end = start.checked_add_months(Months::new(1)).unwrap_or(start);
        let usage = db_run!(self, |conn| usage_counters::table
            .find((user_id, start))
            .first::<UsageCounter>(conn)
            .await
            .optional())?;
        Ok(Allowance {
            plan,
            subscription,
            period_start: start,
            period_end: end,
            conversations_used: usage.as_ref().map_or(0, |u| u.conversations),
            credits_used: usage.as_ref().map_or(0, |u| u.credits_used),
            bots_used: i32::try_from(bots_used).unwrap_or(i32::MAX),
        })
    }

    /// Puts the user on `plan_id` from now until `ends_at` (`None`: until changed again). A
    /// new period starts now, so the plan's monthly limits count from zero. This is the
    /// self-hoster's way (`parley plans set`); plans bought through Stripe change by webhook.
    /// `NotFound` when there is no such plan.
    pub async fn set_plan(&self, user_id: &str, plan_id: &str, ends_at: Option<NaiveDateTime>) -> StoreResult<Subscription> {
        let now = time::now();
        let mut row = new_subscription(user_id, plan_id, now);
        row.ends_at = ends_at;
        if let Some(end) = ends_at {
            row.current_period_end = end;
        }
        db_run!(self, |conn| {
            let _: Plan = plans::table.find(plan_id).first(conn).await?;
            diesel::insert_into(subscriptions::table)
                .values(&row)
                .on_conflict(subscriptions::user_id)
                .do_update()
                .set((
                    subscriptions::plan_id.eq(&row.plan_id),
                    subscriptions::status.eq(&row.status),
                    subscriptions::billing_cycle.eq(&row.billing_cycle),
                    subscriptions::current_period_start.eq(row.current_period_start),
                    subscriptions::current_period_end.eq(row.current_period_end),
                    subscriptions::cancel_at_period_end.eq(false),
                    subscriptions::ends_at.eq(row.ends_at),
                    subscriptions::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            subscriptions::table.filter(subscriptions::user_id.eq(user_id)).first::<Subscription>(conn).await.map_err(StoreError::from)
        })
    }

    /// Spends one credit if any is left this period; returns whether it was spent. The first
    /// refusal in a period leaves a limit notice for the owner.
    pub async fn spend_credit(&self, user_id: &str) -> StoreResult<bool> {
        Ok(self.take_one(user_id, Metered::Credits).await?.is_some())
    }

    /// [`Store::spend_credit`] for a reply that may fail: the period the credit was counted in,
    /// for [`Store::release_credit`], or `None` when none is left.
    pub async fn hold_credit(&self, user_id: &str) -> StoreResult<Option<NaiveDateTime>> {
        self.take_one(user_id, Metered::Credits).await
    }

    /// Takes one of the owner's conversations this period if any is left; returns whether it
    /// was taken. The first refusal in a period leaves a limit notice for the owner.
    pub async fn claim_conversation(&self, user_id: &str) -> StoreResult<bool> {
        Ok(self.take_one(user_id, Metered::Conversations).await?.is_some())
    }

    /// Counts one use of `what` in the owner's current period if the plan allows another. The
    /// check and the increment are one conditional update, so concurrent replies or new
    /// conversations cannot go past the plan. Returns the period it was counted in.
    async fn take_one(&self, user_id: &str, what: Metered) -> StoreResult<Option<NaiveDateTime>> {
        let allowance = self.allowance(user_id).await?;
        let limit = match what {
            Metered::Credits => allowance.plan.credits_limit,
            Metered::Conversations => allowance.plan.conversations_limit,
        };
        let start = allowance.period_start;
        let row = UsageCounter { user_id: user_id.to_string(), period_start: start, conversations: 0, credits_used: 0 };
        // One conditional increment of `column`, without the condition on an unlimited plan.
        macro_rules! increment {
            ($conn:expr, $column:expr) => {{
                let target = usage_counters::table.find((user_id, start));
                if is_unlimited(limit) {
                    diesel::update(target).set($column.eq($column + 1)).execute($conn).await?
                } else {
                    diesel::update(target.filter($column.lt(limit))).set($column.eq($column + 1)).execute($conn).await?
                }
            }};
        }
        db_run!(self, |conn| {
            diesel::insert_into(usage_counters::table)
                .values(&row)
                .on_conflict((usage_counters::user_id, usage_counters::period_start))
                .do_nothing()
                .execute(conn)
                .await?;
            let n = match what {
                Metered::Credits => increment!(conn, usage_counters::credits_used),
                Metered::Conversations => increment!(conn, usage_counters::conversations),
            };
            if n == 0 {
                diesel::insert_into(limit_notices::table)
                    .values(LimitNotice::reached(user_id, start, what.limit()))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
            }
            Ok::<_, StoreError>((n == 1).then_some(start))
        })
    }

    /// Gives back a conversation claimed for one that never started (its first message was
    /// refused, so the visitor will try again and claim another).
    pub async fn release_conversation(&self, user_id: &str) -> StoreResult<()> {
        let start = self.allowance(user_id).await?.period_start;
        self.release_one(user_id, Metered::Conversations, start).await
    }

    /// Gives back a credit held for a reply that never came (the model failed or timed out), in
    /// the period it was counted in (`hold_credit`'s), not a later one.
    pub async fn release_credit(&self, user_id: &str, period_start: NaiveDateTime) -> StoreResult<()> {
        self.release_one(user_id, Metered::Credits, period_start).await
    }

    /// Uncounts one use of `what` in the owner's period starting at `start` (never below zero).
    async fn release_one(&self, user_id: &str, what: Metered, start: NaiveDateTime) -> StoreResult<()> {
        db_run!(self, |conn| {
            let target = usage_counters::table.find((user_id, start));
            match what {
                Metered::Credits => {
                    diesel::update(target.filter(usage_counters::credits_used.gt(0)))
                        .set(usage_counters::credits_used.eq(usage_counters::credits_used - 1))
                        .execute(conn)
                        .await
                }
                Metered::Conversations => {
                    diesel::update(target.filter(usage_counters::conversations.gt(0)))
                        .set(usage_counters::conversations.eq(usage_counters::conversations - 1))
                        .execute(conn)
                        .await
                }
            }
        })?;
        Ok(())
    }

    /// Limit notices not yet told to their owners, oldest first, at most `limit`.
    pub async fn unsent_limit_notices(&self, limit: i64) -> StoreResult<Vec<LimitNotice>> {
        db_run!(self, |conn| limit_notices::table
            .filter(limit_notices::sent_at.is_null())
            .order(limit_notices::reached_at.asc())
            .limit(limit)
            .load::<LimitNotice>(conn)
            .await)
        .map_err(Into::into)
    }

    /// Marks a limit notice as told (mailed or, with mail off for the owner, logged only).
    pub async fn mark_limit_notice_sent(&self, notice: &LimitNotice) -> StoreResult<()> {
        let now = time::now();
        db_run!(self, |conn| diesel::update(limit_notices::table.find((&notice.user_id, notice.period_start, &notice.limit_kind)))
            .set(limit_notices::sent_at.eq(now))
            .execute(conn)
            .await)?;
        Ok(())
    }

    /// Counts a new conversation in the owner's current period, whatever the plan says (see
    /// `claim_conversation` for the checked form).
    pub async fn count_conversation(&self, user_id: &str) -> StoreResult<()> {
        let allowance = self.allowance(user_id).await?;
        let row = UsageCounter {
            user_id: user_id.to_string(),
            period_start: allowance.period_start,
            conversations: 1,
            credits_used: 0,
        };
        db_run!(self, |conn| diesel::insert_into(usage_counters::table)
            .values(&row)
            .on_conflict((usage_counters::user_id, usage_counters::period_start))
            .do_update()
            .set(usage_counters::conversations.eq(usage_counters::conversations + 1))
            .execute(conn)
            .await)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn at(y: i32, m: u32, d: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d).unwrap().and_hms_opt(12, 0, 0).unwrap()
    }

    fn on(plan_id: &str, conversations: i32, bots: i32, credits: i32) -> Allowance {
        let plan = Plan {
            id: plan_id.into(),
            name: plan_id.into(),
            price_monthly_cents: None,
            price_yearly_cents: None,
            conversations_limit: conversations,
            bots_limit: bots,
            credits_limit: credits,
            features: "[]".into(),
            sort_order: 0,
        };
        let now = at(2026, 11, 25);
        Allowance {
            plan,
            subscription: new_subscription("u", plan_id, now),
            period_start: now,
            period_end: now,
            conversations_used: 0,
            credits_used: 4999,
            bots_used: 5,
        }
    }

    /// Pro's limits (5,000) are above 999 and still limits: only 999 itself is unlimited.
    #[test]
    fn only_999_is_unlimited() {
        let pro = on("pro", 5000, 5, 5000);
        assert_eq!((pro.remaining_credits(), pro.can_create_bot()), (1, false));
        let enterprise = on("enterprise", 999, 999, 999);
        assert_eq!((enterprise.remaining_credits(), enterprise.can_create_bot()), (UNLIMITED, true));
    }

    #[test]
    fn an_ended_plan_is_free() {
        let mut sub = new_subscription("u", "pro", at(2026, 1, 1));
        assert_eq!(plan_in_force(&sub, at(2026, 6, 1)), "pro");
        sub.ends_at = Some(at(2026, 6, 1));
        assert_eq!(plan_in_force(&sub, at(2026, 5, 31)), "pro");
        assert_eq!(plan_in_force(&sub, at(2026, 6, 1)), FREE);
    }

    #[test]
    fn period_start_steps_whole_months() {
        assert_eq!(period_start(at(2026, 1, 31), at(2026, 1, 31)), at(2026, 1, 31));
        assert_eq!(period_start(at(2026, 1, 15), at(2026, 3, 20)), at(2026, 3, 15));
        assert_eq!(period_start(at(2026, 1, 15), at(2026, 3, 14)), at(2026, 2, 15));
    }
}
