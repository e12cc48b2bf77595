//! What the payment provider's webhooks say happened, applied to an account's subscription:
//! a paid invoice puts the account on its plan and adds a payment row; a failed renewal starts
//! the grace period; a cancellation at the period's end sets when the plan ends; a deleted
//! subscription puts the account on Free. Each event is applied once, in one transaction with
//! the record of its id, so a webhook delivered twice changes nothing the second time.
//!
//! When an account lands on a plan with fewer assistants than it has, the newest are paused
//! (made inactive and remembered in `paused_bots`), never deleted; a bigger plan brings them
//! back, oldest first.

use chrono::{Duration, NaiveDateTime};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::billing::{is_unlimited, FREE};
use crate::models::{Payment, Subscription};
use crate::schema::{bots, paused_bots, payments, plans, stripe_events, subscriptions};
use crate::{new_id, time, Store, StoreError, StoreResult};

/// One webhook event, already verified and read by the caller.
#[derive(Debug, Clone)]
pub enum BillingChange {
    /// An invoice was paid: the account is on `plan_id`, billed by `cycle`, for the period.
    InvoicePaid {
        customer: String,
        subscription: Option<String>,
        invoice: String,
        plan_id: String,
        cycle: String,
        amount_cents: i32,
        currency: String,
        description: String,
        period_start: NaiveDateTime,
        period_end: NaiveDateTime,
    },
    /// A payment of an invoice failed. On a paid plan (a renewal) the grace period starts; a
    /// first payment that fails changes no plan.
    InvoiceFailed { customer: String, invoice: String, amount_cents: i32, currency: String, description: String },
    /// The subscription changed: cancelled at the period's end (or no longer), or its period moved.
    SubscriptionUpdated { customer: String, subscription: String, cancel_at_period_end: bool, period_end: NaiveDateTime },
    /// The subscription ended: the account is on Free from now.
    SubscriptionDeleted { customer: String, subscription: String },
}

