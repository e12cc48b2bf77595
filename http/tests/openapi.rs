//! The API contract at `/api/openapi.json` covers every REST route the app registers: a route
//! added without `#[utoipa::path]` (or whose module's part is not joined) fails here.
//! The routes are read from the `.route("...", web::get()...)` calls under `src/routes/`, the
//! one place REST routes are registered.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use parley_store::Backend;
use reqwest::StatusCode;
use serde_json::Value;
use support::TestApp;

/// `{name}` becomes `{}`, so `/bots/{id}` and `/bots/{bot_id}` compare equal.
fn shape(path: &str) -> String {
    let mut out = String::new();
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            _ if in_param => {}
            _ => out.push(c),
        }
    }
    out
}

/// (METHOD, /api/path shape) of each `.route(` call in the files under `dir`.
fn registered_routes(dir: &Path, found: &mut BTreeSet<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("routes dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            registered_routes(&path, found);
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        for piece in text.split(".route(\"").skip(1) {
            let (route, rest) = piece.split_once('"').expect("route string");
            let method = rest.split_once("web::").and_then(|(_, m)| m.split_once('(')).map(|(m, _)| m).expect("web::<method>()");
            found.insert((method.to_uppercase(), shape(&format!("/api{route}"))));
        }
    }
}

fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            out.insert((method.to_uppercase(), shape(path)));
        }
    }
    out
}

#[actix_web::test]
async fn every_registered_route_is_in_the_document() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (status, doc) = app.get("/api/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")), "{}", doc["openapi"]);

    let mut registered = BTreeSet::new();
    registered_routes(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/routes"), &mut registered);
    assert!(registered.len() > 50, "the route scan found only {registered:?}");
    let documented = documented(&doc);
    let missing: Vec<_> = registered.difference(&documented).collect();
    assert!(missing.is_empty(), "registered but not in /api/openapi.json: {missing:?}");
    let stale: Vec<_> = documented.difference(&registered).collect();
    assert!(stale.is_empty(), "in /api/openapi.json but not registered: {stale:?}");
}

#[actix_web::test]
async fn every_operation_names_its_answers_and_the_shared_error_shape() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let (_, doc) = app.get("/api/openapi.json", None).await;
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let responses = op["responses"].as_object().expect("responses");
            assert!(responses.keys().any(|s| s.starts_with('2') || s.starts_with('3')), "{method} {path} has no success answer");
        }
    }
}

#[actix_web::test]
async fn the_reference_page_renders_from_our_own_origin() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let page = app.client.get(app.url("/api/docs")).send().await.expect("docs");
    assert_eq!(page.status(), StatusCode::OK);
    let csp = page.headers().get("content-security-policy").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let html = page.text().await.expect("html");
    assert!(html.contains("/api/docs/docs.js") && !html.contains("https://"), "the page loads nothing from elsewhere");
    let script = app.client.get(app.url("/api/docs/docs.js")).send().await.expect("script");
    assert_eq!(script.status(), StatusCode::OK);
    assert!(script.text().await.expect("js").contains("/api/openapi.json"));
}
