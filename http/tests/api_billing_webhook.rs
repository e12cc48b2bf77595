//! Stripe's webhook over HTTP on both backends: signatures checked on the raw body, each event
//! applied once, and the states it drives — a paid invoice (monthly, yearly) puts the account on
//! Pro with a payment row; a cancellation ends the plan at the period's end; a failed renewal
//! gives a grace period, then Free with the extra bots paused (not deleted), and a new payment
//! brings them back. The events are written in Stripe's documented shapes (invoice,
//! subscription), signed as Stripe signs them.

mod support;

use chrono::{Duration, Utc};
use parley_http::payments::signature;
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::TestApp;

const SECRET: &str = "whsec_parley_test";
const MONTHLY: &str = "price_pro_monthly_test";
const YEARLY: &str = "price_pro_yearly_test";

on_both_backends!(
    a_bad_signature_is_refused_and_changes_nothing,
    a_paid_invoice_upgrades_once_and_a_replay_changes_nothing,
    yearly_then_cancelled_at_the_period_end_then_deleted,
    a_failed_renewal_gives_grace_then_free_with_extra_bots_paused,
    a_failed_first_payment_changes_no_plan,
);

async fn app(backend: parley_store::Backend) -> TestApp {
    TestApp::spawn_with(backend, |s| {
        s.stripe.webhook_secret = SECRET.into();
        s.stripe.price_pro_monthly = MONTHLY.into();
        s.stripe.price_pro_yearly = YEARLY.into();
    })
    .await
}

/// Delivers `event` signed with `secret` at `at` (unix seconds); the status and body.
async fn deliver_signed(app: &TestApp, event: &Value, secret: &str, at: i64) -> (StatusCode, Value) {
    let body = serde_json::to_vec(event).unwrap();
    let header = format!("t={at},v1={}", signature::sign(secret, at, &body));
    let res = app
        .client
        .post(app.url("/api/billing/webhook"))
        .header("Stripe-Signature", header)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    support::read(res).await
}

async fn deliver(app: &TestApp, event: &Value) -> (StatusCode, Value) {
    deliver_signed(app, event, SECRET, Utc::now().timestamp()).await
}

fn event(id: &str, kind: &str, object: Value) -> Value {
    json!({"id": id, "object": "event", "type": kind, "created": Utc::now().timestamp(), "livemode": false, "data": {"object": object}})
}

fn invoice_paid(id: &str, invoice: &str, customer: &str, price: &str, days: i64, amount: i64) -> Value {
    let start = Utc::now().timestamp();
    let end = start + days * 86_400;
    event(id, "invoice.paid", json!({
        "id": invoice, "object": "invoice", "customer": customer, "subscription": "sub_1", "status": "paid",
        "amount_paid": amount, "amount_due": amount, "currency": "usd", "period_start": start, "period_end": start,
        "lines": {"object": "list", "data": [{
            "id": "il_1", "object": "line_item", "amount": amount, "currency": "usd",
            "period": {"start": start, "end": end},
            "price": {"id": price, "object": "price", "recurring": {"interval": if days > 40 { "year" } else { "month" }}},
        }]},
    }))
}

fn invoice_failed(id: &str, invoice: &str, customer: &str, amount: i64) -> Value {
    event(id, "invoice.payment_failed", json!({
        "id": invoice, "object": "invoice", "customer": customer, "subscription": "sub_1", "status": "open",
        "amount_paid": 0, "amount_due": amount, "currency": "usd", "attempt_count": 1,
    }))
}

fn subscription(id: &str, kind: &str, customer: &str, cancel_at_period_end: bool, period_end: i64) -> Value {
    event(id, kind, json!({
        "id": "sub_1", "object": "subscription", "customer": customer, "status": "active",
        "cancel_at_period_end": cancel_at_period_end, "current_period_end": period_end,
        "items": {"object": "list", "data": [{"id": "si_1", "current_period_end": period_end, "price": {"id": MONTHLY}}]},
    }))
}

/// A signed-up owner tied to Stripe customer `customer`; (token, user id).
async fn customer(app: &TestApp, email: &str, customer: &str) -> (String, String) {
    let (token, user_id) = app.signup(email).await;
    app.state.store.link_stripe_customer(&user_id, customer).await.unwrap();
    (token, user_id)
}

