//! The notification switches on both backends, through real mail on loopback: a support request
//! with no agent online mails the bot's owner and agents (not its viewers, not anyone whose
//! email notifications are off, and nobody while an agent is online); a password change sends a
//! security alert only to whoever keeps them on; the weekly report goes out once a week with
//! the week's figures, never twice for a week (a restart included), and only to who asked.
//!
//! Mail a request causes is in the outbox before the request is answered, so what was *not*
//! queued is read from the outbox right after, without waiting for a mail that may never come.

mod support;

use std::collections::BTreeSet;

use parley_store::chat::{CustomerInfo, NewMessage, Role as MessageRole};
use parley_store::{Role, Store};
use reqwest::StatusCode;
use serde_json::json;
use support::sio::SioClient;
use support::smtp::SmtpServer;
use support::TestApp;

on_both_backends!(
    a_support_request_mails_the_agents_only_when_none_is_online,
    security_alerts_follow_their_switch,
    the_weekly_report_goes_out_once_a_week_with_the_weeks_figures,
);

async fn app_with_mail(backend: parley_store::Backend) -> (TestApp, SmtpServer) {
    let smtp = SmtpServer::start().await;
    let mail = smtp.route();
    let app = TestApp::spawn_with(backend, move |s| {
        s.billing.default_plan = "enterprise".into();
        mail(s);
    })
    .await;
    (app, smtp)
}

/// Recipients of the queued (or sent) mail whose subject starts with `subject`.
async fn queued_to(store: &Store, subject: &str) -> BTreeSet<String> {
    store.outbox(500).await.unwrap().into_iter().filter(|m| m.subject.starts_with(subject)).map(|m| m.to_address).collect()
}

async fn count_to(store: &Store, subject: &str, to: &str) -> usize {
    store.outbox(500).await.unwrap().into_iter().filter(|m| m.subject.starts_with(subject) && m.to_address == to).count()
}

/// Makes `user_id` an active member of the bot with `role` (the invitation flow has tests of
/// its own).
async fn add_member(store: &Store, bot: &str, owner_id: &str, email: &str, user_id: &str, role: Role) {
    let member = store.invite_member(bot, email, role, owner_id).await.unwrap();
    store.accept_invitation(bot, &member.id, user_id).await.unwrap();
}

/// A visitor starts a conversation and asks for a person; returns the acknowledgement, and the
/// visitor's socket and conversation to ask again.
async fn visitor_asks_for_a_person(app: &TestApp, bot: &str, name: &str) -> (serde_json::Value, SioClient, String) {
    let (status, chat) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello there"})).await;
    assert_eq!(status, StatusCode::OK, "{chat}");
    let session_id = chat["sessionId"].as_str().unwrap().to_string();
    let mut visitor = SioClient::connect(app, json!({"visitorToken": chat["visitorToken"]})).await;
    let joined = visitor.emit_with_ack("join-session", json!({"sessionId": session_id, "botId": bot})).await;
    assert_eq!(joined["success"], true, "{joined}");
    let asked = ask_again(&mut visitor, &session_id, name).await;
    (asked, visitor, session_id)
}

async fn ask_again(visitor: &mut SioClient, session_id: &str, name: &str) -> serde_json::Value {
    visitor
        .emit_with_ack(
            "request-human-support",
            json!({"sessionId": session_id, "message": "A person please", "customerInfo": {"name": name, "email": "vic@visitor.example"}}),
        )
        .await
}

