//! Changing leads from the Leads page: New Lead, the Edit form, the inline status select and
//! Delete. Values arrive checked (http's `domain::leads`); this only writes them.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::models::Lead;
use crate::schema::{bots, leads, team_members};
use crate::{new_id, time, Store, StoreError, StoreResult};

/// A lead a member types in.
#[derive(Debug, Clone, Default)]
pub struct NewLead {
    pub bot_id: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub status: String,
    pub priority: String,
    pub score: i32,
    pub notes: Option<String>,
    pub tags: Vec<String>,
    pub assigned_to: Option<String>,
    pub last_contact: Option<NaiveDateTime>,
}

/// An edit: `None` leaves a field as it is; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct LeadChanges {
    pub name: Option<Option<String>>,
    pub email: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub company: Option<Option<String>>,
    pub status: Option<String>,
    pub priority: Option<String>,
    pub score: Option<i32>,
    pub notes: Option<Option<String>>,
    pub tags: Option<Vec<String>>,
    pub assigned_to: Option<Option<String>>,
    pub last_contact: Option<Option<NaiveDateTime>>,
}

fn apply<T>(field: &mut T, change: Option<T>) {
    if let Some(value) = change {
        *field = value;
    }
}

impl Store {
    pub async fn create_lead(&self, new: NewLead) -> StoreResult<Lead> {
        let now = time::now();
        let lead = Lead {
            id: new_id(),
            bot_id: new.bot_id,
            session_id: None,
            name: new.name,
            email: new.email,
            phone: new.phone,
            company: new.company,
            status: new.status,
            priority: new.priority,
            source: super::SOURCE_MANUAL.into(),
            notes: new.notes,
            tags: serde_json::to_string(&new.tags)?,
            lead_score: new.score.clamp(0, 100),
            assigned_to: new.assigned_to,
            captured_at: now,
            last_contact: new.last_contact,
            updated_at: now,
        };
        let row = lead.clone();
        db_run!(self, |conn| diesel::insert_into(leads::table).values(&row).execute(conn).await)?;
        Ok(lead)
    }

    pub async fn lead(&self, id: &str) -> StoreResult<Option<Lead>> {
        db_run!(self, |conn| leads::table.find(id).first::<Lead>(conn).await.optional()).map_err(Into::into)
    }

    /// Applies an edit in one transaction (a concurrent edit of other fields is not lost to a
    /// stale read). `NotFound` when the lead is gone.
    pub async fn update_lead(&self, id: &str, changes: LeadChanges) -> StoreResult<Lead> {
        let tags = changes.tags.as_ref().map(serde_json::to_string).transpose()?;
        let now = time::now();
        db_tx!(self, owned(id), |conn| async move {
            let mut lead: Lead = leads::table.find(id).first(conn).await?;
            apply(&mut lead.name, changes.name);
            apply(&mut lead.email, changes.email);
            apply(&mut lead.phone, changes.phone);
            apply(&mut lead.company, changes.company);
            apply(&mut lead.status, changes.status);
            apply(&mut lead.priority, changes.priority);
            apply(&mut lead.lead_score, changes.score.map(|s| s.clamp(0, 100)));
            apply(&mut lead.notes, changes.notes);
            apply(&mut lead.tags, tags);
            apply(&mut lead.assigned_to, changes.assigned_to);
            apply(&mut lead.last_contact, changes.last_contact);
            lead.updated_at = now;
            diesel::update(leads::table.find(id))
                .set((
                    leads::name.eq(&lead.name),
                    leads::email.eq(&lead.email),
                    leads::phone.eq(&lead.phone),
                    leads::company.eq(&lead.company),
                    leads::status.eq(&lead.status),
                    leads::priority.eq(&lead.priority),
                    leads::lead_score.eq(lead.lead_score),
                    leads::notes.eq(&lead.notes),
                    leads::tags.eq(&lead.tags),
                    leads::assigned_to.eq(&lead.assigned_to),
                    leads::last_contact.eq(lead.last_contact),
                    leads::updated_at.eq(lead.updated_at),
                ))
                .execute(conn)
                .await?;
            Ok(lead)
        })
    }

    /// `NotFound` when the lead is gone.
    pub async fn delete_lead(&self, id: &str) -> StoreResult<()> {
        let n = db_run!(self, |conn| diesel::delete(leads::table.find(id)).execute(conn).await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Everyone who may see the bot's leads: its owner and its active members.
    pub async fn team_user_ids(&self, bot_id: &str) -> StoreResult<Vec<String>> {
        db_run!(self, |conn| {
            let mut ids: Vec<String> = bots::table.find(bot_id).select(bots::owner_id).load(conn).await?;
            let members: Vec<Option<String>> = team_members::table
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::status.eq("active"))
                .select(team_members::user_id)
                .load(conn)
                .await?;
            ids.extend(members.into_iter().flatten());
            Ok::<_, StoreError>(ids)
        })
    }
}
