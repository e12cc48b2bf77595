//! What the Leads page sends, parsed once with the spec's words (spec 1 §5: a new lead needs a
//! bot, 'Please select a bot'; the rest is optional) and Parley's own bounds for the rest, so
//! the store is only ever given values it may keep.

use chrono::{DateTime, NaiveDateTime, SubsecRound};
use parley_engine::leads::{COMPANY_CHARS, EMAIL_CHARS, NAME_CHARS, PHONE_CHARS};
use parley_store::leads::{LeadChanges, LeadFilter, LeadSort, NewLead, DEFAULT_SCORE, PRIORITIES, STATUSES};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::domain::Email;
use crate::error::{ApiError, ApiResult};

pub const SELECT_BOT: &str = "Please select a bot";
pub const NOTES_CHARS: usize = 2000;
pub const TAG_CHARS: usize = 50;
pub const MAX_TAGS: usize = 20;

/// `Some(value)` when the field is present, even as `null`: an edit tells "clear it" (`null`)
/// from "leave it" (absent).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// The Create and Edit forms' fields. Tags come as a list or as the form's comma-separated text.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeadBody {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub company: Option<Option<String>>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default, alias = "score", deserialize_with = "present")]
    pub lead_score: Option<Option<Value>>,
    #[serde(default, deserialize_with = "present")]
    pub notes: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub tags: Option<Option<Value>>,
    #[serde(default, deserialize_with = "present")]
    pub assigned_to: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub last_contact: Option<Option<String>>,
}

/// A trimmed text of at most `most` characters; blank is none.
fn text(raw: Option<String>, what: &str, most: usize) -> ApiResult<Option<String>> {
    let Some(value) = raw.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()) else { return Ok(None) };
    if value.chars().count() > most {
        return Err(ApiError::validation(format!("{what} must be at most {most} characters")));
    }
    Ok(Some(value))
}

fn email(raw: Option<String>) -> ApiResult<Option<String>> {
    match text(raw, "Email", EMAIL_CHARS)? {
        Some(e) => Ok(Some(Email::parse(&e)?.as_str().to_string())),
        None => Ok(None),
    }
}

pub fn status(raw: &str) -> ApiResult<String> {
    let s = raw.trim().to_lowercase();
    if STATUSES.contains(&s.as_str()) {
        Ok(s)
    } else {
        Err(ApiError::validation("Status must be one of new, contacted, qualified, converted, lost"))
    }
}

fn priority(raw: &str) -> ApiResult<String> {
    let p = raw.trim().to_lowercase();
    if PRIORITIES.contains(&p.as_str()) {
        Ok(p)
    } else {
        Err(ApiError::validation("Priority must be one of low, medium, high, urgent"))
    }
}

/// A whole number 0–100 (a number or the form's numeric text); none is the default 50.
fn score(raw: Option<Value>) -> ApiResult<i32> {
    const RULE: &str = "Score must be a whole number from 0 to 100";
    let n = match raw {
        None | Some(Value::Null) => return Ok(DEFAULT_SCORE),
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(DEFAULT_SCORE),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        Some(_) => None,
    };
    match n {
        Some(n) if (0..=100).contains(&n) => Ok(n as i32),
        _ => Err(ApiError::validation(RULE)),
    }
}

/// Tags from a list or comma-separated text: trimmed, blanks dropped, repeats (any case) once.
pub fn tags(raw: Option<Value>) -> ApiResult<Vec<String>> {
    let items: Vec<String> = match raw {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
        Some(Value::Array(list)) => list
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(ApiError::validation("Tags must be text")),
            })
            .collect::<ApiResult<_>>()?,
        Some(_) => return Err(ApiError::validation("Tags must be text")),
    };
    parley_engine::tags::clean(&items, MAX_TAGS, TAG_CHARS).map_err(|refused| match refused {
        parley_engine::tags::TagsRefused::TooLong => ApiError::validation(format!("A tag must be at most {TAG_CHARS} characters")),
        parley_engine::tags::TagsRefused::TooMany => ApiError::validation(format!("A lead can have at most {MAX_TAGS} tags")),
    })
}

fn last_contact(raw: Option<String>) -> ApiResult<Option<NaiveDateTime>> {
    let Some(raw) = raw.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()) else { return Ok(None) };
    DateTime::parse_from_rfc3339(&raw)
        .map(|t| Some(t.naive_utc().trunc_subsecs(6)))
        .map_err(|_| ApiError::validation("Last contact must be a date and time"))
}

