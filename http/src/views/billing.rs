//! What the billing calls answer with. These structs are the reply and its OpenAPI schema at
//! once, so the two cannot drift.

use chrono::NaiveDateTime;
use parley_store::billing::{Allowance, UNLIMITED};
use parley_store::models::{Payment, Plan};
use parley_store::time::to_rfc3339;
use serde::Serialize;
use utoipa::ToSchema;

/// The plan marked 'Most Popular' on the landing and billing pages.
const POPULAR_PLAN: &str = "pro";

/// One plan as the pricing cards show it. A limit of exactly 999 means unlimited (Pro's 5,000 is a limit).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanView {
    pub id: String,
    pub name: String,
    /// Price per month in cents; absent for a plan priced on request (Enterprise).
    pub price_monthly_cents: Option<i32>,
    /// Price per year in cents, paid yearly; absent for a plan priced on request.
    pub price_yearly_cents: Option<i32>,
    pub conversations_limit: i32,
    pub bots_limit: i32,
    pub credits_limit: i32,
    pub features: Vec<String>,
    /// Marked 'Most Popular'.
    pub popular: bool,
    /// Priced on request: the card says 'Custom' and offers Contact Sales.
    pub custom: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlansReply {
    pub plans: Vec<PlanView>,
    /// ISO 4217 code, lower case, as Stripe writes it.
    pub currency: String,
    /// What paying yearly saves against twelve monthly payments, in whole percent (the
    /// Monthly/Yearly toggle's 'Save N%'), computed from the paid plans' prices.
    pub yearly_discount_percent: i32,
    /// The value a limit takes when it is unlimited.
    pub unlimited: i32,
    /// Where Contact Sales writes (`billing.sales_email`, else the From address of mail).
    pub sales_email: String,
}

pub fn plan(p: &Plan) -> PlanView {
    PlanView {
        id: p.id.clone(),
        name: p.name.clone(),
        price_monthly_cents: p.price_monthly_cents,
        price_yearly_cents: p.price_yearly_cents,
        conversations_limit: p.conversations_limit,
        bots_limit: p.bots_limit,
        credits_limit: p.credits_limit,
        // The column holds a JSON array of strings; a malformed one shows no features rather
        // than failing the pricing page.
        features: serde_json::from_str(&p.features).unwrap_or_default(),
        popular: p.id == POPULAR_PLAN,
        custom: p.price_monthly_cents.is_none(),
    }
}

pub fn plans(plans: &[Plan], sales_email: String) -> PlansReply {
    PlansReply {
        plans: plans.iter().map(plan).collect(),
        currency: "usd".into(),
        yearly_discount_percent: yearly_discount_percent(plans),
        unlimited: UNLIMITED,
        sales_email,
    }
}

