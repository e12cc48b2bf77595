//! Issue 19's bot details and session marks over HTTP, on both backends: the active switch
//! (who may turn it, and that visitors are refused while it is off and served again after),
//! and pin and star on sessions (`PUT /api/chat/session/{id}`, the list's filters and order),
//! with the roles and bad input refused without a change.

mod support;

use parley_store::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::{message, TestApp};

on_both_backends!(the_active_switch_takes_visitors_offline_and_back, sessions_are_pinned_and_starred_by_the_team);


async fn status_of(app: &TestApp, bot: &str) -> Value {
    let (status, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(status, StatusCode::OK, "{theme}");
    theme["status"].clone()
}

async fn the_active_switch_takes_visitors_offline_and_back(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Switchy").await;
    let editor = app.member(&bot, "owner@x.co", "editor@x.co", Role::Editor).await;
    let viewer = app.member(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let agent = app.member(&bot, "owner@x.co", "agent@x.co", Role::Agent).await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let path = format!("/api/bots/{bot}");

    // A visitor's conversation is under way before the switch.
    let (status, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello"})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let (sid, token) = (first["sessionId"].as_str().unwrap().to_string(), first["visitorToken"].as_str().unwrap().to_string());

    // Only roles that edit the bot turn it; the others change nothing.
    for (who, expected) in [(&viewer, StatusCode::FORBIDDEN), (&agent, StatusCode::FORBIDDEN), (&stranger, StatusCode::NOT_FOUND)] {
        let (status, _) = app.put_json(&path, Some(who), json!({"status": "inactive"})).await;
        assert_eq!(status, expected);
    }
    let (status, body) = app.put_json(&path, Some(&owner), json!({"status": "off"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Status must be active or inactive"));
    let (status, body) = app.put_json(&path, Some(&owner), json!({"status": false})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "status must be text"));
    assert_eq!(status_of(&app, &bot).await, "active");

    let (status, body) = app.put_json(&path, Some(&owner), json!({"status": "inactive"})).await;
    assert_eq!((status, body["bot"]["status"].clone()), (StatusCode::OK, json!("inactive")), "{body}");
    assert_eq!(status_of(&app, &bot).await, "inactive");
    // At once for visitors: the open conversation and a new one are both refused.
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "message": "Still there?", "visitorToken": token})).await;
    assert_eq!((status, message(&body)), (StatusCode::CONFLICT, "This assistant is offline right now"));
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hi"})).await;
    assert_eq!((status, message(&body)), (StatusCode::CONFLICT, "This assistant is offline right now"));
    let (_, list) = app.get("/api/bots", Some(&owner)).await;
    assert_eq!(list["bots"][0]["status"], "inactive");

    // An editor turns it back on, and the same conversation goes on.
    let (status, body) = app.put_json(&path, Some(&editor), json!({"status": "active"})).await;
    assert_eq!((status, body["bot"]["status"].clone()), (StatusCode::OK, json!("active")));
    assert_eq!(status_of(&app, &bot).await, "active");
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "sessionId": sid, "message": "Back?", "visitorToken": token})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["sessionId"], sid.as_str());
}

