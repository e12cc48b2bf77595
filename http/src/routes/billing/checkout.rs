//! The owner's own subscription through Stripe: `POST /api/billing/checkout` starts a paid plan,
//! `POST /api/billing/cancel` stops it at the period's end (also the downgrade to Free),
//! `POST /api/billing/resume` undoes that before the end.
//!
//! Checkout creates the subscription as `default_incomplete`: nothing is charged and no plan
//! changes here. The page confirms the card with Stripe.js against the returned client
//! secret, and the plan changes when Stripe's `invoice.paid` webhook says the payment went
//! through. Every call acts on the caller's own account only: there is no id to name another.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use parley_store::billing::FREE;
use parley_store::models::User;
use parley_store::time;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult};
use crate::openapi::ApiErrors;
use crate::payments::events::subscription_period_end;
use crate::payments::stripe::{field, first_payment_secret, text, Form, Stripe, StripeError};
use crate::state::AppState;
use crate::views::billing as view;

const NOT_CONFIGURED: &str = "Payments are not configured on this server";

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutRequest {
    /// The plan to buy: `pro` (Enterprise is arranged with sales; Free is a cancellation).
    #[schema(example = "pro")]
    pub plan: String,
    /// `monthly` or `yearly`.
    #[schema(example = "monthly")]
    pub cycle: String,
}

fn not_configured() -> ApiError {
    ApiError::new(StatusCode::CONFLICT, "payments_not_configured", NOT_CONFIGURED)
}

/// Stripe's failures: logged (their messages never hold the key), and to the caller a 502,
/// since the fault is neither theirs nor, as far as we know, this server's.
fn provider(e: StripeError) -> ApiError {
    tracing::error!("billing: {e}");
    ApiError::new(StatusCode::BAD_GATEWAY, "payment_provider", "The payment provider could not complete the request. Please try again.")
}

/// The Stripe price of `plan` billed by `cycle`, refusing what cannot be bought here.
fn price_for<'a>(state: &'a AppState, plan: &str, cycle: &str) -> ApiResult<&'a str> {
    let stripe = &state.settings.stripe;
    match plan {
        "pro" => {}
        FREE => return Err(ApiError::validation("To move to the Free plan, cancel your subscription: it ends at the end of the billing period")),
        "enterprise" => return Err(ApiError::validation("The Enterprise plan is arranged with our sales team: use Contact Sales")),
        _ => return Err(ApiError::validation("Choose a plan to upgrade to: pro")),
    }
    let price = match cycle {
        "monthly" => stripe.price_pro_monthly.trim(),
        "yearly" => stripe.price_pro_yearly.trim(),
        _ => return Err(ApiError::validation("Choose a billing cycle: monthly or yearly")),
    };
    if price.is_empty() {
        return Err(ApiError::new(StatusCode::CONFLICT, "cycle_not_offered", format!("The {cycle} billing cycle is not offered on this server")));
    }
    Ok(price)
}

#[derive(serde::Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutReply {
    /// Stripe's subscription, `incomplete` until its first invoice is paid.
    pub subscription_id: String,
    /// For Stripe.js `confirmCardPayment`: the client secret of the first invoice's payment.
    pub client_secret: String,
    pub plan: String,
    pub cycle: String,
}

/// The account's Stripe customer: the one it has, or a new one tied to it now.
async fn customer_of(state: &AppState, stripe: &Stripe<'_>, user: &User) -> ApiResult<String> {
    let sub = match state.store.subscription_of(&user.id).await? {
        Some(sub) => sub,
        // Only for rows from outside Parley (signup makes one): a Free row to tie the customer to.
        None => state.store.set_plan(&user.id, FREE, None).await?,
    };
    if let Some(id) = sub.stripe_customer_id.filter(|id| !id.is_empty()) {
        return Ok(id);
    }
    let form: Form = vec![field("email", &user.email), field("name", &user.name), field("metadata[parley_user_id]", &user.id)];
    // Two clicks at once make one customer: Stripe answers a repeated key with the first.
    let idempotency = format!("parley-customer-{}", user.id);
    let customer = stripe.post("customers", &form, Some(idempotency.as_str())).await.map_err(provider)?;
    let id = text(&customer, &["id"]).ok_or_else(|| provider(StripeError::Shape("customer without id".into())))?;
    state.store.link_stripe_customer(&user.id, &id).await?;
    Ok(id)
}

