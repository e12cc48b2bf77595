//! The caller's own billing: `GET /api/billing/subscription`, `/usage` and `/payments`. Each
//! reads only the signed-in user's rows; there is nothing of another account to reach.

use actix_web::{web, HttpResponse};
use parley_store::time;
use serde::Deserialize;

use crate::auth::AuthUser;
use crate::domain::PageWindow;
use crate::error::ApiResult;
use crate::openapi::ApiErrors;
use crate::state::AppState;
use crate::views::billing as view;

/// Billing History shows this many; 'View all' pages through the rest.
const HISTORY_PREVIEW: i64 = 3;

/// The plan in force, its period and renewal, the newest payments, and whether this server
/// takes payments.
#[utoipa::path(get, path = "/api/billing/subscription", tag = "billing", security(("bearer" = [])), responses(
    (status = 200, description = "The caller's subscription", body = view::SubscriptionReply),
    ApiErrors,
))]
pub async fn subscription(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let allowance = state.store.allowance(&user.id).await?;
    let (recent, _) = state.store.payments_page(&user.id, 0, HISTORY_PREVIEW).await?;
    let stripe = &state.settings.stripe;
    let configured = stripe.is_configured();
    let sales_email = sales_email(&state.settings);
    Ok(HttpResponse::Ok().json(view::SubscriptionReply {
        subscription: view::subscription(&allowance, time::now()),
        payment_history: recent.iter().map(view::payment).collect(),
        checkout: view::CheckoutView {
            configured,
            publishable_key: configured.then(|| stripe.publishable_key.clone()),
            js_url: configured.then(|| stripe.js_url.clone()),
            sales_email,
        },
    }))
}

/// Where Enterprise's Contact Sales writes: `billing.sales_email`, else the address mail is
/// sent from.
pub(super) fn sales_email(settings: &parley_config::Settings) -> String {
    match settings.billing.sales_email.trim() {
        "" => address_of(&settings.smtp.from),
        set => set.to_string(),
    }
}

/// `Parley <parley@localhost>` → `parley@localhost`.
fn address_of(mailbox: &str) -> String {
    match (mailbox.find('<'), mailbox.rfind('>')) {
        (Some(open), Some(close)) if open < close => mailbox[open + 1..close].trim().to_string(),
        _ => mailbox.trim().to_string(),
    }
}

/// Conversations, bots and credits: used and total this period (999 = unlimited).
#[utoipa::path(get, path = "/api/billing/usage", tag = "billing", security(("bearer" = [])), responses(
    (status = 200, description = "The three meters", body = view::UsageReply),
    ApiErrors,
))]
pub async fn usage(state: web::Data<AppState>, AuthUser(user): AuthUser) -> ApiResult<HttpResponse> {
    let allowance = state.store.allowance(&user.id).await?;
    Ok(HttpResponse::Ok().json(view::usage(&allowance)))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// From 1.
    page: Option<i64>,
    /// Rows a page: 10 unless given, at most 100.
    limit: Option<i64>,
}

/// Billing History, newest first.
#[utoipa::path(get, path = "/api/billing/payments", tag = "billing", security(("bearer" = [])), params(PageQuery), responses(
    (status = 200, description = "A page of the caller's payments", body = view::PaymentsReply),
    ApiErrors,
))]
pub async fn payments(state: web::Data<AppState>, AuthUser(user): AuthUser, q: web::Query<PageQuery>) -> ApiResult<HttpResponse> {
    let PageWindow { page, limit, offset } = PageWindow::new(q.page, q.limit, 10, 100);
    let (rows, total) = state.store.payments_page(&user.id, offset, limit).await?;
    Ok(HttpResponse::Ok().json(view::PaymentsReply { payments: rows.iter().map(view::payment).collect(), total, page, limit }))
}

#[cfg(test)]
mod tests {
    use super::address_of;

    #[test]
    fn the_sales_address_comes_out_of_a_mailbox() {
        assert_eq!(address_of("Parley <parley@localhost>"), "parley@localhost");
        assert_eq!(address_of("sales@shop.example"), "sales@shop.example");
    }
}
