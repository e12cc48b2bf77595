//! Billing over HTTP on both backends: the plans on offer.

mod support;

use reqwest::StatusCode;
use support::TestApp;

on_both_backends!(plans_are_public_and_priced_from_the_table);

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
}
