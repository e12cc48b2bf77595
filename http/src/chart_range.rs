//! The time axis of a chart: a period of the spec (24h, 7d, 30d, 90d; default 7d) in the
//! viewer's time zone, cut into hours (24h) or local days, the last one holding now.
//!
//! The time zone is an IANA name (`Europe/Paris`, what the dashboard sends: the browser's own)
//! or a fixed UTC offset (`+02:00`, `-05:30`, `Z`). Days follow the zone's clock changes: the
//! day of a change is 23 or 25 hours long and still one bucket, and each bucket is labelled
//! with the offset in force when it starts. Hours are real hours, so the hour a clock goes
//! back shows twice and the hour it skips not at all, as on a wall clock.

use chrono::{DateTime, Duration, FixedOffset, LocalResult, NaiveDateTime, NaiveTime, Offset, TimeZone, Timelike};
use chrono_tz::Tz;
use parley_store::analytics::{Buckets, MAX_SHIFTS, SLOT_SECS};

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

/// The viewer's time zone: a named zone with its clock changes, or a fixed UTC offset that is
/// a whole number of quarter hours (every offset in use is), at most 14 hours either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewerZone {
    Named(Tz),
    Offset(FixedOffset),
}

const TZ_MESSAGE: &str = "Time zone must be a zone such as Europe/Paris or a UTC offset such as +02:00";