/// The largest saving any paid plan gives for paying yearly, rounded to a whole percent.
fn yearly_discount_percent(plans: &[Plan]) -> i32 {
    plans
        .iter()
        .filter_map(|p| match (p.price_monthly_cents, p.price_yearly_cents) {
            (Some(m), Some(y)) if m > 0 => Some(100 - ((i64::from(y) * 100 + i64::from(m) * 6) / (i64::from(m) * 12)) as i32),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The account's subscription as the Current Plan card and Subscription Status show it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionView {
    /// The plan in force now: `free`, `pro` or `enterprise`.
    pub plan_type: String,
    pub plan_name: String,
    /// `active`; `past_due` while a failed renewal's grace runs (the plan stays until `endsAt`).
    /// A checkout waiting for its first payment changes nothing here: the plan changes when
    /// Stripe's `invoice.paid` arrives.
    pub status: String,
    /// `monthly` or `yearly`.
    pub cycle: String,
    pub current_period_start: String,
    /// When the plan renews (paid plans) or the monthly usage starts again (Free).
    pub current_period_end: String,
    /// Whole days until `currentPeriodEnd`, rounded up.
    pub days_until_renewal: i64,
    /// The plan stops at the period's end (cancelled, or a downgrade to Free).
    pub cancel_at_period_end: bool,
    /// When the plan stops and the account goes back to Free; `null` while it goes on.
    pub ends_at: Option<String>,
}

/// What the Billing page needs to take a payment, or that it cannot.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutView {
    /// Payments through Stripe are set up on this server.
    pub configured: bool,
    /// Stripe's publishable key, for Stripe.js; `null` when not configured.
    pub publishable_key: Option<String>,
    /// Where the page loads Stripe.js from; `null` when not configured.
    pub js_url: Option<String>,
    /// Enterprise's Contact Sales address (a `mailto:` link).
    pub sales_email: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionReply {
    pub subscription: SubscriptionView,
    /// The newest payments (at most 3, as Billing History shows them).
    pub payment_history: Vec<PaymentView>,
    pub checkout: CheckoutView,
}

/// What a subscription shows at `now`. A lapsed one (its `ends_at` passed) is Free, renewing
/// with the monthly usage; a paid one shows its own period while it runs.
pub fn subscription(a: &Allowance, now: NaiveDateTime) -> SubscriptionView {
    let sub = &a.subscription;
    let lapsed = a.plan.id != sub.plan_id;
    let paid_period = !lapsed && a.plan.id != parley_store::billing::FREE && sub.current_period_end > now;
    let (start, end) = if paid_period { (sub.current_period_start, sub.current_period_end) } else { (a.period_start, a.period_end) };
    let seconds = (end - now).num_seconds().max(0);
    SubscriptionView {
        plan_type: a.plan.id.clone(),
        plan_name: a.plan.name.clone(),
        status: if lapsed { "active".into() } else { sub.status.clone() },
        cycle: if paid_period { sub.billing_cycle.clone() } else { "monthly".into() },
        current_period_start: to_rfc3339(&start),
        current_period_end: to_rfc3339(&end),
        days_until_renewal: (seconds + 86_399) / 86_400,
        cancel_at_period_end: !lapsed && sub.cancel_at_period_end,
        ends_at: if lapsed { None } else { sub.ends_at.as_ref().map(to_rfc3339) },
    }
}

/// One meter: used of total this period (a total of 999 or more is unlimited).
#[derive(Serialize, ToSchema)]
pub struct Meter {
    pub used: i32,
    pub total: i32,
}

#[derive(Serialize, ToSchema)]
pub struct Usage {
    pub conversations: Meter,
    pub bots: Meter,
    pub credits: Meter,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageReply {
    pub usage: Usage,
    /// The month the conversations and credits count in.
    pub period_start: String,
    pub period_end: String,
    /// The value a total takes when it is unlimited.
    pub unlimited: i32,
}

pub fn usage(a: &Allowance) -> UsageReply {
    UsageReply {
        usage: Usage {
            conversations: Meter { used: a.conversations_used, total: a.plan.conversations_limit },
            bots: Meter { used: a.bots_used, total: a.plan.bots_limit },
            credits: Meter { used: a.credits_used, total: a.plan.credits_limit },
        },
        period_start: to_rfc3339(&a.period_start),
        period_end: to_rfc3339(&a.period_end),
        unlimited: UNLIMITED,
    }
}

/// One row of Billing History.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentView {
    pub _id: String,
    pub id: String,
    pub description: String,
    /// In the currency's smallest unit (cents).
    pub amount_cents: i32,
    /// In the currency's unit (dollars), as the spec's `amount`.
    pub amount: f64,
    pub currency: String,
    /// `succeeded`, `failed`, or another provider state (shown in yellow).
    pub status: String,
    pub paid_at: String,
}

pub fn payment(p: &Payment) -> PaymentView {
    PaymentView {
        _id: p.id.clone(),
        id: p.id.clone(),
        description: p.description.clone(),
        amount_cents: p.amount_cents,
        amount: f64::from(p.amount_cents) / 100.0,
        currency: p.currency.clone(),
        status: p.status.clone(),
        paid_at: to_rfc3339(&p.paid_at),
    }
}

#[derive(Serialize, ToSchema)]
pub struct PaymentsReply {
    pub payments: Vec<PaymentView>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
}

/// The webhook's answer: received; `applied` false for a redelivery, an event Parley does not
/// act on, or an unknown customer.
#[derive(Serialize, ToSchema)]
pub struct WebhookReply {
    pub ok: bool,
    pub applied: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn priced(id: &str, monthly: Option<i32>, yearly: Option<i32>) -> Plan {
        Plan {
            id: id.into(),
            name: id.into(),
            price_monthly_cents: monthly,
            price_yearly_cents: yearly,
            conversations_limit: 1,
            bots_limit: 1,
            credits_limit: 1,
            features: r#"["a","b"]"#.into(),
            sort_order: 0,
        }
    }

    #[test]
    fn yearly_saving_is_computed_from_prices() {
        let plans = [priced("free", Some(0), Some(0)), priced("pro", Some(2900), Some(27840)), priced("enterprise", None, None)];
        assert_eq!(yearly_discount_percent(&plans), 20);
        assert_eq!(yearly_discount_percent(&plans[..1]), 0);
    }

    #[test]
    fn enterprise_is_custom_and_pro_popular() {
        let r = self::plans(&[priced("pro", Some(2900), Some(27840)), priced("enterprise", None, None)], "sales@x.co".into());
        assert!(r.plans[0].popular && !r.plans[0].custom);
        assert!(r.plans[1].custom && !r.plans[1].popular);
        assert_eq!(r.plans[0].features, vec!["a", "b"]);
    }
}