/// The ids of the customer's subscriptions in `status` at Stripe.
async fn subscriptions_in(stripe: &Stripe<'_>, customer: &str, status: &str) -> ApiResult<Vec<String>> {
    let query: Form = vec![field("customer", customer), field("status", status), field("limit", "20")];
    let list = stripe.get("subscriptions", &query).await.map_err(provider)?;
    Ok(list.get("data").and_then(|d| d.as_array()).map(|d| d.iter().filter_map(|s| text(s, &["id"])).collect()).unwrap_or_default())
}

/// Makes room for a new subscription: refuses while one is already paid at Stripe (its
/// `invoice.paid` webhook is on its way: a second would bill twice), and cancels those still
/// waiting for a first payment (a checkout left half way) and those whose renewal failed
/// (`past_due`, `unpaid`: Stripe keeps retrying them, and a retry that succeeded after the new
/// one was paid would bill twice), so none but the new one is left to be paid.
async fn make_room(stripe: &Stripe<'_>, customer: &str) -> ApiResult<()> {
    if !subscriptions_in(stripe, customer, "active").await?.is_empty() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "payment_pending",
            "Your payment went through; your plan changes as soon as Stripe confirms it",
        ));
    }
    for status in ["incomplete", "past_due", "unpaid"] {
        for id in subscriptions_in(stripe, customer, status).await? {
            stripe.delete(&format!("subscriptions/{id}")).await.map_err(provider)?;
        }
    }
    Ok(())
}

/// Starts a paid plan: creates (or reuses) the account's Stripe customer and a subscription
/// waiting for its first payment, and answers the client secret the page confirms the card
/// with. The plan changes only when Stripe's webhook says the payment went through.
#[utoipa::path(post, path = "/api/billing/checkout", tag = "billing", security(("bearer" = [])), request_body = CheckoutRequest, responses(
    (status = 200, description = "A subscription waiting for its first payment", body = CheckoutReply),
    (status = 502, description = "Stripe could not complete the request", body = crate::openapi::entities::ErrorBody),
    ApiErrors,
))]
pub async fn checkout(state: web::Data<AppState>, AuthUser(user): AuthUser, body: web::Json<CheckoutRequest>) -> ApiResult<HttpResponse> {
    if !state.settings.stripe.is_configured() {
        return Err(not_configured());
    }
    let price = price_for(&state, body.plan.trim(), body.cycle.trim())?;
    let allowance = state.store.allowance(&user.id).await?;
    if allowance.plan.id != FREE {
        let message = if allowance.subscription.stripe_subscription_id.is_some() {
            format!("You are already on the {} plan", allowance.plan.name)
        } else {
            format!("Your {} plan was set on this server; it is not billed through Stripe", allowance.plan.name)
        };
        return Err(ApiError::new(StatusCode::CONFLICT, "already_subscribed", message));
    }
    let stripe = Stripe::new(&state.http, &state.settings.stripe);
    let customer = customer_of(&state, &stripe, &user).await?;
    make_room(&stripe, &customer).await?;
    let form: Form = vec![
        field("customer", &customer),
        field("items[0][price]", price),
        field("payment_behavior", "default_incomplete"),
        // The card confirmed for the first invoice pays the renewals too.
        field("payment_settings[save_default_payment_method]", "on_subscription"),
        field("expand[0]", "latest_invoice.payment_intent"),
        field("metadata[parley_user_id]", &user.id),
    ];
    let created = stripe.post("subscriptions", &form, None).await.map_err(provider)?;
    let subscription_id = text(&created, &["id"]).ok_or_else(|| provider(StripeError::Shape("subscription without id".into())))?;
    let client_secret = first_payment_secret(&created).ok_or_else(|| provider(StripeError::Shape(format!("subscription {subscription_id} without a first payment to confirm"))))?;
    Ok(HttpResponse::Ok().json(CheckoutReply { subscription_id, client_secret, plan: body.plan.trim().to_string(), cycle: body.cycle.trim().to_string() }))
}

