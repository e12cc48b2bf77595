//! `GET /api/bots/{id}/analytics` over HTTP on both backends: events land in the bucket of the
//! viewer's local hour or day (boundaries to the microsecond), empty periods are zeros and
//! nulls, percentiles, satisfaction and refused answers are computed from real conversations,
//! and only the bot's team may read them.

mod support;

use chrono::{Duration, NaiveDateTime, NaiveTime};
use parley_http::chart_range::{self, ChartPeriod, ViewerZone};
use parley_store::chat::{CustomerInfo, NewMessage, Role};
use parley_store::time;
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::{message, TestApp};

on_both_backends!(
    events_fall_in_the_viewer_s_local_day,
    empty_periods_are_zeros_and_hours_follow_the_offset,
    response_times_satisfaction_and_unanswered_questions,
    only_the_team_reads_and_bad_input_is_refused,
    a_day_with_a_clock_change_is_one_bucket_in_a_named_zone,
);

/// Starts a conversation (with a visitor's details when `lead` is given); returns its id.
async fn converse(app: &TestApp, bot: &str, text: &str, lead: Option<Value>) -> String {
    let mut body = json!({"botId": bot, "message": text});
    if let Some(lead) = lead {
        body["leadData"] = lead;
    }
    let (status, reply) = app.post_json("/api/chat", None, body).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    reply["sessionId"].as_str().unwrap().to_string()
}

/// Moves a conversation, its messages and its lead to `at`.
async fn place(app: &TestApp, owner: &str, bot: &str, sid: &str, at: NaiveDateTime) {
    let store = &app.state.store;
    store.set_session_times(sid, Some(at), None, None).await.unwrap();
    for m in store.messages(sid, 0, 100).await.unwrap() {
        store.set_message_time(&m.id, at).await.unwrap();
    }
    let (_, leads) = app.get(&format!("/api/leads?botId={bot}"), Some(owner)).await;
    for lead in leads["leads"].as_array().unwrap() {
        if lead["sessionId"] == sid {
            store.set_lead_captured_at(lead["_id"].as_str().unwrap(), at).await.unwrap();
        }
    }
}

