//! The upgrade flow against a real local Stripe (localstripe, see support/localstripe.rs), on both
//! backends: checkout makes the customer and a `default_incomplete` subscription and answers
//! the first payment's client secret; nothing changes until the card is confirmed (as Stripe.js
//! does) and Stripe's signed `invoice.paid` webhook lands; then Pro, a payment row, the limit
//! lifted. Also yearly, cancel at the period's end and resume, a declined first card (no plan
//! change), a failed renewal (grace, then Free), and the refusals of bad input.

mod support;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use support::localstripe::{LocalStripe, CARD_DECLINED, CARD_OK};
use support::TestApp;

on_both_backends!(
    checkout_refuses_what_cannot_be_bought_and_needs_a_sign_in,
    a_confirmed_card_upgrades_to_pro_monthly_only_when_the_webhook_lands,
    yearly_then_cancel_at_the_period_end_and_resume,
    a_declined_first_card_changes_no_plan_and_a_failed_renewal_gives_grace_then_free,
);

async fn app_with_stripe(backend: parley_store::Backend) -> (TestApp, LocalStripe) {
    let stripe = LocalStripe::start().await;
    let app = TestApp::spawn_with(backend, |s| {
        stripe.configure(s);
        s.billing.default_plan = "free".into();
    })
    .await;
    stripe.deliver_to(&app.url("/api/billing/webhook")).await;
    (app, stripe)
}

