//! Payments through Stripe Billing: the calls to Stripe's API (`stripe`), the webhook's
//! signature check and the reading of its events into the store's `BillingChange`s. The plan
//! changes only when a webhook says a payment went through (`invoice.paid`).

pub mod events;
pub mod signature;
pub mod stripe;

use std::time::Duration;

use actix_web::web;

use crate::state::AppState;

/// How often ended plans (a date passed, a cancellation, a grace period) are settled to Free
/// with their extra bots paused (until then the account already counts as Free), and owners
/// are told about monthly limits reached.
const SETTLE_EVERY: Duration = Duration::from_secs(60);

pub fn spawn_plan_settler(state: web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        loop {
            match state.store.settle_lapsed_plans(parley_store::time::now()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!("{n} ended plan(s) moved to Free"),
                Err(e) => tracing::error!("settling ended plans: {e}"),
            }
            if let Err(e) = crate::notify::tell_limits_reached(&state).await {
                tracing::error!("telling owners about reached limits: {}", e.message);
            }
            tokio::time::sleep(SETTLE_EVERY).await;
        }
    });
}
