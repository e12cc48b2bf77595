//! The Leads page's lists: leads of the bots a user may see, filtered (search, status,
//! priority, a selection of ids) and sorted the six ways the screen offers. Two ways to read
//! them: numbered pages for the table, and keyset pages for the export, which walks any number
//! of leads one bounded chunk at a time (an offset would rescan every earlier row per chunk).

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use diesel_async::RunQueryDsl;

use crate::fold::{contains_pattern, fold_nullable, fold_text};
use crate::models::Lead;
use crate::schema::{bots, chat_sessions, leads, users};
use crate::{Store, StoreError, StoreResult};

diesel::define_sql_function! {
    /// A missing name as the empty string: first A–Z in the sort key (folded, see
    /// [`crate::fold`]), as the spec's client-side sort had it.
    #[sql_name = "coalesce"]
    fn text_or(x: Nullable<Text>, otherwise: Text) -> Text;
}

/// The six sorts of the filter bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeadSort {
    #[default]
    Newest,
    Oldest,
    ScoreHigh,
    ScoreLow,
    NameAz,
    NameZa,
}

impl LeadSort {
    pub fn parse(raw: &str) -> Option<LeadSort> {
        Some(match raw {
            "newest" => LeadSort::Newest,
            "oldest" => LeadSort::Oldest,
            "score_high" => LeadSort::ScoreHigh,
            "score_low" => LeadSort::ScoreLow,
            "name_asc" => LeadSort::NameAz,
            "name_desc" => LeadSort::NameZa,
            _ => return None,
        })
    }
}

/// Which leads: always within `bot_ids` (the bots the caller may see, or the one chosen).
#[derive(Debug, Clone, Default)]
pub struct LeadFilter {
    pub bot_ids: Vec<String>,
    /// Name, email or company contains it, in any case; `%` and `_` are plain characters.
    pub search: Option<String>,
    pub status: Option<String>,
    pub priority: Option<String>,
    /// Only these leads (the export of a selection).
    pub ids: Option<Vec<String>>,
}

/// A lead with what the table shows beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadRow {
    pub lead: Lead,
    pub bot_name: String,
    pub session_title: Option<String>,
    pub assigned_name: Option<String>,
    /// The name as the database sorts it (`NameAz`/`NameZa` continue an export from it).
    name_key: String,
}

type RowTuple = (Lead, String, Option<String>, Option<String>, String);

impl From<RowTuple> for LeadRow {
    fn from((lead, bot_name, session_title, assigned_name, name_key): RowTuple) -> Self {
        LeadRow { lead, bot_name, session_title, assigned_name, name_key }
    }
}

/// Adds the filter's conditions to a boxed query of leads (alone or joined): one place for
/// the rules, used by the count and the rows alike.
macro_rules! filtered {
    ($query:expr, $filter:expr, $pattern:expr) => {{
        let filter: &LeadFilter = $filter;
        let mut q = $query.filter(leads::bot_id.eq_any(filter.bot_ids.clone()));
        if let Some(status) = &filter.status {
            q = q.filter(leads::status.eq(status.clone()));
        }
        if let Some(priority) = &filter.priority {
            q = q.filter(leads::priority.eq(priority.clone()));
        }
        if let Some(ids) = &filter.ids {
            q = q.filter(leads::id.eq_any(ids.clone()));
        }
        if let Some(p) = $pattern {
            q = q.filter(
                fold_nullable(leads::name)
                    .like(p.clone())
                    .escape('\\')
                    .or(fold_nullable(leads::email).like(p.clone()).escape('\\'))
                    .or(fold_nullable(leads::company).like(p.clone()).escape('\\')),
            );
        }
        q
    }};
}

/// The joined rows, filtered and in `sort`'s order (id breaks ties, so the order is total and
/// a keyset page can continue from any row).
macro_rules! rows {
    ($filter:expr, $pattern:expr, $sort:expr) => {{
        let name_key = || fold_text(text_or(leads::name, ""));
        let q = leads::table
            .inner_join(bots::table)
            .left_join(chat_sessions::table.on(chat_sessions::id.nullable().eq(leads::session_id)))
            .left_join(users::table.on(users::id.nullable().eq(leads::assigned_to)))
            .select((Lead::as_select(), bots::name, chat_sessions::title.nullable(), users::name.nullable(), name_key()))
            .into_boxed();
        let q = filtered!(q, $filter, $pattern);
        match $sort {
            LeadSort::Newest => q.order_by((leads::captured_at.desc(), leads::id.desc())),
            LeadSort::Oldest => q.order_by((leads::captured_at.asc(), leads::id.asc())),
            LeadSort::ScoreHigh => q.order_by((leads::lead_score.desc(), leads::id.desc())),
            LeadSort::ScoreLow => q.order_by((leads::lead_score.asc(), leads::id.asc())),
            LeadSort::NameAz => q.order_by((name_key().asc(), leads::id.asc())),
            LeadSort::NameZa => q.order_by((name_key().desc(), leads::id.desc())),
        }
    }};
}

