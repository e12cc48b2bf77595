//! The chat calls over HTTP on both backends: the visitor's chat call and its token, and the
//! dashboard's session calls (lists, one session, status and priority, take, resolve, inline
//! edit, delete), with roles checked.

mod support;

use parley_store::Role;
use reqwest::StatusCode;
use serde_json::json;
use support::{message, TestApp};

on_both_backends!(
    visitor_chat_and_the_dashboards_session_calls,
    whitelist_and_rate_limit_are_enforced,
    new_conversations_from_one_address_have_a_budget,
    behind_a_trusted_proxy_each_visitor_has_a_budget_of_their_own,
    a_bots_budget_for_new_conversations_pauses_them_and_tells_its_owner,
    huge_page_numbers_give_an_empty_page,
    the_visitor_sees_their_session_without_the_teams_fields,
    without_a_bot_the_session_list_holds_every_bot_the_caller_works_on,
    a_message_sent_again_with_its_client_id_is_saved_and_answered_once,
    a_first_message_whose_caller_gave_up_is_answered_once_for_its_repeat,
);

async fn visitor_chat_and_the_dashboards_session_calls(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (viewer, _) = app.signup("viewer@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Chatty").await;
    app.seat(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let agent = app.member(&bot, "owner@x.co", "agent@x.co", Role::Agent).await;

    let (status, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello there"})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let sid = first["sessionId"].as_str().unwrap().to_string();
    let token = first["visitorToken"].as_str().unwrap().to_string();
    assert!(first["aiResponse"].is_string());

    // A session's later messages need its visitor token.
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "message": "again"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "message": "again", "visitorToken": token})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "x".repeat(501)})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Message is too long (501 characters; the limit is 500)"));
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "hi", "leadData": {"name": "Pat", "email": "not-an-email"}})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please enter a valid email address"), "a visitor's email is checked before anything is saved");
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": "nope", "message": "hi"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1);
    assert_eq!(list["sessions"][0]["title"], "Hello there");
    assert_eq!(list["sessions"][0]["messageCount"], 4);
    let (status, _) = app.get(&format!("/api/sessions?botId={bot}"), Some(&stranger)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (status, one) = app.get(&format!("/api/chat/get-chat-session/{sid}"), Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    let messages = one["session"]["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 4);
    let bot_message = messages.iter().find(|m| m["role"] == "bot").unwrap()["_id"].as_str().unwrap().to_string();
    let user_message = messages.iter().find(|m| m["role"] == "user").unwrap()["_id"].as_str().unwrap().to_string();

    let status_path = format!("/api/chat/session/{sid}/status");
    let (status, body) = app.put_json(&status_path, Some(&owner), json!({"priority": "urgent"})).await;
    assert_eq!((status, body["session"]["priority"].clone()), (StatusCode::OK, json!("urgent")));
    let (status, _) = app.put_json(&status_path, Some(&owner), json!({"priority": "whenever"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, _) = app.put_json(&status_path, Some(&viewer), json!({"priority": "low"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let edit = |id: &str| format!("/api/chat/session/{sid}/messages/{id}");
    let (status, body) = app.put_json(&edit(&bot_message), Some(&owner), json!({"content": "  "})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Message cannot be empty"));
    let (status, body) = app.put_json(&edit(&bot_message), Some(&owner), json!({"content": "A better answer"})).await;
    assert_eq!((status, body["message"]["content"].clone()), (StatusCode::OK, json!("A better answer")));
    let (status, _) = app.put_json(&edit(&user_message), Some(&owner), json!({"content": "rewritten"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "only bot messages can be edited");

    let (status, _) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&viewer), json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, taken) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{taken}");
    let (_, mine) = app.get(&format!("/api/chat/bot/{bot}/agent-sessions"), Some(&owner)).await;
    assert_eq!(mine["total"], 1);
    let (status, again) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&owner), json!({})).await;
    assert_eq!((status, again["session"]["_id"].clone()), (StatusCode::OK, taken["session"]["_id"].clone()), "the taker asking again still has it");
    let (status, _) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&agent), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "already taken by another agent");

    let resolve = format!("/api/chat/session/{sid}/resolve");
    let (status, _) = app.put_json(&resolve, Some(&owner), json!({"rating": 6})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, body) = app.put_json(&resolve, Some(&owner), json!({"rating": 4, "feedback": "Good"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["session"]["status"], "resolved");
    assert!(body["session"]["resolvedAt"].is_string());
    // Once is enough: resolving again, or taking a resolved session, is refused and changes nothing.
    let (status, again) = app.put_json(&resolve, Some(&owner), json!({"rating": 1})).await;
    assert_eq!((status, message(&again)), (StatusCode::CONFLICT, "This session is already resolved"));
    let (status, again) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&agent), json!({})).await;
    assert_eq!((status, message(&again)), (StatusCode::CONFLICT, "This session is already resolved"));
    let (_, one) = app.get(&format!("/api/chat/get-chat-session/{sid}"), Some(&owner)).await;
    assert_eq!((&one["session"]["rating"], &one["session"]["resolvedAt"]), (&json!(4), &body["session"]["resolvedAt"]));
    let notes = one["session"]["messages"].as_array().unwrap().iter().filter(|m| m["content"].as_str().is_some_and(|c| c.starts_with("Session resolved by"))).count();
    assert_eq!(notes, 1, "one resolve note");

    // The status call resolves the same way as the resolve call (time, who, note), not by its status alone.
    let other = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Something else"})).await.1["sessionId"].as_str().unwrap().to_string();
    // A refused priority refuses the whole call: the session is not resolved on the way.
    let (status, body) = app.put_json(&format!("/api/chat/session/{other}/status"), Some(&owner), json!({"status": "resolved", "priority": "critical"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Priority must be low, medium, high or urgent"));
    let (_, one) = app.get(&format!("/api/chat/get-chat-session/{other}"), Some(&owner)).await;
    assert_eq!((&one["session"]["status"], &one["session"]["resolvedAt"]), (&json!("active"), &json!(null)), "{one}");
    let (status, body) = app.put_json(&format!("/api/chat/session/{other}/status"), Some(&owner), json!({"status": "resolved", "priority": "high"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((&body["session"]["status"], &body["session"]["priority"]), (&json!("resolved"), &json!("high")));
    assert!(body["session"]["resolvedAt"].is_string() && body["session"]["resolvedBy"].is_string(), "{body}");
    let (status, _) = app.put_json(&format!("/api/chat/session/{other}/status"), Some(&owner), json!({"status": "resolved"})).await;
    assert_eq!(status, StatusCode::CONFLICT);

    let (status, _) = app.delete(&format!("/api/chat/sessions/{sid}"), Some(&viewer)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app.delete(&format!("/api/chat/sessions/{sid}"), Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.get(&format!("/api/chat/get-chat-session/{sid}"), Some(&owner)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}


async fn whitelist_and_rate_limit_are_enforced(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("w@x.co").await;
    let bot = app.create_bot(&owner, "Guarded").await;
    let page = app.client.get(app.url(&format!("/chat?id={bot}"))).send().await.unwrap();
    assert_eq!(page.headers()["content-security-policy"], "frame-ancestors *");
    let (status, _) = app.put_json(&format!("/api/bots/{bot}/settings"), Some(&owner), json!({"urlWhitelist": ["https://shop.example"]})).await;
    assert_eq!(status, StatusCode::OK);
    let page = app.client.get(app.url(&format!("/chat?id={bot}"))).send().await.unwrap();
    assert_eq!(page.headers()["content-security-policy"], "frame-ancestors 'self' https://shop.example");

    let call = |origin: &'static str| {
        app.client.post(app.url("/api/chat")).header("origin", origin).json(&json!({"botId": bot, "message": "hi"})).send()
    };
    assert_eq!(call("https://evil.example").await.unwrap().status(), StatusCode::FORBIDDEN);
    assert_eq!(call("https://shop.example").await.unwrap().status(), StatusCode::OK);

    let (_, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "hello"})).await;
    let (sid, token) = (first["sessionId"].clone(), first["visitorToken"].clone());
    let mut statuses = Vec::new();
    for i in 0..21 {
        let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": format!("m{i}")})).await;
        statuses.push(status.as_u16());
    }
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 20);
    assert_eq!(*statuses.last().unwrap(), 429, "{statuses:?}");
}

/// Hardening finding 2: anonymous calls cannot start conversations (each spends one of the
/// plan's month) without limit; a visitor whose conversation is open goes on.
async fn new_conversations_from_one_address_have_a_budget(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.realtime.new_conversations_per_ip_per_hour = 1.0;
        s.realtime.new_conversation_ip_burst = 3.0;
    })
    .await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Budget").await;
    // Refused messages start nothing, so they spend none of the budget.
    for refused in [json!({"botId": bot, "message": "   "}), json!({"botId": bot, "message": "x".repeat(501)}), json!({"botId": bot, "message": "hi", "leadData": {"email": "nope"}})] {
        assert_eq!(app.post_json("/api/chat", None, refused).await.0, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let mut open = Vec::new();
    for i in 0..3 {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": format!("hello {i}")})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        open.push((body["sessionId"].clone(), body["visitorToken"].clone()));
    }
    let res = app.client.post(app.url("/api/chat")).json(&json!({"botId": bot, "message": "one more"})).send().await.unwrap();
    assert!(res.headers().get("retry-after").is_some());
    let (status, body) = support::read(res).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(message(&body), "You have started too many conversations in a short time. Please wait a few minutes and try again.");
    for (sid, token) in open {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "still there?"})).await;
        assert_eq!(status, StatusCode::OK, "an open conversation goes on: {body}");
    }
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!(list["total"], 3, "the refused call started nothing");
}

/// Behind a reverse proxy every call's peer is the proxy: the per-address budget must count
/// the visitor the proxy names in X-Forwarded-For (loopback is a trusted proxy by default), and
/// only when the peer is a trusted proxy.
async fn behind_a_trusted_proxy_each_visitor_has_a_budget_of_their_own(backend: parley_store::Backend) {
    let budget = |s: &mut parley_config::Settings| {
        s.billing.default_plan = "enterprise".into();
        s.realtime.new_conversations_per_ip_per_hour = 0.001;
        s.realtime.new_conversation_ip_burst = 2.0;
    };
    let app = TestApp::spawn_with(backend, budget).await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Proxied").await;
    let start = |app: &TestApp, forwarded: &'static str| {
        let req = app.client.post(app.url("/api/chat")).header("X-Forwarded-For", forwarded).json(&json!({"botId": bot, "message": "hello"}));
        async move { req.send().await.unwrap().status() }
    };
    assert_eq!(start(&app, "198.51.100.7").await, StatusCode::OK);
    assert_eq!(start(&app, "198.51.100.7").await, StatusCode::OK);
    assert_eq!(start(&app, "198.51.100.7").await, StatusCode::TOO_MANY_REQUESTS, "this visitor's budget is spent");
    assert_eq!(start(&app, "198.51.100.8").await, StatusCode::OK, "another visitor behind the same proxy is not affected");
    // What a client writes itself stands left of the proxy's entry and is not believed.
    assert_eq!(start(&app, "198.51.100.9, 198.51.100.7").await, StatusCode::TOO_MANY_REQUESTS);

    // With no trusted proxy the header is ignored: every call here comes from the test's address.
    let app = TestApp::spawn_with(backend, move |s| {
        budget(s);
        s.trusted_proxies = String::new();
    })
    .await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Direct").await;
    let start = |forwarded: &'static str| {
        let req = app.client.post(app.url("/api/chat")).header("X-Forwarded-For", forwarded).json(&json!({"botId": bot, "message": "hello"}));
        async move { req.send().await.unwrap().status() }
    };
    let statuses = [start("198.51.100.1").await, start("198.51.100.2").await, start("198.51.100.3").await];
    assert_eq!(statuses, [StatusCode::OK, StatusCode::OK, StatusCode::TOO_MANY_REQUESTS]);
}

async fn a_bots_budget_for_new_conversations_pauses_them_and_tells_its_owner(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.billing.default_plan = "enterprise".into();
        s.realtime.new_conversations_per_ip_per_hour = 0.0;
        s.realtime.new_conversations_per_bot_per_hour = 1.0;
        s.realtime.new_conversation_bot_burst = 2.0;
    })
    .await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Drained").await;
    for _ in 0..2 {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "hi"})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    for _ in 0..3 {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "hi"})).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert_eq!(message(&body), "This assistant is receiving too many new conversations right now. Please try again in a few minutes.");
    }
    // The owner sees it on the dashboard, once however often it tripped.
    let (status, dash) = app.get("/api/dashboard/stats", Some(&owner)).await;
    assert_eq!(status, StatusCode::OK, "{dash}");
    let notices: Vec<String> = dash["recentActivity"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["action"].as_str())
        .filter(|a| a.starts_with("New conversations on Drained were paused"))
        .map(str::to_string)
        .collect();
    assert_eq!(notices.len(), 1, "{dash}");
    // Other bots are not affected.
    let other = app.create_bot(&owner, "Other").await;
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": other, "message": "hi"})).await;
    assert_eq!(status, StatusCode::OK);
}

