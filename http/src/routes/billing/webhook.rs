//! `POST /api/billing/webhook`: Stripe's deliveries. The signature is checked on the raw body
//! before anything is read; each event id is applied once (a redelivery answers 200 and
//! changes nothing), so Stripe's retries are safe.

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Duration;
use parley_store::billing_events::Applied;

use crate::error::{ApiError, ApiResult};
use crate::openapi::ApiErrors;
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
    let grace = Duration::days(i64::from(state.settings.billing.grace_days));
    let applied = state.store.apply_billing_event(&event.id, &event.kind, &change, grace).await?;
    if applied == Applied::UnknownCustomer {
        tracing::warn!("billing webhook {} ({}): no account has its customer", event.id, event.kind);
    }
    Ok(HttpResponse::Ok().json(WebhookReply { ok: true, applied: applied == Applied::Done }))
}
