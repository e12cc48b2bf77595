//! REST routes under `/api`, laid out as the URL tree.

mod auth;
mod bots;
mod chat;
mod dashboard;
mod health;
mod invitations;
mod leads;
mod me;
mod team;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api")
            .configure(health::configure)
            .configure(auth::configure)
            .configure(me::configure)
            .configure(bots::configure)
            .configure(chat::configure)
            .configure(dashboard::configure)
            .configure(invitations::configure)
            .configure(leads::configure)
            .configure(team::configure)
            .default_service(web::to(not_found)),
    );
}

async fn not_found() -> Result<actix_web::HttpResponse, crate::error::ApiError> {
    Err(crate::error::ApiError::not_found("Route"))
}