impl ViewerZone {
    pub fn parse(raw: Option<&str>) -> ApiResult<ViewerZone> {
        let raw = raw.map(str::trim).unwrap_or("");
        let bad = || ApiError::validation(TZ_MESSAGE);
        if raw.is_empty() || raw.eq_ignore_ascii_case("z") || raw.eq_ignore_ascii_case("utc") {
            return FixedOffset::east_opt(0).map(ViewerZone::Offset).ok_or_else(bad);
        }
        let (sign, rest) = match raw.as_bytes().first() {
            Some(b'+') => (1, raw.get(1..).ok_or_else(bad)?),
            Some(b'-') => (-1, raw.get(1..).ok_or_else(bad)?),
            _ => return raw.parse::<Tz>().map(ViewerZone::Named).map_err(|_| bad()),
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
        FixedOffset::east_opt(secs).map(ViewerZone::Offset).ok_or_else(bad)
    }

    /// The offset from UTC in force at `utc`.
    pub fn offset_at(self, utc: NaiveDateTime) -> FixedOffset {
        match self {
            ViewerZone::Named(tz) => tz.offset_from_utc_datetime(&utc).fix(),
            ViewerZone::Offset(offset) => offset,
        }
    }

    fn local(self, utc: NaiveDateTime) -> NaiveDateTime {
        utc + Duration::seconds(i64::from(self.offset_at(utc).local_minus_utc()))
    }

    /// When the clocks read `local`: the earlier instant if they read it twice, and if they
    /// skipped it, the instant they jumped (a day that starts at 01:00 starts then).
    fn instant(self, local: NaiveDateTime) -> NaiveDateTime {
        match self {
            ViewerZone::Offset(offset) => local - Duration::seconds(i64::from(offset.local_minus_utc())),
            ViewerZone::Named(tz) => match tz.from_local_datetime(&local) {
                LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => at.naive_utc(),
                // In a gap: read with the offset before it, which lands on the jump.
                LocalResult::None => local - Duration::seconds(i64::from(self.offset_at(local - Duration::days(1)).local_minus_utc())),
            },
        }
    }

    /// The clock changes in `[from, to)`: when, and by how many seconds local time moved.
    /// Changes fall on quarter hours in every zone in use, so the slots are looked at.
    fn changes(self, from: NaiveDateTime, to: NaiveDateTime) -> Vec<(NaiveDateTime, i64)> {
        let ViewerZone::Named(_) = self else { return Vec::new() };
        let step = Duration::seconds(SLOT_SECS);
        let mut out = Vec::new();
        let mut before = self.offset_at(from).local_minus_utc();
        let mut at = from + step;
        while at < to && out.len() < MAX_SHIFTS {
            let now = self.offset_at(at).local_minus_utc();
            if now != before {
                out.push((at, i64::from(now - before)));
                before = now;
            }
            at += step;
        }
        out
    }

    /// When the zone's current day began (UTC), for "today" figures.
    pub fn day_start(self, now: NaiveDateTime) -> NaiveDateTime {
        self.instant(self.local(now).date().and_time(NaiveTime::MIN))
    }

    /// The zone's name (`Europe/Paris`), or the offset as `+02:00` (`+00:00` for UTC).
    pub fn label(self) -> String {
        match self {
            ViewerZone::Named(tz) => tz.name().to_string(),
            ViewerZone::Offset(offset) => offset_label(offset),
        }
    }
}

fn offset_label(offset: FixedOffset) -> String {
    let secs = offset.local_minus_utc();
    let sign = if secs < 0 { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", secs.abs() / 3600, secs.abs() % 3600 / 60)
}

/// The buckets of `period` in `zone` that end with the one holding `now` (UTC).
pub fn buckets(period: ChartPeriod, zone: ViewerZone, now: NaiveDateTime) -> Buckets {
    let local = zone.local(now);
    let (width, count) = period.bucket();
    match period {
        ChartPeriod::Day => {
            // Real hours ending with the one holding now, aligned to the local hour (a
            // half-hour zone's hours start at :30 UTC).
            let into_hour = Duration::minutes(i64::from(local.minute())) + Duration::seconds(i64::from(local.second()));
            let last_start = (now - into_hour).with_nanosecond(0).unwrap_or(now - into_hour);
            Buckets::uniform(last_start - width * (count as i32 - 1), width.num_seconds(), count)
        }
        _ => {
            let today = local.date().and_time(NaiveTime::MIN);
            let from = zone.instant(today - width * (count as i32 - 1));
            let to = zone.instant(today + width);
            Buckets::local(from, to, width.num_seconds(), count, &zone.changes(from, to))
        }
    }
}

/// When bucket `i` starts, in the viewer's time zone (`2026-11-25T00:00:00+02:00`).
pub fn bucket_start(buckets: &Buckets, zone: ViewerZone, i: usize) -> String {
    let step = Duration::seconds(buckets.width_secs * i as i64);
    let at = if buckets.width_secs < 86_400 { buckets.from + step } else { zone.instant(zone.local(buckets.from) + step) };
    DateTime::<FixedOffset>::from_naive_utc_and_offset(at, zone.offset_at(at)).to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
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
                assert_eq!(ViewerZone::parse(Some(raw)).unwrap(), ViewerZone::Offset(FixedOffset::east_opt(secs).unwrap()), "{raw}");
        }
        for raw in ["Europe/Pariss", "+15:00", "+02:10", "+2:5", "02:00", "+02:60", "+"] {
            assert!(ViewerZone::parse(Some(raw)).is_err(), "{raw}");
        }
        assert_eq!(ViewerZone::parse(Some("-05:30")).unwrap().label(), "-05:30");
        assert_eq!(ViewerZone::parse(Some(" Asia/Kathmandu ")).unwrap().label(), "Asia/Kathmandu");
    }

    #[test]
    fn days_start_at_local_midnight_and_the_last_holds_now() {
        let tz = ViewerZone::parse(Some("+02:00")).unwrap();
        // 23:30 UTC is already the next day at +02:00.
        let b = buckets(ChartPeriod::Week, tz, at("2026-11-24 23:30:00"));
        assert_eq!((b.from, b.width_secs, b.count), (at("2026-11-18 22:00:00"), 86_400, 7));
        assert_eq!(bucket_start(&b, tz, 6), "2026-11-25T00:00:00+02:00");
        assert!(b.to() > at("2026-11-24 23:30:00"));
    }

