//! The Leads page's numbers: the five cards (total and four statuses) and the Insights panel
//! (how many leads carry an email, a name, a phone; each month's conversion; where leads come
//! from), over the same bots the list shows. Counted by the database, never by loading leads.

use chrono::{Datelike, NaiveDate, NaiveDateTime};
use diesel::dsl::count_star;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::schema::leads;
use crate::{Store, StoreError, StoreResult};

/// Leads captured in one calendar month (UTC) and how many of them are converted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MonthConversion {
    pub captured: i64,
    pub converted: i64,
}

impl MonthConversion {
    /// Percent converted, one decimal; `None` for a month without leads (nothing to rate).
    pub fn rate(&self) -> Option<f64> {
        (self.captured > 0).then(|| (self.converted as f64 * 1000.0 / self.captured as f64).round() / 10.0)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeadStats {
    pub total: i64,
    /// Count per status (every status of `STATUSES`, zero included).
    pub by_status: Vec<(String, i64)>,
    pub with_email: i64,
    pub with_name: i64,
    pub with_phone: i64,
    pub this_month: MonthConversion,
    pub last_month: MonthConversion,
    /// Count per source, most first.
    pub by_source: Vec<(String, i64)>,
}

impl LeadStats {
    pub fn status(&self, status: &str) -> i64 {
        self.by_status.iter().find(|(s, _)| s == status).map_or(0, |(_, n)| *n)
    }
}

/// Midnight UTC on the first of `now`'s month, of the month before, and of the month after.
fn month_bounds(now: NaiveDateTime) -> (NaiveDateTime, NaiveDateTime, NaiveDateTime) {
    let first = |y: i32, m: u32| NaiveDate::from_ymd_opt(y, m, 1).and_then(|d| d.and_hms_opt(0, 0, 0)).unwrap_or(now);
    let (y, m) = (now.year(), now.month());
    let this = first(y, m);
    let last = if m == 1 { first(y - 1, 12) } else { first(y, m - 1) };
    let next = if m == 12 { first(y + 1, 1) } else { first(y, m + 1) };
    (last, this, next)
}

impl Store {
    pub async fn lead_stats(&self, bot_ids: &[String], now: NaiveDateTime) -> StoreResult<LeadStats> {
        if bot_ids.is_empty() {
            let by_status = super::STATUSES.iter().map(|s| (s.to_string(), 0)).collect();
            return Ok(LeadStats { by_status, ..LeadStats::default() });
        }
        let ids = bot_ids.to_vec();
        let (last_start, this_start, next_start) = month_bounds(now);
        db_run!(self, |conn| {
            let of_bots = || leads::table.filter(leads::bot_id.eq_any(ids.clone())).into_boxed();
            // Grouped queries unboxed: diesel cannot type a boxed one with a GROUP BY here.
            let counted: Vec<(String, i64)> = leads::table
                .filter(leads::bot_id.eq_any(ids.clone()))
                .group_by(leads::status)
                .select((leads::status, count_star()))
                .load(conn)
                .await?;
            let by_status = super::STATUSES
                .iter()
                .map(|s| (s.to_string(), counted.iter().find(|(c, _)| c == s).map_or(0, |(_, n)| *n)))
                .collect();
            let total = counted.iter().map(|(_, n)| n).sum();
            let with_email = of_bots().filter(leads::email.is_not_null()).count().get_result(conn).await?;
            let with_name = of_bots().filter(leads::name.is_not_null()).count().get_result(conn).await?;
            let with_phone = of_bots().filter(leads::phone.is_not_null()).count().get_result(conn).await?;
            let month = |from: NaiveDateTime, to: NaiveDateTime| of_bots().filter(leads::captured_at.ge(from)).filter(leads::captured_at.lt(to));
            let this_month = MonthConversion {
                captured: month(this_start, next_start).count().get_result(conn).await?,
                converted: month(this_start, next_start).filter(leads::status.eq("converted")).count().get_result(conn).await?,
            };
            let last_month = MonthConversion {
                captured: month(last_start, this_start).count().get_result(conn).await?,
                converted: month(last_start, this_start).filter(leads::status.eq("converted")).count().get_result(conn).await?,
            };
            let mut by_source: Vec<(String, i64)> = leads::table
                .filter(leads::bot_id.eq_any(ids.clone()))
                .group_by(leads::source)
                .select((leads::source, count_star()))
                .load(conn)
                .await?;
            by_source.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            Ok::<_, StoreError>(LeadStats { total, by_status, with_email, with_name, with_phone, this_month, last_month, by_source })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(y: i32, m: u32, d: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, m, d).and_then(|d| d.and_hms_opt(15, 30, 0)).unwrap_or_default()
    }

    #[test]
    fn months_turn_over_at_the_year() {
        let (last, this, next) = month_bounds(at(2026, 1, 20));
        assert_eq!((last.to_string(), this.to_string(), next.to_string()), ("2025-12-01 00:00:00".into(), "2026-01-01 00:00:00".into(), "2026-02-01 00:00:00".into()));
        let (last, _, next) = month_bounds(at(2026, 12, 31));
        assert_eq!((last.month(), next.year(), next.month()), (11, 2027, 1));
    }

    #[test]
    fn a_month_without_leads_has_no_rate() {
        assert_eq!(MonthConversion { captured: 0, converted: 0 }.rate(), None);
        assert_eq!(MonthConversion { captured: 3, converted: 1 }.rate(), Some(33.3));
        assert_eq!(MonthConversion { captured: 4, converted: 4 }.rate(), Some(100.0));
    }
}