async fn sessions_are_pinned_and_starred_by_the_team(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Marks").await;
    let editor = app.member(&bot, "owner@x.co", "editor@x.co", Role::Editor).await;
    let agent = app.member(&bot, "owner@x.co", "agent@x.co", Role::Agent).await;
    let viewer = app.member(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let other_bot = app.create_bot(&stranger, "Elsewhere").await;

    let mut ids = Vec::new();
    for text in ["First question", "Second question", "Third question"] {
        let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": text})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        ids.push(body["sessionId"].as_str().unwrap().to_string());
    }
    let list = |query: &str| format!("/api/sessions?botId={bot}{query}");
    let titles = |body: &Value| body["sessions"].as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (_, before) = app.get(&list(""), Some(&owner)).await;
    assert_eq!(titles(&before), ["Third question", "Second question", "First question"]);
    assert!(before["sessions"].as_array().unwrap().iter().all(|s| s["isPinned"] == false && s["isStarred"] == false));

    // The oldest is pinned by an agent: it leads the list from then on.
    let flag = |id: &str| format!("/api/chat/session/{id}");
    let (status, body) = app.put_json(&flag(&ids[0]), Some(&agent), json!({"pinned": true})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["session"]["isPinned"].clone(), body["session"]["isStarred"].clone()), (json!(true), json!(false)));
    let (_, after) = app.get(&list(""), Some(&owner)).await;
    assert_eq!(titles(&after), ["First question", "Third question", "Second question"]);
    assert_eq!(after["sessions"][0]["isPinned"], true);

    // An editor stars the second one; a mark not given keeps its value.
    let (status, body) = app.put_json(&flag(&ids[1]), Some(&editor), json!({"starred": true})).await;
    assert_eq!((status, body["session"]["isStarred"].clone()), (StatusCode::OK, json!(true)));
    let (status, body) = app.put_json(&flag(&ids[0]), Some(&owner), json!({"isStarred": true})).await;
    assert_eq!(status, StatusCode::OK, "the name the session is read with works too: {body}");
    assert_eq!((body["session"]["isPinned"].clone(), body["session"]["isStarred"].clone()), (json!(true), json!(true)));

    // The list's filters.
    let (_, pinned) = app.get(&list("&pinned=true"), Some(&viewer)).await;
    assert_eq!((titles(&pinned), pinned["total"].clone()), (vec!["First question".to_string()], json!(1)));
    let (_, starred) = app.get(&list("&starred=true"), Some(&owner)).await;
    assert_eq!(titles(&starred), ["First question", "Second question"]);
    assert_eq!(starred["total"], 2);
    let (_, starred_not_pinned) = app.get(&list("&starred=true&pinned=false"), Some(&owner)).await;
    assert_eq!(titles(&starred_not_pinned), ["Second question"]);
    let (_, plain) = app.get(&list("&starred=false&pinned=false&q=third"), Some(&owner)).await;
    assert_eq!(titles(&plain), ["Third question"]);
    let (status, _) = app.get(&list("&pinned=maybe"), Some(&owner)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Refusals change nothing: a viewer reads only, another team's member does not see it.
    let (status, body) = app.put_json(&flag(&ids[2]), Some(&viewer), json!({"pinned": true})).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "Your role does not allow marking or tagging conversations"));
    let (status, _) = app.put_json(&flag(&ids[2]), Some(&stranger), json!({"pinned": true})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.put_json(&flag(&ids[2]), None, json!({"pinned": true})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.put_json(&flag("no-such-session"), Some(&owner), json!({"pinned": true})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Bad bodies: nothing to set (fields that are no mark, such as a client sending the whole
    // session back, are passed over), a wrong type.
    for nothing in [json!({}), json!({"title": "x", "_id": "y"})] {
        let (status, body) = app.put_json(&flag(&ids[2]), Some(&owner), nothing.clone()).await;
        assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Give pinned, starred or tags"), "{nothing}");
    }
    for bad in [json!({"pinned": "yes"}), json!({"starred": 1}), json!({"tags": "vip"})] {
        let (status, _) = app.put_json(&flag(&ids[2]), Some(&owner), bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    }
    let too_long = "x".repeat(41);
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    for (bad, expected) in [(json!({"tags": [too_long]}), "A tag is at most 40 characters"), (json!({"tags": many}), "At most 20 tags")] {
        let (status, body) = app.put_json(&flag(&ids[2]), Some(&owner), bad.clone()).await;
        assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, expected));
    }


    let (_, third) = app.get(&format!("/api/chat/get-chat-session/{}", ids[2]), Some(&owner)).await;
    assert_eq!((third["session"]["isPinned"].clone(), third["session"]["isStarred"].clone()), (json!(false), json!(false)));
    let (_, theirs) = app.get(&format!("/api/sessions?botId={other_bot}"), Some(&stranger)).await;
    assert_eq!(theirs["total"], 0);

    // Unpinning puts it back in its place by activity.
    let (status, _) = app.put_json(&flag(&ids[0]), Some(&owner), json!({"pinned": false})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, last) = app.get(&list(""), Some(&owner)).await;
    assert_eq!(titles(&last), ["Third question", "Second question", "First question"]);
    assert_eq!(last["sessions"][2]["isStarred"], true);

    // Tags: trimmed, blanks dropped, a repeat in other case kept once; the list replaces the old
    // one, through the marks call or the status call, and other marks stay.
    let (status, body) = app.put_json(&flag(&ids[0]), Some(&agent), json!({"tags": [" vip ", "", "VIP", "refund"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["session"]["tags"], json!(["vip", "refund"]));
    assert_eq!(body["session"]["isStarred"], true, "other marks stay");
    let status_path = format!("/api/chat/session/{}/status", ids[0]);
    let (status, body) = app.put_json(&status_path, Some(&owner), json!({"priority": "high", "tags": ["eu"], "updatedAt": "ignored"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["session"]["tags"].clone(), body["session"]["priority"].clone()), (json!(["eu"]), json!("high")));
    let (status, body) = app.put_json(&status_path, Some(&owner), json!({"status": "resolved", "tags": ["x".repeat(41)]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a bad tag refuses the whole call: {body}");
    let (_, first) = app.get(&format!("/api/chat/get-chat-session/{}", ids[0]), Some(&owner)).await;
    assert_eq!((first["session"]["tags"].clone(), first["session"]["status"].clone()), (json!(["eu"]), json!("active")));
    let (status, _) = app.put_json(&status_path, Some(&viewer), json!({"tags": ["mine"]})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}