async fn a_support_request_mails_the_agents_only_when_none_is_online(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let store = app.db.open().await.unwrap();
    let (owner, owner_id) = app.signup("olive@shop.example").await;
    let (ann, ann_id) = app.signup("ann@shop.example").await;
    let (bob, bob_id) = app.signup("bob@shop.example").await;
    let (_, vera_id) = app.signup("vera@shop.example").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    add_member(&store, &bot, &owner_id, "ann@shop.example", &ann_id, Role::Agent).await;
    add_member(&store, &bot, &owner_id, "bob@shop.example", &bob_id, Role::Agent).await;
    add_member(&store, &bot, &owner_id, "vera@shop.example", &vera_id, Role::Viewer).await;
    // Bob does not want mail about support requests.
    let (status, prefs) = app.put_json("/api/me/notifications", Some(&bob), json!({"emailNotifications": false})).await;
    assert_eq!((status, prefs["emailNotifications"].clone()), (StatusCode::OK, json!(false)), "{prefs}");

    let (asked, mut visitor, session_id) = visitor_asks_for_a_person(&app, &bot, "Vic").await;
    assert_eq!(asked["success"], true, "{asked}");
    let subject = "New support request on Helpdesk";
    let expected: BTreeSet<String> = ["olive@shop.example", "ann@shop.example"].map(String::from).into();
    assert_eq!(queued_to(&store, subject).await, expected, "the owner and the agent who wants mail; not Bob, not the viewer");
    // Asking again while already waiting is answered, but adds no note and mails nobody again:
    // a visitor cannot flood the team's inboxes.
    for _ in 0..5 {
        let again = ask_again(&mut visitor, &session_id, "Vic").await;
        assert_eq!(again["success"], true, "{again}");
    }
    assert_eq!(count_to(&store, subject, "olive@shop.example").await, 1, "one mail for one request");
    let notes = store.messages(&session_id, 0, 100).await.unwrap().into_iter().filter(|m| m.role == "system").count();
    assert_eq!(notes, 1, "one handover note");
    let mail = smtp.wait_for("ann@shop.example", 2).await; // after the verification mail
    assert_eq!(mail.subject(), subject);
    assert!(mail.text().contains("Vic, vic@visitor.example") && mail.text().contains("A person please"), "{}", mail.text());
    assert!(mail.link(&format!("{}/agent-dashboard", app.base)).is_some(), "{}", mail.text());

    // With Ann online for the bot, the request reaches her live and nobody is mailed.
    let mut agent = SioClient::connect(&app, json!({"token": ann})).await;
    let joined = agent.emit_with_ack("join-as-agent", json!({"botId": bot})).await;
    assert_eq!(joined["success"], true, "{joined}");
    let (asked, _, _) = visitor_asks_for_a_person(&app, &bot, "Second visitor").await;
    assert_eq!(asked["success"], true, "{asked}");
    assert_eq!(count_to(&store, subject, "olive@shop.example").await, 1, "no mail while an agent is online");
    assert_eq!(count_to(&store, subject, "ann@shop.example").await, 1);

    // Her status counts: busy she is still there for visitors, away or offline she is not, so
    // the widget says nobody is and a request mails again.
    let theme = format!("/api/bots/{bot}/theme");
    for (status, there) in [("busy", true), ("away", false), ("online", true), ("offline", false)] {
        let ack = agent.emit_with_ack("update-agent-status", json!({"status": status})).await;
        assert_eq!((ack["success"].clone(), ack["status"].clone()), (json!(true), json!(status)), "{ack}");
        assert_eq!(app.get(&theme, None).await.1["agentsOnline"], there, "{status}");
    }
    let ack = agent.emit_with_ack("update-agent-status", json!({"status": "sleeping"})).await;
    assert_eq!((ack["success"].clone(), ack["error"].clone()), (json!(false), json!("Status must be online, away, busy or offline")), "{ack}");
    assert_eq!(app.get(&theme, None).await.1["agentsOnline"], false, "a refused status changes nothing");
    let (asked, _, third) = visitor_asks_for_a_person(&app, &bot, "Third visitor").await;
    assert_eq!(asked["success"], true, "{asked}");
    assert_eq!(count_to(&store, subject, "ann@shop.example").await, 2, "offline: the request is mailed");

    // A session is not transferred to an agent who is away; once back, it is.
    let mut bob_socket = SioClient::connect(&app, json!({"token": bob})).await;
    assert_eq!(bob_socket.emit_with_ack("join-as-agent", json!({"botId": bot})).await["success"], true);
    assert_eq!(bob_socket.emit_with_ack("update-agent-status", json!({"status": "away"})).await["success"], true);
    let taken = agent.emit_with_ack("take-session", json!({"sessionId": third})).await;
    assert_eq!(taken["success"], true, "{taken}");
    let transfer = json!({"sessionId": third, "targetAgentId": bob_id, "reason": "Billing"});
    let refused = agent.emit_with_ack("transfer-session", transfer.clone()).await;
    assert_eq!((refused["success"].clone(), refused["error"].clone()), (json!(false), json!("That agent is away right now")), "{refused}");
    assert_eq!(store.session(&third).await.unwrap().unwrap().assigned_agent_id.as_deref(), Some(ann_id.as_str()), "still Ann's");
    assert_eq!(bob_socket.emit_with_ack("update-agent-status", json!({"status": "online"})).await["success"], true);
    let moved = agent.emit_with_ack("transfer-session", transfer).await;
    assert_eq!(moved["success"], true, "{moved}");
    assert_eq!(store.session(&third).await.unwrap().unwrap().assigned_agent_id.as_deref(), Some(bob_id.as_str()));
}

