//! The OpenAI answerer through the real async-openai client against a local OpenAI-compatible
//! server (actix-web on 127.0.0.1): streamed SSE chunks, 429/5xx with retries, and timeouts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::stream;
use parley_engine::answer::openai::OpenAiAnswerer;
use parley_engine::answer::{AnswerError, AnswerRequest, Answerer, Citation, Speaker, Turn, ERROR_BUBBLE};
use parley_engine::retrieval::{Passage, SourceKind, UnitScore};
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
        // Cites the third and the first source, one piece every PACED_GAP.
        "paced" => paced_sse(PACED_REPLY.iter().map(|t| chunk(t)).collect(), PACED_GAP),
        "stall" => {
            // Starts streaming, then goes quiet forever.
            let first = stream::once(async { Ok::<_, actix_web::Error>(web::Bytes::from(chunk("Hello"))) });
            let never = stream::pending();
            HttpResponse::Ok().content_type("text/event-stream").streaming(futures_util::StreamExt::chain(first, never))
        }
        _ => sse(["Standard ", "delivery ", "takes 3-5 ", "days [1]."].iter().map(|t| chunk(t)).collect()),
    }
}

const PACED_REPLY: [&str; 4] = ["You can ship ", "abroad [3]. ", "Delivery takes ", "3 days [1]."];
const PACED_GAP: Duration = Duration::from_millis(40);

fn sse(events: Vec<String>) -> HttpResponse {
    paced_sse(events, Duration::from_millis(5))
}

fn paced_sse(events: Vec<String>, gap: Duration) -> HttpResponse {
    let mut events = events;
    events.push("data: [DONE]\n\n".to_string());
    // Each event is its own body chunk, with a pause between, as a real provider streams.
    let body = stream::unfold(events.into_iter(), move |mut it| async move {
        let next = it.next()?;
        tokio::time::sleep(gap).await;
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

/// What retrieval hands over for "How long is delivery?" in a shop with three kinds of
/// knowledge: a website paragraph on five topics whose unit scores (from the sentence vectors)
/// pick its delivery sentences, a PDF manual page without unit scores (picked by the question's
/// words), and a Q&A pair.
fn shop_passages() -> Vec<Passage> {
    let unit = |first, len, score| UnitScore { first, len, score };
    let paragraph = Passage {
        chunk_id: "about-1".into(),
        source_id: Some("site".into()),
        kind: SourceKind::Website,
        title: "About our shop".into(),
        url: Some("https://shop.example/about".into()),
        page: None,
        content: SHOP_PARAGRAPH.into(),
        question: None,
        score: 0.7,
        confidence: 0.55,
        units: vec![
            unit(0, 1, 0.61),
            unit(1, 1, 0.12),
            unit(2, 1, 0.08),
            unit(3, 1, 0.58),
            unit(4, 1, 0.2),
            unit(0, 2, 0.41),
            unit(1, 2, 0.1),
            unit(2, 2, 0.3),
            unit(3, 2, 0.44),
        ],
    };
    let manual = Passage {
        chunk_id: "manual-7".into(),
        source_id: Some("manual".into()),
        kind: SourceKind::Pdf,
        title: "Owner's manual".into(),
        url: None,
        page: Some(7),
        content: "Chapter 4: Care. Wash the frame with warm water. Delivery of spare parts takes two weeks. \
                  Store the bike indoors."
            .into(),
        question: None,
        score: 0.5,
        confidence: 0.45,
        units: Vec::new(),
    };
    let pair = Passage {
        chunk_id: "faq-3".into(),
        source_id: Some("faq".into()),
        kind: SourceKind::Qa,
        title: "Shop FAQ".into(),
        url: None,
        page: None,
        content: "Yes, to 40 countries. Duties are shown at checkout.".into(),
        question: Some("Do you ship abroad?".into()),
        score: 0.4,
        confidence: 0.5,
        units: Vec::new(),
    };
    vec![paragraph, manual, pair]
}

const SHOP_PARAGRAPH: &str = "Orders placed before 2 pm ship the same day. \
    You can return any unused item within 30 days for a full refund. \
    Our Leeds store is open Monday to Saturday from 9 am to 6 pm. \
    Standard delivery takes 3 working days within the UK. \
    Gift cards never expire.";

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
async fn the_prompt_carries_the_selected_sentences_numbered_and_the_reply_streams_citing_them() {
    let (url, seen) = start_server();
    let ps = shop_passages();
    let deltas = Mutex::new(Vec::<(String, Instant)>::new());
    let sink = |d: &str| deltas.lock().unwrap().push((d.to_string(), Instant::now()));
    let answer = answerer(&url, "paced").answer(request(&ps, &[]), &sink).await.unwrap();

    // What the provider received: per source, its number, its label and only the sentences
    // that answer, in the paragraph's order; the other topics of the paragraph stay out.
    let body = seen.last_body.lock().unwrap().clone().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("using only the knowledge below") && system.contains("say you don't know yet"), "{system}");
    let knowledge = system.split("Knowledge:\n").nth(1).unwrap();
    assert_eq!(
        knowledge,
        "\n[1] About our shop (https://shop.example/about)\n\
         Orders placed before 2 pm ship the same day. Standard delivery takes 3 working days within the UK.\n\
         \n[2] Owner's manual, page 7\n\
         Delivery of spare parts takes two weeks.\n\
         \n[3] Shop FAQ\n\
         Q: Do you ship abroad?\n\
         A: Yes, to 40 countries. Duties are shown at checkout.\n"
    );
    for other_topic in ["30 days", "Leeds", "Gift cards", "Wash the frame"] {
        assert!(!system.contains(other_topic), "{other_topic} is not about delivery: {system}");
    }

    // The reply arrives piece by piece, in order, as the provider sends it (not at the end).
    let deltas = deltas.into_inner().unwrap();
    let texts: Vec<&str> = deltas.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, PACED_REPLY);
    assert!(deltas.windows(2).all(|w| w[0].1 <= w[1].1));
    let spread = deltas.last().unwrap().1 - deltas.first().unwrap().1;
    assert!(spread >= PACED_GAP * 2, "deltas came {spread:?} apart: buffered, not streamed");
    assert_eq!(answer.text, PACED_REPLY.concat());

    // [3] then [1], in the order the reply cites them, with the website's address.
    let want: Vec<Citation> = vec![Citation::from(&ps[2]), Citation::from(&ps[0])];
    assert_eq!(answer.citations, want);
    assert_eq!(answer.citations[1].url.as_deref(), Some("https://shop.example/about"));
    assert_eq!(answer.citations[0].source_id.as_deref(), Some("faq"));
    assert!(answer.confident);
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
