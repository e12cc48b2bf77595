//! The weekly report: once a week, at the configured day and hour (UTC), each user who turned
//! "Weekly reports" on gets the last 7 days of their bots by mail. `run_due_weekly_reports`
//! does one round for a given time (tests call it with the time they choose); the task started
//! with the server calls it with the clock. The store marks each user's last reported week in
//! the transaction that queues the mail, so a restart, a late start or a second node never
//! sends a week twice, and a server that was down at the hour sends it when it is back.

use std::time::Duration;

use actix_web::web;
use chrono::{Datelike, NaiveDateTime, NaiveTime, Timelike};
use parley_config::ReportSettings;
use parley_store::mail::NewMail;
use parley_store::time;

use crate::error::ApiResult;
use crate::mail::templates::{self, BotWeek};
use crate::state::AppState;

/// Longest sleep between two looks (a changed clock, a report another node did not finish).
const RECHECK: Duration = Duration::from_secs(3600);

/// When reports go out: a day of the week (0 = Monday) and an hour, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    day_from_monday: u32,
    hour: u32,
}

/// The week a report covers: `[start, end)`, `end` being the scheduled moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub start: NaiveDateTime,
    pub end: NaiveDateTime,
}

impl Schedule {
    /// `None` when the settings turn weekly reports off (no day).
    pub fn from_settings(settings: &ReportSettings) -> Option<Schedule> {
        let day_from_monday = settings.weekly_day_from_monday()?;
        Some(Schedule { day_from_monday, hour: settings.weekly_hour.min(23) })
    }

    /// The week whose report is due at `now`: it ends at the latest scheduled moment at or
    /// before `now`.
    pub fn period_due(&self, now: NaiveDateTime) -> Period {
        let days_back = (now.weekday().num_days_from_monday() + 7 - self.day_from_monday) % 7;
        let at_hour = NaiveTime::from_hms_opt(self.hour, 0, 0).unwrap_or(NaiveTime::MIN);
        let mut end = (now.date() - chrono::Duration::days(i64::from(days_back))).and_time(at_hour);
        if end > now {
            end -= chrono::Duration::days(7);
        }
        Period { start: end - chrono::Duration::days(7), end }
    }

    /// The next scheduled moment after `now`.
    pub fn next_after(&self, now: NaiveDateTime) -> NaiveDateTime {
        self.period_due(now).end + chrono::Duration::days(7)
    }
}

impl Period {
    /// "Nov 16 – Nov 22, 2026": the days the week covers (its end is the next day's hour).
    pub fn label(&self) -> String {
        let last = if self.end.time().hour() == 0 { self.end - chrono::Duration::days(1) } else { self.end };
        format!("{} – {}", self.start.format("%b %-d"), last.format("%b %-d, %Y"))
    }
}

/// Sends the report due at `now` to every user who wants one and was not sent it yet; returns
/// how many were queued. Nothing happens when the settings turn weekly reports off.
pub async fn run_due_weekly_reports(state: &AppState, now: NaiveDateTime) -> ApiResult<usize> {
    let Some(schedule) = Schedule::from_settings(&state.settings.reports) else { return Ok(0) };
    let period = schedule.period_due(now);
    let mut queued = 0;
    for user in state.store.weekly_report_recipients().await? {
        // Most users were done in an earlier round: skip them without computing figures.
        if state.store.last_weekly_report(&user.id).await?.is_some_and(|last| last >= period.end) {
            continue;
        }
        let bots = state.store.bots_for_user(&user.id).await?;
        if bots.is_empty() {
            continue;
        }
        let mut weeks = Vec::with_capacity(bots.len());
        for (bot, _) in bots {
            let figures = state.store.week_figures(&bot.id, period.start, period.end).await?;
            weeks.push(BotWeek { bot_name: bot.name, figures });
        }
        let link = state.mail.link("/dashboard");
        let template = templates::weekly_report(&user.name, &period.label(), &weeks, &link);
        let mail = NewMail { to: user.email.clone(), subject: template.subject, text: template.text, html: template.html, link: None };
        if state.store.record_weekly_report(&user.id, period.end, mail).await? {
            queued += 1;
        }
    }
    if queued > 0 {
        state.mail.wake_sender();
        tracing::info!("weekly report for {} queued for {queued} users", period.label());
    }
    Ok(queued)
}

/// Starts the task that sends weekly reports for as long as the process runs (none when the
/// settings turn them off).
pub fn spawn_weekly_reports(state: web::Data<AppState>) {
    let Some(schedule) = Schedule::from_settings(&state.settings.reports) else {
        tracing::info!("weekly reports are off (reports.weekly_day is empty)");
        return;
    };
    actix_web::rt::spawn(async move {
        loop {
            let now = time::now();
            if let Err(e) = run_due_weekly_reports(&state, now).await {
                tracing::error!("weekly reports: {}", e.message);
            }
            let until_next = (schedule.next_after(time::now()) - time::now()).to_std().unwrap_or(Duration::ZERO);
            // A moment past the hour, so the round sees the new week.
            tokio::time::sleep(until_next.min(RECHECK) + Duration::from_secs(1)).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").unwrap()
    }

    const MONDAY_8: Schedule = Schedule { day_from_monday: 0, hour: 8 };

    #[test]
    fn the_week_due_ends_at_the_last_scheduled_hour() {
        // 2026-11-23 is a Monday.
        let p = MONDAY_8.period_due(at("2026-11-23 08:00"));
        assert_eq!((p.start, p.end), (at("2026-11-16 08:00"), at("2026-11-23 08:00")));
        assert_eq!(MONDAY_8.period_due(at("2026-11-23 07:59")).end, at("2026-11-16 08:00"), "not yet this week's");
        assert_eq!(MONDAY_8.period_due(at("2026-11-29 23:00")).end, at("2026-11-23 08:00"));
        let friday_17 = Schedule { day_from_monday: 4, hour: 17 };
        assert_eq!(friday_17.period_due(at("2026-11-23 08:00")).end, at("2026-11-20 17:00"));
        assert_eq!(MONDAY_8.next_after(at("2026-11-23 09:00")), at("2026-11-30 08:00"));
    }

    #[test]
    fn a_period_is_labelled_by_its_days() {
        let p = MONDAY_8.period_due(at("2026-11-24 10:00"));
        assert_eq!(p.label(), "Nov 16 – Nov 23, 2026");
        let midnight = Schedule { day_from_monday: 0, hour: 0 }.period_due(at("2026-11-24 10:00"));
        assert_eq!(midnight.label(), "Nov 16 – Nov 22, 2026");
    }

    #[test]
    fn no_day_no_schedule() {
        let off = ReportSettings { weekly_day: String::new(), weekly_hour: 8 };
        assert_eq!(Schedule::from_settings(&off), None);
        let on = ReportSettings { weekly_day: "Monday".into(), weekly_hour: 8 };
        assert_eq!(Schedule::from_settings(&on), Some(MONDAY_8));
    }
}
