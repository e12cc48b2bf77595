//! The agent dashboard's figures over HTTP on both backends: real numbers from the bot's
//! sessions, for the bot's team only.

mod support;

use parley_store::chat::CustomerInfo;
use reqwest::StatusCode;
use serde_json::json;
use support::TestApp;

on_both_backends!(support_stats_are_computed_for_the_team_only);

async fn support_stats_are_computed_for_the_team_only(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    let path = format!("/api/chat/bot/{bot}/support-stats");

    let (status, empty) = app.get(&path, Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(empty, json!({"waiting": 0, "activeChats": 0, "resolvedToday": 0, "totalResolved": 0,
        "averageResponseSeconds": null, "answeredHandoffs": 0, "satisfaction": null, "ratedSessions": 0,
        "pendingQueue": 0, "averageResponseTime": null, "customerSatisfaction": null}));

    // A visitor asks for a human; the owner resolves it with a rating.
    let (_, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello"})).await;
    let sid = first["sessionId"].as_str().unwrap().to_string();
    let store = app.db.open().await.unwrap();
    store.request_support(&sid, &CustomerInfo::default()).await.unwrap();
    assert_eq!(app.get(&path, Some(&owner)).await.1["waiting"], 1);
    let (status, _) = app.put_json(&format!("/api/chat/session/{sid}/resolve"), Some(&owner), json!({"rating": 4, "feedback": "ok"})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, after) = app.get(&path, Some(&owner)).await;
    assert_eq!((after["waiting"].as_i64(), after["resolvedToday"].as_i64(), after["totalResolved"].as_i64()), (Some(0), Some(1), Some(1)));
    assert_eq!((after["satisfaction"].as_f64(), after["ratedSessions"].as_i64()), (Some(4.0), Some(1)));
    // "Today" is the viewer's: resolved a moment ago is today in every zone.
    for tz in ["Pacific/Kiritimati", "-11:00", "Europe/Paris"] {
        let (status, zoned) = app.get(&format!("{path}?tz={}", tz.replace('+', "%2B")), Some(&owner)).await;
        assert_eq!((status, zoned["resolvedToday"].as_i64()), (StatusCode::OK, Some(1)), "{tz}");
    }
    let (status, body) = app.get(&format!("{path}?tz=Mars/Olympus"), Some(&owner)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    assert_eq!(app.get(&path, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&path, None).await.0, StatusCode::UNAUTHORIZED);
}
