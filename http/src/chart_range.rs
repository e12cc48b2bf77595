//! The time axis of a chart: a period of the spec (24h, 7d, 30d, 90d; default 7d) in the
//! viewer's time zone, cut into local hours (24h) or local days, the last one holding now.
//!
//! The time zone is a fixed UTC offset (`+02:00`, `-05:30`, `Z`): the dashboard sends the
//! browser's current offset. Parley carries no time-zone database, so a period that crosses a
//! daylight-saving change keeps the offset of now throughout (one hour off on the days before
//! the change).

use chrono::{DateTime, Duration, FixedOffset, NaiveDateTime, NaiveTime, Timelike};
use parley_store::analytics::{Buckets, SLOT_SECS};

use crate::error::{ApiError, ApiResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartPeriod {
    Day,
    Week,
    Month,
    Quarter,
}

impl ChartPeriod {
    pub fn parse(raw: Option<&str>) -> ApiResult<ChartPeriod> {
        match raw.map(str::trim).unwrap_or("7d") {
            "24h" => Ok(ChartPeriod::Day),
            "7d" | "" => Ok(ChartPeriod::Week),
            "30d" => Ok(ChartPeriod::Month),
            "90d" => Ok(ChartPeriod::Quarter),
            _ => Err(ApiError::validation("Period must be 24h, 7d, 30d or 90d")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ChartPeriod::Day => "24h",
            ChartPeriod::Week => "7d",
            ChartPeriod::Month => "30d",
            ChartPeriod::Quarter => "90d",
        }
    }

    /// Hourly buckets for a day, daily otherwise.
    fn bucket(self) -> (Duration, usize) {
        match self {
            ChartPeriod::Day => (Duration::hours(1), 24),
            ChartPeriod::Week => (Duration::days(1), 7),
            ChartPeriod::Month => (Duration::days(1), 30),
            ChartPeriod::Quarter => (Duration::days(1), 90),
        }
    }
}

/// A UTC offset that is a whole number of quarter hours (every offset in use is), at most 14
/// hours either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcOffset(FixedOffset);

const TZ_MESSAGE: &str = "Time zone must be a UTC offset such as +02:00";

impl UtcOffset {
    pub fn parse(raw: Option<&str>) -> ApiResult<UtcOffset> {
        let raw = raw.map(str::trim).unwrap_or("");
        if raw.is_empty() || raw.eq_ignore_ascii_case("z") || raw.eq_ignore_ascii_case("utc") {
            return Ok(UtcOffset(FixedOffset::east_opt(0).ok_or_else(|| ApiError::validation(TZ_MESSAGE))?));
        }
        let bad = || ApiError::validation(TZ_MESSAGE);
        let (sign, rest) = match raw.as_bytes().first() {
            Some(b'+') => (1, raw.get(1..).ok_or_else(bad)?),
            Some(b'-') => (-1, raw.get(1..).ok_or_else(bad)?),
            _ => return Err(bad()),
        };
        let (hours, minutes) = match rest.split_once(':') {
            Some((h, m)) => (h, m),
            None if rest.len() == 4 => (rest.get(..2).ok_or_else(bad)?, rest.get(2..).ok_or_else(bad)?),
            None => (rest, "00"),
        };
        let digits = |s: &str| (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(hours) || minutes.len() != 2 || !digits(minutes) {
            return Err(bad());
        }
        let hours: i32 = hours.parse().map_err(|_| bad())?;
        let minutes: i32 = minutes.parse().map_err(|_| bad())?;
        let secs = sign * (hours * 3600 + minutes * 60);
        if hours > 14 || minutes >= 60 || secs.abs() > 14 * 3600 || i64::from(secs) % SLOT_SECS != 0 {
            return Err(bad());
        }
        FixedOffset::east_opt(secs).map(UtcOffset).ok_or_else(bad)
    }

    pub fn offset(self) -> FixedOffset {
        self.0
    }

    /// `+02:00` (`+00:00` for UTC), as the response names it.
    pub fn label(self) -> String {
        let secs = self.0.local_minus_utc();
        let sign = if secs < 0 { '-' } else { '+' };
        format!("{sign}{:02}:{:02}", secs.abs() / 3600, secs.abs() % 3600 / 60)
    }
}

/// The buckets of `period` in `tz` that end with the one holding `now` (UTC).
pub fn buckets(period: ChartPeriod, tz: UtcOffset, now: NaiveDateTime) -> Buckets {
    let offset = Duration::seconds(i64::from(tz.0.local_minus_utc()));
    let local = now + offset;
    let (width, count) = period.bucket();
    let last_start = match period {
        ChartPeriod::Day => local.date().and_time(NaiveTime::MIN) + Duration::hours(i64::from(local.hour())),
        _ => local.date().and_time(NaiveTime::MIN),
    };
    let first_local = last_start - width * (count as i32 - 1);
    Buckets { from: first_local - offset, width_secs: width.num_seconds(), count }
}

/// When bucket `i` starts, in the viewer's time zone (`2026-11-25T00:00:00+02:00`).
pub fn bucket_start(buckets: &Buckets, tz: UtcOffset, i: usize) -> String {
    let at = buckets.from + Duration::seconds(buckets.width_secs * i as i64);
    DateTime::<FixedOffset>::from_naive_utc_and_offset(at, tz.0).to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn periods_are_the_spec_s_four_and_default_to_a_week() {
        assert_eq!(ChartPeriod::parse(None).unwrap(), ChartPeriod::Week);
        assert_eq!(ChartPeriod::parse(Some("90d")).unwrap(), ChartPeriod::Quarter);
        assert!(ChartPeriod::parse(Some("1y")).is_err());
    }

    #[test]
    fn offsets_are_quarter_hours_within_fourteen_hours() {
        for (raw, secs) in [("+02:00", 7200), ("-05:30", -19800), ("+0545", 20700), ("Z", 0), ("utc", 0), ("+14:00", 50400), ("-3", -10800)] {
            assert_eq!(UtcOffset::parse(Some(raw)).unwrap().offset().local_minus_utc(), secs, "{raw}");
        }
        for raw in ["Europe/Paris", "+15:00", "+02:10", "+2:5", "02:00", "+02:60", "+"] {
            assert!(UtcOffset::parse(Some(raw)).is_err(), "{raw}");
        }
        assert_eq!(UtcOffset::parse(Some("-05:30")).unwrap().label(), "-05:30");
    }

    #[test]
    fn days_start_at_local_midnight_and_the_last_holds_now() {
        let tz = UtcOffset::parse(Some("+02:00")).unwrap();
        // 23:30 UTC is already the next day at +02:00.
        let b = buckets(ChartPeriod::Week, tz, at("2026-11-24 23:30:00"));
        assert_eq!((b.from, b.width_secs, b.count), (at("2026-11-18 22:00:00"), 86_400, 7));
        assert_eq!(bucket_start(&b, tz, 6), "2026-11-25T00:00:00+02:00");
        assert!(b.to() > at("2026-11-24 23:30:00"));
    }

    #[test]
    fn hours_follow_half_hour_offsets() {
        let tz = UtcOffset::parse(Some("+05:30")).unwrap();
        let b = buckets(ChartPeriod::Day, tz, at("2026-11-24 10:10:00"));
        // 15:40 local: the last bucket is 15:00–16:00 local, 09:30–10:30 UTC.
        assert_eq!(b.from, at("2026-11-23 10:30:00"));
        assert_eq!(b.to(), at("2026-11-24 10:30:00"));
    }
}