/// Sets or clears `cancel_at_period_end` on the caller's Stripe subscription, records Stripe's
/// answer, and replies with the subscription as `GET /api/billing/subscription` shows it.
async fn set_cancel(state: &AppState, user: &User, cancel: bool) -> ApiResult<HttpResponse> {
    if !state.settings.stripe.is_configured() {
        return Err(not_configured());
    }
    let allowance = state.store.allowance(&user.id).await?;
    let sub = &allowance.subscription;
    if allowance.plan.id == FREE {
        return Err(ApiError::new(StatusCode::CONFLICT, "no_paid_plan", "You are on the Free plan: there is no subscription to change"));
    }
    let Some(subscription_id) = sub.stripe_subscription_id.clone() else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "not_billed_by_stripe",
            format!("Your {} plan was set on this server; it is not billed through Stripe", allowance.plan.name),
        ));
    };
    if cancel && sub.cancel_at_period_end {
        return Err(ApiError::new(StatusCode::CONFLICT, "already_cancelled", "Your subscription is already cancelled at the end of the billing period"));
    }
    if !cancel && !sub.cancel_at_period_end {
        return Err(ApiError::new(StatusCode::CONFLICT, "not_cancelled", "Your subscription is not cancelled: there is nothing to resume"));
    }
    let stripe = Stripe::new(&state.http, &state.settings.stripe);
    let form: Form = vec![field("cancel_at_period_end", if cancel { "true" } else { "false" })];
    let updated = stripe.post(&format!("subscriptions/{subscription_id}"), &form, None).await.map_err(provider)?;
    let period_end = subscription_period_end(&updated).ok_or_else(|| provider(StripeError::Shape("subscription without current_period_end".into())))?;
    let confirmed = updated.get("cancel_at_period_end").and_then(serde_json::Value::as_bool).unwrap_or(!cancel);
    if confirmed != cancel {
        return Err(provider(StripeError::Shape(format!("subscription {subscription_id} did not take cancel_at_period_end={cancel}"))));
    }
    state.store.record_cancel_at_period_end(&user.id, &subscription_id, cancel, period_end).await?;
    let allowance = state.store.allowance(&user.id).await?;
    Ok(HttpResponse::Ok().json(view::subscription(&allowance, time::now())))
}

/// Cancels the caller's paid plan at the end of the billing period (also the downgrade to
/// Free): the plan and its limits stay until then.
#[utoipa::path(post, path = "/api/billing/cancel", tag = "billing", security(("bearer" = [])), responses(
    (status = 200, description = "Cancelled at the period's end", body = view::SubscriptionView),
    (status = 502, description = "Stripe could not complete the request", body = crate::openapi::entities::ErrorBody),
    ApiErrors,
))]
pub async fn cancel(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    set_cancel(&state, &user, true).await
}

/// Undoes a cancellation before the period ends: the plan renews again.
#[utoipa::path(post, path = "/api/billing/resume", tag = "billing", security(("bearer" = [])), responses(
    (status = 200, description = "Renews again", body = view::SubscriptionView),
    (status = 502, description = "Stripe could not complete the request", body = crate::openapi::entities::ErrorBody),
    ApiErrors,
))]
pub async fn resume(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    set_cancel(&state, &user, false).await
}