async fn subscription_of(app: &TestApp, token: &str) -> Value {
    let (status, body) = app.get("/api/billing/subscription", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["subscription"].clone()
}

async fn payments(app: &TestApp, token: &str) -> Vec<(String, i64)> {
    let (_, body) = app.get("/api/billing/payments", Some(token)).await;
    body["payments"].as_array().unwrap().iter().map(|p| (p["status"].as_str().unwrap().to_string(), p["amountCents"].as_i64().unwrap())).collect()
}

async fn a_bad_signature_is_refused_and_changes_nothing(backend: parley_store::Backend) {
    let app = app(backend).await;
    let (token, _) = customer(&app, "sig@x.co", "cus_sig").await;
    let paid = invoice_paid("evt_sig", "in_sig", "cus_sig", MONTHLY, 30, 2900);
    let now = Utc::now().timestamp();
    for (secret, at) in [("whsec_someone_else", now), (SECRET, now - 3600)] {
        let (status, body) = deliver_signed(&app, &paid, secret, at).await;
        assert_eq!((status, body["error"]["message"].as_str()), (StatusCode::BAD_REQUEST, Some("Invalid webhook signature")));
    }
    let res = app.client.post(app.url("/api/billing/webhook")).json(&paid).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "no signature at all");
    assert_eq!(subscription_of(&app, &token).await["planType"], "free");
    assert!(payments(&app, &token).await.is_empty());

    // A server without a webhook secret takes no deliveries.
    let bare = TestApp::spawn(backend).await;
    let (status, body) = deliver(&bare, &paid).await;
    assert_eq!((status, body["error"]["message"].as_str()), (StatusCode::NOT_FOUND, Some("Payments are not configured on this server")));
}

async fn a_paid_invoice_upgrades_once_and_a_replay_changes_nothing(backend: parley_store::Backend) {
    let app = app(backend).await;
    let (token, _) = customer(&app, "paid@x.co", "cus_paid").await;
    let paid = invoice_paid("evt_paid", "in_paid", "cus_paid", MONTHLY, 30, 2900);
    let (status, body) = deliver(&app, &paid).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"ok": true, "applied": true})));
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["cycle"].as_str(), sub["status"].as_str()), (Some("pro"), Some("monthly"), Some("active")));
    assert_eq!(sub["daysUntilRenewal"], 30);
    assert_eq!(payments(&app, &token).await, [("succeeded".to_string(), 2900)]);
    let (_, usage) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(usage["usage"]["bots"]["total"], 5, "the limit lifts");

    // Stripe delivers again (a timeout on its side): nothing changes twice.
    let (status, body) = deliver(&app, &paid).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"ok": true, "applied": false})));
    assert_eq!(payments(&app, &token).await.len(), 1);

    // An event for a customer this server does not know, and one it does not act on.
    let (status, body) = deliver(&app, &invoice_paid("evt_other", "in_other", "cus_nobody", MONTHLY, 30, 2900)).await;
    assert_eq!((status, body["applied"].as_bool()), (StatusCode::OK, Some(false)));
    let (status, body) = deliver(&app, &event("evt_misc", "customer.created", json!({"id": "cus_paid"}))).await;
    assert_eq!((status, body["applied"].as_bool()), (StatusCode::OK, Some(false)));
}

async fn yearly_then_cancelled_at_the_period_end_then_deleted(backend: parley_store::Backend) {
    let app = app(backend).await;
    let (token, _) = customer(&app, "yearly@x.co", "cus_year").await;
    deliver(&app, &invoice_paid("evt_y1", "in_y1", "cus_year", YEARLY, 365, 27840)).await;
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["cycle"].as_str(), sub["daysUntilRenewal"].as_i64()), (Some("pro"), Some("yearly"), Some(365)));
    assert_eq!(payments(&app, &token).await, [("succeeded".to_string(), 27840)]);

    let end = Utc::now().timestamp() + 365 * 86_400;
    let (status, _) = deliver(&app, &subscription("evt_y2", "customer.subscription.updated", "cus_year", true, end)).await;
    assert_eq!(status, StatusCode::OK);
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["cancelAtPeriodEnd"].as_bool()), (Some("pro"), Some(true)), "Pro until the period ends");
    assert_eq!(sub["endsAt"], sub["currentPeriodEnd"]);

    // Resumed before the end, then cancelled again and ended by Stripe.
    deliver(&app, &subscription("evt_y3", "customer.subscription.updated", "cus_year", false, end)).await;
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["cancelAtPeriodEnd"].as_bool(), sub["endsAt"].is_null()), (Some(false), true));
    deliver(&app, &subscription("evt_y4", "customer.subscription.deleted", "cus_year", true, end)).await;
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["status"].as_str(), sub["cancelAtPeriodEnd"].as_bool()), (Some("free"), Some("active"), Some(false)));
}

