//! The create wizard's website (typed on the landing page and carried through sign-up) is
//! crawled for real as the new bot's first training source, on both backends: a local site on
//! loopback is read, the source completes, and the bot answers from its pages.

mod support;

use actix_web::{web, App, HttpResponse, HttpServer};
use reqwest::multipart::Form;
use reqwest::StatusCode;
use serde_json::Value;
use support::TestApp;

on_both_backends!(the_wizard_s_website_is_crawled_and_answered_from);

const HOME: &str = "<html><head><title>Acme Bikes</title></head><body><h1>Acme Bikes</h1>\
    <p>Acme Bikes repairs bicycles in Lisbon.</p><a href=\"/warranty\">Warranty</a></body></html>";
const WARRANTY: &str = "<html><head><title>Warranty</title></head><body><h1>Warranty</h1>\
    <p>Every frame we sell carries a lifetime warranty against cracks and breaks.</p></body></html>";

/// A two-page site on a random loopback port; returns its base URL.
fn serve_site() -> String {
    let server = HttpServer::new(|| {
        App::new()
            .route("/", web::get().to(|| async { HttpResponse::Ok().content_type("text/html").body(HOME) }))
            .route("/warranty", web::get().to(|| async { HttpResponse::Ok().content_type("text/html").body(WARRANTY) }))
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let port = server.addrs()[0].port();
    actix_web::rt::spawn(server.run());
    format!("http://127.0.0.1:{port}/")
}

async fn the_wizard_s_website_is_crawled_and_answered_from(backend: parley_store::Backend) {
    let site = serve_site();
    let app = TestApp::spawn_with(backend, |s| {
        s.crawler.allow_private = true;
        s.billing.default_plan = "enterprise".into();
    })
    .await;
    let (token, _) = app.signup("newcomer@x.co").await;
    let form = Form::new().text("name", "Acme Helper").text("websiteUrl", site.clone()).text("faqMethod", "skip");
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let bot = body["bot"]["_id"].as_str().unwrap().to_string();
    assert_eq!(body["bot"]["websiteUrl"], site);

    let mut sources = Value::Null;
    for _ in 0..400 {
        sources = app.get(&format!("/api/bots/{bot}/sources"), Some(&token)).await.1;
        if sources["websites"][0]["status"] != "processing" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(sources["counts"]["websites"], 1, "{sources}");
    let website = &sources["websites"][0];
    assert_eq!(website["status"], "completed", "{sources}");

    let (status, reply) = app.post_json("/api/chat", None, serde_json::json!({"botId": bot, "message": "Is there a warranty on frames?"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let answer = reply["aiResponse"].as_str().unwrap_or_default();
    assert!(answer.contains("lifetime warranty"), "answered from the crawled page: {answer}");
}
