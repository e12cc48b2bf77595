//! The OpenAI answerer through the real async-openai client against a local OpenAI-compatible
//! server (actix-web on 127.0.0.1): streamed SSE chunks, 429/5xx with retries, and timeouts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::stream;
use parley_engine::answer::openai::OpenAiAnswerer;
use parley_engine::answer::{AnswerError, AnswerRequest, Answerer, Speaker, Turn, ERROR_BUBBLE};
use parley_engine::retrieval::{Passage, SourceKind};
use serde_json::{json, Value};

#[derive(Default)]
struct Seen {
    requests: AtomicUsize,
    last_body: Mutex<Option<Value>>,
}

fn chunk(content: &str) -> String {
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]
    });
    format!("data: {body}\n\n")
}

async fn completions(body: web::Json<Value>, seen: web::Data<Seen>) -> HttpResponse {
    let n = seen.requests.fetch_add(1, Ordering::SeqCst) + 1;
    *seen.last_body.lock().unwrap() = Some(body.0.clone());
    let model = body["model"].as_str().unwrap_or_default().to_string();
    match model.as_str() {
        "always-500" => HttpResponse::InternalServerError().body("upstream exploded"),
        // Fails twice, then answers: retries must get through.
        "flaky" if n <= 2 => HttpResponse::TooManyRequests().json(json!({
            "error": {"message": "slow down", "type": "rate_limit_error", "param": null, "code": null}
        })),
        "bad-key" => HttpResponse::Unauthorized().json(json!({
            "error": {"message": "Incorrect API key", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}
        })),
        "slow-start" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            sse(vec![chunk("too late")])
        }
        "stall" => {
            // Starts streaming, then goes quiet forever.
            let first = stream::once(async { Ok::<_, actix_web::Error>(web::Bytes::from(chunk("Hello"))) });
            let never = stream::pending();
            HttpResponse::Ok().content_type("text/event-stream").streaming(futures_util::StreamExt::chain(first, never))
        }
        _ => sse(["Standard ", "delivery ", "takes 3-5 ", "days [1]."].iter().map(|t| chunk(t)).collect()),
    }
}

fn sse(events: Vec<String>) -> HttpResponse {
    let mut events = events;
    events.push("data: [DONE]\n\n".to_string());
    // Each event is its own body chunk, with a pause between, as a real provider streams.
    let body = stream::unfold(events.into_iter(), |mut it| async move {
        let next = it.next()?;
        tokio::time::sleep(Duration::from_millis(5)).await;
        Some((Ok::<_, actix_web::Error>(web::Bytes::from(next)), it))
    });
    HttpResponse::Ok().content_type("text/event-stream").streaming(body)
}

/// Starts the fake provider on its own thread and actix system; returns its base URL.
fn start_server() -> (String, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let data = web::Data::from(seen.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new().app_data(data.clone()).route("/v1/chat/completions", web::post().to(completions))
            })
            .workers(1)
            .disable_signals()
            .bind(("127.0.0.1", 0))
            .unwrap();
            let addr = server.addrs()[0];
            tx.send(addr).unwrap();
            server.run().await.unwrap();
        })
    });
    let addr = rx.recv().unwrap();
    (format!("http://{addr}/v1"), seen)
}

fn answerer(base_url: &str, model: &str) -> OpenAiAnswerer {
    let settings = parley_config::LlmSettings {
        answerer: "openai".into(),
        base_url: base_url.into(),
        model: model.into(),
        api_key: "sk-test".into(),
        timeout_secs: 5,
        max_tokens: 300,
    };
    OpenAiAnswerer::new(&settings).unwrap()
}

fn passages() -> Vec<Passage> {
    vec![Passage {
        chunk_id: "c1".into(),
        source_id: Some("src-1".into()),
        kind: SourceKind::Website,
        title: "Shipping".into(),
        url: Some("https://shop.example/shipping".into()),
        page: None,
        content: "Standard delivery takes 3-5 working days.".into(),
        question: None,
        score: 1.0,
        confidence: 0.8,
        units: Vec::new(),
    }]
}

fn request<'a>(passages: &'a [Passage], history: &'a [Turn]) -> AnswerRequest<'a> {
    AnswerRequest {
        system_prompt: "You are the Acme shop assistant.",
        question: "How long is delivery?",
        history,
        passages,
        handover: Some("Let me connect you with a human agent who can better assist you."),
    }
}

