//! What the billing calls answer with. These structs are the reply and its OpenAPI schema at
//! once, so the two cannot drift.

use parley_store::billing::UNLIMITED;
use parley_store::models::Plan;
use serde::Serialize;
use utoipa::ToSchema;

/// The plan marked 'Most Popular' on the landing and billing pages.
const POPULAR_PLAN: &str = "pro";

/// One plan as the pricing cards show it. Limits of 999 or more mean unlimited.
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

pub fn plans(plans: &[Plan]) -> PlansReply {
    PlansReply {
        plans: plans.iter().map(plan).collect(),
        currency: "usd".into(),
        yearly_discount_percent: yearly_discount_percent(plans),
        unlimited: UNLIMITED,
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
        let r = self::plans(&[priced("pro", Some(2900), Some(27840)), priced("enterprise", None, None)]);
        assert!(r.plans[0].popular && !r.plans[0].custom);
        assert!(r.plans[1].custom && !r.plans[1].popular);
        assert_eq!(r.plans[0].features, vec!["a", "b"]);
    }
}
