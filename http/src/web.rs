//! The two built web apps and public uploads, served from disk: the dashboard (every unknown
//! route falls back to its index.html, the router decides), and the widget (`/widget.js`,
//! the visitor chat at `/chat` and `/chatbot`, its assets under `/widget-assets/`).

use std::path::{Path, PathBuf};

use actix_files::{Files, NamedFile};
use actix_web::{web, HttpRequest, HttpResponse};

use crate::state::AppState;
use crate::uploads;

pub fn configure(cfg: &mut web::ServiceConfig, state: &AppState) {
    let widget_dir = state.settings.web.widget_dir.clone();
    let dashboard_dir = state.settings.web.dashboard_dir.clone();
    let public_uploads = uploads::public_dir(&state.settings.data_dir);
    if std::fs::create_dir_all(&public_uploads).is_ok() {
        cfg.service(Files::new("/uploads/public", public_uploads));
    }
    cfg.route("/widget.js", web::get().to(widget_script))
        .route("/chat", web::get().to(chat_page))
        .route("/chatbot", web::get().to(chat_page));
    if widget_dir.join("widget-assets").is_dir() {
        cfg.service(Files::new("/widget-assets", widget_dir.join("widget-assets")));
    }
    if dashboard_dir.join("assets").is_dir() {
        cfg.service(Files::new("/assets", dashboard_dir.join("assets")));
    }
    cfg.default_service(web::get().to(dashboard_page));
}

fn not_built(what: &str, dir: &Path) -> HttpResponse {
    HttpResponse::ServiceUnavailable().content_type("text/plain; charset=utf-8").body(format!(
        "The {what} has not been built ({} is missing). Build it with scripts/run.sh.",
        dir.display()
    ))
}

async fn serve_file(req: &HttpRequest, path: PathBuf, what: &str, dir: &Path) -> HttpResponse {
    match NamedFile::open_async(&path).await {
        Ok(file) => file.use_last_modified(true).into_response(req),
        Err(_) => not_built(what, dir),
    }
}

async fn widget_script(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let dir = &state.settings.web.widget_dir;
    let mut res = serve_file(&req, dir.join("widget.js"), "widget", dir).await;
    // Host pages on any origin load the script.
    res.headers_mut().insert(
        actix_web::http::header::ACCESS_CONTROL_ALLOW_ORIGIN,
        actix_web::http::header::HeaderValue::from_static("*"),
    );
    res
}

/// The visitor chat. Framing is limited to the bot's whitelist (`frame-ancestors`).
async fn chat_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let dir = &state.settings.web.widget_dir;
    let bot_id = web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.get("id").cloned());
    let policy = match bot_id {
        Some(id) => match state.store.bot_settings(&id).await {
            Ok(settings) => crate::embedding::frame_ancestors(&settings),
            Err(_) => "frame-ancestors 'self'".into(),
        },
        None => "frame-ancestors 'self'".into(),
    };
    let mut res = serve_file(&req, dir.join("chat.html"), "visitor chat", dir).await;
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&policy) {
        res.headers_mut().insert(actix_web::http::header::CONTENT_SECURITY_POLICY, value);
    }
    res
}

/// The dashboard's Content-Security-Policy. Scripts only from our own origin (Vite's build
/// has no inline script), so an injected `<script>` or event handler does not run; styles may
/// be inline (Mantine writes its CSS variables into a `<style>` element); pictures may come
/// from anywhere over https (OAuth avatars, bot avatar URLs); the API and the live channel
/// are same-origin; and only our own pages may frame it (clickjacking).
pub const DASHBOARD_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob: https:; font-src 'self' data:; connect-src 'self'; frame-src 'self'; \
     frame-ancestors 'self'; base-uri 'self'; form-action 'self'; object-src 'none'";

/// The dashboard's policy on this server: with payments configured, Stripe.js may load from its
/// origin, call Stripe's API and frame its card field and 3-D Secure pages (Stripe's documented
/// CSP; the origins come from the settings, so a local stand-in works too).
pub fn dashboard_csp(stripe: &parley_config::StripeSettings) -> String {
    let origin = |u: &str| url::Url::parse(u).ok().map(|u| u.origin().ascii_serialization()).filter(|o| o != "null");
    let (true, Some(js), Some(api)) = (stripe.is_configured(), origin(&stripe.js_url), origin(&stripe.api_base)) else {
        return DASHBOARD_CSP.to_string();
    };
    let frames = if js == "https://js.stripe.com" { format!("{js} https://hooks.stripe.com") } else { js.clone() };
    DASHBOARD_CSP
        .replace("script-src 'self';", &format!("script-src 'self' {js};"))
        .replace("connect-src 'self';", &format!("connect-src 'self' {api};"))
        .replace("frame-src 'self';", &format!("frame-src 'self' {frames};"))
}

async fn dashboard_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let dir = &state.settings.web.dashboard_dir;
    // A path that names a real file in the build (favicon, robots.txt) is served as is.
    let relative = req.path().trim_start_matches('/');
    if !relative.is_empty() && !relative.contains("..") {
        let candidate = dir.join(relative);
        if candidate.is_file() {
            return serve_file(&req, candidate, "dashboard", dir).await;
        }
    }
    let mut res = serve_file(&req, dir.join("index.html"), "dashboard", dir).await;
    let headers = res.headers_mut();
    let policy = actix_web::http::header::HeaderValue::from_str(&dashboard_csp(&state.settings.stripe))
        .unwrap_or_else(|_| actix_web::http::header::HeaderValue::from_static(DASHBOARD_CSP));
    headers.insert(actix_web::http::header::CONTENT_SECURITY_POLICY, policy);
    // For browsers without CSP's frame-ancestors.
    headers.insert(actix_web::http::header::X_FRAME_OPTIONS, actix_web::http::header::HeaderValue::from_static("SAMEORIGIN"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripe_js_is_allowed_only_with_payments_configured() {
        let mut stripe = parley_config::Settings::defaults().map(|s| s.stripe).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(dashboard_csp(&stripe), DASHBOARD_CSP);
        stripe.secret_key = "sk_test_1".into();
        stripe.publishable_key = "pk_test_1".into();
        let csp = dashboard_csp(&stripe);
        assert!(csp.contains("script-src 'self' https://js.stripe.com;"), "{csp}");
        assert!(csp.contains("connect-src 'self' https://api.stripe.com;"), "{csp}");
        assert!(csp.contains("frame-src 'self' https://js.stripe.com https://hooks.stripe.com;"), "{csp}");
    }
}