/// Where an export page continues: after the last row of the page before, in the sort's order.
#[derive(Debug, Clone)]
pub struct ExportCursor {
    captured_at: NaiveDateTime,
    score: i32,
    name_key: String,
    id: String,
}

impl ExportCursor {
    pub fn after(row: &LeadRow) -> ExportCursor {
        ExportCursor {
            captured_at: row.lead.captured_at,
            score: row.lead.lead_score,
            name_key: row.name_key.clone(),
            id: row.lead.id.clone(),
        }
    }
}

fn search_pattern(filter: &LeadFilter) -> Option<String> {
    filter.search.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(contains_pattern)
}

impl Store {
    /// One page of the table (`offset`, `limit` bounded to 500) and how many leads match in all.
    pub async fn leads_page(&self, filter: &LeadFilter, sort: LeadSort, offset: i64, limit: i64) -> StoreResult<(Vec<LeadRow>, i64)> {
        if filter.bot_ids.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let (offset, limit) = (offset.max(0), limit.clamp(1, 500));
        let pattern = search_pattern(filter);
        let pattern = pattern.as_ref();
        db_run!(self, |conn| {
            let total: i64 = filtered!(leads::table.into_boxed(), filter, pattern).count().get_result(conn).await?;
            let rows: Vec<RowTuple> = rows!(filter, pattern, sort).offset(offset).limit(limit).load(conn).await?;
            Ok::<_, StoreError>((rows.into_iter().map(LeadRow::from).collect(), total))
        })
    }

    /// The next `limit` leads of an export after `cursor` (from the start without one). An
    /// empty page is the end.
    pub async fn leads_export_page(&self, filter: &LeadFilter, sort: LeadSort, cursor: Option<&ExportCursor>, limit: i64) -> StoreResult<Vec<LeadRow>> {
        if filter.bot_ids.is_empty() {
            return Ok(Vec::new());
        }
        let limit = limit.clamp(1, 5000);
        let pattern = search_pattern(filter);
        let pattern = pattern.as_ref();
        let rows: Vec<RowTuple> = db_run!(self, |conn| {
            let mut q = rows!(filter, pattern, sort);
            if let Some(c) = cursor {
                let id = c.id.clone();
                let key = || fold_text(text_or(leads::name, ""));
                // Each OR has a plain bound beside it, which an index on the column can start
                // from (an OR alone makes SQLite scan from the first row for every page).
                q = match sort {
                    LeadSort::Newest => q.filter(leads::captured_at.le(c.captured_at)).filter(leads::captured_at.lt(c.captured_at).or(leads::captured_at.eq(c.captured_at).and(leads::id.lt(id)))),
                    LeadSort::Oldest => q.filter(leads::captured_at.ge(c.captured_at)).filter(leads::captured_at.gt(c.captured_at).or(leads::captured_at.eq(c.captured_at).and(leads::id.gt(id)))),
                    LeadSort::ScoreHigh => q.filter(leads::lead_score.le(c.score)).filter(leads::lead_score.lt(c.score).or(leads::lead_score.eq(c.score).and(leads::id.lt(id)))),
                    LeadSort::ScoreLow => q.filter(leads::lead_score.ge(c.score)).filter(leads::lead_score.gt(c.score).or(leads::lead_score.eq(c.score).and(leads::id.gt(id)))),
                    LeadSort::NameAz => q.filter(key().ge(c.name_key.clone())).filter(key().gt(c.name_key.clone()).or(key().eq(c.name_key.clone()).and(leads::id.gt(id)))),
                    LeadSort::NameZa => q.filter(key().le(c.name_key.clone())).filter(key().lt(c.name_key.clone()).or(key().eq(c.name_key.clone()).and(leads::id.lt(id)))),
                };
            }
            q.limit(limit).load(conn).await
        })?;
        Ok(rows.into_iter().map(LeadRow::from).collect())
    }

    /// One lead with what the table shows beside it.
    pub async fn lead_row(&self, id: &str) -> StoreResult<Option<LeadRow>> {
        let lead: Option<Lead> = db_run!(self, |conn| leads::table.find(id).first::<Lead>(conn).await.optional())?;
        let Some(lead) = lead else { return Ok(None) };
        let filter = LeadFilter { bot_ids: vec![lead.bot_id.clone()], ids: Some(vec![lead.id]), ..LeadFilter::default() };
        Ok(self.leads_export_page(&filter, LeadSort::Newest, None, 1).await?.into_iter().next())
    }
}