async fn security_alerts_follow_their_switch(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let store = app.db.open().await.unwrap();
    let (token, _) = app.signup("pat@shop.example").await;
    let subject = "Security alert for your Parley account";
    let change = |current: &str, new: &str| json!({"currentPassword": current, "newPassword": new, "confirmPassword": new});

    let (status, body) = app.put_json("/api/me/password", Some(&token), change("password123", "password456")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(count_to(&store, subject, "pat@shop.example").await, 1);
    let alert = smtp.wait_for("pat@shop.example", 2).await; // the first is the verification mail
    assert_eq!(alert.subject(), subject);
    assert!(alert.text().contains("password of your Parley account was changed"), "{}", alert.text());

    // Switched off: the next change sends nothing.
    let token = body["token"].as_str().unwrap().to_string();
    let (status, prefs) = app.put_json("/api/me/notifications", Some(&token), json!({"securityAlerts": false})).await;
    assert_eq!((status, prefs["securityAlerts"].clone()), (StatusCode::OK, json!(false)), "{prefs}");
    let (status, body) = app.put_json("/api/me/password", Some(&token), change("password456", "password789")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(count_to(&store, subject, "pat@shop.example").await, 1, "no alert with the switch off");
}

/// A conversation on `bot` with `visitor` messages from the visitor and as many replies, plus a
/// system note; optionally handed to a person, resolved with a rating, and a lead.
struct Conversation {
    exchanges: usize,
    handoff: bool,
    rating: Option<i32>,
    lead: bool,
}

async fn converse(store: &Store, bot: &str, c: Conversation) -> String {
    let session = store.create_session(bot, "Chat").await.unwrap();
    for i in 0..c.exchanges {
        store.append_message(&session.id, NewMessage::simple(MessageRole::User, format!("question {i}"))).await.unwrap();
        let reply = if c.handoff { MessageRole::Agent } else { MessageRole::Bot };
        store.append_message(&session.id, NewMessage::simple(reply, format!("answer {i}"))).await.unwrap();
    }
    store.append_message(&session.id, NewMessage::simple(MessageRole::System, "note")).await.unwrap();
    let info = CustomerInfo { name: Some("Vic".into()), email: Some("vic@visitor.example".into()), ..Default::default() };
    if c.handoff {
        store.request_support(&session.id, &info).await.unwrap();
    }
    if let Some(rating) = c.rating {
        store.resolve_session(&session.id, "agent", Some(rating), None).await.unwrap();
    }
    if c.lead {
        store.capture_lead(bot, Some(&session.id), &info, 50).await.unwrap();
    }
    session.id
}

async fn the_weekly_report_goes_out_once_a_week_with_the_weeks_figures(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let store = app.db.open().await.unwrap();
    let (owner, owner_id) = app.signup("olive@shop.example").await;
    let (quiet, quiet_id) = app.signup("quinn@shop.example").await;
    let (unverified, _) = app.signup("uma@shop.example").await;
    store.mark_email_verified(&owner_id).await.unwrap();
    store.mark_email_verified(&quiet_id).await.unwrap();
    let bot = app.create_bot(&owner, "Helpdesk").await;
    app.create_bot(&owner, "Second").await;
    app.create_bot(&quiet, "Quiet bot").await;
    app.create_bot(&unverified, "Unverified bot").await;
    for token in [&owner, &unverified] {
        let (status, prefs) = app.put_json("/api/me/notifications", Some(token), json!({"weeklyReports": true})).await;
        assert_eq!((status, prefs["weeklyReports"].clone()), (StatusCode::OK, json!(true)), "{prefs}");
    }

    // This week: three conversations on Helpdesk; one more eight days ago, outside the week.
    converse(&store, &bot, Conversation { exchanges: 2, handoff: true, rating: Some(4), lead: true }).await;
    converse(&store, &bot, Conversation { exchanges: 1, handoff: true, rating: Some(5), lead: false }).await;
    converse(&store, &bot, Conversation { exchanges: 1, handoff: false, rating: None, lead: false }).await;
    let old = converse(&store, &bot, Conversation { exchanges: 3, handoff: true, rating: Some(1), lead: true }).await;
    store.backdate_session(&old, chrono::Duration::days(8)).await.unwrap();

    // The week that holds today ends at the next scheduled hour; its report is due then.
    let schedule = parley_http::reports::Schedule::from_settings(&app.settings.reports).unwrap();
    let due = schedule.next_after(parley_store::time::now()) + chrono::Duration::minutes(1);
    let run = |now| parley_http::reports::run_due_weekly_reports(&app.state, now);
    // Before the hour, last week's report would be due, but reports were turned on since: the
    // first one is for the first week that ends after that.
    assert_eq!(run(due - chrono::Duration::minutes(2)).await.unwrap(), 0);

    assert_eq!(run(due).await.unwrap(), 1, "only the verified owner who asked for it");
    let subject = "Your weekly Parley report";
    assert_eq!(queued_to(&store, subject).await, BTreeSet::from(["olive@shop.example".to_string()]));
    let mail = smtp.wait_for("olive@shop.example", 2).await; // after the verification mail
    assert!(mail.subject().starts_with(subject), "{}", mail.subject());
    let text = mail.text();
    assert!(
        text.contains("Helpdesk: 3 conversations, 8 messages, 2 handoffs to a person, 2 resolved, average rating 4.5 of 5 (2 ratings), 1 new lead."),
        "{text}"
    );
    assert!(text.contains("Second: 0 conversations, 0 messages, 0 handoffs to a person, 0 resolved, no ratings, 0 new leads."), "{text}");
    assert!(!text.contains("Quiet bot"), "only the user's own bots");

    // Not again for the same week: later that week, or after a restart.
    assert_eq!(run(due + chrono::Duration::days(2)).await.unwrap(), 0);
    let app = app.restart().await;
    let run = |now| parley_http::reports::run_due_weekly_reports(&app.state, now);
    assert_eq!(run(due).await.unwrap(), 0, "a restart does not send the week again");
    assert_eq!(count_to(&store, subject, "olive@shop.example").await, 1);

    // The next week has its own report, with its own (empty) figures.
    assert_eq!(run(due + chrono::Duration::days(7)).await.unwrap(), 1);
    let next = smtp.wait_for("olive@shop.example", 3).await;
    assert!(next.subject().starts_with(subject), "{}", next.subject());
    assert!(next.text().contains("Helpdesk: 0 conversations, 0 messages"), "{}", next.text());

    // Switched off: no more reports.
    let (status, _) = app.put_json("/api/me/notifications", Some(&owner), json!({"weeklyReports": false})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(run(due + chrono::Duration::days(14)).await.unwrap(), 0);
    assert_eq!(count_to(&store, subject, "olive@shop.example").await, 2);
}
