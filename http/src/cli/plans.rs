//! `parley plans set EMAIL PLAN [--until DATE]` lets a self-hoster put an account on a plan
//! without payments: for an install without Stripe, a partner account, or a refund by hand.

use chrono::{NaiveDate, NaiveDateTime};
use parley_store::{time, Store, StoreError};

pub const PLANS_USAGE: &str = "usage: parley plans set EMAIL free|pro|enterprise [--until YYYY-MM-DD]\n\n\
Puts the account on the plan from now; with --until, through that day (UTC), then back to Free.";

/// What `plans set` was asked to do.
#[derive(Debug, PartialEq)]
pub struct SetPlan {
    pub email: String,
    pub plan: String,
    /// The first moment after the plan: midnight (UTC) after the `--until` day.
    pub ends_at: Option<NaiveDateTime>,
}

/// Reads `set EMAIL PLAN [--until DATE]` (the words after `plans`).
pub fn parse_plans(args: &[String], now: NaiveDateTime) -> Result<SetPlan, String> {
    let mut words = args.iter().map(String::as_str);
    if words.next() != Some("set") {
        return Err(PLANS_USAGE.into());
    }
    let (Some(email), Some(plan)) = (words.next(), words.next()) else { return Err(PLANS_USAGE.into()) };
    let ends_at = match (words.next(), words.next()) {
        (None, _) => None,
        (Some("--until"), Some(day)) => {
            let day = NaiveDate::parse_from_str(day, "%Y-%m-%d")
                .map_err(|_| format!("--until must be a date as YYYY-MM-DD, not {day:?}"))?;
            let end = day.succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)).ok_or("--until is out of range")?;
            if end <= now {
                return Err(format!("--until {day} is in the past"));
            }
            Some(end)
        }
        _ => return Err(PLANS_USAGE.into()),
    };
    if words.next().is_some() {
        return Err(PLANS_USAGE.into());
    }
    let plan = plan.to_ascii_lowercase();
    if !matches!(plan.as_str(), "free" | "pro" | "enterprise") {
        return Err(format!("Unknown plan {plan:?}: choose free, pro or enterprise"));
    }
    Ok(SetPlan { email: email.to_string(), plan, ends_at })
}

/// Carries out `plans set`; the line to print on success.
pub async fn set_plan(store: &Store, order: &SetPlan) -> Result<String, String> {
    let user = store
        .user_by_email(&order.email)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("No account with the email {}", order.email))?;
    let sub = store.set_plan(&user.id, &order.plan, order.ends_at).await.map_err(|e| match e {
        StoreError::NotFound => format!("Unknown plan {:?}", order.plan),
        other => other.to_string(),
    })?;
    store.fit_bots_to_plan(&user.id).await.map_err(|e| e.to_string())?;
    let until = match sub.ends_at {
        Some(end) => format!(" until {} (UTC), then Free", time::to_rfc3339(&end)),
        None => String::new(),
    };
    Ok(format!("{} is on {}{until}", user.email, sub.plan_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn noon(y: i32, m: u32, d: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d).unwrap().and_hms_opt(12, 0, 0).unwrap()
    }

    #[test]
    fn until_runs_through_the_named_day() {
        let order = parse_plans(&args(&["set", "a@b.co", "Pro", "--until", "2027-01-31"]), noon(2026, 11, 25)).unwrap();
        assert_eq!(order.plan, "pro");
        assert_eq!(order.ends_at, NaiveDate::from_ymd_opt(2027, 2, 1).unwrap().and_hms_opt(0, 0, 0));
    }

    #[test]
    fn bad_input_is_refused_in_words() {
        let now = noon(2026, 11, 25);
        assert_eq!(parse_plans(&args(&["set", "a@b.co"]), now), Err(PLANS_USAGE.into()));
        assert_eq!(parse_plans(&args(&["get", "a@b.co", "pro"]), now), Err(PLANS_USAGE.into()));
        assert!(parse_plans(&args(&["set", "a@b.co", "gold"]), now).unwrap_err().contains("choose free, pro or enterprise"));
        assert!(parse_plans(&args(&["set", "a@b.co", "pro", "--until", "31/01/2027"]), now).unwrap_err().contains("YYYY-MM-DD"));
        assert!(parse_plans(&args(&["set", "a@b.co", "pro", "--until", "2026-11-24"]), now).unwrap_err().contains("in the past"));
        assert_eq!(parse_plans(&args(&["set", "a@b.co", "pro", "--until"]), now), Err(PLANS_USAGE.into()));
        assert_eq!(parse_plans(&args(&["set", "a@b.co", "pro", "extra"]), now), Err(PLANS_USAGE.into()));
    }
}
