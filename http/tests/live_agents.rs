//! The live channel as the bot's agents hear it, on both backends: an agent who follows a
//! conversation (`join-session`) and its bot (`join-as-agent`) hears each of the conversation's
//! team events once, like an agent who follows only the bot; spec 2's client counts a
//! `session-resolved` into "Resolved Today", so twice would count it twice.

mod support;

use parley_store::Role;
use reqwest::StatusCode;
use serde_json::json;
use support::sio::SioClient;
use support::TestApp;

on_both_backends!(an_agent_who_follows_a_conversation_and_its_bot_hears_each_event_once);

fn count(socket: &SioClient, name: &str) -> usize {
    socket.events.iter().filter(|(n, _)| n == name).count()
}

/// Waits until `socket` has heard `name` at least `n` times.
async fn heard(socket: &mut SioClient, name: &str, n: usize) {
    while count(socket, name) < n {
        socket.poll().await;
    }
}

async fn an_agent_who_follows_a_conversation_and_its_bot_hears_each_event_once(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Desk").await;
    let ann = app.member(&bot, "owner@x.co", "ann@x.co", Role::Agent).await;
    let bob = app.member(&bot, "owner@x.co", "bob@x.co", Role::Agent).await;

    let (status, chat) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello there"})).await;
    assert_eq!(status, StatusCode::OK, "{chat}");
    let sid = chat["sessionId"].as_str().unwrap().to_string();
    let mut visitor = SioClient::connect(&app, json!({"visitorToken": chat["visitorToken"]})).await;
    assert_eq!(visitor.emit_with_ack("join-session", json!({"sessionId": sid, "botId": bot})).await["success"], true);

    // Ann follows the bot and the conversation; Bob only the bot.
    let mut ann_socket = SioClient::connect(&app, json!({"token": ann})).await;
    assert_eq!(ann_socket.emit_with_ack("join-as-agent", json!({"botId": bot})).await["success"], true);
    assert_eq!(ann_socket.emit_with_ack("join-session", json!({"sessionId": sid})).await["success"], true);
    let mut bob_socket = SioClient::connect(&app, json!({"token": bob})).await;
    assert_eq!(bob_socket.emit_with_ack("join-as-agent", json!({"botId": bot})).await["success"], true);

    // The visitor types; the owner changes the priority over REST; Ann takes and resolves.
    visitor.emit_with_ack("typing-start", json!({"sessionId": sid})).await;
    let (status, body) = app.put_json(&format!("/api/chat/session/{sid}/status"), Some(&owner), json!({"priority": "high"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(ann_socket.emit_with_ack("take-session", json!({"sessionId": sid})).await["success"], true);
    let resolved = ann_socket.emit_with_ack("resolve-session", json!({"sessionId": sid, "rating": 5})).await;
    assert_eq!(resolved["success"], true, "{resolved}");

    for socket in [&mut ann_socket, &mut bob_socket] {
        heard(socket, "customer-typing", 1).await;
        heard(socket, "session-updated", 1).await;
        heard(socket, "session-resolved", 1).await;
        // Anything sent twice has arrived by the time this answer has: a take goes through the
        // bot's actor after everything it was told before, and a connection's events keep
        // their order. (The conversation is resolved, so nobody takes it.)
        let late = socket.emit_with_ack("take-session", json!({"sessionId": sid})).await;
        assert_eq!(late["success"], false, "{late}");
        assert_eq!(count(socket, "customer-typing"), 1, "{:?}", socket.events);
        assert_eq!(count(socket, "session-resolved"), 1, "{:?}", socket.events);
    }
    // The priority change is one update; taking and resolving are more, each heard once by
    // Ann as by Bob.
    assert_eq!(count(&ann_socket, "session-updated"), count(&bob_socket, "session-updated"), "ann {:?}\nbob {:?}", ann_socket.events, bob_socket.events);
}