async fn subscription(app: &TestApp, token: &str) -> Value {
    let (status, body) = app.get("/api/billing/subscription", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["subscription"].clone()
}

/// Polls the subscription, as the page does, until `done` holds (webhooks arrive about a
/// second after the event).
async fn wait_for(app: &TestApp, token: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..100 {
        let sub = subscription(app, token).await;
        if done(&sub) {
            return sub;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}: {}", subscription(app, token).await);
}

async fn payments(app: &TestApp, token: &str) -> Vec<(String, i64)> {
    let (_, body) = app.get("/api/billing/payments", Some(token)).await;
    body["payments"].as_array().unwrap().iter().map(|p| (p["status"].as_str().unwrap().to_string(), p["amountCents"].as_i64().unwrap())).collect()
}

async fn checkout(app: &TestApp, token: &str, cycle: &str) -> Value {
    let (status, body) = app.post_json("/api/billing/checkout", Some(token), json!({"plan": "pro", "cycle": cycle})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn customer_of(app: &TestApp, user_id: &str) -> String {
    app.state.store.subscription_of(user_id).await.unwrap().unwrap().stripe_customer_id.expect("a Stripe customer")
}

async fn checkout_refuses_what_cannot_be_bought_and_needs_a_sign_in(backend: parley_store::Backend) {
    let (app, _stripe) = app_with_stripe(backend).await;
    let (token, _) = app.signup("rules@x.co").await;
    let cases = [
        (json!({"plan": "gold", "cycle": "monthly"}), StatusCode::UNPROCESSABLE_ENTITY, "Choose a plan to upgrade to: pro"),
        (json!({"plan": "pro", "cycle": "weekly"}), StatusCode::UNPROCESSABLE_ENTITY, "Choose a billing cycle: monthly or yearly"),
        (
            json!({"plan": "free", "cycle": "monthly"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "To move to the Free plan, cancel your subscription: it ends at the end of the billing period",
        ),
        (json!({"plan": "enterprise", "cycle": "yearly"}), StatusCode::UNPROCESSABLE_ENTITY, "The Enterprise plan is arranged with our sales team: use Contact Sales"),
    ];
    for (body, status, message) in cases {
        let (got, reply) = app.post_json("/api/billing/checkout", Some(&token), body.clone()).await;
        assert_eq!((got, support::message(&reply)), (status, message), "{body}");
    }
    let (status, _) = app.post_json("/api/billing/checkout", Some(&token), json!({"plan": "pro"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "no cycle: malformed");
    let (status, _) = app.post_json("/api/billing/checkout", None, json!({"plan": "pro", "cycle": "monthly"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    for path in ["/api/billing/cancel", "/api/billing/resume"] {
        let (status, reply) = app.post_json(path, Some(&token), json!({})).await;
        assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "You are on the Free plan: there is no subscription to change"), "{path}");
        let (status, _) = app.post_json(path, None, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
    }
    assert_eq!(subscription(&app, &token).await["planType"], "free");

    // A plan set on the server (`parley plans set`) is not Stripe's to change.
    let (token, user_id) = app.signup("cli@x.co").await;
    app.state.store.set_plan(&user_id, "pro", None).await.unwrap();
    let (status, reply) = app.post_json("/api/billing/cancel", Some(&token), json!({})).await;
    assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "Your Pro plan was set on this server; it is not billed through Stripe"));

    // A server without Stripe says so, in the page's words.
    let bare = TestApp::spawn(backend).await;
    let (token, _) = bare.signup("bare@x.co").await;
    let (status, reply) = bare.post_json("/api/billing/checkout", Some(&token), json!({"plan": "pro", "cycle": "monthly"})).await;
    assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "Payments are not configured on this server"));
}

async fn a_confirmed_card_upgrades_to_pro_monthly_only_when_the_webhook_lands(backend: parley_store::Backend) {
    let (app, stripe) = app_with_stripe(backend).await;
    let (token, user_id) = app.signup("upgrade@x.co").await;
    app.create_bot(&token, "First").await;
    let form = reqwest::multipart::Form::new().text("name", "Second").text("faqMethod", "skip");
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!((status, body["error"]["limit"].as_str()), (StatusCode::FORBIDDEN, Some("bots")), "Free allows one assistant");

    // A checkout left half way, then another: one customer, the first subscription dropped.
    let first = checkout(&app, &token, "monthly").await;
    let customer = customer_of(&app, &user_id).await;
    let again = checkout(&app, &token, "monthly").await;
    assert_eq!(customer_of(&app, &user_id).await, customer, "the customer is reused");
    assert_ne!(first["subscriptionId"], again["subscriptionId"]);
    assert_eq!((again["plan"].as_str(), again["cycle"].as_str()), (Some("pro"), Some("monthly")));
    let dropped = stripe.get(&format!("subscriptions/{}", first["subscriptionId"].as_str().unwrap())).await;
    assert_eq!(dropped["status"], "canceled");
    let created = stripe.get(&format!("subscriptions/{}", again["subscriptionId"].as_str().unwrap())).await;
    assert_eq!((created["status"].as_str(), created["customer"].as_str()), (Some("incomplete"), Some(customer.as_str())));
    assert_eq!(created["items"]["data"][0]["plan"]["id"], "price_pro_monthly");

    // Nothing is paid yet: still Free, no payment.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(subscription(&app, &token).await["planType"], "free");
    assert!(payments(&app, &token).await.is_empty());

    let (status, paid) = stripe.confirm_card(again["clientSecret"].as_str().unwrap(), CARD_OK).await;
    assert_eq!((status, paid["status"].as_str()), (StatusCode::OK, Some("succeeded")), "{paid}");
    // Another checkout while the webhook is on its way (about a second): refused, not billed twice.
    let (status, reply) = app.post_json("/api/billing/checkout", Some(&token), json!({"plan": "pro", "cycle": "monthly"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{reply}");
    assert!(
        ["Your payment went through; your plan changes as soon as Stripe confirms it", "You are already on the Pro plan"].contains(&support::message(&reply)),
        "{reply}"
    );
    let live = stripe.get(&format!("subscriptions?customer={customer}")).await;
    assert_eq!(live["data"].as_array().unwrap().len(), 1, "one subscription at Stripe: {live}");
    let sub = wait_for(&app, &token, "Pro after invoice.paid", |s| s["planType"] == "pro").await;
    assert_eq!((sub["cycle"].as_str(), sub["status"].as_str(), sub["cancelAtPeriodEnd"].as_bool()), (Some("monthly"), Some("active"), Some(false)));
    assert!((29..=31).contains(&sub["daysUntilRenewal"].as_i64().unwrap()), "{sub}");
    assert_eq!(payments(&app, &token).await, [("succeeded".to_string(), 2900)]);
    let (_, usage) = app.get("/api/billing/usage", Some(&token)).await;
    assert_eq!(usage["usage"]["bots"]["total"], 5, "the limit lifts");
    app.create_bot(&token, "Second").await;

    // Already on Pro: no second subscription.
    let (status, reply) = app.post_json("/api/billing/checkout", Some(&token), json!({"plan": "pro", "cycle": "yearly"})).await;
    assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "You are already on the Pro plan"));
}

async fn yearly_then_cancel_at_the_period_end_and_resume(backend: parley_store::Backend) {
    let (app, stripe) = app_with_stripe(backend).await;
    let (token, _) = app.signup("yearly@x.co").await;
    let started = checkout(&app, &token, "yearly").await;
    assert_eq!(started["cycle"], "yearly");
    let (status, _) = stripe.confirm_card(started["clientSecret"].as_str().unwrap(), CARD_OK).await;
    assert_eq!(status, StatusCode::OK);
    let sub = wait_for(&app, &token, "Pro yearly", |s| s["planType"] == "pro").await;
    assert_eq!(sub["cycle"], "yearly");
    assert!((365..=366).contains(&sub["daysUntilRenewal"].as_i64().unwrap()), "{sub}");
    assert_eq!(payments(&app, &token).await, [("succeeded".to_string(), 27840)]);

    let (status, cancelled) = app.post_json("/api/billing/cancel", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!((cancelled["planType"].as_str(), cancelled["cancelAtPeriodEnd"].as_bool()), (Some("pro"), Some(true)), "Pro until the period's end");
    assert_eq!(cancelled["endsAt"], cancelled["currentPeriodEnd"]);
    let at_stripe = stripe.get(&format!("subscriptions/{}", started["subscriptionId"].as_str().unwrap())).await;
    assert_eq!(at_stripe["cancel_at_period_end"], true);
    let (status, reply) = app.post_json("/api/billing/cancel", Some(&token), json!({})).await;
    assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "Your subscription is already cancelled at the end of the billing period"));
    // Stripe's customer.subscription.updated lands too and agrees.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let sub = subscription(&app, &token).await;
    assert_eq!((sub["cancelAtPeriodEnd"].as_bool(), &sub["endsAt"]), (Some(true), &cancelled["endsAt"]));

    let (status, resumed) = app.post_json("/api/billing/resume", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{resumed}");
    assert_eq!((resumed["cancelAtPeriodEnd"].as_bool(), resumed["endsAt"].is_null()), (Some(false), true));
    let at_stripe = stripe.get(&format!("subscriptions/{}", started["subscriptionId"].as_str().unwrap())).await;
    assert_eq!(at_stripe["cancel_at_period_end"], false);
    let (status, reply) = app.post_json("/api/billing/resume", Some(&token), json!({})).await;
    assert_eq!((status, support::message(&reply)), (StatusCode::CONFLICT, "Your subscription is not cancelled: there is nothing to resume"));

    // Stripe delivers out of order: the cancellation's event arriving after the resume must
    // not cancel again (the handler re-reads the subscription from Stripe).
    let customer = at_stripe["customer"].as_str().unwrap();
    let mut late = at_stripe.clone();
    late["cancel_at_period_end"] = json!(true);
    let event = json!({"id": "evt_late_cancel", "object": "event", "type": "customer.subscription.updated",
        "created": chrono::Utc::now().timestamp() - 5, "livemode": false, "data": {"object": late}});
    assert_eq!(late["customer"], customer);
    let (status, reply) = stripe.deliver_signed(&app.url("/api/billing/webhook"), &event).await;
    assert_eq!((status, reply["applied"].as_bool()), (StatusCode::OK, Some(true)), "{reply}");
    let sub = subscription(&app, &token).await;
    assert_eq!((sub["planType"].as_str(), sub["cancelAtPeriodEnd"].as_bool(), sub["endsAt"].is_null()), (Some("pro"), Some(false), true), "{sub}");
}

async fn a_declined_first_card_changes_no_plan_and_a_failed_renewal_gives_grace_then_free(backend: parley_store::Backend) {
    let (app, stripe) = app_with_stripe(backend).await;
    let (token, user_id) = app.signup("declined@x.co").await;
    let started = checkout(&app, &token, "monthly").await;
    let (status, declined) = stripe.confirm_card(started["clientSecret"].as_str().unwrap(), CARD_DECLINED).await;
    assert_eq!((status, declined["error"]["code"].as_str()), (StatusCode::PAYMENT_REQUIRED, Some("card_declined")));
    for _ in 0..100 {
        if !payments(&app, &token).await.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(payments(&app, &token).await, [("failed".to_string(), 2900)], "invoice.payment_failed is recorded");
    assert_eq!(subscription(&app, &token).await["planType"], "free", "a declined first card buys nothing");

    // Another card pays; later the renewal's card is declined: grace, then Free.
    let started = checkout(&app, &token, "monthly").await;
    stripe.confirm_card(started["clientSecret"].as_str().unwrap(), CARD_OK).await;
    wait_for(&app, &token, "Pro", |s| s["planType"] == "pro").await;
    let customer = customer_of(&app, &user_id).await;
    stripe.fail_renewal(&customer, started["subscriptionId"].as_str().unwrap()).await;
    let sub = wait_for(&app, &token, "past_due", |s| s["status"] == "past_due").await;
    assert_eq!(sub["planType"], "pro", "Pro through the grace period");
    let ends = chrono::DateTime::parse_from_rfc3339(sub["endsAt"].as_str().unwrap()).unwrap().with_timezone(&chrono::Utc);
    let grace = ends - chrono::Utc::now();
    assert!(grace > chrono::Duration::days(7) - chrono::Duration::minutes(5) && grace <= chrono::Duration::days(7), "{grace}");
    let settled = app.state.store.settle_lapsed_plans(parley_store::time::now() + chrono::Duration::days(8)).await.unwrap();
    assert_eq!(settled, 1);
    assert_eq!(subscription(&app, &token).await["planType"], "free");
}
