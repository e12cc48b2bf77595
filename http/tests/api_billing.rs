//! Billing over HTTP on both backends: the plans on offer, the caller's subscription, usage
//! and payment history, the plan limits' refusals, the owner told once per period when a
//! monthly limit is reached, and a plan set by `parley plans set`.

mod support;

use chrono::Duration;
use parley_http::cli;
use parley_store::models::Payment;
use parley_store::time;
use reqwest::StatusCode;
use serde_json::json;
use support::smtp::SmtpServer;
use support::{message, TestApp};

on_both_backends!(
    plans_are_public_and_priced_from_the_table,
    a_new_account_is_free_and_its_usage_counts,
    billing_calls_need_a_sign_in,
    payment_history_is_paged_newest_first_and_private,
    a_plan_set_from_the_command_line_lifts_the_limits_until_its_day,
    a_conversation_over_the_plan_is_refused_naming_the_limit,
    the_owner_is_told_once_per_period_when_a_monthly_limit_is_reached,
);

async fn plans_are_public_and_priced_from_the_table(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (status, body) = app.get("/api/billing/plans", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ids: Vec<&str> = body["plans"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["free", "pro", "enterprise"], "cheapest first");
    let pro = &body["plans"][1];
    assert_eq!((pro["priceMonthlyCents"].as_i64(), pro["priceYearlyCents"].as_i64()), (Some(2900), Some(27840)));
    assert_eq!((pro["popular"].as_bool(), pro["custom"].as_bool()), (Some(true), Some(false)));
    assert_eq!(pro["botsLimit"], 5);
    assert!(pro["features"].as_array().unwrap().iter().any(|f| f == "Human handoff"));
    let enterprise = &body["plans"][2];
    assert!(enterprise["priceMonthlyCents"].is_null());
    assert_eq!((enterprise["custom"].as_bool(), enterprise["conversationsLimit"].as_i64()), (Some(true), Some(999)));
    assert_eq!(body["yearlyDiscountPercent"], 20, "27,840 a year against 12 × 2,900");
    assert_eq!((body["currency"].as_str(), body["unlimited"].as_i64()), (Some("usd"), Some(999)));
    assert_eq!(body["salesEmail"], "parley@localhost", "Contact Sales writes to the From address when none is set");
}

async fn a_new_account_is_free_and_its_usage_counts(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("meter@x.co").await;
    let (status, body) = app.get("/api/billing/subscription", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let sub = &body["subscription"];
    assert_eq!((sub["planType"].as_str(), sub["planName"].as_str(), sub["status"].as_str()), (Some("free"), Some("Free"), Some("active")));
    assert_eq!((sub["cycle"].as_str(), sub["cancelAtPeriodEnd"].as_bool()), (Some("monthly"), Some(false)));
    assert!(sub["endsAt"].is_null());
    let days = sub["daysUntilRenewal"].as_i64().unwrap();
    assert!((28..=31).contains(&days), "a month from sign-up: {days}");
    assert_eq!(body["paymentHistory"], json!([]));
    assert_eq!(body["checkout"], json!({"configured": false, "publishableKey": null, "jsUrl": null, "salesEmail": "parley@localhost"}));

    let bot = app.create_bot(&token, "Counted").await;
    let (status, reply) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello there"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let (status, body) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["usage"]["bots"], json!({"used": 1, "total": 1}));
    assert_eq!(body["usage"]["conversations"], json!({"used": 1, "total": 100}));
    assert_eq!(body["usage"]["credits"], json!({"used": 1, "total": 100}), "one AI reply, one credit");
    assert_eq!(body["unlimited"], 999);
    assert_eq!(body["periodEnd"], sub["currentPeriodEnd"], "Free renews with its usage month");
}

async fn billing_calls_need_a_sign_in(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    for path in ["/api/billing/subscription", "/api/billing/usage", "/api/billing/payments"] {
        let (status, body) = app.get(path, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}: {body}");
        let (status, _) = app.get(path, Some("not-a-token")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
    }
}

fn paid(user_id: &str, n: i64) -> Payment {
    Payment {
        id: parley_store::new_id(),
        user_id: user_id.into(),
        description: format!("Pro (monthly) #{n}"),
        amount_cents: 2900,
        currency: "usd".into(),
        status: if n == 2 { "failed".into() } else { "succeeded".into() },
        paid_at: time::now() - Duration::days(30 * (10 - n)),
        stripe_invoice_id: None,
    }
}

async fn payment_history_is_paged_newest_first_and_private(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (ann, ann_id) = app.signup("ann@x.co").await;
    let (bob, bob_id) = app.signup("bob@x.co").await;
    for n in 1..=5 {
        app.state.store.record_payment(&paid(&ann_id, n)).await.unwrap();
    }
    app.state.store.record_payment(&paid(&bob_id, 9)).await.unwrap();

    let (status, body) = app.get("/api/billing/payments?page=1&limit=2", Some(&ann)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["total"].as_i64(), body["page"].as_i64(), body["limit"].as_i64()), (Some(5), Some(1), Some(2)));
    let descriptions = |b: &serde_json::Value| -> Vec<String> {
        b["payments"].as_array().unwrap().iter().map(|p| p["description"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(descriptions(&body), ["Pro (monthly) #5", "Pro (monthly) #4"]);
    let first = &body["payments"][0];
    assert_eq!((first["amountCents"].as_i64(), first["amount"].as_f64(), first["currency"].as_str()), (Some(2900), Some(29.0), Some("usd")));
    let (_, last) = app.get("/api/billing/payments?page=3&limit=2", Some(&ann)).await;
    assert_eq!(descriptions(&last), ["Pro (monthly) #1"]);
    let (_, all) = app.get("/api/billing/payments", Some(&ann)).await;
    assert_eq!(all["payments"][3]["status"], "failed");

    let (_, theirs) = app.get("/api/billing/payments", Some(&bob)).await;
    assert_eq!((descriptions(&theirs), theirs["total"].as_i64()), (vec!["Pro (monthly) #9".to_string()], Some(1)));
    let (_, sub) = app.get("/api/billing/subscription", Some(&ann)).await;
    let preview: Vec<&str> = sub["paymentHistory"].as_array().unwrap().iter().map(|p| p["description"].as_str().unwrap()).collect();
    assert_eq!(preview, ["Pro (monthly) #5", "Pro (monthly) #4", "Pro (monthly) #3"], "Billing History shows the newest 3");

    let (status, body) = app.get("/api/billing/payments?page=first", Some(&ann)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

async fn a_plan_set_from_the_command_line_lifts_the_limits_until_its_day(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, user_id) = app.signup("partner@x.co").await;
    app.create_bot(&token, "First").await;
    let form = || reqwest::multipart::Form::new().text("name", "Second").text("faqMethod", "skip");
    let (status, body) = app.post_form("/api/bots", &token, form()).await;
    assert_eq!((status, body["error"]["limit"].as_str()), (StatusCode::FORBIDDEN, Some("bots")));

    let until = (time::now() + Duration::days(40)).date();
    let words: Vec<String> = ["set", "Partner@X.co", "pro", "--until", &until.to_string()].iter().map(|w| w.to_string()).collect();
    let order = cli::parse_plans(&words, time::now()).unwrap();
    let done = cli::set_plan(&app.state.store, &order).await.unwrap();
    assert!(done.starts_with("partner@x.co is on pro until "), "{done}");

    let (_, body) = app.get("/api/billing/subscription", Some(&token)).await;
    let sub = &body["subscription"];
    assert_eq!(sub["planType"], "pro");
    let ends = format!("{}T00:00:00.000Z", until.succ_opt().unwrap());
    assert_eq!((sub["endsAt"].as_str(), sub["currentPeriodEnd"].as_str()), (Some(ends.as_str()), Some(ends.as_str())));
    assert_eq!(sub["daysUntilRenewal"], 41);
    let (status, body) = app.post_form("/api/bots", &token, form()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, usage) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(usage["usage"]["bots"], json!({"used": 2, "total": 5}));

    // The day passes: the account is on Free again, its two bots kept.
    app.state.store.set_plan(&user_id, "pro", Some(time::now() - Duration::seconds(1))).await.unwrap();
    let (_, body) = app.get("/api/billing/subscription", Some(&token)).await;
    assert_eq!((body["subscription"]["planType"].as_str(), body["subscription"]["endsAt"].is_null()), (Some("free"), true));
    let (_, usage) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(usage["usage"]["bots"], json!({"used": 2, "total": 1}));

    let nobody = cli::parse_plans(&["set".into(), "nobody@x.co".into(), "pro".into()], time::now()).unwrap();
    assert_eq!(cli::set_plan(&app.state.store, &nobody).await, Err("No account with the email nobody@x.co".into()));
}

async fn a_conversation_over_the_plan_is_refused_naming_the_limit(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, user_id) = app.signup("busy@x.co").await;
    let bot = app.create_bot(&token, "Popular").await;
    for _ in 0..100 {
        assert!(app.state.store.claim_conversation(&user_id).await.unwrap());
    }
    let (status, body) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Anyone there?"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!((body["error"]["code"].as_str(), body["error"]["limit"].as_str()), (Some("plan_limit"), Some("conversations")));
    assert_eq!(body["error"]["upgradeUrl"], "/billing");
    assert_eq!(
        message(&body),
        "This assistant has reached its monthly conversation limit and is unavailable right now. Please try again later or contact the business directly."
    );
    let (_, usage) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(usage["usage"]["conversations"], json!({"used": 100, "total": 100}), "the refusal took nothing");
}

async fn the_owner_is_told_once_per_period_when_a_monthly_limit_is_reached(backend: parley_store::Backend) {
    // The mail is read as delivered: the sender clears a sent mail's body from the outbox.
    let smtp = SmtpServer::start().await;
    let app = TestApp::spawn_with(backend, smtp.route()).await;
    let (token, user_id) = app.signup("limits@x.co").await;
    let bot = app.create_bot(&token, "Popular").await;
    let store = &app.state.store;
    let subject = "Your Parley plan reached a monthly limit";
    let mails = |store: &parley_store::Store| {
        let store = store.clone();
        async move { store.outbox(500).await.unwrap().into_iter().filter(|m| m.subject == subject).collect::<Vec<_>>() }
    };
    // Under the limits: nothing to tell.
    assert!(store.claim_conversation(&user_id).await.unwrap());
    assert_eq!(parley_http::notify::tell_limits_reached(&app.state).await.unwrap(), 0);
    for _ in 1..100 {
        assert!(store.claim_conversation(&user_id).await.unwrap());
    }
    // Three visitors refused: one notice.
    for _ in 0..3 {
        let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Anyone there?"})).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    assert_eq!(parley_http::notify::tell_limits_reached(&app.state).await.unwrap(), 1);
    let sent = mails(store).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to_address, "limits@x.co");
    // The first mail to the owner is the sign-up's verification; the second is the notice.
    let notice = smtp.wait_for("limits@x.co", 2).await;
    assert_eq!(notice.subject(), subject);
    assert!(notice.text().contains("all 100 conversations of the Free plan"), "{}", notice.text());
    assert!(notice.text().contains("/billing"), "{}", notice.text());
    let (_, activity) = app.get("/api/dashboard/stats", Some(&token)).await;
    assert!(activity.to_string().contains("all 100 conversations"), "{activity}");

    // More refusals in the same period: told already.
    let (status, _) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Still there?"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(parley_http::notify::tell_limits_reached(&app.state).await.unwrap(), 0);

    // Credits are a limit of their own; with email notifications off, Recent Activity only.
    let (status, _) = app.put_json("/api/me/notifications", Some(&token), json!({"emailNotifications": false})).await;
    assert_eq!(status, StatusCode::OK);
    while store.spend_credit(&user_id).await.unwrap() {}
    assert!(!store.spend_credit(&user_id).await.unwrap());
    assert_eq!(parley_http::notify::tell_limits_reached(&app.state).await.unwrap(), 1);
    assert_eq!(mails(store).await.len(), 1, "no mail with email notifications off");
    let (_, activity) = app.get("/api/dashboard/stats", Some(&token)).await;
    assert!(activity.to_string().contains("AI replies (credits)"), "{activity}");
}