#[tokio::test]
async fn streams_tokens_and_cites_the_passage() {
    let (url, seen) = start_server();
    let ps = passages();
    let history = vec![
        Turn { speaker: Speaker::Visitor, text: "Hi".into() },
        Turn { speaker: Speaker::Bot, text: "Hello! How can I help?".into() },
    ];
    let deltas = Mutex::new(Vec::<String>::new());
    let sink = |d: &str| deltas.lock().unwrap().push(d.to_string());
    let answer = answerer(&url, "gpt-test").answer(request(&ps, &history), &sink).await.unwrap();

    assert_eq!(answer.text, "Standard delivery takes 3-5 days [1].");
    assert_eq!(*deltas.lock().unwrap(), vec!["Standard ", "delivery ", "takes 3-5 ", "days [1]."]);
    assert_eq!(answer.citations.len(), 1);
    assert_eq!(answer.citations[0].url.as_deref(), Some("https://shop.example/shipping"));
    assert_eq!(answer.citations[0].source_id.as_deref(), Some("src-1"));
    assert!(answer.confident && !answer.offer_handoff);

    let body = seen.last_body.lock().unwrap().clone().unwrap();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_completion_tokens"], 300, "a reply's length is bounded (hardening finding 13)");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are the Acme shop assistant."));
    assert!(system.contains("[1] Shipping (https://shop.example/shipping)"));
    assert!(system.contains("Standard delivery takes 3-5 working days."));
    assert_eq!(messages[1], json!({"role": "user", "content": "Hi"}));
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[3], json!({"role": "user", "content": "How long is delivery?"}));
    assert_eq!(seen.requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_persistent_500_is_retried_then_reported() {
    let (url, seen) = start_server();
    let ps = passages();
    let err = answerer(&url, "always-500").answer(request(&ps, &[]), &|_: &str| {}).await.unwrap_err();
    assert!(matches!(&err, AnswerError::Provider { status: 500, message } if message.contains("upstream exploded")), "{err:?}");
    // async-openai's retry layer: one try plus three retries with backoff.
    assert_eq!(seen.requests.load(Ordering::SeqCst), 4);
    assert_eq!(err.user_message(), ERROR_BUBBLE);
}

#[tokio::test]
async fn rate_limits_are_retried_until_the_provider_answers() {
    let (url, seen) = start_server();
    let ps = passages();
    let answer = answerer(&url, "flaky").answer(request(&ps, &[]), &|_: &str| {}).await.unwrap();
    assert_eq!(answer.text, "Standard delivery takes 3-5 days [1].");
    assert_eq!(seen.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let (url, seen) = start_server();
    let ps = passages();
    let err = answerer(&url, "bad-key").answer(request(&ps, &[]), &|_: &str| {}).await.unwrap_err();
    assert!(matches!(&err, AnswerError::Provider { status: 401, message } if message == "Incorrect API key"), "{err:?}");
    assert_eq!(seen.requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_slow_provider_times_out() {
    let (url, _seen) = start_server();
    let ps = passages();
    let started = std::time::Instant::now();
    let err = answerer(&url, "slow-start")
        .with_timeout(Duration::from_millis(300))
        .answer(request(&ps, &[]), &|_: &str| {})
        .await
        .unwrap_err();
    assert!(matches!(err, AnswerError::Timeout(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_stream_that_goes_quiet_times_out_after_the_first_tokens() {
    let (url, _seen) = start_server();
    let ps = passages();
    let deltas = Mutex::new(String::new());
    let sink = |d: &str| deltas.lock().unwrap().push_str(d);
    let err = answerer(&url, "stall")
        .with_timeout(Duration::from_millis(300))
        .answer(request(&ps, &[]), &sink)
        .await
        .unwrap_err();
    assert!(matches!(err, AnswerError::Timeout(_)), "{err:?}");
    assert_eq!(*deltas.lock().unwrap(), "Hello");
}

#[tokio::test]
async fn an_unreachable_provider_is_a_transport_error() {
    // Port 9 (discard) on loopback: nothing listens, connect is refused at once.
    let ps = passages();
    let err = answerer("http://127.0.0.1:9/v1", "m").answer(request(&ps, &[]), &|_: &str| {}).await.unwrap_err();
    assert!(matches!(err, AnswerError::Transport(_)), "{err:?}");
}

#[test]
fn settings_pick_the_answerer() {
    let mut llm = parley_config::Settings::defaults().unwrap().llm;
    assert_eq!(parley_engine::answer::from_settings(&llm).unwrap().name(), "extractive");
    llm.answerer = "openai".into();
    assert_eq!(parley_engine::answer::from_settings(&llm).unwrap().name(), "openai");
    llm.answerer = "magic".into();
    assert!(matches!(parley_engine::answer::from_settings(&llm), Err(AnswerError::Config(_))));
}
