//! `/api/billing`: the plans on offer. Public, because the landing page's pricing section reads
//! them before anyone signs in.

use actix_web::{web, HttpResponse};
use utoipa::OpenApi;

use crate::error::ApiResult;
use crate::openapi::ApiErrors;
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/billing/plans", web::get().to(plans));
}

#[derive(OpenApi)]
#[openapi(paths(plans), components(schemas(views::billing::PlansReply, views::billing::PlanView)), tags((name = "billing", description = "Plans, subscription and usage")))]
pub struct Api;

/// The plans on offer, cheapest first.
#[utoipa::path(get, path = "/api/billing/plans", tag = "billing", responses(
    (status = 200, description = "The plans, as the pricing cards show them", body = views::billing::PlansReply),
    ApiErrors,
))]
async fn plans(state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let plans = state.store.plans().await?;
    Ok(HttpResponse::Ok().json(views::billing::plans(&plans)))
}