/// The member a lead is assigned to, not yet checked against the bot's team.
fn assignee(raw: Option<String>) -> Option<String> {
    raw.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl LeadBody {
    /// The bot a new lead is for: 'Please select a bot' without one.
    pub fn bot(&self) -> ApiResult<String> {
        self.bot_id.as_deref().map(str::trim).filter(|b| !b.is_empty()).map(str::to_string).ok_or_else(|| ApiError::validation(SELECT_BOT))
    }

    pub fn into_new(self, bot_id: String) -> ApiResult<NewLead> {
        Ok(NewLead {
            bot_id,
            name: text(self.name.flatten(), "Name", NAME_CHARS)?,
            email: email(self.email.flatten())?,
            phone: text(self.phone.flatten(), "Phone", PHONE_CHARS)?,
            company: text(self.company.flatten(), "Company", COMPANY_CHARS)?,
            status: self.status.as_deref().map(status).transpose()?.unwrap_or_else(|| "new".into()),
            priority: self.priority.as_deref().map(priority).transpose()?.unwrap_or_else(|| "medium".into()),
            score: score(self.lead_score.flatten())?,
            notes: text(self.notes.flatten(), "Notes", NOTES_CHARS)?,
            tags: tags(self.tags.flatten())?,
            assigned_to: assignee(self.assigned_to.flatten()),
            last_contact: last_contact(self.last_contact.flatten())?,
        })
    }

    pub fn into_changes(self) -> ApiResult<LeadChanges> {
        Ok(LeadChanges {
            name: self.name.map(|v| text(v, "Name", NAME_CHARS)).transpose()?,
            email: self.email.map(email).transpose()?,
            phone: self.phone.map(|v| text(v, "Phone", PHONE_CHARS)).transpose()?,
            company: self.company.map(|v| text(v, "Company", COMPANY_CHARS)).transpose()?,
            status: self.status.as_deref().map(status).transpose()?,
            priority: self.priority.as_deref().map(priority).transpose()?,
            score: self.lead_score.map(score).transpose()?,
            notes: self.notes.map(|v| text(v, "Notes", NOTES_CHARS)).transpose()?,
            tags: self.tags.map(tags).transpose()?,
            assigned_to: self.assigned_to.map(assignee),
            last_contact: self.last_contact.map(last_contact).transpose()?,
        })
    }
}

/// The filter bar as query parameters: `q`, `status`, `priority`, `sort`, `botId` ("all" or
/// empty means no filter), and for the export `ids` (comma-separated) and `format`.
#[derive(Deserialize, Default, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FilterParams {
    pub q: Option<String>,
    pub status: Option<String>,
    pub priority: Option<String>,
    pub sort: Option<String>,
    pub bot_id: Option<String>,
    pub ids: Option<String>,
    pub page: Option<i64>,
    pub limit: Option<i64>,
    pub format: Option<String>,
}

fn chosen(raw: &Option<String>) -> Option<&str> {
    raw.as_deref().map(str::trim).filter(|v| !v.is_empty() && *v != "all")
}

impl FilterParams {
    pub fn bot(&self) -> Option<&str> {
        chosen(&self.bot_id)
    }

    pub fn sort(&self) -> ApiResult<LeadSort> {
        match chosen(&self.sort) {
            None => Ok(LeadSort::default()),
            Some(s) => LeadSort::parse(s)
                .ok_or_else(|| ApiError::validation("Sort must be one of newest, oldest, score_high, score_low, name_asc, name_desc")),
        }
    }

    /// The filter over `bot_ids` (the bots the caller may see, already narrowed to `botId`).
    pub fn filter(&self, bot_ids: Vec<String>) -> ApiResult<LeadFilter> {
        let ids = chosen(&self.ids).map(|list| list.split(',').map(str::trim).filter(|i| !i.is_empty()).map(str::to_string).collect::<Vec<_>>());
        if ids.as_ref().is_some_and(|ids| ids.len() > 10_000) {
            return Err(ApiError::validation("Select at most 10000 leads to export"));
        }
        Ok(LeadFilter {
            bot_ids,
            search: self.q.as_deref().map(str::trim).filter(|q| !q.is_empty()).map(|q| q.chars().take(200).collect()),
            status: chosen(&self.status).map(status).transpose()?,
            priority: chosen(&self.priority).map(priority).transpose()?,
            ids,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tags_come_from_the_forms_text_or_a_list() {
        assert_eq!(tags(Some(json!(" vip, Trial ,,vip "))).unwrap(), vec!["vip", "Trial"]);
        assert_eq!(tags(Some(json!(["a", " b "]))).unwrap(), vec!["a", "b"]);
        assert!(tags(Some(json!([1]))).is_err());
    }

    #[test]
    fn a_score_is_a_whole_number_from_0_to_100() {
        assert_eq!(score(None).unwrap(), 50, "spec 1 §9: a missing score is 50");
        assert_eq!(score(Some(json!("80"))).unwrap(), 80);
        assert_eq!(score(Some(json!(100.0))).unwrap(), 100);
        for bad in [json!(101), json!(-1), json!(12.5), json!("many"), json!(true)] {
            assert_eq!(score(Some(bad)).unwrap_err().message, "Score must be a whole number from 0 to 100");
        }
    }

    #[test]
    fn a_new_lead_needs_a_bot_in_the_specs_words() {
        assert_eq!(LeadBody::default().bot().unwrap_err().message, SELECT_BOT);
        let body: LeadBody = serde_json::from_value(json!({"botId": "  "})).unwrap();
        assert_eq!(body.bot().unwrap_err().message, "Please select a bot");
    }

    #[test]
    fn an_edit_tells_clear_from_leave() {
        let body: LeadBody = serde_json::from_value(json!({"phone": null, "status": "Qualified"})).unwrap();
        let changes = body.into_changes().unwrap();
        assert_eq!(changes.phone, Some(None));
        assert_eq!(changes.name, None);
        assert_eq!(changes.status.as_deref(), Some("qualified"));
    }

    #[test]
    fn bad_values_are_refused_with_what_is_wrong() {
        let bad = |v| serde_json::from_value::<LeadBody>(v).unwrap().into_changes().unwrap_err().message;
        assert_eq!(bad(json!({"email": "nope"})), "Please enter a valid email address");
        assert_eq!(bad(json!({"status": "won"})), "Status must be one of new, contacted, qualified, converted, lost");
        assert_eq!(bad(json!({"priority": "later"})), "Priority must be one of low, medium, high, urgent");
        assert_eq!(bad(json!({"lastContact": "yesterday"})), "Last contact must be a date and time");
        assert_eq!(bad(json!({"name": "x".repeat(101)})), "Name must be at most 100 characters");
    }
}