/// Hardening finding 13: `(page - 1) * limit` overflowed on huge pages.
async fn huge_page_numbers_give_an_empty_page(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Pages").await;
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "hello"})).await;
    assert_eq!(status, StatusCode::OK);
    for path in [
        format!("/api/sessions?botId={bot}&page=9223372036854775807&limit=200"),
        format!("/api/chat/bot/{bot}/all-sessions?page=9223372036854775807&limit=200"),
        format!("/api/bots/{bot}/leads?page=9223372036854775807&limit=500"),
        format!("/api/bots/{bot}/leads?page=4611686018427387904&limit=4"),
    ] {
        let (status, body) = app.get(&path, Some(&owner)).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        let rows = body.get("sessions").or_else(|| body.get("leads")).and_then(|v| v.as_array()).map(Vec::len);
        assert_eq!(rows, Some(0), "{path}: {body}");
        assert_eq!(body["page"], 1_000_000, "{path}");
    }
}

/// Hardening finding 11: the visitor's own session call shows what the widget needs, not the
/// team's fields; the agent's resolve notes stay the team's (apart from the visitor's feedback).
async fn the_visitor_sees_their_session_without_the_teams_fields(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, owner_id) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Private").await;
    let (_, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Where is my parcel?"})).await;
    let sid = first["sessionId"].as_str().unwrap().to_string();
    let token = first["visitorToken"].as_str().unwrap().to_string();
    let (status, _) = app.put_json(&format!("/api/chat/session/{sid}/status"), Some(&owner), json!({"priority": "urgent"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::OK);

    let as_visitor = || async {
        let res = app.client.get(app.url(&format!("/api/chat/get-chat-session/{sid}"))).header("x-visitor-token", &token).send().await.unwrap();
        support::read(res).await
    };
    let (status, seen) = as_visitor().await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    let session = &seen["session"];
    assert_eq!(session["assignedAgent"], json!({"name": "Test User"}), "the agent's name without their account id");
    assert_eq!(session["status"], "active");
    assert!(session["messages"].as_array().is_some_and(|m| !m.is_empty()));
    for hidden in ["priority", "tags", "rating", "feedback", "resolutionNotes", "isPinned", "isStarred"] {
        assert!(session.get(hidden).is_none(), "{hidden} reached the visitor: {session}");
    }
    assert!(!seen.to_string().contains(&owner_id), "the agent's user id reached the visitor");

    let (status, _) = app.put_json(&format!("/api/chat/session/{sid}/resolve"), Some(&owner), json!({"rating": 2, "feedback": "Angry, offer a voucher"})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, team) = app.get(&format!("/api/chat/get-chat-session/{sid}"), Some(&owner)).await;
    assert_eq!(team["session"]["resolutionNotes"], "Angry, offer a voucher", "the team keeps the agent's notes");
    assert_eq!(team["session"]["feedback"], json!(null), "the agent's notes are not the visitor's feedback");
    assert_eq!(team["session"]["rating"], 2);
    let (_, seen) = as_visitor().await;
    assert_eq!(seen["session"]["status"], "resolved");
    assert!(!seen.to_string().contains("voucher"), "the notes reached the visitor: {seen}");
}

/// Spec 2 calls `GET /sessions` with no bot: the caller's sessions on every bot they own or are an
/// active member of, each naming its bot, and nobody else's.
async fn without_a_bot_the_session_list_holds_every_bot_the_caller_works_on(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (member, _) = app.signup("member@x.co").await;
    let (loner, _) = app.signup("loner@x.co").await;
    let shop = app.create_bot(&owner, "Shop").await;
    let desk = app.create_bot(&owner, "Desk").await;
    let elsewhere = app.create_bot(&member, "Elsewhere").await;
    app.seat(&desk, "owner@x.co", "member@x.co", Role::Agent).await;
    for (bot, text) in [(&shop, "About my order"), (&desk, "Help with login"), (&elsewhere, "Opening hours?"), (&elsewhere, "Équipe à l'écoute")] {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": text})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    let titles = |list: &serde_json::Value| {
        let mut t: Vec<(String, String)> = list["sessions"].as_array().unwrap().iter().map(|s| (s["botId"].as_str().unwrap().to_string(), s["title"].as_str().unwrap().to_string())).collect();
        t.sort();
        t
    };
    let mut want = vec![(shop.clone(), "About my order".to_string()), (desk.clone(), "Help with login".to_string())];
    want.sort();
    let (status, list) = app.get("/api/sessions", Some(&owner)).await;
    assert_eq!((status, list["total"].clone()), (StatusCode::OK, json!(2)), "{list}");
    assert_eq!(titles(&list), want);

    // A member sees the bot they were invited to beside their own, not the owner's other bot.
    let (_, list) = app.get("/api/sessions?botId=", Some(&member)).await;
    let mut want = vec![(desk.clone(), "Help with login".to_string()), (elsewhere.clone(), "Opening hours?".to_string()), (elsewhere.clone(), "Équipe à l'écoute".to_string())];
    want.sort();
    assert_eq!(titles(&list), want);
    let (_, searched) = app.get("/api/sessions?q=LOGIN", Some(&member)).await;
    assert_eq!(titles(&searched), vec![(desk.clone(), "Help with login".to_string())]);
    // Accented titles are found in any case, with or without the accents typed.
    for q in ["%C3%A9QUIPE", "%C3%89quipe", "equipe", "A%20L'ECOUTE"] {
        let (_, searched) = app.get(&format!("/api/sessions?q={q}"), Some(&member)).await;
        assert_eq!(titles(&searched), vec![(elsewhere.clone(), "Équipe à l'écoute".to_string())], "{q}");
    }
    let (_, paged) = app.get("/api/sessions?limit=1&page=2", Some(&member)).await;
    assert_eq!((paged["total"].clone(), paged["sessions"].as_array().unwrap().len()), (json!(3), 1));

    let (status, empty) = app.get("/api/sessions", Some(&loner)).await;
    assert_eq!((status, empty["total"].clone(), empty["sessions"].clone()), (StatusCode::OK, json!(0), json!([])));
    let (status, _) = app.get("/api/sessions", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// A call whose response was lost is sent again with the same `clientId`: a first message gets
/// the first call's answer (one conversation, answered once), a later one its saved copy. Other
/// words, or the same words from another address, are another message.
async fn a_message_sent_again_with_its_client_id_is_saved_and_answered_once(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Once").await;
    let send = |body: serde_json::Value, from: &'static str| {
        let req = app.client.post(app.url("/api/chat")).header("X-Forwarded-For", from).json(&body);
        async move {
            let res = req.send().await.unwrap();
            (res.status(), res.json::<serde_json::Value>().await.unwrap())
        }
    };
    let first = json!({"botId": bot, "message": "Do you ship abroad?", "clientId": "c-1"});
    let (status, a) = send(first.clone(), "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK, "{a}");
    let (status, b) = send(first.clone(), "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK, "{b}");
    assert_eq!(a, b, "the repeat gets the first answer: the same conversation, token and reply");
    let sid = a["sessionId"].as_str().unwrap().to_string();
    let token = a["visitorToken"].as_str().unwrap().to_string();
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!((list["total"].clone(), list["sessions"][0]["messageCount"].clone()), (json!(1), json!(2)));

    // The same id with other words, or from another address, is not the same message.
    let (_, c) = send(json!({"botId": bot, "message": "Do you ship to Norway?", "clientId": "c-1"}), "198.51.100.7").await;
    let (_, d) = send(first, "198.51.100.8").await;
    assert_ne!(c["sessionId"], a["sessionId"]);
    assert_ne!(d["sessionId"], a["sessionId"]);
    assert_ne!(d["visitorToken"], a["visitorToken"], "another address never gets this conversation's token");

    // A later message sent again is saved once.
    let later = json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "And to Chile?", "clientId": "c-2"});
    let (status, e) = send(later.clone(), "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK, "{e}");
    let (status, f) = send(later, "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK, "{f}");
    assert_eq!(e["message"]["id"], f["message"]["id"]);
    let (_, one) = app.get(&format!("/api/chat/get-chat-session/{sid}"), Some(&owner)).await;
    let chile = one["session"]["messages"].as_array().unwrap().iter().filter(|m| m["content"] == "And to Chile?").count();
    assert_eq!(chile, 1);

    let (status, body) = send(json!({"botId": bot, "message": "hi", "clientId": "x".repeat(65)}), "198.51.100.7").await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "clientId is too long (the limit is 64 characters)"));
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!(list["total"], 3, "three conversations: the first, the other words, the other address");
}

/// The database refuses the bot's reply to a first message (a trigger, as a full disk would):
/// the call fails, and the conversation it had begun is undone, so the client's repeat starts
/// the only one, and the plan counts one conversation, not two. On PostgreSQL only: SQLite
/// saves a message by appending it to the writer's journal, which a trigger cannot refuse.
#[actix_web::test]
async fn a_first_message_whose_reply_could_not_be_saved_starts_nothing() {
    let app = TestApp::spawn(parley_store::Backend::Postgres).await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Unsaved").await;
    app.db
        .execute(
            "CREATE FUNCTION no_bot_replies() RETURNS trigger AS $$ BEGIN IF NEW.role = 'bot' THEN RAISE EXCEPTION 'no bot replies'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER no_bot_replies BEFORE INSERT ON chat_messages FOR EACH ROW EXECUTE FUNCTION no_bot_replies();",
        )
        .await
        .unwrap();
    let first = json!({"botId": bot, "message": "Do you ship abroad?", "clientId": "c-1"});
    let (status, body) = app.post_json("/api/chat", None, first.clone()).await;
    assert!(status.is_server_error(), "{status} {body}");
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!(list["total"], 0, "the unanswered conversation is undone: {list}");
    let (_, usage) = app.get("/api/billing/usage", Some(&owner)).await;
    assert_eq!(usage["usage"]["conversations"]["used"], 0, "{usage}");

    app.db.execute("DROP TRIGGER no_bot_replies ON chat_messages; DROP FUNCTION no_bot_replies();").await.unwrap();
    let (status, body) = app.post_json("/api/chat", None, first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!((list["total"].clone(), list["sessions"][0]["messageCount"].clone()), (json!(1), json!(2)), "{list}");
    let (_, usage) = app.get("/api/billing/usage", Some(&owner)).await;
    assert_eq!(usage["usage"]["conversations"]["used"], 1, "{usage}");
}

/// An OpenAI-compatible model that takes `delay` before it streams its one-line reply.
fn slow_model(delay: std::time::Duration) -> String {
    use actix_web::{web, App, HttpResponse, HttpServer};
    let server = HttpServer::new(move || {
        App::new().route(
            "/v1/chat/completions",
            web::post().to(move || async move {
                tokio::time::sleep(delay).await;
                let chunk = json!({
                    "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "slow",
                    "choices": [{"index": 0, "delta": {"content": "We ship to 30 countries."}, "finish_reason": null}]
                });
                HttpResponse::Ok().content_type("text/event-stream").body(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
            }),
        )
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let addr = server.addrs()[0];
    actix_web::rt::spawn(server.run());
    format!("http://{addr}/v1")
}

/// The widget gave up on a first message (its timeout, a closed tab) while the model was still
/// answering, then sent it again with its `clientId`: the conversation the first call started is
/// the one the repeat gets, answered once, not a second conversation beside it.
async fn a_first_message_whose_caller_gave_up_is_answered_once_for_its_repeat(backend: parley_store::Backend) {
    let model = slow_model(std::time::Duration::from_millis(1500));
    let app = TestApp::spawn_with(backend, move |s| {
        s.billing.default_plan = "enterprise".into();
        s.llm.answerer = "openai".into();
        s.llm.base_url = model;
        s.llm.model = "slow".into();
        s.llm.api_key = "test-key".into();
    })
    .await;
    let (owner, _) = app.signup("o@x.co").await;
    let bot = app.create_bot(&owner, "Patient").await;
    let first = json!({"botId": bot, "message": "Do you ship abroad?", "clientId": "w-1"});
    // The caller gives up before the model answers, resetting its connection (as a closed tab or
    // an aborted request can), which is when actix drops the call's handler.
    {
        use tokio::io::AsyncWriteExt;
        let body = first.to_string();
        let mut raw = tokio::net::TcpStream::connect(app.base.trim_start_matches("http://")).await.unwrap();
        let request = format!(
            "POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        raw.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        // Deprecated because a non-zero linger blocks the thread on drop; zero resets at once.
        #[allow(deprecated)]
        raw.set_linger(Some(std::time::Duration::ZERO)).unwrap();
        drop(raw);
    }

    // Asked again while the answer is still coming: busy, try again.
    let (status, _) = app.post_json("/api/chat", None, first.clone()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let (status, repeat) = app.post_json("/api/chat", None, first).await;
    assert_eq!(status, StatusCode::OK, "{repeat}");
    assert_eq!(repeat["aiResponse"], "We ship to 30 countries.");
    let (_, list) = app.get(&format!("/api/sessions?botId={bot}"), Some(&owner)).await;
    assert_eq!(list["total"], 1, "one conversation: {list}");
    assert_eq!(list["sessions"][0]["_id"], repeat["sessionId"]);
    assert_eq!(list["sessions"][0]["messageCount"], 2, "asked once, answered once");
}