impl BillingChange {
    fn customer(&self) -> &str {
        match self {
            BillingChange::InvoicePaid { customer, .. }
            | BillingChange::InvoiceFailed { customer, .. }
            | BillingChange::SubscriptionUpdated { customer, .. }
            | BillingChange::SubscriptionDeleted { customer, .. } => customer,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Done,
    /// This event id was applied before: nothing changed.
    Replay,
    /// No account is tied to the event's customer (another install's, or deleted): ignored.
    UnknownCustomer,
}

/// Pauses the owner's newest active bots beyond `limit`, and brings paused ones back (oldest
/// first) while there is room. Inside a transaction body; a macro because the body is expanded
/// once per backend.
macro_rules! fit_bots_to_plan {
    ($conn:ident, $owner:expr, $limit:expr, $now:expr) => {{
        let owner: &str = $owner;
        let limit: i32 = $limit;
        let active: Vec<String> = bots::table
            .filter(bots::owner_id.eq(owner))
            .filter(bots::status.eq("active"))
            .order((bots::created_at.asc(), bots::id.asc()))
            .select(bots::id)
            .load($conn)
            .await?;
        let room = if is_unlimited(limit) { usize::MAX } else { usize::try_from(limit.max(0)).unwrap_or(0) };
        if active.len() > room {
            let extra: Vec<String> = active.iter().skip(room).cloned().collect();
            diesel::update(bots::table.filter(bots::id.eq_any(&extra))).set(bots::status.eq("inactive")).execute($conn).await?;
            for id in &extra {
                diesel::insert_into(paused_bots::table)
                    .values((paused_bots::bot_id.eq(id), paused_bots::paused_at.eq($now)))
                    .on_conflict_do_nothing()
                    .execute($conn)
                    .await?;
            }
        } else {
            let free_slots = room.saturating_sub(active.len());
            let paused: Vec<String> = bots::table
                .inner_join(paused_bots::table.on(paused_bots::bot_id.eq(bots::id)))
                .filter(bots::owner_id.eq(owner))
                .order((bots::created_at.asc(), bots::id.asc()))
                .select(bots::id)
                .load($conn)
                .await?;
            let back: Vec<String> = paused.into_iter().take(free_slots).collect();
            if !back.is_empty() {
                diesel::update(bots::table.filter(bots::id.eq_any(&back))).set(bots::status.eq("active")).execute($conn).await?;
                diesel::delete(paused_bots::table.filter(paused_bots::bot_id.eq_any(&back))).execute($conn).await?;
            }
        }
    }};
}

impl Store {
    /// Ties the account to its Stripe customer (made at its first checkout).
    pub async fn link_stripe_customer(&self, user_id: &str, customer_id: &str) -> StoreResult<()> {
        let now = time::now();
        db_run!(self, |conn| diesel::update(subscriptions::table.filter(subscriptions::user_id.eq(user_id)))
            .set((subscriptions::stripe_customer_id.eq(customer_id), subscriptions::updated_at.eq(now)))
            .execute(conn)
            .await)?;
        Ok(())
    }

    /// The account's subscription row (customer and subscription ids included).
    pub async fn subscription_of(&self, user_id: &str) -> StoreResult<Option<Subscription>> {
        db_run!(self, |conn| subscriptions::table
            .filter(subscriptions::user_id.eq(user_id))
            .first::<Subscription>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    /// Stripe accepted the owner's cancellation at the period's end (`cancel`) or its undoing:
    /// the same change `customer.subscription.updated` brings, applied from Stripe's answer so
    /// the page shows it at once (the webhook, when it lands, changes nothing more). Only for
    /// the account's own paid subscription `subscription`; returns whether a row changed.
    pub async fn record_cancel_at_period_end(&self, user_id: &str, subscription: &str, cancel: bool, period_end: NaiveDateTime) -> StoreResult<bool> {
        let now = time::now();
        db_tx!(self, owned(user_id, subscription), |conn| async move {
            let sub: Option<Subscription> = subscriptions::table
                .filter(subscriptions::user_id.eq(&user_id))
                .filter(subscriptions::stripe_subscription_id.eq(&subscription))
                .filter(subscriptions::plan_id.ne(FREE))
                .first(conn)
                .await
                .optional()?;
            let Some(sub) = sub else { return Ok::<_, StoreError>(false) };
            // As the webhook does: a grace period keeps its own end.
            let ends_at = if sub.status == "past_due" {
                sub.ends_at
            } else if cancel {
                Some(period_end)
            } else {
                None
            };
            diesel::update(subscriptions::table.find(&sub.id))
                .set((
                    subscriptions::cancel_at_period_end.eq(cancel),
                    subscriptions::ends_at.eq(ends_at),
                    subscriptions::current_period_end.eq(period_end),
                    subscriptions::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(true)
        })
    }

    /// Applies one webhook event unless its id was applied before. `grace`: how long a paid
    /// plan stays after a failed renewal.
    pub async fn apply_billing_event(&self, event_id: &str, kind: &str, change: &BillingChange, grace: Duration) -> StoreResult<Applied> {
        let now = time::now();
        db_tx!(self, owned(event_id, kind, change), |conn| async move {
            let sub: Option<Subscription> = subscriptions::table
                .filter(subscriptions::stripe_customer_id.eq(change.customer()))
                .first(conn)
                .await
                .optional()?;
            let Some(sub) = sub else { return Ok(Applied::UnknownCustomer) };
            let fresh = diesel::insert_into(stripe_events::table)
                .values((stripe_events::id.eq(&event_id), stripe_events::kind.eq(&kind), stripe_events::received_at.eq(now)))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if fresh == 0 {
                return Ok(Applied::Replay);
            }
            let target = subscriptions::table.find(&sub.id);
            match change {
                BillingChange::InvoicePaid { subscription, invoice, plan_id, cycle, amount_cents, currency, description, period_start, period_end, .. } => {
                    let limit: i32 = plans::table.find(plan_id).select(plans::bots_limit).first(conn).await?;
                    // A plan cancelled at the period's end keeps ending then.
                    let ends_at = if sub.cancel_at_period_end { Some(*period_end) } else { None };
                    diesel::update(target)
                        .set((
                            subscriptions::plan_id.eq(plan_id),
                            subscriptions::status.eq("active"),
                            subscriptions::billing_cycle.eq(cycle),
                            subscriptions::current_period_start.eq(*period_start),
                            subscriptions::current_period_end.eq(*period_end),
                            subscriptions::ends_at.eq(ends_at),
                            subscriptions::stripe_subscription_id.eq(subscription.clone().or(sub.stripe_subscription_id.clone())),
                            subscriptions::updated_at.eq(now),
                        ))
                        .execute(conn)
                        .await?;
                    let row = Payment {
                        id: new_id(),
                        user_id: sub.user_id.clone(),
                        description: description.clone(),
                        amount_cents: *amount_cents,
                        currency: currency.clone(),
                        status: "succeeded".into(),
                        paid_at: now,
                        stripe_invoice_id: Some(invoice.clone()),
                    };
                    diesel::insert_into(payments::table).values(&row).on_conflict_do_nothing().execute(conn).await?;
                    fit_bots_to_plan!(conn, &sub.user_id, limit, now);
                }
                BillingChange::InvoiceFailed { invoice, amount_cents, currency, description, .. } => {
                    let row = Payment {
                        id: new_id(),
                        user_id: sub.user_id.clone(),
                        description: description.clone(),
                        amount_cents: *amount_cents,
                        currency: currency.clone(),
                        status: "failed".into(),
                        paid_at: now,
                        stripe_invoice_id: Some(invoice.clone()),
                    };
                    diesel::insert_into(payments::table).values(&row).on_conflict_do_nothing().execute(conn).await?;
                    let paid_plan = sub.plan_id != FREE && sub.ends_at.is_none_or(|end| end > now);
                    if paid_plan && sub.status != "past_due" {
                        let grace_end = now + grace;
                        let ends_at = sub.ends_at.map_or(grace_end, |end| end.min(grace_end));
                        diesel::update(target)
                            .set((subscriptions::status.eq("past_due"), subscriptions::ends_at.eq(Some(ends_at)), subscriptions::updated_at.eq(now)))
                            .execute(conn)
                            .await?;
                    }
                }
                BillingChange::SubscriptionUpdated { subscription, cancel_at_period_end, period_end, .. } => {
                    if sub.stripe_subscription_id.as_deref() == Some(subscription.as_str()) && sub.plan_id != FREE {
                        // Grace (past_due) keeps its own end; otherwise the end is the period's
                        // when cancelled, none when resumed.
                        let ends_at = if sub.status == "past_due" {
                            sub.ends_at
                        } else if *cancel_at_period_end {
                            Some(*period_end)
                        } else {
                            None
                        };
                        diesel::update(target)
                            .set((
                                subscriptions::cancel_at_period_end.eq(*cancel_at_period_end),
                                subscriptions::ends_at.eq(ends_at),
                                subscriptions::current_period_end.eq(*period_end),
                                subscriptions::updated_at.eq(now),
                            ))
                            .execute(conn)
                            .await?;
                    }
                }
                BillingChange::SubscriptionDeleted { subscription, .. } => {
                    if sub.stripe_subscription_id.as_deref() == Some(subscription.as_str()) {
                        let limit: i32 = plans::table.find(FREE).select(plans::bots_limit).first(conn).await?;
                        diesel::update(target)
                            .set((
                                subscriptions::plan_id.eq(FREE),
                                subscriptions::status.eq("active"),
                                subscriptions::billing_cycle.eq("monthly"),
                                subscriptions::current_period_start.eq(now),
                                subscriptions::current_period_end.eq(now + Duration::days(30)),
                                subscriptions::cancel_at_period_end.eq(false),
                                subscriptions::ends_at.eq(None::<NaiveDateTime>),
                                subscriptions::stripe_subscription_id.eq(None::<String>),
                                subscriptions::updated_at.eq(now),
                            ))
                            .execute(conn)
                            .await?;
                        fit_bots_to_plan!(conn, &sub.user_id, limit, now);
                    }
                }
            }
            Ok(Applied::Done)
        })
    }

    /// Puts every account whose plan ended (`ends_at` passed: a set date, a cancellation, a
    /// grace period) on Free and pauses its bots beyond Free's. Until this runs the account
    /// already counts as Free (`plan_in_force`); this makes it so in the rows and the bots.
    pub async fn settle_lapsed_plans(&self, now: NaiveDateTime) -> StoreResult<usize> {
        db_tx!(self, |conn| async move {
            let lapsed: Vec<Subscription> = subscriptions::table
                .filter(subscriptions::ends_at.le(now))
                .filter(subscriptions::plan_id.ne(FREE))
                .load(conn)
                .await?;
            let limit: i32 = plans::table.find(FREE).select(plans::bots_limit).first(conn).await?;
            for sub in &lapsed {
                diesel::update(subscriptions::table.find(&sub.id))
                    .set((
                        subscriptions::plan_id.eq(FREE),
                        subscriptions::status.eq("active"),
                        subscriptions::billing_cycle.eq("monthly"),
                        subscriptions::current_period_start.eq(now),
                        subscriptions::current_period_end.eq(now + Duration::days(30)),
                        subscriptions::cancel_at_period_end.eq(false),
                        subscriptions::ends_at.eq(None::<NaiveDateTime>),
                        // No longer the account's: its later `deleted` event (a checkout cancels
                        // a past-due one) must not start the Free period over.
                        subscriptions::stripe_subscription_id.eq(None::<String>),
                        subscriptions::updated_at.eq(now),
                    ))
                    .execute(conn)
                    .await?;
                fit_bots_to_plan!(conn, &sub.user_id, limit, now);
            }
            Ok::<_, StoreError>(lapsed.len())
        })
    }

    /// The owner's bots paused by their plan.
    pub async fn paused_bot_ids(&self, owner_id: &str) -> StoreResult<Vec<String>> {
        db_run!(self, |conn| bots::table
            .inner_join(paused_bots::table.on(paused_bots::bot_id.eq(bots::id)))
            .filter(bots::owner_id.eq(owner_id))
            .order(bots::created_at.asc())
            .select(bots::id)
            .load::<String>(conn)
            .await)
        .map_err(Into::into)
    }
}

impl Store {
    /// Pauses or brings back the owner's bots to fit the plan in force now (after a plan set
    /// from the command line).
    pub async fn fit_bots_to_plan(&self, user_id: &str) -> StoreResult<()> {
        let limit = self.allowance(user_id).await?.plan.bots_limit;
        let now = time::now();
        db_tx!(self, owned(user_id), |conn| async move {
            fit_bots_to_plan!(conn, &user_id, limit, now);
            Ok::<_, StoreError>(())
        })
    }
}
