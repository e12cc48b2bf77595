//! `GET /api/openapi.json`, the API contract (see `crate::openapi`), and `GET /api/docs`, a
//! reference page rendered from it by a small script of our own: no CDN, so it works offline
//! and under a CSP that allows scripts from this origin only.

use actix_web::http::header::{CacheControl, CacheDirective, ContentType, CONTENT_SECURITY_POLICY};
use actix_web::{web, HttpResponse};
use utoipa::OpenApi;

const PAGE: &str = include_str!("../openapi/docs.html");
const SCRIPT: &str = include_str!("../openapi/docs.js");
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.json", web::get().to(openapi_json))
        .route("/docs", web::get().to(docs_page))
        .route("/docs/docs.js", web::get().to(docs_script));
}

#[derive(OpenApi)]
#[openapi(paths(openapi_json, docs_page, docs_script), tags((name = "docs", description = "This document and its rendered reference")))]
pub struct Api;

/// The OpenAPI 3.1 document of every REST call.
#[utoipa::path(get, path = "/api/openapi.json", tag = "docs", responses((status = 200, description = "The document", content_type = "application/json", body = Object)))]
async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(CacheControl(vec![CacheDirective::NoCache]))
        .content_type(ContentType::json())
        .body(crate::openapi::document_json())
}

/// The API reference, rendered in the browser from `/api/openapi.json`.
#[utoipa::path(get, path = "/api/docs", tag = "docs", responses((status = 200, description = "An HTML page", content_type = "text/html", body = String)))]
async fn docs_page() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_SECURITY_POLICY, PAGE_CSP))
        .content_type(ContentType::html())
        .body(PAGE)
}

/// The reference page's script.
#[utoipa::path(get, path = "/api/docs/docs.js", tag = "docs", responses((status = 200, description = "JavaScript", content_type = "text/javascript", body = String)))]
async fn docs_script() -> HttpResponse {
    HttpResponse::Ok().content_type("text/javascript; charset=utf-8").body(SCRIPT)
}
