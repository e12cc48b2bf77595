//! Every mail Parley sends, as plain text plus a simple HTML part. Values are escaped in the
//! HTML; links are built by the caller from the public base URL.

/// A mail ready for the outbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub subject: String,
    pub text: String,
    pub html: String,
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One layout for all: a greeting, paragraphs, an optional button, a footer.
fn compose(subject: String, greeting: &str, paragraphs: &[String], action: Option<(&str, &str)>, footer: &str) -> Template {
    let mut text = format!("{greeting}\n\n");
    let mut html = format!(
        "<!doctype html><html><body style=\"font-family:Arial,Helvetica,sans-serif;color:#1c1d1d;max-width:560px;margin:0 auto;padding:24px\">\
         <p>{}</p>",
        escape(greeting)
    );
    for p in paragraphs {
        text.push_str(p);
        text.push_str("\n\n");
        html.push_str(&format!("<p>{}</p>", escape(p)));
    }
    if let Some((label, link)) = action {
        text.push_str(&format!("{label}: {link}\n\n"));
        html.push_str(&format!(
            "<p><a href=\"{href}\" style=\"display:inline-block;background:#3B82F6;color:#ffffff;padding:10px 18px;border-radius:8px;text-decoration:none\">{label}</a></p>\
             <p style=\"font-size:12px;color:#6b7280\">Or open this link: {link_text}</p>",
            href = escape(link),
            label = escape(label),
            link_text = escape(link),
        ));
    }
    text.push_str(footer);
    text.push_str("\n\n-- \nParley\n");
    html.push_str(&format!("<p style=\"font-size:12px;color:#6b7280\">{}</p></body></html>", escape(footer)));
    Template { subject, text, html }
}

fn hello(name: &str) -> String {
    if name.trim().is_empty() {
        "Hello,".to_string()
    } else {
        format!("Hello {},", name.trim())
    }
}

pub fn verify_email(name: &str, link: &str) -> Template {
    compose(
        "Verify your email address".into(),
        &hello(name),
        &["Please confirm that this is your email address. Until you do, you cannot accept team invitations.".into()],
        Some(("Verify email address", link)),
        "The link works for 48 hours. If you did not create a Parley account, ignore this mail.",
    )
}

pub fn confirm_new_email(name: &str, new_email: &str, link: &str) -> Template {
    compose(
        "Confirm your new email address".into(),
        &hello(name),
        &[format!("You asked to change the email address of your Parley account to {new_email}. The change takes effect when you follow this link.")],
        Some(("Confirm new address", link)),
        "The link works for 48 hours. If you did not ask for this, ignore this mail: nothing changes.",
    )
}

pub fn password_reset(name: &str, link: &str) -> Template {
    compose(
        "Reset your Parley password".into(),
        &hello(name),
        &["Someone (we hope you) asked to reset the password of your Parley account. Choosing a new password signs out every session.".into()],
        Some(("Choose a new password", link)),
        "The link works once, for 1 hour. If you did not ask for this, ignore this mail: your password stays as it is.",
    )
}

pub fn invitation(bot_name: &str, inviter: &str, role: &str, link: &str) -> Template {
    compose(
        format!("{inviter} invited you to {bot_name} on Parley"),
        "Hello,",
        &[format!("{inviter} invited you to join the team of the assistant \"{bot_name}\" as {role}.")],
        Some(("Accept invitation", link)),
        "The invitation expires in 7 days. If you did not expect it, ignore this mail.",
    )
}

/// A change to the account's security, sent to its owner (when security alerts are on).
pub fn security_alert(name: &str, what: &str) -> Template {
    compose(
        "Security alert for your Parley account".into(),
        &hello(name),
        &[what.to_string(), "If this was you, there is nothing to do. If not, reset your password at once with 'Forgot password?' on the sign-in page.".into()],
        None,
        "You get these mails because security alerts are on in your settings.",
    )
}

/// A bot's budget for new conversations was used up (possibly a script using up the plan).
pub fn conversation_budget(bot_name: &str, what: &str, link: &str) -> Template {
    compose(
        format!("New conversations on {bot_name} were paused"),
        "Hello,",
        &[
            what.to_string(),
            "This protects your plan's monthly conversations from being used up by a script. If the traffic is real, raise \
             realtime.new_conversations_per_bot_per_hour in the server's settings."
                .into(),
        ],
        Some(("Open the dashboard", link)),
        "You get these mails because email notifications are on in your settings.",
    )
}