async fn a_failed_renewal_gives_grace_then_free_with_extra_bots_paused(backend: parley_store::Backend) {
    let app = app(backend).await;
    let (token, user_id) = customer(&app, "late@x.co", "cus_late").await;
    deliver(&app, &invoice_paid("evt_l1", "in_l1", "cus_late", MONTHLY, 30, 2900)).await;
    let first = app.create_bot(&token, "First").await;
    let second = app.create_bot(&token, "Second").await;
    let third = app.create_bot(&token, "Third").await;

    let (status, _) = deliver(&app, &invoice_failed("evt_l2", "in_l2", "cus_late", 2900)).await;
    assert_eq!(status, StatusCode::OK);
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["status"].as_str()), (Some("pro"), Some("past_due")), "Pro through the grace period");
    let ends = chrono::DateTime::parse_from_rfc3339(sub["endsAt"].as_str().unwrap()).unwrap();
    let grace = ends.with_timezone(&Utc) - Utc::now();
    assert!(grace > Duration::days(7) - Duration::minutes(5) && grace <= Duration::days(7), "{grace}");
    assert_eq!(payments(&app, &token).await, [("failed".to_string(), 2900), ("succeeded".to_string(), 2900)]);
    // A second failure (Stripe retries) does not stretch the grace.
    deliver(&app, &invoice_failed("evt_l3", "in_l2b", "cus_late", 2900)).await;
    assert_eq!(subscription_of(&app, &token).await["endsAt"], sub["endsAt"]);

    // The grace passes without a payment: Free, the oldest bot on, the others paused, none deleted.
    let settled = app.state.store.settle_lapsed_plans(parley_store::time::now() + Duration::days(8)).await.unwrap();
    assert_eq!(settled, 1);
    assert_eq!(subscription_of(&app, &token).await["planType"], "free");
    let status_of = |list: &Value, id: &str| list["bots"].as_array().unwrap().iter().find(|b| b["_id"] == id).map(|b| b["status"].clone());
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(list["bots"].as_array().unwrap().len(), 3, "no bot deleted");
    assert_eq!(status_of(&list, &first), Some(json!("active")));
    assert_eq!(status_of(&list, &second), Some(json!("inactive")));
    assert_eq!(status_of(&list, &third), Some(json!("inactive")));
    assert_eq!(app.state.store.paused_bot_ids(&user_id).await.unwrap(), [second.clone(), third.clone()]);
    // The lapsed subscription is no longer the account's: its deletion (a new checkout cancels
    // it) does not start the Free period over.
    let free = subscription_of(&app, &token).await;
    deliver(&app, &subscription("evt_l3b", "customer.subscription.deleted", "cus_late", false, 0)).await;
    assert!(free["currentPeriodStart"].is_string(), "{free}");
    assert_eq!(subscription_of(&app, &token).await["currentPeriodStart"], free["currentPeriodStart"]);
    // A paused bot cannot be switched back on past the plan; with the active one off, it can.
    let (status, body) = app.put_json(&format!("/api/bots/{second}"), Some(&token), json!({"status": "active"})).await;
    assert_eq!((status, body["error"]["code"].as_str(), body["error"]["limit"].as_str()), (StatusCode::FORBIDDEN, Some("plan_limit"), Some("bots")), "{body}");
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(status_of(&list, &second), Some(json!("inactive")));
    assert_eq!(app.put_json(&format!("/api/bots/{first}"), Some(&token), json!({"status": "inactive"})).await.0, StatusCode::OK);
    assert_eq!(app.put_json(&format!("/api/bots/{second}"), Some(&token), json!({"status": "active"})).await.0, StatusCode::OK);
    assert_eq!(app.state.store.paused_bot_ids(&user_id).await.unwrap(), [third.clone()], "switched on by hand: no longer paused");
    assert_eq!(app.put_json(&format!("/api/bots/{first}"), Some(&token), json!({"status": "active"})).await.0, StatusCode::FORBIDDEN);

    // Paying again brings Pro and the paused bots back.
    deliver(&app, &invoice_paid("evt_l4", "in_l4", "cus_late", MONTHLY, 30, 2900)).await;
    assert_eq!(subscription_of(&app, &token).await["planType"], "pro");
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    for id in [&second, &third] {
        assert_eq!(status_of(&list, id), Some(json!("active")), "{id}");
    }
    assert_eq!(status_of(&list, &first), Some(json!("inactive")), "switched off by its owner, not by the plan: stays off");
    assert!(app.state.store.paused_bot_ids(&user_id).await.unwrap().is_empty());
}

async fn a_failed_first_payment_changes_no_plan(backend: parley_store::Backend) {
    let app = app(backend).await;
    let (token, _) = customer(&app, "declined@x.co", "cus_declined").await;
    deliver(&app, &invoice_failed("evt_d1", "in_d1", "cus_declined", 2900)).await;
    let sub = subscription_of(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["status"].as_str(), sub["endsAt"].is_null()), (Some("free"), Some("active"), true));
    assert_eq!(payments(&app, &token).await, [("failed".to_string(), 2900)]);
}
