//! Reads a Stripe webhook event (JSON, already verified) into what the store applies. Fields
//! are read where Stripe's API versions put them: an invoice's subscription at `subscription`
//! or `parent.subscription_details.subscription`, a line's price at `price.id`, `plan.id` or
//! `pricing.price_details.price`, a subscription's period end on it or on its first item.

use chrono::{DateTime, NaiveDateTime};
use parley_config::StripeSettings;
use parley_store::billing_events::BillingChange;
use serde_json::Value;

/// The event's id and type, and what it changes (`None`: a type Parley does not act on, or an
/// invoice for a price it does not sell).
pub struct Event {
    pub id: String,
    pub kind: String,
    pub change: Option<BillingChange>,
}

#[derive(Debug, PartialEq)]
pub struct Unreadable(pub String);

fn text(v: &Value, path: &[&str]) -> Option<String> {
    let mut at = v;
    for key in path {
        at = at.get(key)?;
    }
    at.as_str().map(str::to_string)
}

fn int(v: &Value, path: &[&str]) -> Option<i64> {
    let mut at = v;
    for key in path {
        at = at.get(key)?;
    }
    at.as_i64()
}

fn time_at(secs: i64) -> Option<NaiveDateTime> {
    DateTime::from_timestamp(secs, 0).map(|t| t.naive_utc())
}

/// The plan and cycle a Stripe price id stands for, from the settings.
pub fn plan_for_price(stripe: &StripeSettings, price: &str) -> Option<(&'static str, &'static str)> {
    if price.is_empty() {
        None
    } else if price == stripe.price_pro_monthly {
        Some(("pro", "monthly"))
    } else if price == stripe.price_pro_yearly {
        Some(("pro", "yearly"))
    } else {
        None
    }
}

fn line_price(line: &Value) -> Option<String> {
    text(line, &["price", "id"])
        .or_else(|| text(line, &["plan", "id"]))
        .or_else(|| text(line, &["pricing", "price_details", "price"]))
}

fn amount(v: &Value, key: &str) -> Result<i32, Unreadable> {
    let n = int(v, &[key]).ok_or_else(|| Unreadable(format!("invoice without {key}")))?;
    i32::try_from(n).map_err(|_| Unreadable(format!("{key} out of range")))
}

/// A subscription's current period end: on it in older API versions, on its first item in newer.
pub fn subscription_period_end(subscription: &Value) -> Option<NaiveDateTime> {
    int(subscription, &["current_period_end"])
        .or_else(|| subscription.get("items").and_then(|i| i.get("data")).and_then(|d| d.get(0)).and_then(|item| int(item, &["current_period_end"])))
        .and_then(time_at)
}

pub fn read(body: &[u8], stripe: &StripeSettings) -> Result<Event, Unreadable> {
    let event: Value = serde_json::from_slice(body).map_err(|e| Unreadable(format!("not JSON: {e}")))?;
    let id = text(&event, &["id"]).ok_or_else(|| Unreadable("event without id".into()))?;
    let kind = text(&event, &["type"]).ok_or_else(|| Unreadable("event without type".into()))?;
    let object = event.get("data").and_then(|d| d.get("object")).ok_or_else(|| Unreadable("event without data.object".into()))?;
    let customer = || text(object, &["customer"]).ok_or_else(|| Unreadable("object without customer".into()));
    let change = match kind.as_str() {
        "invoice.paid" => {
            let lines = object.get("lines").and_then(|l| l.get("data")).and_then(Value::as_array);
            let line = lines.and_then(|l| l.iter().find(|line| line_price(line).is_some()));
            let priced = line.and_then(|line| line_price(line).and_then(|p| plan_for_price(stripe, &p)).map(|plan| (line, plan)));
            match priced {
                None => None,
                Some((line, (plan_id, cycle))) => {
                    let period_start = int(line, &["period", "start"]).or_else(|| int(object, &["period_start"]));
                    let period_end = int(line, &["period", "end"]).or_else(|| int(object, &["period_end"]));
                    let (Some(start), Some(end)) = (period_start.and_then(time_at), period_end.and_then(time_at)) else {
                        return Err(Unreadable("invoice line without a period".into()));
                    };
                    Some(BillingChange::InvoicePaid {
                        customer: customer()?,
                        subscription: text(object, &["subscription"]).or_else(|| text(object, &["parent", "subscription_details", "subscription"])),
                        invoice: text(object, &["id"]).ok_or_else(|| Unreadable("invoice without id".into()))?,
                        plan_id: plan_id.into(),
                        cycle: cycle.into(),
                        amount_cents: amount(object, "amount_paid")?,
                        currency: text(object, &["currency"]).unwrap_or_else(|| "usd".into()),
                        description: format!("Pro plan ({cycle})"),
                        period_start: start,
                        period_end: end,
                    })
                }
            }
        }
        "invoice.payment_failed" => Some(BillingChange::InvoiceFailed {
            customer: customer()?,
            invoice: text(object, &["id"]).ok_or_else(|| Unreadable("invoice without id".into()))?,
            amount_cents: amount(object, "amount_due")?,
            currency: text(object, &["currency"]).unwrap_or_else(|| "usd".into()),
            description: "Payment failed".into(),
        }),
        "customer.subscription.updated" => {
            let end = subscription_period_end(object).ok_or_else(|| Unreadable("subscription without current_period_end".into()))?;
            Some(BillingChange::SubscriptionUpdated {
                customer: customer()?,
                subscription: text(object, &["id"]).ok_or_else(|| Unreadable("subscription without id".into()))?,
                cancel_at_period_end: object.get("cancel_at_period_end").and_then(Value::as_bool).unwrap_or(false),
                period_end: end,
            })
        }
        "customer.subscription.deleted" => Some(BillingChange::SubscriptionDeleted {
            customer: customer()?,
            subscription: text(object, &["id"]).ok_or_else(|| Unreadable("subscription without id".into()))?,
        }),
        _ => None,
    };
    Ok(Event { id, kind, change })
}
