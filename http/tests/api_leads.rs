//! Leads on both backends: the details a visitor leaves in the chat become one scored lead per
//! conversation, listed for the bot's team and no one else.

mod support;

use parley_store::Role;
use reqwest::StatusCode;
use serde_json::json;
use support::TestApp;

on_both_backends!(a_visitors_details_become_the_bots_lead);

async fn a_visitors_details_become_the_bots_lead(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (viewer, _) = app.signup("viewer@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let store = app.db.open().await.unwrap();
    let owner_id = store.user_by_email("owner@x.co").await.unwrap().unwrap().id;
    let invite = store.invite_member(&bot, "viewer@x.co", Role::Viewer, &owner_id).await.unwrap();
    store.respond_invitation(&invite.id, &store.user_by_email("viewer@x.co").await.unwrap().unwrap(), true).await.unwrap();
    let leads = format!("/api/bots/{bot}/leads");

    // A message without details saves no lead.
    let (status, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hi"})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let (sid, token) = (first["sessionId"].as_str().unwrap().to_string(), first["visitorToken"].as_str().unwrap().to_string());
    assert_eq!(app.get(&leads, Some(&owner)).await.1["total"], 0);

    // Details with a message: one lead, scored, with the conversation.
    let (status, _) = app
        .post_json(
            "/api/chat",
            None,
            json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "Call me",
                   "leadData": {"name": " Vic ", "email": "vic@visitor.example", "phone": "", "company": ""}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, list) = app.get(&leads, Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1);
    let lead = &list["leads"][0];
    assert_eq!((lead["name"].as_str(), lead["email"].as_str(), lead["phone"].as_str()), (Some("Vic"), Some("vic@visitor.example"), None));
    assert_eq!((lead["status"].as_str(), lead["source"].as_str(), lead["sessionId"].as_str()), (Some("new"), Some("website_chat"), Some(sid.as_str())));
    let first_score = lead["leadScore"].as_i64().unwrap();
    assert!(first_score >= 45, "email + name + some messages: {first_score}");

    // More details later in the same conversation fill in the same lead.
    let (status, _) = app
        .post_json(
            "/api/chat",
            None,
            json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "and my phone",
                   "leadData": {"phone": "+44 20 7946 0000", "company": "Acme"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = app.get(&leads, Some(&viewer)).await;
    assert_eq!(list["total"], 1, "one lead per conversation");
    let lead = &list["leads"][0];
    assert_eq!((lead["name"].as_str(), lead["phone"].as_str(), lead["company"].as_str()), (Some("Vic"), Some("+44 20 7946 0000"), Some("Acme")));
    assert!(lead["leadScore"].as_i64().unwrap() > first_score);

    // Only the bot's team sees them; pages are bounded.
    assert_eq!(app.get(&leads, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&leads, None).await.0, StatusCode::UNAUTHORIZED);
    let (_, page) = app.get(&format!("{leads}?page=2&limit=1"), Some(&owner)).await;
    assert_eq!((page["leads"].as_array().unwrap().len(), page["total"].as_i64()), (0, Some(1)));
}
