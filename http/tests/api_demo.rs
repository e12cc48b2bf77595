//! The landing page's demo bot on both backends: created once from the repository's seed,
//! answering questions about Parley from real retrieval, owned by an account on the unlimited
//! plan that cannot sign in, limited like any bot, and absent with `PARLEY_DEMO_BOT=off`.

mod support;

use parley_http::demo::DEMO_EMAIL;
use reqwest::StatusCode;
use serde_json::json;
use support::TestApp;

on_both_backends!(the_demo_bot_answers_about_parley, no_demo_bot_when_off, demo_operators_are_seated_as_its_agents);

async fn the_demo_bot_answers_about_parley(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.demo_bot = true;
        // One new conversation on a bot, then the bot's budget is spent: as for any bot.
        s.realtime.new_conversations_per_bot_per_hour = 1.0;
        s.realtime.new_conversation_bot_burst = 1.0;
    })
    .await;
    let (status, demo) = app.get("/api/demo", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(demo["enabled"], true);
    let bot = demo["botId"].as_str().unwrap().to_string();

    // Its account is on the unlimited plan and cannot sign in.
    let store = &app.state.store;
    let owner = store.user_by_email(DEMO_EMAIL).await.unwrap().unwrap();
    assert!(owner.password_hash.is_none());
    assert_eq!(store.allowance(&owner.id).await.unwrap().plan.id, "enterprise");
    let (status, _) = app.post_json("/api/auth/login", None, json!({"email": DEMO_EMAIL, "password": "password123"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The seed's Q&A pairs are trained; the public theme carries its quick questions.
    for _ in 0..600 {
        let pairs = store.qa_pairs(&bot).await.unwrap();
        if !pairs.is_empty() && pairs.iter().all(|p| p.status != "processing") {
            assert!(pairs.iter().all(|p| p.status == "completed"), "{pairs:?}");
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (status, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(status, StatusCode::OK, "{theme}");
    assert!(theme.to_string().contains("Can I host it myself?"), "{theme}");

    let (status, reply) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Which database does Parley use?"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let answer = reply["aiResponse"].as_str().unwrap_or_default();
    assert!(answer.contains("PostgreSQL") && answer.contains("SQLite"), "{answer}");

    // Like any bot: the second new conversation within the hour is refused.
    let (status, refused) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello again"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{refused}");

    // A restart finds the same bot rather than making another.
    let app = app.restart().await;
    let (_, again) = app.get("/api/demo", None).await;
    assert_eq!(again["botId"], bot.as_str());
    let owner = app.state.store.user_by_email(DEMO_EMAIL).await.unwrap().unwrap();
    assert_eq!(app.state.store.bots_for_user(&owner.id).await.unwrap().len(), 1);
}

async fn no_demo_bot_when_off(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, demo) = app.get("/api/demo", None).await;
    assert_eq!((status, demo), (StatusCode::OK, json!({"enabled": false, "botId": null})));
    assert!(app.state.store.user_by_email(DEMO_EMAIL).await.unwrap().is_none());
}

/// `PARLEY_DEMO_OPERATORS`: each named account becomes an agent of the demo bot at start (one
/// with no account yet is skipped, and seated at the start after it signs up), once only.
async fn demo_operators_are_seated_as_its_agents(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.demo_bot = true;
        s.demo_operators = " Ops@Example.com , later@example.com,,".into();
    })
    .await;
    let (_, demo) = app.get("/api/demo", None).await;
    let bot = demo["botId"].as_str().unwrap().to_string();
    assert!(app.state.store.team_members(&bot).await.unwrap().is_empty(), "nobody has an account yet");

    let (token, user_id) = app.signup("ops@example.com").await;
    let app = app.restart().await;
    assert!(app.state.store.team_members(&bot).await.unwrap().is_empty(), "anyone may sign up with the address: not seated until it is verified");
    app.state.store.mark_email_verified(&user_id).await.unwrap();
    let app = app.restart().await;
    let app = app.restart().await;
    let team = app.state.store.team_members(&bot).await.unwrap();
    assert_eq!(team.len(), 1, "{team:?}");
    assert_eq!((team[0].user_id.as_deref(), team[0].role.as_str(), team[0].status.as_str()), (Some(user_id.as_str()), "agent", "active"));
    // The operator sees the demo bot among their bots, as an agent.
    let (status, bots) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{bots}");
    assert!(bots.to_string().contains(&bot), "{bots}");
}
