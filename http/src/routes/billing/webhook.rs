//! `POST /api/billing/webhook`: Stripe's deliveries. The signature is checked on the raw body
//! before anything is read; each event id is applied once (a redelivery answers 200 and
//! changes nothing), so Stripe's retries are safe.
//!
//! Stripe does not deliver events in order: the `customer.subscription.updated` of a
//! cancellation can land after the one of its undoing. With an API key, that event is applied
//! from the subscription as Stripe holds it now (re-read), never from the event's snapshot, so
//! a late event cannot bring back an older state.

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Duration;
use parley_store::billing_events::{Applied, BillingChange};

use crate::error::{ApiError, ApiResult};
use crate::openapi::ApiErrors;
use crate::payments::stripe::{Stripe, StripeError};
use crate::payments::{events, signature};
use crate::state::AppState;
use crate::views::billing::WebhookReply;

#[utoipa::path(post, path = "/api/billing/webhook", tag = "billing",
    request_body(content = String, content_type = "application/json", description = "A Stripe event, signed in the Stripe-Signature header"),
    params(("Stripe-Signature" = String, Header, description = "t=<unix time>,v1=<HMAC-SHA256 of \"t.body\">")),
    responses(
        (status = 200, description = "Received (applied, already applied, or not acted on)", body = crate::views::billing::WebhookReply),
        ApiErrors,
    ))]
pub async fn webhook(state: web::Data<AppState>, req: HttpRequest, body: web::Bytes) -> ApiResult<HttpResponse> {
    let stripe = &state.settings.stripe;
    if stripe.webhook_secret.trim().is_empty() {
        // Not a fault of this server (a 5xx would make Stripe retry for days): without a
        // webhook secret there is no webhook here to deliver to.
        return Err(ApiError::new(actix_web::http::StatusCode::NOT_FOUND, "not_found", "Payments are not configured on this server"));
    }
    let header = req.headers().get("Stripe-Signature").and_then(|v| v.to_str().ok());
    let now = parley_store::time::now().and_utc().timestamp();
    if let Err(why) = signature::verify(header, &body, &stripe.webhook_secret, now) {
        tracing::warn!("billing webhook refused: {why:?}");
        return Err(ApiError::bad_request("Invalid webhook signature"));
    }
    let event = events::read(&body, stripe).map_err(|e| ApiError::bad_request(format!("Unreadable event: {}", e.0)))?;
    let Some(change) = event.change else {
        return Ok(HttpResponse::Ok().json(WebhookReply { ok: true, applied: false }));
    };
    let change = current_state(&state, change).await?;
    let grace = Duration::days(i64::from(state.settings.billing.grace_days));
    let applied = state.store.apply_billing_event(&event.id, &event.kind, &change, grace).await?;
    if applied == Applied::UnknownCustomer {
        tracing::warn!("billing webhook {} ({}): no account has its customer", event.id, event.kind);
    }
    Ok(HttpResponse::Ok().json(WebhookReply { ok: true, applied: applied == Applied::Done }))
}

/// A subscription change as Stripe holds the subscription now (see the module comment). A
/// subscription Stripe no longer has keeps the event's own values (its `deleted` event ends
/// it); Stripe not answering fails the delivery, so Stripe retries it later.
async fn current_state(state: &AppState, change: BillingChange) -> ApiResult<BillingChange> {
    let settings = &state.settings.stripe;
    let BillingChange::SubscriptionUpdated { customer, subscription, cancel_at_period_end, period_end } = change else {
        return Ok(change);
    };
    if settings.secret_key.trim().is_empty() {
        return Ok(BillingChange::SubscriptionUpdated { customer, subscription, cancel_at_period_end, period_end });
    }
    let stripe = Stripe::new(&state.http, settings);
    match stripe.get(&format!("subscriptions/{subscription}"), &Vec::new()).await {
        Ok(now) => Ok(BillingChange::SubscriptionUpdated {
            cancel_at_period_end: now.get("cancel_at_period_end").and_then(serde_json::Value::as_bool).unwrap_or(cancel_at_period_end),
            period_end: events::subscription_period_end(&now).unwrap_or(period_end),
            customer,
            subscription,
        }),
        Err(StripeError::Api { status: 404, .. }) => Ok(BillingChange::SubscriptionUpdated { customer, subscription, cancel_at_period_end, period_end }),
        Err(e) => {
            tracing::error!("billing webhook: re-reading subscription {subscription}: {e}");
            Err(ApiError::new(
                actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
                "payment_provider",
                "The payment provider could not be reached; the event will be retried.",
            ))
        }
    }
}
