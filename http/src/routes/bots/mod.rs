//! `/api/bots`: the bots a user can see, creating one from the wizard's form, reading,
//! updating and deleting one, its abuse-protection settings, and its public theme.

mod analytics;
mod create;
mod crud;
mod leads;
mod settings;
mod sources;
mod stats;
mod team;
mod theme;

use actix_web::web;
use utoipa::OpenApi;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/bots", web::get().to(crud::list))
        .route("/bots", web::post().to(create::create))
        .route("/bots/{bot_id}", web::get().to(crud::get))
        .route("/bots/{bot_id}", web::put().to(crud::update))
        .route("/bots/{bot_id}", web::delete().to(crud::delete))
        .route("/bots/{bot_id}/icon", web::post().to(create::replace_icon))
        .route("/bots/{bot_id}/settings", web::get().to(settings::get))
        .route("/bots/{bot_id}/settings", web::put().to(settings::update))
        .route("/bots/{bot_id}/sources", web::get().to(sources::list))
        .route("/bots/{bot_id}/sources/pdf", web::post().to(sources::add_pdf))
        .route("/bots/{bot_id}/sources/website", web::post().to(sources::add_website))
        .route("/bots/{bot_id}/sources/text", web::post().to(sources::add_text))
        .route("/bots/{bot_id}/sources/qa", web::post().to(sources::add_qa))
        .route("/bots/{bot_id}/sources/{source_id}", web::delete().to(sources::delete))
        .route("/bots/{bot_id}/train", web::post().to(sources::train))
        .route("/bots/{bot_id}/team", web::get().to(team::list))
        .route("/bots/{bot_id}/leads", web::get().to(leads::list))
        .route("/bots/{bot_id}/stats", web::get().to(stats::stats))
        .route("/bots/{bot_id}/analytics", web::get().to(analytics::analytics))
        .route("/bots/{bot_id}/team/invite", web::post().to(team::invite))
        .route("/bots/{bot_id}/team/{member_id}", web::put().to(team::update))
        .route("/bots/{bot_id}/team/{member_id}", web::delete().to(team::remove))
        .route("/bots/{bot_id}/team/{member_id}/resend", web::post().to(team::resend))
        .route("/bots/{id}/theme", web::get().to(theme::theme));
}

#[derive(OpenApi)]
#[openapi(
    paths(
        crud::list, create::create, crud::get, crud::update, crud::delete, create::replace_icon,
        settings::get, settings::update, sources::list, sources::add_pdf, sources::add_website,
        sources::add_text, sources::add_qa, sources::delete, sources::train, team::list, leads::list,
        stats::stats, analytics::analytics, team::invite, team::update, team::remove, team::resend, theme::theme,
    ),
    tags(
        (name = "bots", description = "Bots, their settings and public theme"),
        (name = "training", description = "Knowledge sources and training"),
        (name = "team", description = "A bot's team and invitations"),
        (name = "leads", description = "Contact details visitors left"),
        (name = "analytics", description = "Figures from real conversations"),
    )
)]
pub struct Api;