async fn analytics(app: &TestApp, token: &str, bot: &str, query: &str) -> Value {
    let (status, body) = app.get(&format!("/api/bots/{bot}/analytics?{query}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn counts(bucket: &Value) -> (i64, i64, i64, i64) {
    (
        bucket["conversations"].as_i64().unwrap(),
        bucket["messages"]["visitor"].as_i64().unwrap(),
        bucket["messages"]["bot"].as_i64().unwrap(),
        bucket["leads"].as_i64().unwrap(),
    )
}

async fn events_fall_in_the_viewer_s_local_day(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;

    // Midnight today at +02:00, as a UTC instant.
    let offset = Duration::hours(2);
    let local_today = (time::now() + offset).date();
    let midnight = local_today.and_time(NaiveTime::MIN) - offset;
    let just_before = midnight - Duration::microseconds(1);

    let a = converse(&app, &bot, "Hello", Some(json!({"name": "Ann", "email": "ann@x.co"}))).await;
    let b = converse(&app, &bot, "Hello", Some(json!({"name": "Bob", "email": "bob@x.co"}))).await;
    place(&app, &owner, &bot, &a, midnight).await;
    place(&app, &owner, &bot, &b, just_before).await;

    let local = analytics(&app, &owner, &bot, "period=7d&tz=%2B02:00").await;
    assert_eq!((local["period"].as_str(), local["tz"].as_str(), local["bucket"].as_str()), (Some("7d"), Some("+02:00"), Some("day")));
    let buckets = local["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 7);
    assert_eq!(buckets[6]["start"], format!("{local_today}T00:00:00+02:00"));
    assert_eq!(counts(&buckets[6]), (1, 1, 1, 1), "midnight itself opens today: {}", buckets[6]);
    assert_eq!(counts(&buckets[5]), (1, 1, 1, 1), "a microsecond before is yesterday: {}", buckets[5]);
    assert!(buckets[..5].iter().all(|b| counts(b) == (0, 0, 0, 0)));
    assert_eq!(counts(&local["totals"]), (2, 2, 2, 2));

    // In UTC both happened on the same day (22:00 the evening before).
    let utc = analytics(&app, &owner, &bot, "period=7d&tz=Z").await;
    let days_back = (time::now().date() - just_before.date()).num_days();
    let index = usize::try_from(6 - days_back).unwrap();
    let buckets = utc["buckets"].as_array().unwrap();
    assert_eq!(buckets[index]["start"], format!("{}T00:00:00+00:00", just_before.date()));
    assert_eq!(counts(&buckets[index]), (2, 2, 2, 2), "{utc}");
    assert_eq!(buckets.iter().filter(|b| counts(b) != (0, 0, 0, 0)).count(), 1);

    // West of UTC, 22:00 UTC is still the afternoon of that day.
    let west = analytics(&app, &owner, &bot, "period=30d&tz=-05:00").await;
    assert_eq!(west["buckets"].as_array().unwrap().len(), 30);
    assert_eq!(counts(&west["totals"]), (2, 2, 2, 2));
}

async fn empty_periods_are_zeros_and_hours_follow_the_offset(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Quiet").await;

    for (period, n) in [("24h", 24), ("7d", 7), ("30d", 30), ("90d", 90)] {
        let body = analytics(&app, &owner, &bot, &format!("period={period}")).await;
        let buckets = body["buckets"].as_array().unwrap();
        assert_eq!(buckets.len(), n, "{period}");
        let zero = json!({
            "conversations": 0, "messages": {"visitor": 0, "bot": 0, "agent": 0}, "handoffs": 0, "resolved": 0,
            "firstResponse": {"medianSeconds": null, "p90Seconds": null, "answered": 0},
            "csat": {"average": null, "count": 0}, "refused": 0, "leads": 0,
        });
        assert_eq!(body["totals"], zero, "{period}");
        for b in buckets {
            let mut b = b.clone();
            b.as_object_mut().unwrap().remove("start");
            assert_eq!(b, zero, "{period}");
        }
        assert_eq!(body["topUnanswered"], json!([]));
    }
    // The default is a week in UTC.
    let default = analytics(&app, &owner, &bot, "").await;
    assert_eq!((default["period"].as_str(), default["tz"].as_str()), (Some("7d"), Some("+00:00")));

    // Hours of a half-hour offset start on the local hour; what happens now is in the last.
    converse(&app, &bot, "Hello", None).await;
    let body = analytics(&app, &owner, &bot, "period=24h&tz=%2B05:30").await;
    assert_eq!(body["bucket"], "hour");
    let buckets = body["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 24);
    assert!(buckets.iter().all(|b| b["start"].as_str().unwrap().ends_with(":00:00+05:30")), "{body}");
    assert!(body["from"].as_str().unwrap().ends_with(":30:00.000Z"), "{}", body["from"]);
    assert_eq!(buckets[23]["conversations"], 1);
    assert_eq!(buckets[23]["messages"]["visitor"], 1);
}

async fn response_times_satisfaction_and_unanswered_questions(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Untrained").await;
    let store = &app.state.store;

    // An untrained bot knows nothing: every answer is a refusal.
    let questions = ["What is your refund policy?", "  what is your REFUND policy", "Do you ship abroad?", "Can I pay by card?"];
    let mut sessions = Vec::new();
    for q in questions {
        sessions.push(converse(&app, &bot, q, None).await);
    }
    // Each asks for a person at the same moment; agents answer after 10, 20, 30 and 100 s.
    let asked = time::now() - Duration::minutes(10);
    for (sid, wait) in sessions.iter().zip([10, 20, 30, 100]) {
        store.request_support(sid, &CustomerInfo::default()).await.unwrap();
        store.set_session_times(sid, None, Some(asked), None).await.unwrap();
        let reply = NewMessage { agent_id: None, ..NewMessage::simple(Role::Agent, "Hi, I am here") };
        let saved = store.queue_message(sid, reply).unwrap().await.unwrap();
        store.set_message_time(&saved.id, asked + Duration::seconds(wait)).await.unwrap();
    }
    // A later agent message is not a first response: the handoff keeps its first answer.
    store.queue_message(&sessions[0], NewMessage { agent_id: None, ..NewMessage::simple(Role::Agent, "Anything else?") }).unwrap().await.unwrap();
    // A message of the team before the request is not a response to it.
    let early = store.queue_message(&sessions[3], NewMessage::simple(Role::Agent, "Earlier note")).unwrap().await.unwrap();
    store.set_message_time(&early.id, asked - Duration::seconds(5)).await.unwrap();

    for (sid, rating) in [(&sessions[0], 4), (&sessions[1], 5)] {
        let (status, body) = app.put_json(&format!("/api/chat/session/{sid}/resolve"), Some(&owner), json!({"rating": rating, "feedback": ""})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    // Refusals are noted beside the reply; wait for the last.
    let mut body = Value::Null;
    for _ in 0..50 {
        body = analytics(&app, &owner, &bot, "period=24h").await;
        if body["totals"]["refused"] == 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let totals = &body["totals"];
    assert_eq!(totals["refused"], 4, "{body}");
    assert_eq!(totals["handoffs"], 4);
    assert_eq!(totals["resolved"], 2);
    assert_eq!(totals["messages"]["agent"], 6);
    assert_eq!(totals["firstResponse"], json!({"medianSeconds": 20.0, "p90Seconds": 100.0, "answered": 4}));
    assert_eq!(totals["csat"], json!({"average": 4.5, "count": 2}));
    let with_handoffs: Vec<&Value> = body["buckets"].as_array().unwrap().iter().filter(|b| b["handoffs"] != 0).collect();
    assert_eq!(with_handoffs.len(), 1, "one moment, one bucket");
    assert_eq!(with_handoffs[0]["firstResponse"], totals["firstResponse"]);

    let top = body["topUnanswered"].as_array().unwrap();
    assert_eq!(top.len(), 3, "{body}");
    assert_eq!((top[0]["question"].as_str(), top[0]["count"].as_i64()), (Some("what is your REFUND policy"), Some(2)));
    assert!(top[1..].iter().all(|q| q["count"] == 1));

    // A deleted conversation leaves the figures with its messages.
    let before = totals.clone();
    let (status, _) = app.delete(&format!("/api/chat/sessions/{}", sessions[2]), Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    let after = analytics(&app, &owner, &bot, "period=24h").await["totals"].clone();
    assert_eq!(after["conversations"].as_i64().unwrap(), before["conversations"].as_i64().unwrap() - 1);
    assert_eq!(after["messages"]["visitor"].as_i64().unwrap(), before["messages"]["visitor"].as_i64().unwrap() - 1);
    assert_eq!(after["messages"]["agent"].as_i64().unwrap(), before["messages"]["agent"].as_i64().unwrap() - 1);
    assert_eq!(after["refused"], 3);
    assert_eq!(after["firstResponse"], json!({"medianSeconds": 20.0, "p90Seconds": 100.0, "answered": 3}));
}

async fn only_the_team_reads_and_bad_input_is_refused(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Private").await;
    let path = format!("/api/bots/{bot}/analytics");

    assert_eq!(app.get(&path, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&path, None).await.0, StatusCode::UNAUTHORIZED);
    let (status, body) = app.get(&format!("{path}?period=1y"), Some(&owner)).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Period must be 24h, 7d, 30d or 90d"));
    for tz in ["Mars/Olympus_Mons", "Paris", "%2B02:10", "%2B15:00"] {
        let (status, body) = app.get(&format!("{path}?tz={tz}"), Some(&owner)).await;
        assert_eq!(
            (status, message(&body)),
            (StatusCode::UNPROCESSABLE_ENTITY, "Time zone must be a zone such as Europe/Paris or a UTC offset such as +02:00"),
            "{tz}"
        );
    }
    let named = analytics(&app, &owner, &bot, "period=7d&tz=America/New_York").await;
    assert_eq!(named["tz"], "America/New_York");
}

/// Paris leaves summer time on Sunday 2026-10-25 at 03:00 local (01:00 UTC): that day lasts 25
/// hours, and an event at 23:30 on it is still that day, which a fixed +02:00 would put on
/// the next. The week is read as of Tuesday 2026-10-27, through the store's query.
async fn a_day_with_a_clock_change_is_one_bucket_in_a_named_zone(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Paris").await;
    let utc = |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap();
    for at in [
        "2026-10-24 22:30:00", // Sunday 00:30, summer time
        "2026-10-25 22:30:00", // Sunday 23:30, winter time
        "2026-10-25 23:00:00", // Monday 00:00
    ] {
        let sid = converse(&app, &bot, "Bonjour", None).await;
        place(&app, &owner, &bot, &sid, utc(at)).await;
    }
    let zone = ViewerZone::parse(Some("Europe/Paris")).unwrap();
    let buckets = chart_range::buckets(ChartPeriod::Week, zone, utc("2026-10-27 12:00:00"));
    assert_eq!((buckets.from, buckets.to), (utc("2026-10-20 22:00:00"), utc("2026-10-27 23:00:00")), "a week and an hour");
    let starts: Vec<String> = (0..7).map(|i| chart_range::bucket_start(&buckets, zone, i)).collect();
    assert_eq!(starts[4], "2026-10-25T00:00:00+02:00");
    assert_eq!(starts[5], "2026-10-26T00:00:00+01:00");
    let figures = app.state.store.analytics(&bot, &buckets).await.unwrap();
    let conversations: Vec<i64> = figures.buckets.iter().map(|f| f.conversations).collect();
    assert_eq!(conversations, [0, 0, 0, 0, 2, 1, 0]);
    assert_eq!(figures.total.visitor_messages, 3);

    // With the offset of now (+01:00) throughout, as the dashboard sent before, Sunday 00:30 of
    // summer time would have been counted on Saturday.
    let fixed = ViewerZone::parse(Some("+01:00")).unwrap();
    let fixed_buckets = chart_range::buckets(ChartPeriod::Week, fixed, utc("2026-10-27 12:00:00"));
    let by_fixed: Vec<i64> = app.state.store.analytics(&bot, &fixed_buckets).await.unwrap().buckets.iter().map(|f| f.conversations).collect();
    assert_eq!(by_fixed, [0, 0, 0, 1, 1, 1, 0]);
}
