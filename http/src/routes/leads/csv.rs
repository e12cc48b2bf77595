//! The CSV export's text: RFC 4180 (fields quoted when they hold a comma, quote or line break;
//! quotes doubled; CRLF between records), a UTF-8 byte-order mark so spreadsheet apps read the
//! accents right, and cells a spreadsheet would run as a formula neutralised (CSV injection: a
//! visitor types `=HYPERLINK(...)` as their name, an owner opens the export).

use parley_store::leads::LeadRow;
use parley_store::time::to_rfc3339;

use crate::views::leads::tags;

pub const BOM: &str = "\u{feff}";

pub const HEADER: [&str; 16] = [
    "Name", "Email", "Phone", "Company", "Status", "Priority", "Score", "Source", "Bot", "Conversation", "Session ID",
    "Assigned To", "Tags", "Notes", "Captured At", "Last Contact",
];

/// One field, quoted and neutralised as needed.
pub fn field(raw: &str) -> String {
    // A leading = + - @ (or the tab and carriage return OWASP adds) starts a formula; a quote
    // makes the spreadsheet show it as text.
    let neutral = match raw.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{raw}"),
        _ => raw.to_string(),
    };
    if neutral.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral
    }
}

/// One record, with its CRLF.
pub fn record<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let mut line = fields.into_iter().map(field).collect::<Vec<_>>().join(",");
    line.push_str("\r\n");
    line
}

pub fn header() -> String {
    format!("{BOM}{}", record(HEADER))
}

pub fn row(r: &LeadRow) -> String {
    let l = &r.lead;
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let score = l.lead_score.to_string();
    let tags = tags(l).join(", ");
    let captured = to_rfc3339(&l.captured_at);
    let last = l.last_contact.as_ref().map(to_rfc3339).unwrap_or_default();
    let (name, email, phone, company, notes) = (opt(&l.name), opt(&l.email), opt(&l.phone), opt(&l.company), opt(&l.notes));
    let (title, session, assigned) = (opt(&r.session_title), opt(&l.session_id), opt(&r.assigned_name));
    record([
        name.as_str(), email.as_str(), phone.as_str(), company.as_str(), l.status.as_str(), l.priority.as_str(), score.as_str(),
        l.source.as_str(), r.bot_name.as_str(), title.as_str(), session.as_str(), assigned.as_str(), tags.as_str(), notes.as_str(),
        captured.as_str(), last.as_str(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("Smith, Ann"), "\"Smith, Ann\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(record(["a", "b,c"]), "a,\"b,c\"\r\n");
    }

    #[test]
    fn formulas_are_shown_as_text() {
        assert_eq!(field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
        assert_eq!(field("+44 20 7946 0000"), "'+44 20 7946 0000");
        assert_eq!(field("-1"), "'-1");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("a=b"), "a=b", "only a leading sign starts a formula");
    }

    #[test]
    fn the_header_starts_with_the_byte_order_mark() {
        let h = header();
        assert!(h.starts_with('\u{feff}') && h.ends_with("Last Contact\r\n"));
        assert_eq!(h.matches(',').count(), HEADER.len() - 1);
    }
}
