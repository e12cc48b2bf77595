//! The dashboard overview over HTTP on both backends: totals, growth and activity from real
//! rows, the bot performance panel, and the sessions list's title search.

mod support;

use parley_store::chat::CustomerInfo;
use reqwest::StatusCode;
use serde_json::json;
use support::{message, TestApp};

on_both_backends!(overview_counts_what_happened, bot_performance_is_measured_from_conversations, sessions_search_by_title);

async fn overview_counts_what_happened(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;

    let (status, empty) = app.get("/api/dashboard/stats", Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(empty["period"], "7d");
    assert_eq!(empty["stats"]["totalBots"], 0);
    assert_eq!(empty["stats"]["totalConversations"], 0);
    assert_eq!(empty["growth"], json!({"conversations": 0.0, "users": 0.0, "resolution": 0.0, "credits": 0.0}));
    assert_eq!(empty["recentActivity"][0]["action"], "Account created");

    let bot = app.create_bot(&owner, "Helpdesk").await;
    for text in ["Hello", "Where is my order?"] {
        let (s, _) = app.post_json("/api/chat", None, json!({"botId": bot, "message": text})).await;
        assert_eq!(s, StatusCode::OK);
    }
    let (_, stats) = app.get("/api/dashboard/stats?period=30d", Some(&owner)).await;
    assert_eq!(stats["period"], "30d");
    let s = &stats["stats"];
    assert_eq!((s["totalBots"].as_i64(), s["activeBots"].as_i64()), (Some(1), Some(1)));
    assert_eq!(s["totalConversations"], 2);
    assert_eq!(s["totalMessages"], 4, "two visitor messages and two replies: {stats}");
    assert_eq!(s["activeUsers"], 2);
    assert_eq!(s["creditsUsed"], 2, "one credit per reply");
    assert_eq!(stats["current"]["conversations"], 2);
    assert_eq!(stats["previous"]["conversations"], 0);
    assert_eq!(stats["growth"]["conversations"], json!(null), "nothing to compare with");
    assert_eq!(stats["recentActivity"][0]["action"], "Created assistant Helpdesk");
    let (_, list) = app.get("/api/bots", Some(&owner)).await;
    assert_eq!(list["bots"][0]["conversationCount"], 2, "each card counts its own bot's conversations");
    assert_eq!(stats["recentActivity"][0]["botName"], "Helpdesk");

    // Another team sees none of it.
    let (_, theirs) = app.get("/api/dashboard/stats", Some(&stranger)).await;
    assert_eq!(theirs["stats"]["totalConversations"], 0);
    assert!(theirs["recentActivity"].as_array().unwrap().iter().all(|a| a["botName"].is_null()));

    let (status, body) = app.get("/api/dashboard/stats?period=1y", Some(&owner)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(message(&body), "Period must be 24h, 7d, 30d or 90d");
    assert_eq!(app.get("/api/dashboard/stats", None).await.0, StatusCode::UNAUTHORIZED);
}

async fn bot_performance_is_measured_from_conversations(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    let path = format!("/api/bots/{bot}/stats");

    let (status, empty) = app.get(&path, Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((empty["totalMessages"].as_i64(), empty["totalConversations"].as_i64()), (Some(0), Some(0)));
    assert_eq!((empty["averageResponseTime"].clone(), empty["resolutionRate"].clone()), (json!(null), json!(null)));

    // Two conversations: one settled by the assistant, one waiting for a human.
    let mut ids = Vec::new();
    for text in ["Hello", "I need a person"] {
        let (_, r) = app.post_json("/api/chat", None, json!({"botId": bot, "message": text})).await;
        ids.push(r["sessionId"].as_str().unwrap().to_string());
    }
    let store = app.db.open().await.unwrap();
    store.request_support(&ids[1], &CustomerInfo::default()).await.unwrap();

    let (_, p) = app.get(&path, Some(&owner)).await;
    assert_eq!((p["totalMessages"].as_i64(), p["totalConversations"].as_i64(), p["activeUsers"].as_i64()), (Some(4), Some(2), Some(2)));
    assert_eq!(p["answeredMessages"], 2);
    assert!(p["averageResponseTime"].as_f64().unwrap() >= 0.0);
    assert_eq!(p["resolutionRate"], 50.0);
    assert!(p["lastUpdated"].is_string());

    // Resolving the handoff settles it.
    app.put_json(&format!("/api/chat/session/{}/resolve", ids[1]), Some(&owner), json!({"rating": 5})).await;
    assert_eq!(app.get(&path, Some(&owner)).await.1["resolutionRate"], 100.0);

    assert_eq!(app.get(&path, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
}

async fn sessions_search_by_title(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    for text in ["Refund for ORDER 12", "Shipping times", "refund_policy 100%"] {
        app.post_json("/api/chat", None, json!({"botId": bot, "message": text})).await;
    }
    let titles = |body: &serde_json::Value| {
        let mut t: Vec<String> = body["sessions"].as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap().to_string()).collect();
        t.sort();
        t
    };
    let (status, all) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!((status, all["total"].as_i64()), (StatusCode::OK, Some(3)));

    let (_, refunds) = app.get(&format!("/api/sessions?botId={bot}&q=REFUND"), Some(&owner)).await;
    assert_eq!(titles(&refunds), vec!["Refund for ORDER 12", "refund_policy 100%"], "any case");
    assert_eq!(refunds["total"], 2);
    // Wildcards typed by a person are matched literally.
    let (_, percent) = app.get(&format!("/api/sessions?botId={bot}&q=100%25"), Some(&owner)).await;
    assert_eq!(titles(&percent), vec!["refund_policy 100%"]);
    let (_, underscore) = app.get(&format!("/api/sessions?botId={bot}&q=d_p"), Some(&owner)).await;
    assert_eq!(titles(&underscore), vec!["refund_policy 100%"]);
    let (_, none) = app.get(&format!("/api/sessions?botId={bot}&q=nothing"), Some(&owner)).await;
    assert_eq!(none["total"], 0);
    let (_, blank) = app.get(&format!("/api/sessions?botId={bot}&q=%20"), Some(&owner)).await;
    assert_eq!(blank["total"], 3, "a blank search is no search");
}
