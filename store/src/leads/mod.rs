//! Leads: the contact details visitors leave in a conversation (the lead-capture form, the
//! handoff contact form), one lead per conversation, listed for the bot's team. Capture lives
//! here; the Leads page's filtered lists and export pages are in `query`, its edits in `edit`,
//! its cards and insights in `stats`.

mod edit;
mod query;
mod stats;

pub use edit::{LeadChanges, NewLead};
pub use query::{ExportCursor, LeadFilter, LeadRow, LeadSort};
pub use stats::{LeadStats, MonthConversion};

use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::chat::CustomerInfo;
use crate::models::Lead;
use crate::schema::leads;
use crate::{new_id, time, Store, StoreResult};

/// Where a lead came from (spec: website_chat, mobile_app).
pub const SOURCE_WEBSITE_CHAT: &str = "website_chat";
/// A lead a member typed in (New Lead); not one of the spec's two, so it shows the generic icon.
pub const SOURCE_MANUAL: &str = "manual";

/// The lead statuses and priorities of spec 1 §4, in the order the screen lists them.
pub const STATUSES: [&str; 5] = ["new", "contacted", "qualified", "converted", "lost"];
pub const PRIORITIES: [&str; 4] = ["low", "medium", "high", "urgent"];
/// A lead with no score yet (spec 1 §9).
pub const DEFAULT_SCORE: i32 = 50;

fn keep(v: &Option<String>) -> Option<String> {
    v.as_ref().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// True when the details hold a way to reach the person (a name alone counts, as the spec's
/// lead form does).
pub fn has_contact(info: &CustomerInfo) -> bool {
    keep(&info.name).is_some() || keep(&info.email).is_some() || keep(&info.phone).is_some()
}

impl Store {
    /// Saves what a visitor told about themselves as the bot's lead. A conversation has one
    /// lead: details given later fill it in (a new value replaces an old one), and its score
    /// is raised to `score` if higher. Nothing is saved without a name, email or phone.
    pub async fn capture_lead(
        &self,
        bot_id: &str,
        session_id: Option<&str>,
        info: &CustomerInfo,
        score: i32,
    ) -> StoreResult<Option<Lead>> {
        if !has_contact(info) {
            return Ok(None);
        }
        let (name, email, phone, company) = (keep(&info.name), keep(&info.email), keep(&info.phone), keep(&info.company));
        let now = time::now();
        let score = score.clamp(0, 100);
        let session_id = session_id.map(str::to_string);
        let postgres = self.backend() == crate::Backend::Postgres;
        db_tx!(self, owned(bot_id), |conn| async move {
            // One conversation's captures one at a time, so two at once (details left and a
            // support request with details) make one lead. SQLite's writer turn already does
            // this; PostgreSQL's read-committed transactions would both find none and insert.
            if let (true, Some(s)) = (postgres, &session_id) {
                diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext('lead:' || $1))")
                    .bind::<diesel::sql_types::Text, _>(s)
                    .execute(conn)
                    .await?;
            }
            let existing: Option<Lead> = match &session_id {
                Some(s) => leads::table
                    .filter(leads::bot_id.eq(bot_id))
                    .filter(leads::session_id.eq(s))
                    .first(conn)
                    .await
                    .optional()?,
                None => None,
            };
            let id = match existing {
                Some(lead) => {
                    diesel::update(leads::table.find(&lead.id))
                        .set((
                            leads::name.eq(name.or(lead.name)),
                            leads::email.eq(email.or(lead.email)),
                            leads::phone.eq(phone.or(lead.phone)),
                            leads::company.eq(company.or(lead.company)),
                            leads::lead_score.eq(score.max(lead.lead_score)),
                            leads::last_contact.eq(Some(now)),
                            leads::updated_at.eq(now),
                        ))
                        .execute(conn)
                        .await?;
                    lead.id
                }
                None => {
                    let lead = Lead {
                        id: new_id(),
                        bot_id: bot_id.to_string(),
                        session_id: session_id.clone(),
                        name,
                        email,
                        phone,
                        company,
                        status: "new".into(),
                        priority: "medium".into(),
                        source: SOURCE_WEBSITE_CHAT.into(),
                        notes: None,
                        tags: "[]".into(),
                        lead_score: score,
                        assigned_to: None,
                        captured_at: now,
                        last_contact: Some(now),
                        updated_at: now,
                    };
                    diesel::insert_into(leads::table).values(&lead).execute(conn).await?;
                    lead.id
                }
            };
            Ok(Some(leads::table.find(id).first::<Lead>(conn).await?))
        })
    }

    /// The lead of one conversation, if its visitor left details.
    pub async fn lead_for_session(&self, bot_id: &str, session_id: &str) -> StoreResult<Option<Lead>> {
        db_run!(self, |conn| leads::table
            .filter(leads::bot_id.eq(bot_id))
            .filter(leads::session_id.eq(session_id))
            .first::<Lead>(conn)
            .await
            .optional())
        .map_err(Into::into)
    }

    /// A page of the bot's leads, newest first, and how many there are in all.
    pub async fn leads_of_bot(&self, bot_id: &str, offset: i64, limit: i64) -> StoreResult<(Vec<Lead>, i64)> {
        let (offset, limit) = (offset.max(0), limit.clamp(1, 500));
        let rows = db_run!(self, |conn| leads::table
            .filter(leads::bot_id.eq(bot_id))
            .order((leads::captured_at.desc(), leads::id.desc()))
            .offset(offset)
            .limit(limit)
            .load::<Lead>(conn)
            .await)?;
        let total = db_run!(self, |conn| leads::table.filter(leads::bot_id.eq(bot_id)).count().get_result::<i64>(conn).await)?;
        Ok((rows, total))
    }
}
