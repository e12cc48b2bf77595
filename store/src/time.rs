//! Times are stored as UTC `NaiveDateTime` at microsecond precision, which both SQLite and
//! PostgreSQL keep exactly, so what is written is what is read back.

use chrono::{DateTime, NaiveDateTime, SubsecRound, Utc};

pub fn now() -> NaiveDateTime {
    Utc::now().naive_utc().trunc_subsecs(6)
}

/// RFC 3339 with a `Z`, as the JSON API shows every time.
pub fn to_rfc3339(t: &NaiveDateTime) -> String {
    DateTime::<Utc>::from_naive_utc_and_offset(*t, Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