    #[test]
    fn today_starts_at_the_viewer_s_midnight() {
        let tz = ViewerZone::parse(Some("+02:00")).unwrap();
        assert_eq!(tz.day_start(at("2026-11-24 23:30:00")), at("2026-11-24 22:00:00"));
        assert_eq!(tz.day_start(at("2026-11-24 21:30:00")), at("2026-11-23 22:00:00"));
        let utc = ViewerZone::parse(None).unwrap();
        assert_eq!(utc.day_start(at("2026-11-24 23:30:00")), at("2026-11-24 00:00:00"));
        let paris = ViewerZone::parse(Some("Europe/Paris")).unwrap();
        assert_eq!(paris.day_start(at("2026-10-25 12:00:00")), at("2026-10-24 22:00:00"), "the day summer time ends began at +02:00");
    }

    #[test]
    fn a_day_with_a_clock_change_lasts_its_real_length() {
        let paris = ViewerZone::parse(Some("Europe/Paris")).unwrap();
        // Summer time ends Sunday 2026-10-25 at 01:00 UTC; spring's change was 2026-03-29.
        let week = buckets(ChartPeriod::Week, paris, at("2026-10-27 12:00:00"));
        assert_eq!((week.from, week.to), (at("2026-10-20 22:00:00"), at("2026-10-27 23:00:00")));
        assert_eq!(bucket_start(&week, paris, 0), "2026-10-21T00:00:00+02:00");
        assert_eq!(bucket_start(&week, paris, 6), "2026-10-27T00:00:00+01:00");
        assert_eq!(paris.changes(week.from, week.to), [(at("2026-10-25 01:00:00"), -3600)]);
        let spring = buckets(ChartPeriod::Week, paris, at("2026-03-30 12:00:00"));
        assert_eq!(spring.to - spring.from, Duration::hours(7 * 24 - 1), "a week an hour short");
        // A quarter from November to February holds no change in Paris.
        let winter = buckets(ChartPeriod::Quarter, paris, at("2027-02-10 12:00:00"));
        assert!(paris.changes(winter.from, winter.to).is_empty());
    }

    #[test]
    fn hours_are_real_hours_labelled_on_the_wall_clock() {
        let paris = ViewerZone::parse(Some("Europe/Paris")).unwrap();
        let day = buckets(ChartPeriod::Day, paris, at("2026-10-25 12:10:00"));
        assert_eq!((day.from, day.to), (at("2026-10-24 13:00:00"), at("2026-10-25 13:00:00")));
        let labels: Vec<String> = (0..24).map(|i| bucket_start(&day, paris, i)).collect();
        assert!(labels.contains(&"2026-10-25T02:00:00+02:00".to_string()), "{labels:?}");
        assert!(labels.contains(&"2026-10-25T02:00:00+01:00".to_string()), "the hour the clocks went back, twice");
        assert_eq!(labels[23], "2026-10-25T13:00:00+01:00");
    }

    #[test]
    fn a_midnight_the_clocks_skip_starts_the_day_at_the_jump() {
        // Chile moves to summer time at 24:00 on Saturday 2026-09-05: Sunday starts at 01:00.
        let santiago = ViewerZone::parse(Some("America/Santiago")).unwrap();
        let week = buckets(ChartPeriod::Week, santiago, at("2026-09-10 15:00:00"));
        let starts: Vec<String> = (0..7).map(|i| bucket_start(&week, santiago, i)).collect();
        assert!(starts.contains(&"2026-09-06T01:00:00-03:00".to_string()), "{starts:?}");
    }

    #[test]
    fn hours_follow_half_hour_offsets() {
        let tz = ViewerZone::parse(Some("+05:30")).unwrap();
        let b = buckets(ChartPeriod::Day, tz, at("2026-11-24 10:10:00"));
        // 15:40 local: the last bucket is 15:00–16:00 local, 09:30–10:30 UTC.
        assert_eq!(b.from, at("2026-11-23 10:30:00"));
        assert_eq!(b.to(), at("2026-11-24 10:30:00"));
    }
}
