//! Hardening finding 12: the dashboard's pages carry a strict Content-Security-Policy and
//! cannot be framed by other sites; the visitor chat keeps its own policy (framing allowed by
//! the bot's whitelist).

mod support;

use reqwest::StatusCode;
use support::TestApp;

/// The policy's directives by name.
fn directives(policy: &str) -> std::collections::HashMap<String, String> {
    policy
        .split(';')
        .filter_map(|d| {
            let d = d.trim();
            let (name, value) = d.split_once(' ').unwrap_or((d, ""));
            (!name.is_empty()).then(|| (name.to_string(), value.trim().to_string()))
        })
        .collect()
}

#[actix_web::test]
async fn the_dashboard_runs_only_its_own_scripts_and_cannot_be_framed() {
    let app = TestApp::spawn_with(parley_store::Backend::Sqlite, |s| {
        for (dir, page) in [(&s.web.dashboard_dir, "index.html"), (&s.web.widget_dir, "chat.html")] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(page), "<!doctype html><div id=root></div>").unwrap();
        }
    })
    .await;
    for path in ["/", "/login", "/dashboard", "/bots/abc/customize", "/auth-success"] {
        let res = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let policy = res.headers().get("content-security-policy").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        let d = directives(&policy);
        assert_eq!(d.get("frame-ancestors").map(String::as_str), Some("'self'"), "{path}: {policy}");
        assert_eq!(d.get("script-src").map(String::as_str), Some("'self'"), "{path}: no inline or eval'd script: {policy}");
        assert_eq!(d.get("object-src").map(String::as_str), Some("'none'"), "{path}: {policy}");
        assert_eq!(d.get("base-uri").map(String::as_str), Some("'self'"), "{path}: {policy}");
        assert_eq!(res.headers().get("x-frame-options").map(|v| v.to_str().unwrap()), Some("SAMEORIGIN"), "{path}");
    }

    // The visitor chat is framed by the bot owner's site: it keeps its whitelist policy.
    let (token, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&token, "Framed").await;
    let chat = app.client.get(app.url(&format!("/chat?id={bot}"))).send().await.unwrap();
    assert_eq!(chat.headers()["content-security-policy"], "frame-ancestors *");
    assert!(chat.headers().get("x-frame-options").is_none());
}