/// A monthly limit of the owner's plan was reached (told once per billing period).
pub fn plan_limit_reached(name: &str, what: &str, link: &str) -> Template {
    compose(
        "Your Parley plan reached a monthly limit".into(),
        &hello(name),
        &[what.to_string(), "Upgrade on the billing page to lift the limit at once, or wait for the next period.".into()],
        Some(("Open billing", link)),
        "You get these mails because email notifications are on in your settings.",
    )
}

/// A visitor asked for a person while no agent of the bot was online.
pub fn support_request(bot_name: &str, customer: &str, message: &str, link: &str) -> Template {
    let mut paragraphs = vec![format!("A customer ({customer}) asked for human support on \"{bot_name}\" and no agent is online.")];
    if !message.trim().is_empty() {
        paragraphs.push(format!("Their message: \"{}\"", message.trim()));
    }
    compose(
        format!("New support request on {bot_name}"),
        "Hello,",
        &paragraphs,
        Some(("Open the agent dashboard", link)),
        "You get these mails because email notifications are on in your settings.",
    )
}

/// One bot's line in the weekly report.
#[derive(Debug, Clone, PartialEq)]
pub struct BotWeek {
    pub bot_name: String,
    pub figures: parley_store::reports::WeekFigures,
}

fn count(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A bot's week in one sentence: "Helper: 3 conversations, 12 messages, ...".
pub fn bot_week_line(week: &BotWeek) -> String {
    let f = &week.figures;
    let rating = match f.average_rating {
        Some(avg) => format!("average rating {avg:.1} of 5 ({})", count(f.rated, "rating", "ratings")),
        None => "no ratings".to_string(),
    };
    format!(
        "{}: {}, {}, {}, {}, {}, {}.",
        if week.bot_name.trim().is_empty() { "Untitled Assistant" } else { week.bot_name.trim() },
        count(f.conversations, "conversation", "conversations"),
        count(f.messages, "message", "messages"),
        count(f.handoffs, "handoff to a person", "handoffs to a person"),
        count(f.resolved, "resolved", "resolved"),
        rating,
        count(f.new_leads, "new lead", "new leads"),
    )
}

/// The weekly report: `period` names the week ("Nov 16 – Nov 22, 2026").
pub fn weekly_report(name: &str, period: &str, bots: &[BotWeek], link: &str) -> Template {
    let mut paragraphs = vec![format!("Here is what happened on your bots from {period} (UTC).")];
    paragraphs.extend(bots.iter().map(bot_week_line));
    compose(
        format!("Your weekly Parley report: {period}"),
        &hello(name),
        &paragraphs,
        Some(("Open the dashboard", link)),
        "You get this mail because weekly reports are on in your settings.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_in_html_and_kept_in_text() {
        let t = invitation("<Shop & Co>", "Olive \"O\"", "admin", "http://x/teams?a=1&b=2");
        assert!(t.subject.contains("<Shop & Co>"));
        assert!(t.text.contains("http://x/teams?a=1&b=2"));
        assert!(t.html.contains("&lt;Shop &amp; Co&gt;"));
        assert!(!t.html.contains("<Shop"));
        assert!(t.html.contains("href=\"http://x/teams?a=1&amp;b=2\""));
    }

    #[test]
    fn a_bot_week_reads_as_one_sentence() {
        let figures = parley_store::reports::WeekFigures {
            conversations: 1,
            messages: 12,
            handoffs: 2,
            resolved: 1,
            average_rating: Some(4.5),
            rated: 2,
            new_leads: 0,
        };
        let line = bot_week_line(&BotWeek { bot_name: "Helper".into(), figures });
        assert_eq!(
            line,
            "Helper: 1 conversation, 12 messages, 2 handoffs to a person, 1 resolved, average rating 4.5 of 5 (2 ratings), 0 new leads."
        );
        let quiet = bot_week_line(&BotWeek { bot_name: " ".into(), figures: Default::default() });
        assert!(quiet.starts_with("Untitled Assistant: 0 conversations") && quiet.contains("no ratings"), "{quiet}");
    }

    #[test]
    fn reset_mail_says_how_long_the_link_works() {
        let t = password_reset("", "http://x/reset-password?token=t");
        assert!(t.text.starts_with("Hello,"));
        assert!(t.text.contains("1 hour"));
        assert!(t.text.contains("http://x/reset-password?token=t"));
    }
}
