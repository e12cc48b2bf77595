//! The Training page's calls over HTTP, on both backends: sources are really trained, limits
//! refuse with the spec's words, roles are enforced, and the bot answers from what it learned.

mod support;

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::{message, TestApp};

on_both_backends!(qa_and_text_are_trained_and_answered_from, limits_and_roles_are_enforced);

async fn settled(app: &TestApp, token: &str, bot: &str) -> Value {
    for _ in 0..600 {
        let (_, body) = app.get(&format!("/api/bots/{bot}/sources"), Some(token)).await;
        let all: Vec<&Value> = ["pdf", "websites", "text", "qa"].iter().flat_map(|k| body[*k].as_array().unwrap().iter()).collect();
        if all.iter().all(|s| s["status"] != "processing") {
            return body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("sources still processing");
}

async fn qa_and_text_are_trained_and_answered_from(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("t@x.co").await;
    let t = Some(token.as_str());
    let bot = app.create_bot(&token, "Trained").await;
    let (status, body) = app
        .post_json(&format!("/api/bots/{bot}/sources/qa"), t, json!({"question": "Do you offer gift wrapping?", "answer": "Yes, gift wrapping is free on every order."}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["source"]["status"], "processing");
    let (status, _) = app
        .post_json(&format!("/api/bots/{bot}/sources/text"), t, json!({"name": "Hours", "content": "Our support team answers every day from 8am to 8pm."}))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let sources = settled(&app, &token, &bot).await;
    assert_eq!(sources["counts"], json!({"pdf": 0, "websites": 0, "text": 1, "qa": 1}));
    assert_eq!(sources["qa"][0]["status"], "completed");
    assert_eq!(sources["text"][0]["status"], "completed");

    let (status, reply) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Do you offer gift wrapping?"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["aiResponse"], "Yes, gift wrapping is free on every order.");
    assert_eq!(reply["reply"]["sources"][0]["title"], "Do you offer gift wrapping?");
    let (_, me) = app.get("/api/me", t).await;
    assert_eq!(me["platform"][0]["creditsUsed"], 1, "an AI reply spends a credit");

    let qa_id = sources["qa"][0]["_id"].as_str().unwrap();
    let (status, _) = app.delete(&format!("/api/bots/{bot}/sources/{qa_id}"), t).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, after) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Do you offer gift wrapping?"})).await;
    assert_ne!(after["aiResponse"], "Yes, gift wrapping is free on every order.", "a deleted pair is forgotten");
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/train"), t, json!({})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
}

async fn limits_and_roles_are_enforced(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("o@x.co").await;
    let (stranger, _) = app.signup("s@x.co").await;
    let t = Some(token.as_str());
    let bot = app.create_bot(&token, "Limited").await;
    let qa = format!("/api/bots/{bot}/sources/qa");
    let (status, _) = app.post_json(&qa, t, json!({"question": "q".repeat(151), "answer": "a"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, _) = app.post_json(&qa, t, json!({"question": "q", "answer": "a".repeat(501)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, _) = app.post_json(&qa, t, json!({"question": "", "answer": "a"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    for i in 0..50 {
        let (status, body) = app.post_json(&qa, t, json!({"question": format!("Question {i}?"), "answer": format!("Answer {i}.")})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = app.post_json(&qa, t, json!({"question": "One more?", "answer": "No."})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Maximum number of Q&A pairs reached"));

    let text = format!("/api/bots/{bot}/sources/text");
    let (status, _) = app.post_json(&text, t, json!({"content": "x".repeat(5001)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    for i in 0..20 {
        let (status, _) = app.post_json(&text, t, json!({"content": format!("Fact number {i}.")})).await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, body) = app.post_json(&text, t, json!({"content": "Fact 21."})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Maximum number of sources reached"));

    let pdf = format!("/api/bots/{bot}/sources/pdf");
    let form = Form::new().part("file", Part::bytes(b"not a pdf".to_vec()).file_name("x.pdf"));
    let (status, body) = app.post_form(&pdf, &token, form).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please upload a PDF file"));
    let form = Form::new().part("file", Part::bytes(vec![b'%'; 10 * 1024 * 1024 + 1]).file_name("big.pdf"));
    let (status, body) = app.post_form(&pdf, &token, form).await;
    assert_eq!((status, message(&body)), (StatusCode::PAYLOAD_TOO_LARGE, "File size must be less than 10MB"));

    let (status, _) = app.post_json(&text, Some(&stranger), json!({"content": "Mine now"})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.get(&format!("/api/bots/{bot}/sources"), Some(&stranger)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
