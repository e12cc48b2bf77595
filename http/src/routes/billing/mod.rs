//! `/api/billing`: the plans on offer (public: the landing page's pricing reads them before
//! anyone signs in), and the signed-in user's own subscription, usage and payment history.
//! Billing belongs to the account, not to a bot: every call but the plans (and Stripe's webhook)
//! is about the caller, who checks out, cancels and resumes their own subscription.

mod account;
mod checkout;
mod webhook;

use actix_web::{web, HttpResponse};
use utoipa::OpenApi;

use crate::error::ApiResult;
use crate::openapi::ApiErrors;
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/billing/plans", web::get().to(plans))
        .route("/billing/subscription", web::get().to(account::subscription))
        .route("/billing/usage", web::get().to(account::usage))
        .route("/billing/payments", web::get().to(account::payments))
        .route("/billing/checkout", web::post().to(checkout::checkout))
        .route("/billing/cancel", web::post().to(checkout::cancel))
        .route("/billing/resume", web::post().to(checkout::resume))
        .route("/billing/webhook", web::post().to(webhook::webhook));
}

#[derive(OpenApi)]
#[openapi(
    paths(plans, account::subscription, account::usage, account::payments, checkout::checkout, checkout::cancel, checkout::resume, webhook::webhook),
    components(schemas(
        views::billing::PlansReply, views::billing::PlanView, views::billing::SubscriptionReply,
        views::billing::SubscriptionView, views::billing::CheckoutView, views::billing::UsageReply,
        views::billing::Usage, views::billing::Meter, views::billing::PaymentsReply, views::billing::PaymentView, views::billing::WebhookReply,
        checkout::CheckoutRequest, checkout::CheckoutReply,
    )),
    tags((name = "billing", description = "Plans, subscription and usage"))
)]
pub struct Api;

/// The plans on offer, cheapest first.
#[utoipa::path(get, path = "/api/billing/plans", tag = "billing", responses(
    (status = 200, description = "The plans, as the pricing cards show them", body = views::billing::PlansReply),
    ApiErrors,
))]
async fn plans(state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let plans = state.store.plans().await?;
    Ok(HttpResponse::Ok().json(views::billing::plans(&plans, account::sales_email(&state.settings))))
}
