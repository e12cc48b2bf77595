//! Leads from conversations: capturing a visitor's details as their bot's lead, and scoring how
//! promising they are, 0–100. Ways to reach them count most (an email above all), then how
//! engaged the conversation was.

use parley_store::chat::CustomerInfo;
use parley_store::contact;
use parley_store::models::Lead;
use parley_store::{Store, StoreResult};

const EMAIL: i32 = 35;
const PHONE: i32 = 20;
const NAME: i32 = 10;
const COMPANY: i32 = 10;
/// Points per message in the conversation, up to `ENGAGEMENT_CAP`.
const PER_MESSAGE: i32 = 5;
const ENGAGEMENT_CAP: i32 = 25;

/// Longest name, email, phone and company a visitor may leave (they become the bot's lead and
/// are shown to the team and in mails).
pub const NAME_CHARS: usize = 100;
pub const EMAIL_CHARS: usize = contact::EMAIL_CHARS;
pub const PHONE_CHARS: usize = 40;
pub const COMPANY_CHARS: usize = 100;

/// Refuses details with a field over its cap, naming the field, or an email that is not one,
/// before anything is saved.
pub fn check_details(info: &CustomerInfo) -> Result<(), String> {
    for (value, what, most) in [
        (&info.name, "Name", NAME_CHARS),
        (&info.email, "Email", EMAIL_CHARS),
        (&info.phone, "Phone", PHONE_CHARS),
        (&info.company, "Company", COMPANY_CHARS),
    ] {
        if value.as_deref().is_some_and(|v| v.trim().chars().count() > most) {
            return Err(format!("{what} must be at most {most} characters"));
        }
    }
    if info.email.as_deref().map(str::trim).is_some_and(|e| !e.is_empty() && !contact::plausible_email(&e.to_lowercase())) {
        return Err(contact::INVALID_EMAIL.into());
    }
    Ok(())
}

fn given(v: &Option<String>) -> bool {
    v.as_deref().is_some_and(|s| !s.trim().is_empty())
}

pub fn score(info: &CustomerInfo, messages: i32) -> i32 {
    let contact = [(given(&info.email), EMAIL), (given(&info.phone), PHONE), (given(&info.name), NAME), (given(&info.company), COMPANY)]
        .iter()
        .filter(|(has, _)| *has)
        .map(|(_, points)| points)
        .sum::<i32>();
    (contact + (messages.max(0) * PER_MESSAGE).min(ENGAGEMENT_CAP)).clamp(0, 100)
}

/// Saves the visitor's details as the bot's lead for this conversation, scored on everything
/// known of the person (details given earlier included). The lead, if one was saved.
pub async fn capture(store: &Store, bot_id: &str, session_id: &str, info: &CustomerInfo) -> StoreResult<Option<Lead>> {
    let messages = store.session(session_id).await?.map(|s| s.message_count).unwrap_or(0);
    let known = store.lead_for_session(bot_id, session_id).await?;
    let or_known = |given: &Option<String>, old: Option<String>| given.clone().filter(|v| !v.trim().is_empty()).or(old);
    let merged = match known {
        Some(l) => CustomerInfo {
            name: or_known(&info.name, l.name),
            email: or_known(&info.email, l.email),
            phone: or_known(&info.phone, l.phone),
            company: or_known(&info.company, l.company),
        },
        None => info.clone(),
    };
    store.capture_lead(bot_id, Some(session_id), info, score(&merged, messages)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, email: &str, phone: &str, company: &str) -> CustomerInfo {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
        CustomerInfo { name: opt(name), email: opt(email), phone: opt(phone), company: opt(company) }
    }

    #[test]
    fn contact_details_and_engagement_add_up_to_at_most_100() {
        assert_eq!(score(&info("Ann", "", "", ""), 0), 10);
        assert_eq!(score(&info("Ann", "ann@x.co", "", ""), 2), 55);
        assert_eq!(score(&info("Ann", "ann@x.co", "+44 1", "Acme"), 40), 100);
        assert_eq!(score(&info("", "  ", "", ""), -3), 0, "blanks and odd counts score nothing");
    }

    #[test]
    fn a_visitor_email_must_look_like_one() {
        assert_eq!(check_details(&info("Ann", " Ann@Example.COM ", "", "")), Ok(()));
        assert_eq!(check_details(&info("Ann", "", "", "")), Ok(()), "no email is fine");
        for bad in ["not-an-email", "ann@localhost", "ann @x.co", "@x.co", "ann@x.co@y.co", "ann@.co"] {
            assert_eq!(check_details(&info("Ann", bad, "", "")), Err(contact::INVALID_EMAIL.to_string()), "{bad}");
        }
    }
}
