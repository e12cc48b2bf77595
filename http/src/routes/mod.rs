//! REST routes under `/api`, laid out as the URL tree.

mod auth;
mod billing;
mod bots;
pub(crate) mod chat;
mod dashboard;
mod demo;
mod docs;
mod health;
mod invitations;
mod leads;
mod me;
mod team;
mod two_factor;

use actix_web::web;
use utoipa::OpenApi;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api")
            .configure(health::configure)
            .configure(auth::configure)
            .configure(me::configure)
            .configure(two_factor::configure)
            .configure(billing::configure)
            .configure(bots::configure)
            .configure(chat::configure)
            .configure(dashboard::configure)
            .configure(demo::configure)
            .configure(invitations::configure)
            .configure(leads::configure)
            .configure(team::configure)
            .configure(docs::configure)
            .default_service(web::to(not_found)),
    );
}

async fn not_found() -> Result<actix_web::HttpResponse, crate::error::ApiError> {
    Err(crate::error::ApiError::not_found("Route"))
}

/// Each module's part of the API contract (`crate::openapi::document` joins them). A module
/// with routes must add its part here, or `tests/openapi.rs` fails.
pub fn api_parts() -> Vec<utoipa::openapi::OpenApi> {
    vec![
        health::Api::openapi(),
        auth::Api::openapi(),
        me::Api::openapi(),
        two_factor::Api::openapi(),
        billing::Api::openapi(),
        bots::Api::openapi(),
        chat::Api::openapi(),
        dashboard::Api::openapi(),
        demo::Api::openapi(),
        invitations::Api::openapi(),
        team::Api::openapi(),
        leads::Api::openapi(),
        docs::Api::openapi(),
    ]
}
