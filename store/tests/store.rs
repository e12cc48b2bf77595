//! Store behaviour, run against both backends: every test body runs on SQLite and PostgreSQL.

use parley_store::bots::{BotSettings, BotUpdate, NewBot, WidgetConfig};
use parley_store::testing::TestDb;
use parley_store::tokens::{Purpose, Redeem};
use parley_store::users::{ExternalIdentity, IdentitySignIn, NewUser, ProfileUpdate};
use parley_store::{Backend, Role, Store, StoreError};

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[tokio::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

on_both_backends!(
    bots_switched_on_at_once_stay_within_the_plan,
    conversations_of_former_agents_return_to_the_queue_at_start,
    captures_racing_in_one_conversation_make_one_lead,
    users_are_unique_by_email_ignoring_case,
    a_new_user_gets_free_plan_and_default_preferences,
    profile_and_password_updates_persist,
    oauth_identity_links_to_existing_email_once,
    bots_are_visible_to_owner_and_active_members_only,
    bot_update_and_delete_cascade,
    invitations_accept_and_decline,
    credits_are_spent_atomically_up_to_the_limit,
    transactions_survive_concurrent_single_writes,
    messages_saved_together_keep_their_order_and_fail_alone,
    session_counters_are_written_behind_and_recounted_after_a_crash,
    slot_counts_are_written_behind_and_caught_up_after_a_crash,
    support_figures_come_from_the_sessions,
    data_survives_reopening,
    resolve_notes_are_kept_apart_from_the_visitors_feedback,
    plan_limits_hold_under_concurrent_claims,
    activity_is_logged_and_scoped,
    oauth_refuses_to_link_an_unverified_account,
    email_links_work_once_and_only_for_their_purpose,
    an_email_change_takes_effect_only_through_its_link,
    a_password_reset_raises_the_token_version_and_verifies,
    invitations_by_token_expire_renew_and_are_removed,
    the_outbox_claims_each_mail_once_and_backs_off,
    a_transaction_whose_caller_gives_up_still_ends_and_later_writes_are_kept,
    signed_out_sessions_are_remembered_until_their_tokens_expire,
    two_factor_codes_and_recovery_codes_work_once,
);

fn signed_in(outcome: IdentitySignIn) -> parley_store::models::User {
    match outcome {
        IdentitySignIn::User(u) | IdentitySignIn::LinkedNow(u) => u,
        IdentitySignIn::UnverifiedAccountExists => panic!("sign-in refused"),
    }
}

async fn store(backend: Backend) -> (TestDb, Store) {
    let db = TestDb::new(backend).await.expect("test database");
    let store = db.open().await.expect("open store");
    (db, store)
}

async fn user(store: &Store, email: &str) -> parley_store::models::User {
    store
        .create_user(NewUser { email: email.into(), name: "Ann".into(), password_hash: Some("h".into()), profile_picture: None })
        .await
        .unwrap()
}

async fn bot(store: &Store, owner: &str, name: &str) -> parley_store::models::Bot {
    store
        .create_bot(NewBot {
            owner_id: owner.into(),
            name: name.into(),
            description: String::new(),
            website_url: None,
            icon: None,
            widget: WidgetConfig::default(),
            initial_sources: Vec::new(),
        })
        .await
        .unwrap()
}

async fn users_are_unique_by_email_ignoring_case(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "Ann@Example.com").await;
    assert_eq!(u.email, "ann@example.com");
    let again = store
        .create_user(NewUser { email: "ANN@example.com".into(), name: "x".into(), password_hash: None, profile_picture: None })
        .await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
    assert_eq!(store.user_by_email(" ann@EXAMPLE.com ").await.unwrap().unwrap().id, u.id);
    assert!(store.user_by_id("nope").await.unwrap().is_none());
}

async fn a_new_user_gets_free_plan_and_default_preferences(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "a@b.co").await;
    let allowance = store.allowance(&u.id).await.unwrap();
    assert_eq!(allowance.plan.id, "free");
    assert_eq!(allowance.remaining_credits(), 100);
    assert_eq!(allowance.bots_used, 0);
    let prefs = store.notification_prefs(&u.id).await.unwrap();
    assert!(prefs.email_notifications && prefs.security_alerts && !prefs.weekly_reports);
    assert_eq!(u.timezone, "UTC-5");
    assert_eq!(u.language, "en");
}

async fn profile_and_password_updates_persist(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "a@b.co").await;
    let other = user(&store, "taken@b.co").await;
    let updated = store
        .update_profile(&u.id, ProfileUpdate { name: Some(" Bea ".into()), timezone: Some("UTC+1".into()), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(updated.name, "Bea");
    let _ = other;
    let changed = store.set_password_hash(&u.id, "new-hash").await.unwrap();
    assert_eq!(changed.token_version, u.token_version + 1, "a new password ends older sessions");
    let reread = store.user_by_id(&u.id).await.unwrap().unwrap();
    assert_eq!(reread.password_hash.as_deref(), Some("new-hash"));
    assert_eq!(reread.timezone, "UTC+1");
    assert_eq!(reread.email, "a@b.co");
    let mut prefs = store.notification_prefs(&u.id).await.unwrap();
    prefs.weekly_reports = true;
    store.save_notification_prefs(prefs).await.unwrap();
    assert!(store.notification_prefs(&u.id).await.unwrap().weekly_reports);
}

async fn oauth_identity_links_to_existing_email_once(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "dev@example.com").await;
    store.mark_email_verified(&u.id).await.unwrap();
    let identity = ExternalIdentity {
        provider: "github".into(),
        subject: "42".into(),
        email: "Dev@Example.com".into(),
        name: "Dev".into(),
        picture: None,
    };
    let first = store.user_for_identity(identity.clone()).await.unwrap();
    assert!(matches!(first, IdentitySignIn::LinkedNow(_)), "linking an existing account is reported");
    let linked = signed_in(first);
    assert_eq!(linked.id, u.id);
    let again = store.user_for_identity(identity).await.unwrap();
    assert!(matches!(again, IdentitySignIn::User(_)), "an identity already linked is a plain sign-in");
    let again = signed_in(again);
    assert_eq!(again.id, u.id);
    let fresh = signed_in(store
        .user_for_identity(ExternalIdentity {
            provider: "google".into(),
            subject: "g-1".into(),
            email: "new@example.com".into(),
            name: "New".into(),
            picture: Some("http://pic".into()),
        })
        .await
        .unwrap());
    assert_ne!(fresh.id, u.id);
    assert!(fresh.email_verified, "the provider vouches for the address");
    assert_eq!(fresh.profile_picture.as_deref(), Some("http://pic"));
    assert_eq!(store.allowance(&fresh.id).await.unwrap().plan.id, "free");
}

async fn bots_are_visible_to_owner_and_active_members_only(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let agent = user(&store, "agent@x.co").await;
    let stranger = user(&store, "stranger@x.co").await;
    let b = bot(&store, &owner.id, "Helper").await;
    assert_eq!(store.bot_for_user(&b.id, &owner.id).await.unwrap().unwrap().1, Role::Owner);
    assert!(store.bot_for_user(&b.id, &stranger.id).await.unwrap().is_none());
    let invite = store.invite_member(&b.id, "agent@x.co", Role::Agent, &owner.id).await.unwrap();
    assert!(store.bot_for_user(&b.id, &agent.id).await.unwrap().is_none(), "pending is not a member");
    store.respond_invitation(&invite.id, &agent, true).await.unwrap();
    assert_eq!(store.bot_for_user(&b.id, &agent.id).await.unwrap().unwrap().1, Role::Agent);
    let listed = store.bots_for_user(&agent.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, Role::Agent);
    assert!(store.bots_for_user(&stranger.id).await.unwrap().is_empty());
    assert_eq!(store.allowance(&owner.id).await.unwrap().bots_used, 1);
}

/// The start-up sweep: a conversation left with a removed member, or one whose role may no
/// longer take sessions, waits in the queue again; the owner's, an agent's and a resolved one stay.
async fn conversations_of_former_agents_return_to_the_queue_at_start(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let (ann, bob, cat) = (user(&store, "ann@x.co").await, user(&store, "bob@x.co").await, user(&store, "cat@x.co").await);
    let b = bot(&store, &owner.id, "Helper").await;
    let mut members = Vec::new();
    for who in [&ann, &bob, &cat] {
        let invite = store.invite_member(&b.id, &who.email, Role::Agent, &owner.id).await.unwrap();
        store.respond_invitation(&invite.id, who, true).await.unwrap();
        members.push(invite.id);
    }
    let mut held = Vec::new();
    for who in [&owner, &ann, &bob, &cat, &cat] {
        let s = store.create_session(&b.id, "help").await.unwrap().id;
        store.request_support(&s, &Default::default()).await.unwrap();
        assert!(store.take_session(&s, &who.id, &who.name).await.unwrap());
        held.push(s);
    }
    store.resolve_session(&held[4], "Cat", None, None).await.unwrap();
    store.remove_member(&b.id, &members[1]).await.unwrap(); // Bob leaves
    store.set_member_role(&b.id, &members[2], Role::Viewer).await.unwrap(); // Cat may only watch

    assert_eq!(store.requeue_orphaned_sessions().await.unwrap(), 2);
    let state = |s: parley_store::models::ChatSession| (s.assigned_agent_id.is_some(), s.status, s.needs_human_support);
    let mut seen = Vec::new();
    for s in &held {
        seen.push(state(store.session(s).await.unwrap().unwrap()));
    }
    assert_eq!(
        seen,
        [
            (true, "active".to_string(), true),
            (true, "active".to_string(), true),
            (false, "pending".to_string(), true),
            (false, "pending".to_string(), true),
            (false, "resolved".to_string(), false),
        ]
    );
    assert_eq!(store.requeue_orphaned_sessions().await.unwrap(), 0, "once is enough");
}

async fn bot_update_and_delete_cascade(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "o@x.co").await;
    let b = bot(&store, &owner.id, "Helper").await;
    let mut widget = WidgetConfig::default();
    widget.header_title = "Hi".into();
    let updated = store
        .update_bot(&b.id, BotUpdate { name: Some("Renamed".into()), widget: Some(widget), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(updated.name, "Renamed");
    assert_eq!(WidgetConfig::from_json(&updated.widget).header_title, "Hi");
    // A widget change is made from the configuration as it is when the update runs: what
    // another save wrote after this one's caller read the bot is kept.
    let change = |title: &'static str| -> parley_store::bots::WidgetChange {
        Box::new(move |mut w: WidgetConfig| {
            w.welcome_message = title.into();
            Ok(w)
        })
    };
    let updated = store.update_bot(&b.id, BotUpdate { widget_change: Some(change("Welcome!")), ..Default::default() }).await.unwrap();
    let widget = WidgetConfig::from_json(&updated.widget);
    assert_eq!((widget.header_title.as_str(), widget.welcome_message.as_str()), ("Hi", "Welcome!"));
    let refused: parley_store::bots::WidgetChange = Box::new(|_| Err("Messages must be at most 1000 characters".into()));
    let outcome = store.update_bot(&b.id, BotUpdate { name: Some("Not saved".into()), widget_change: Some(refused), ..Default::default() }).await;
    assert!(matches!(&outcome, Err(StoreError::Invalid(m)) if m == "Messages must be at most 1000 characters"), "{:?}", outcome.err());
    assert_eq!(store.bot_by_id(&b.id).await.unwrap().unwrap().name, "Renamed", "a refused change changes nothing");
    let settings = BotSettings { max_chat_text_size: 2000, url_whitelist: vec!["https://a.example".into()] };
    store.save_bot_settings(&b.id, &settings).await.unwrap();
    assert_eq!(store.bot_settings(&b.id).await.unwrap(), settings);
    store.delete_bot(&b.id).await.unwrap();
    assert!(store.bot_by_id(&b.id).await.unwrap().is_none());
    assert_eq!(store.bot_settings(&b.id).await.unwrap(), BotSettings::default(), "settings went with the bot");
    assert!(matches!(store.delete_bot(&b.id).await, Err(StoreError::NotFound)));
}

/// Two bots switched on at the same moment, with room for one more active bot: one is on,
/// the other is refused inside its update and changes nothing.
async fn bots_switched_on_at_once_stay_within_the_plan(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "o@x.co").await;
    let on = bot(&store, &owner.id, "On").await;
    let mut off = Vec::new();
    for name in ["A", "B", "C"] {
        let b = bot(&store, &owner.id, name).await;
        store.update_bot(&b.id, BotUpdate { status: Some("inactive".into()), ..Default::default() }).await.unwrap();
        off.push(b.id);
    }
    assert_eq!(store.active_bot_count(&owner.id).await.unwrap(), 1);
    let switch_on = |id: String| {
        let store = store.clone();
        tokio::spawn(async move {
            store.update_bot(&id, BotUpdate { status: Some("active".into()), active_limit: Some(2), ..Default::default() }).await
        })
    };
    let handles: Vec<_> = off.iter().cloned().map(switch_on).collect();
    let mut done = 0;
    for h in handles {
        match h.await.unwrap() {
            Ok(b) => {
                assert_eq!(b.status, "active");
                done += 1;
            }
            Err(StoreError::LimitReached(_)) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(done, 1, "one switched on, two refused");
    assert_eq!(store.active_bot_count(&owner.id).await.unwrap(), 2);
    // An already active bot's update is not a switch: no check.
    store.update_bot(&on.id, BotUpdate { status: Some("active".into()), active_limit: Some(1), ..Default::default() }).await.unwrap();
    // Unlimited, or no limit given: no check.
    let unlimited = parley_store::billing::UNLIMITED;
    for id in &off {
        store.update_bot(id, BotUpdate { status: Some("active".into()), active_limit: Some(unlimited), ..Default::default() }).await.unwrap();
    }
    assert_eq!(store.active_bot_count(&owner.id).await.unwrap(), 4);
}

async fn invitations_accept_and_decline(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "o@x.co").await;
    let b1 = bot(&store, &owner.id, "One").await;
    let b2 = bot(&store, &owner.id, "Two").await;
    store.invite_member(&b1.id, "Guest@x.co", Role::Editor, &owner.id).await.unwrap();
    store.invite_member(&b2.id, "guest@x.co", Role::Viewer, &owner.id).await.unwrap();
    let dup = store.invite_member(&b1.id, "guest@x.co", Role::Admin, &owner.id).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))));
    let guest = user(&store, "guest@x.co").await;
    let pending = store.pending_invitations(&guest.email).await.unwrap();
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].invited_by_email.as_deref(), Some("o@x.co"));
    let one = pending.iter().find(|i| i.bot_name == "One").unwrap();
    let two = pending.iter().find(|i| i.bot_name == "Two").unwrap();
    let intruder = user(&store, "intruder@x.co").await;
    assert!(matches!(store.respond_invitation(&one.member_id, &intruder, true).await, Err(StoreError::NotFound)));
    store.respond_invitation(&one.member_id, &guest, true).await.unwrap();
    store.respond_invitation(&two.member_id, &guest, false).await.unwrap();
    assert!(store.pending_invitations(&guest.email).await.unwrap().is_empty());
    assert_eq!(store.bot_for_user(&b1.id, &guest.id).await.unwrap().unwrap().1, Role::Editor);
    assert!(store.bot_for_user(&b2.id, &guest.id).await.unwrap().is_none());
}

async fn credits_are_spent_atomically_up_to_the_limit(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "c@x.co").await;
    let mut tasks = Vec::new();
    for _ in 0..120 {
        let s = store.clone();
        let id = u.id.clone();
        tasks.push(tokio::spawn(async move { s.spend_credit(&id).await.unwrap() }));
    }
    let mut spent = 0;
    for t in tasks {
        if t.await.unwrap() {
            spent += 1;
        }
    }
    assert_eq!(spent, 100, "the Free plan has 100 credits");
    assert_eq!(store.allowance(&u.id).await.unwrap().remaining_credits(), 0);
    // A credit given back returns to the period it was spent in, not to another.
    let period = store.allowance(&u.id).await.unwrap().period_start;
    store.release_credit(&u.id, period - chrono::Duration::days(30)).await.unwrap();
    assert_eq!(store.allowance(&u.id).await.unwrap().remaining_credits(), 0, "an earlier period's credit is not this one's");
    store.release_credit(&u.id, period).await.unwrap();
    assert_eq!(store.allowance(&u.id).await.unwrap().remaining_credits(), 1);
    assert_eq!(store.hold_credit(&u.id).await.unwrap(), Some(period), "held in this period");
    assert_eq!(store.hold_credit(&u.id).await.unwrap(), None);
    store.count_conversation(&u.id).await.unwrap();
    assert_eq!(store.allowance(&u.id).await.unwrap().conversations_used, 1);
}

/// Hardening finding 13: a check then a write let concurrent new conversations and new bots go
/// past the plan. Both are one conditional write now.
async fn plan_limits_hold_under_concurrent_claims(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "plan@x.co").await;
    let claims: Vec<_> = (0..120)
        .map(|_| {
            let (s, id) = (store.clone(), u.id.clone());
            tokio::spawn(async move { s.claim_conversation(&id).await.unwrap() })
        })
        .collect();
    let mut claimed = 0;
    for c in claims {
        claimed += usize::from(c.await.unwrap());
    }
    assert_eq!(claimed, 100, "the Free plan has 100 conversations a month");
    assert_eq!(store.allowance(&u.id).await.unwrap().conversations_used, 100);

    let creations: Vec<_> = (0..8)
        .map(|i| {
            let (s, id) = (store.clone(), u.id.clone());
            tokio::spawn(async move {
                let new = NewBot { owner_id: id, name: format!("Bot {i}"), description: String::new(), website_url: None, icon: None, widget: WidgetConfig::default(), initial_sources: Vec::new() };
                s.create_bot_within(new, 1).await.unwrap().is_some()
            })
        })
        .collect();
    let mut created = 0;
    for c in creations {
        created += usize::from(c.await.unwrap());
    }
    assert_eq!(created, 1, "the Free plan has 1 assistant");
    assert_eq!(store.allowance(&u.id).await.unwrap().bots_used, 1);
}

async fn data_survives_reopening(backend: Backend) {
    let db = TestDb::new(backend).await.unwrap();
    let (uid, bid) = {
        let store = db.open().await.unwrap();
        let u = user(&store, "keep@x.co").await;
        let b = bot(&store, &u.id, "Kept").await;
        (u.id, b.id)
    };
    let store = db.open().await.unwrap();
    assert_eq!(store.bot_for_user(&bid, &uid).await.unwrap().unwrap().0.name, "Kept");
}

/// Hardening finding 11: the agent's notes from a resolve are not the visitor's feedback, and
/// notes that older versions stored as `feedback` move to `resolution_notes` on upgrade.
async fn resolve_notes_are_kept_apart_from_the_visitors_feedback(backend: Backend) {
    let db = TestDb::new(backend).await.unwrap();
    let (older, newer) = {
        let store = db.open().await.unwrap();
        let owner = user(&store, "owner@x.co").await;
        let b = bot(&store, &owner.id, "Notes").await;
        let newer = store.create_session(&b.id, "new").await.unwrap();
        let resolved = store.resolve_session(&newer.id, "Ann", Some(4), Some("Gave a refund")).await.unwrap();
        assert_eq!((resolved.resolution_notes.as_deref(), resolved.feedback.as_deref()), (Some("Gave a refund"), None));
        let older = store.create_session(&b.id, "old").await.unwrap();
        (older.id, newer.id)
    };
    // As an older version left it: the agent's notes in `feedback`.
    db.redo_migration("2026-11-24-000001", &format!("UPDATE chat_sessions SET feedback = 'Agent wrote this' WHERE id = '{older}'")).await.unwrap();
    let store = db.open().await.unwrap();
    let older = store.session(&older).await.unwrap().unwrap();
    assert_eq!((older.resolution_notes.as_deref(), older.feedback.as_deref()), (Some("Agent wrote this"), None));
    let newer = store.session(&newer).await.unwrap().unwrap();
    assert_eq!((newer.resolution_notes.as_deref(), newer.feedback.as_deref()), (Some("Gave a refund"), None), "the down migration and up again keep notes");
}

async fn activity_is_logged_and_scoped(backend: Backend) {
    let (_db, store) = store(backend).await;
    let a = user(&store, "a@x.co").await;
    let b = user(&store, "b@x.co").await;
    let bot_a = bot(&store, &a.id, "A bot").await;
    store.log_activity(Some(&a.id), Some(&bot_a.id), "bot", "Created bot A bot").await.unwrap();
    store.log_activity(Some(&b.id), None, "account", "Signed up").await.unwrap();
    let seen = store.recent_activity(&a.id, 10).await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].1.as_deref(), Some("A bot"));
    assert_eq!(store.recent_activity(&b.id, 10).await.unwrap().len(), 1);
}

/// A storm of read-then-write transactions (lead capture) racing single-statement writes (the
/// sessions' touches): on SQLite a deferred transaction met "database is locked" here.
async fn transactions_survive_concurrent_single_writes(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Busy").await;
    let mut sessions = Vec::new();
    for i in 0..40 {
        sessions.push(store.create_session(&b.id, &format!("s{i}")).await.unwrap().id);
    }
    let mut tasks = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        let (st, bot_id, s) = (store.clone(), b.id.clone(), s.clone());
        tasks.push(tokio::spawn(async move {
            let info = parley_store::chat::CustomerInfo { name: Some(format!("V{i}")), email: Some(format!("v{i}@x.co")), phone: None, company: None };
            st.capture_lead(&bot_id, Some(&s), &info, 50).await.map(|_| ())
        }));
        let (st, bot_id) = (store.clone(), b.id.clone());
        tasks.push(tokio::spawn(async move { st.touch_bot(&bot_id).await }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert_eq!(store.leads_of_bot(&b.id, 0, 100).await.unwrap().1, 40);
}

/// One conversation has one lead, also when its details arrive twice at the same moment (the
/// details form and a support request with details).
async fn captures_racing_in_one_conversation_make_one_lead(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Racy").await;
    let s = store.create_session(&b.id, "one").await.unwrap().id;
    let mut tasks = Vec::new();
    for i in 0..12 {
        let (st, bot_id, s) = (store.clone(), b.id.clone(), s.clone());
        tasks.push(tokio::spawn(async move {
            let info = parley_store::chat::CustomerInfo { name: Some(format!("V{i}")), email: Some("v@x.co".into()), phone: None, company: None };
            st.capture_lead(&bot_id, Some(&s), &info, 50 + i).await.map(|_| ())
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let (leads, total) = store.leads_of_bot(&b.id, 0, 100).await.unwrap();
    assert_eq!(total, 1, "{leads:?}");
    assert_eq!(leads[0].lead_score, 61, "the highest score stands");
}

/// Many messages at once (saved together on SQLite): every one is saved exactly once, numbered
/// without gaps per conversation, and one for a deleted conversation fails without the others.
async fn messages_saved_together_keep_their_order_and_fail_alone(backend: Backend) {
    use parley_store::chat::{NewMessage, Role};
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let a = store.create_session(&b.id, "a").await.unwrap().id;
    let c = store.create_session(&b.id, "c").await.unwrap().id;
    let mut tasks = Vec::new();
    for i in 0..60 {
        let (st, sid) = (store.clone(), if i % 2 == 0 { a.clone() } else { c.clone() });
        tasks.push(tokio::spawn(async move { st.append_message(&sid, NewMessage::simple(Role::User, format!("m{i}"))).await }));
    }
    let st = store.clone();
    let gone = tokio::spawn(async move { st.append_message("no-such-session", NewMessage::simple(Role::User, "lost")).await });
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert!(matches!(gone.await.unwrap(), Err(StoreError::NotFound)));
    for sid in [&a, &c] {
        let seqs: Vec<i64> = store.messages(sid, 0, 1000).await.unwrap().iter().map(|m| m.seq).collect();
        assert_eq!(seqs, (1..=30).collect::<Vec<i64>>());
        assert_eq!(store.session(sid).await.unwrap().unwrap().message_count, 30);
    }
}

/// A session's counters are kept by the message writer and written behind its messages (at
/// most a second later, or as soon as something reads them); a start after a crash recounts
/// what the last flush missed from the messages themselves.
async fn session_counters_are_written_behind_and_recounted_after_a_crash(backend: Backend) {
    use parley_store::chat::{NewMessage, Role};
    let (db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let sid = store.create_session(&b.id, "a").await.unwrap().id;
    let started = std::time::Instant::now();
    for i in 0..3 {
        store.append_message(&sid, NewMessage::simple(Role::User, format!("m{i}"))).await.unwrap();
    }
    store.append_message(&sid, NewMessage::simple(Role::System, "a note, not counted")).await.unwrap();
    let stored = store.stored_counters(&sid).await.unwrap();
    if started.elapsed() < std::time::Duration::from_millis(900) {
        assert_eq!(stored, (0, None), "kept by the writer, not yet written");
    }
    let s = store.session(&sid).await.unwrap().unwrap();
    assert_eq!((s.message_count, s.last_message.as_deref()), (3, Some("m2")), "a read sees every saved message");
    assert_eq!(store.stored_counters(&sid).await.unwrap(), (3, Some("m2".into())));

    for i in 3..5 {
        store.append_message(&sid, NewMessage::simple(Role::Agent, format!("m{i}"))).await.unwrap();
    }
    if backend == Backend::Sqlite {
        // What a crash leaves: the messages committed, the last two not yet counted.
        let copy = db.crash_copy().await.unwrap();
        let restarted = copy.open().await.unwrap();
        let s = restarted.session(&sid).await.unwrap().unwrap();
        assert_eq!((s.message_count, s.last_message.as_deref()), (5, Some("m4")), "recounted at start-up");
        assert!(s.updated_at >= restarted.messages(&sid, 0, 10).await.unwrap().last().unwrap().created_at);
    }
    assert_eq!(store.session(&sid).await.unwrap().unwrap().message_count, 5);
    store.lose_counters(&sid).await.unwrap();
    let reopened = db.open().await.unwrap();
    let s = reopened.session(&sid).await.unwrap().unwrap();
    assert_eq!((s.message_count, s.last_message.as_deref()), (5, Some("m4")), "recounted when opened again");

    // Kept counters are written within a second even when nobody reads them.
    store.append_message(&sid, NewMessage::simple(Role::Bot, "m5")).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(store.stored_counters(&sid).await.unwrap(), (6, Some("m5".into())));
}

/// The messages per bot, slot and author that analytics reads are counted by the message
/// writer and written with the session counters; a deleted conversation or bot takes its
/// share off even before the writer has written it, and a start after a crash adds exactly
/// the messages the last write missed.
async fn slot_counts_are_written_behind_and_caught_up_after_a_crash(backend: Backend) {
    use parley_store::chat::{NewMessage, Role};
    let (db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let sid = store.create_session(&b.id, "a").await.unwrap().id;
    let started = std::time::Instant::now();
    for role in [Role::User, Role::Bot, Role::User, Role::System, Role::Bot, Role::User] {
        store.append_message(&sid, NewMessage::simple(role, "hello")).await.unwrap();
    }
    if started.elapsed() < std::time::Duration::from_millis(900) {
        assert_eq!(store.stored_message_counts(&b.id).await.unwrap(), vec![], "kept by the writer, not yet written");
    }
    let expected = vec![("bot".to_string(), 2), ("user".to_string(), 3)];
    store.session(&sid).await.unwrap();
    assert_eq!(store.stored_message_counts(&b.id).await.unwrap(), expected, "written when a reader asks; system notes not counted");

    // A conversation deleted before the writer wrote its counts leaves no trace in them.
    let gone = store.create_session(&b.id, "b").await.unwrap().id;
    store.append_message(&gone, NewMessage::simple(Role::User, "bye")).await.unwrap();
    store.delete_session(&gone).await.unwrap();
    store.session(&sid).await.unwrap();
    assert_eq!(store.stored_message_counts(&b.id).await.unwrap(), expected);

    // A bot deleted with counts still kept does not stop the next write.
    let other = bot(&store, &owner.id, "Gone").await;
    let other_sid = store.create_session(&other.id, "c").await.unwrap().id;
    store.append_message(&other_sid, NewMessage::simple(Role::User, "hi")).await.unwrap();
    store.delete_bot(&other.id).await.unwrap();
    store.append_message(&sid, NewMessage::simple(Role::Agent, "m")).await.unwrap();
    assert_eq!(store.session(&sid).await.unwrap().unwrap().message_count, 6);
    let expected = vec![("agent".to_string(), 1), ("bot".to_string(), 2), ("user".to_string(), 3)];
    assert_eq!(store.stored_message_counts(&b.id).await.unwrap(), expected);

    if backend == Backend::Postgres {
        // A command-line tool opened while the server still keeps two messages' counts leaves
        // the counting to the server: they are counted once.
        for role in [Role::Agent, Role::User] {
            store.append_message(&sid, NewMessage::simple(role, "beside a tool")).await.unwrap();
        }
        let options = parley_store::PoolOptions { alongside: true, ..parley_store::PoolOptions::new(2) };
        let tool = Store::open_postgres_with(&db.database_url, options).await.unwrap();
        drop(tool);
        store.session(&sid).await.unwrap();
        let expected = vec![("agent".to_string(), 2), ("bot".to_string(), 2), ("user".to_string(), 4)];
        assert_eq!(store.stored_message_counts(&b.id).await.unwrap(), expected);
    }

    if backend == Backend::Sqlite {
        // What a crash leaves: two messages committed and not yet counted.
        for role in [Role::Agent, Role::User] {
            store.append_message(&sid, NewMessage::simple(role, "late")).await.unwrap();
        }
        let copy = db.crash_copy().await.unwrap();
        let caught_up = vec![("agent".to_string(), 2), ("bot".to_string(), 2), ("user".to_string(), 4)];
        let restarted = copy.open().await.unwrap();
        assert_eq!(restarted.stored_message_counts(&b.id).await.unwrap(), caught_up, "caught up at start-up");
        drop(restarted);
        let again = copy.open().await.unwrap();
        assert_eq!(again.stored_message_counts(&b.id).await.unwrap(), caught_up, "counted once, however often it starts");
    }
}

/// The agent dashboard's figures: queue, active, resolved today and in all, satisfaction from
/// ratings, response time from a request to the agent's first message.
async fn support_figures_come_from_the_sessions(backend: Backend) {
    use parley_store::chat::{CustomerInfo, NewMessage, Role};
    let (_db, store) = store(backend).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Help").await;
    let day_start = parley_store::time::now() - chrono::Duration::hours(1);
    let empty = store.support_stats(&b.id, day_start).await.unwrap();
    assert_eq!((empty.waiting, empty.active, empty.resolved_total, empty.average_rating, empty.average_response_secs), (0, 0, 0, None, None));

    let mut ids = Vec::new();
    for i in 0..3 {
        let s = store.create_session(&b.id, &format!("s{i}")).await.unwrap().id;
        store.request_support(&s, &CustomerInfo::default()).await.unwrap();
        ids.push(s);
    }
    let _not_asking = store.create_session(&b.id, "just browsing").await.unwrap();
    assert!(store.take_session(&ids[0], &owner.id, "Ann").await.unwrap());
    assert!(store.take_session(&ids[1], &owner.id, "Ann").await.unwrap());
    let mut agent = NewMessage::simple(Role::Agent, "Hi, Ann here");
    agent.agent_id = Some(owner.id.clone());
    store.append_message(&ids[0], agent).await.unwrap();
    store.resolve_session(&ids[0], "Ann", Some(5), None).await.unwrap();
    store.resolve_session(&ids[1], "Ann", Some(3), Some("slow")).await.unwrap();

    let s = store.support_stats(&b.id, day_start).await.unwrap();
    assert_eq!((s.waiting, s.active, s.resolved_today, s.resolved_total), (1, 0, 2, 2));
    assert_eq!((s.average_rating, s.rated), (Some(4.0), 2));
    assert_eq!(s.answered, 1, "only one session got an agent message");
    assert!(s.average_response_secs.unwrap() >= 0.0 && s.average_response_secs.unwrap() < 60.0);
    let tomorrow = parley_store::time::now() + chrono::Duration::hours(1);
    assert_eq!(store.support_stats(&b.id, tomorrow).await.unwrap().resolved_today, 0);
}

async fn oauth_refuses_to_link_an_unverified_account(backend: Backend) {
    let (_db, store) = store(backend).await;
    // Someone registered the victim's address first and never verified it.
    let squatter = user(&store, "victim@example.com").await;
    let identity = ExternalIdentity {
        provider: "google".into(),
        subject: "g-victim".into(),
        email: "victim@example.com".into(),
        name: "Victim".into(),
        picture: None,
    };
    let outcome = store.user_for_identity(identity.clone()).await.unwrap();
    assert!(matches!(outcome, IdentitySignIn::UnverifiedAccountExists));
    // Nothing was linked: the refusal repeats, and the account has no identity.
    assert!(matches!(store.user_for_identity(identity.clone()).await.unwrap(), IdentitySignIn::UnverifiedAccountExists));
    store.mark_email_verified(&squatter.id).await.unwrap();
    assert_eq!(signed_in(store.user_for_identity(identity).await.unwrap()).id, squatter.id);
}

async fn email_links_work_once_and_only_for_their_purpose(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "ann@x.co").await;
    assert!(!u.email_verified, "a new account is unverified");
    let hour = chrono::Duration::hours(1);
    let first = store.create_email_token(&u.id, Purpose::VerifyEmail, &u.email, "h1", hour).await.unwrap();
    let second = store.create_email_token(&u.id, Purpose::VerifyEmail, &u.email, "h2", hour).await.unwrap();
    let now = parley_store::time::now();
    assert!(store.email_token(&first.id).await.unwrap().unwrap().used_at.is_some(), "a newer link retires the older");
    assert!(matches!(store.redeem_email_token(&first.id, Redeem::ConfirmEmail, now).await, Err(StoreError::NotFound)));
    let wrong = store.redeem_email_token(&second.id, Redeem::ResetPassword { password_hash: "x".into() }, now).await;
    assert!(matches!(wrong, Err(StoreError::NotFound)), "a verification link cannot reset a password");
    let later = now + chrono::Duration::hours(2);
    assert!(matches!(store.redeem_email_token(&second.id, Redeem::ConfirmEmail, later).await, Err(StoreError::NotFound)), "expired");
    let verified = store.redeem_email_token(&second.id, Redeem::ConfirmEmail, now).await.unwrap();
    assert!(verified.email_verified);
    assert!(matches!(store.redeem_email_token(&second.id, Redeem::ConfirmEmail, now).await, Err(StoreError::NotFound)), "single use");
    assert_eq!(store.latest_email_token(&u.id, Purpose::VerifyEmail).await.unwrap().unwrap().id, second.id);
}

async fn an_email_change_takes_effect_only_through_its_link(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "old@x.co").await;
    let taken = user(&store, "taken@x.co").await;
    let day = chrono::Duration::days(1);
    let now = parley_store::time::now();
    let change = store.create_email_token(&u.id, Purpose::ChangeEmail, "New@X.co", "h", day).await.unwrap();
    let verify_old = store.create_email_token(&u.id, Purpose::VerifyEmail, "old@x.co", "v", day).await.unwrap();
    assert_eq!(store.user_by_id(&u.id).await.unwrap().unwrap().email, "old@x.co", "nothing changes before the link");
    let changed = store.redeem_email_token(&change.id, Redeem::ConfirmEmail, now).await.unwrap();
    assert_eq!(changed.email, "new@x.co");
    assert!(changed.email_verified);
    assert!(matches!(store.redeem_email_token(&verify_old.id, Redeem::ConfirmEmail, now).await, Err(StoreError::NotFound)), "links to the old address die");
    // An address taken meanwhile is a conflict, and the link stays unused.
    let clash = store.create_email_token(&u.id, Purpose::ChangeEmail, &taken.email, "c", day).await.unwrap();
    assert!(matches!(store.redeem_email_token(&clash.id, Redeem::ConfirmEmail, now).await, Err(StoreError::Conflict(_))));
    assert!(store.email_token(&clash.id).await.unwrap().unwrap().used_at.is_none());
    assert_eq!(store.user_by_id(&u.id).await.unwrap().unwrap().email, "new@x.co");
}

async fn a_password_reset_raises_the_token_version_and_verifies(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "reset@x.co").await;
    let now = parley_store::time::now();
    let link = store.create_email_token(&u.id, Purpose::ResetPassword, &u.email, "r", chrono::Duration::hours(1)).await.unwrap();
    let after = store.redeem_email_token(&link.id, Redeem::ResetPassword { password_hash: "new".into() }, now).await.unwrap();
    assert_eq!(after.password_hash.as_deref(), Some("new"));
    assert_eq!(after.token_version, u.token_version + 1);
    assert!(after.email_verified, "the link proved the mailbox");
    let again = store.redeem_email_token(&link.id, Redeem::ResetPassword { password_hash: "newer".into() }, now).await;
    assert!(matches!(again, Err(StoreError::NotFound)));
}

async fn invitations_by_token_expire_renew_and_are_removed(backend: Backend) {
    let (_db, store) = store(backend).await;
    let owner = user(&store, "o@x.co").await;
    let agent = user(&store, "agent@x.co").await;
    let b = bot(&store, &owner.id, "Helper").await;
    let inv = store.create_invitation(&b.id, "Agent@x.co", Role::Agent, &owner.id, Some("hash-1")).await.unwrap();
    assert_eq!(inv.invite_token.as_deref(), Some("hash-1"));
    let expires = inv.invite_expires_at.unwrap();
    assert_eq!((expires - inv.invited_at).num_days(), 7);
    let details = store.invitation_details(&b.id, &inv.id).await.unwrap().unwrap();
    assert_eq!(details.bot.name, "Helper");
    assert_eq!(details.inviter.unwrap().email, "o@x.co");
    assert!(parley_store::team::invitation_expired(&inv, expires));
    assert!(!parley_store::team::invitation_expired(&inv, inv.invited_at));
    let renewed = store.renew_invitation(&b.id, &inv.id, "hash-2").await.unwrap();
    assert_eq!(renewed.invite_token.as_deref(), Some("hash-2"));
    // The owner cannot join their own bot's team; the invitee can, once.
    assert!(matches!(store.accept_invitation(&b.id, &inv.id, &owner.id).await, Err(StoreError::Conflict(_))));
    let member = store.accept_invitation(&b.id, &inv.id, &agent.id).await.unwrap();
    assert_eq!(member.status, "active");
    assert!(member.invite_token.is_none());
    assert!(matches!(store.accept_invitation(&b.id, &inv.id, &agent.id).await, Err(StoreError::NotFound)));
    let changed = store.set_member_role(&b.id, &inv.id, Role::Viewer).await.unwrap();
    assert_eq!(changed.role, "viewer");
    assert_eq!(store.bot_for_user(&b.id, &agent.id).await.unwrap().unwrap().1, Role::Viewer);
    let roster = store.team_roster(&b.id).await.unwrap();
    assert_eq!(roster.len(), 1);
    assert_eq!(roster[0].user.as_ref().unwrap().id, agent.id);
    let removed = store.remove_member(&b.id, &inv.id).await.unwrap();
    assert_eq!(removed.user_id.as_deref(), Some(agent.id.as_str()));
    assert!(store.bot_for_user(&b.id, &agent.id).await.unwrap().is_none());
    // Declining removes a pending invitation; other bots' ids do not reach it.
    let other = bot(&store, &owner.id, "Other").await;
    let inv2 = store.create_invitation(&b.id, "x@x.co", Role::Editor, &owner.id, Some("h")).await.unwrap();
    assert!(matches!(store.decline_invitation(&other.id, &inv2.id).await, Err(StoreError::NotFound)));
    store.decline_invitation(&b.id, &inv2.id).await.unwrap();
    assert!(store.team_member(&b.id, &inv2.id).await.unwrap().is_none());
}

async fn the_outbox_claims_each_mail_once_and_backs_off(backend: Backend) {
    use parley_store::mail::NewMail;
    let (_db, store) = store(backend).await;
    let mail = store
        .enqueue_mail(NewMail { to: "a@x.co".into(), subject: "S".into(), text: "secret link".into(), html: "<p>x</p>".into(), link: Some("http://l".into()) })
        .await
        .unwrap();
    let now = parley_store::time::now();
    let due = store.due_mail(now, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    let lease = now + chrono::Duration::minutes(5);
    assert!(store.claim_mail(&due[0], lease).await.unwrap());
    assert!(!store.claim_mail(&due[0], lease).await.unwrap(), "a second claim loses");
    assert!(store.due_mail(now, 10).await.unwrap().is_empty(), "a claimed mail is not due");
    let retry = now + chrono::Duration::seconds(5);
    store.mail_attempt_failed(&mail.id, "connection refused", Some(retry)).await.unwrap();
    assert_eq!(store.next_mail_due().await.unwrap(), Some(retry));
    let again = store.due_mail(retry, 10).await.unwrap();
    assert_eq!(again[0].attempts, 1);
    assert_eq!(again[0].last_error.as_deref(), Some("connection refused"));
    store.mail_sent(&mail.id).await.unwrap();
    let kept = &store.outbox(10).await.unwrap()[0];
    assert_eq!(kept.status, "sent");
    assert_eq!(kept.text_body, "", "a sent mail's secret link is not kept");
    assert!(kept.link.is_none());
    assert_eq!(store.next_mail_due().await.unwrap(), None);
    let doomed = store
        .enqueue_mail(NewMail { to: "b@x.co".into(), subject: "S".into(), text: "reset: http://l/secret".into(), html: "h".into(), link: Some("http://l/secret".into()) })
        .await
        .unwrap();
    store.mail_attempt_failed(&doomed.id, "gave up", None).await.unwrap();
    let given_up = store.outbox(10).await.unwrap().into_iter().find(|m| m.id == doomed.id).unwrap();
    assert_eq!((given_up.status.as_str(), given_up.text_body.as_str(), given_up.link), ("failed", "", None), "a given-up mail keeps no secret link");
}

/// Finding 1 of the hardening issue: a request dropped between BEGIN and COMMIT (a client that
/// resets its connection) must not leave a pooled connection inside the transaction, holding
/// SQLite's write lock (later writers then time out) and swallowing the single-statement
/// writes that land on it (rolled back later, lost).
async fn a_transaction_whose_caller_gives_up_still_ends_and_later_writes_are_kept(backend: Backend) {
    use std::time::{Duration, Instant};
    let (db, store) = store(backend).await;
    let u = user(&store, "ann@example.com").await;
    // More than one idle connection in the pool, as on a server that has been busy.
    let (a, b, c) = tokio::join!(store.user_by_id(&u.id), store.user_by_id(&u.id), store.user_by_id(&u.id));
    assert!(a.is_ok() && b.is_ok() && c.is_ok());

    let gave_up = tokio::time::timeout(Duration::from_millis(100), store.hold_transaction(&u.id, "held", Duration::from_millis(400))).await;
    assert!(gave_up.is_err(), "the caller stops waiting halfway through the transaction");

    let started = Instant::now();
    store.log_activity(Some(&u.id), None, "test", "single write after").await.expect("a single-statement write works");
    let other = store
        .create_user(NewUser { email: "bob@example.com".into(), name: "Bob".into(), password_hash: None, profile_picture: None })
        .await
        .expect("a transaction works");
    store.log_activity(Some(&other.id), None, "test", "second write").await.expect("another write works");
    assert!(started.elapsed() < Duration::from_secs(3), "writes waited {:?}", started.elapsed());

    // The abandoned transaction ends in its own time (committed, on its own task).
    let deadline = Instant::now() + Duration::from_secs(5);
    while !store.recent_activity(&u.id, 50).await.unwrap().iter().any(|(a, _)| a.action == "held") {
        assert!(Instant::now() < deadline, "the transaction that began was never finished");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Nothing is lost, as seen from a fresh start on the same data.
    drop(store);
    let store = db.open().await.expect("reopen");
    let actions: Vec<String> = store.recent_activity(&u.id, 50).await.unwrap().into_iter().map(|(a, _)| a.action).collect();
    assert!(actions.contains(&"single write after".to_string()), "{actions:?}");
    assert!(actions.contains(&"held".to_string()), "{actions:?}");
    assert!(store.user_by_email("bob@example.com").await.unwrap().is_some());
    assert_eq!(store.recent_activity(&other.id, 50).await.unwrap().len(), 1);
}

/// Under steady writes the SQLite WAL starts over after checkpoints instead of growing with
/// every commit: it reaches the size at which it is set to start over
/// (`sqlite_wal_restart_bytes`, 1 MB here) plus a transaction or two of the message journal's
/// applier, and stays there. Run with the product's transaction size (half a second of
/// messages): the plateau then comes after a few seconds, later under load, so the test
/// compares the peak of the first seven seconds with the peak of the next seven instead of
/// sampling at fixed times. (On a quiet machine SQLite's own checkpoints at commit keep it
/// bounded too; the checkpoint thread is what catches the tail they leave while readers hold
/// old snapshots.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_wal_starts_over_under_steady_writes() {
    use parley_store::chat::{NewMessage, Role};
    let db = TestDb::new(Backend::Sqlite).await.unwrap();
    let options = parley_store::PoolOptions { sqlite_wal_restart_bytes: 1 << 20, ..parley_store::PoolOptions::new(4) };
    let store = Store::open_sqlite_with(&db.data_dir().join("parley.db"), options).await.unwrap();
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let mut sessions = Vec::new();
    for i in 0..20 {
        sessions.push(store.create_session(&b.id, &format!("v{i}")).await.unwrap().id);
    }
    let wal = db.data_dir().join("parley.db-wal");
    let wal_size = || std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    let half = std::time::Duration::from_secs(7);
    let started = std::time::Instant::now();
    let (mut first_peak, mut second_peak) = (0u64, 0u64);
    let mut written = 0u64;
    let mut n = 0u64;
    // Paced (about 4,000 messages a second), not flat out: a steady load, which the checkpoint
    // thread must keep up with even when the machine is busy with other work (flat out on a
    // loaded machine it only measured who got the CPU).
    let mut pace = tokio::time::interval(std::time::Duration::from_millis(5));
    while started.elapsed() < 2 * half {
        pace.tick().await;
        // 20 writers at a time, one message each, as a relay's sessions send.
        let batch: Vec<_> = sessions
            .iter()
            .map(|sid| {
                let (st, sid) = (store.clone(), sid.clone());
                n += 1;
                let text = format!("message {n} with some words in it, as a chat message has");
                tokio::spawn(async move { st.append_message(&sid, NewMessage::simple(Role::User, text)).await })
            })
            .collect();
        for t in batch {
            t.await.unwrap().unwrap();
            written += 1;
        }
        let size = wal_size();
        if started.elapsed() < half {
            first_peak = first_peak.max(size);
        } else {
            second_peak = second_peak.max(size);
        }
    }
    assert!(written > 2000, "too few messages to tell: {written}");
    assert!(first_peak > 0, "the WAL holds the first writes");
    // The bound: half as much again as the first seven seconds' peak, or four times the
    // restart size, whichever is larger. On a busy machine (CI runs the tests side by side) a
    // checkpoint can come a period late and leave two or three of the applier's transactions
    // on top of the restart size once (2.9 MB was seen, with a first peak under 1 MB; another
    // run peaked at 2.8 MB in both halves); a WAL that never started over would hold every
    // page the run writes, at least the 16 MB its messages add to the database file.
    let bound = (first_peak * 3 / 2).max(4 << 20);
    assert!(
        second_peak <= bound,
        "the WAL kept growing: at most {first_peak} bytes in the first {half:?}, {second_peak} in the next ({written} messages)"
    );
}

/// Messages handed over before any of them is awaited (as the connections whose input came
/// in one turn of the event loop do) are saved with one journal write, each session's in
/// order, a session the writer does not know yet through its queue behind them; one dropped
/// unawaited is saved all the same.
#[tokio::test]
async fn messages_handed_over_together_share_one_journal_write() {
    use parley_store::chat::{NewMessage, Role};
    let (_db, store) = store(Backend::Sqlite).await;
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let a = store.create_session(&b.id, "a").await.unwrap().id;
    let c = store.create_session(&b.id, "c").await.unwrap().id;
    for sid in [&a, &c] {
        store.append_message(sid, NewMessage::simple(Role::User, "first")).await.unwrap();
    }
    let fresh = store.create_session(&b.id, "fresh").await.unwrap().id;
    let before = store.journal_appends().unwrap();
    let mut saving = Vec::new();
    for i in 0..30 {
        let sid = [&a, &c, &fresh][i % 3];
        saving.push(store.queue_message(sid, NewMessage::simple(Role::User, format!("m{i}"))).unwrap());
    }
    let saved = futures_util::future::join_all(saving).await;
    assert!(saved.iter().all(|s| s.is_ok()), "{saved:?}");
    // The known sessions' 20 messages in one write; the fresh session's ten through the
    // writer thread, which saves what it has queued together.
    let writes = store.journal_appends().unwrap() - before;
    assert!(writes <= 3, "{writes} journal writes for 30 messages");
    drop(store.queue_message(&a, NewMessage::simple(Role::User, "dropped")).unwrap());
    let contents = |sid: &String| {
        let store = store.clone();
        let sid = sid.clone();
        async move { store.messages(&sid, 0, 100).await.unwrap().into_iter().map(|m| (m.seq, m.content)).collect::<Vec<_>>() }
    };
    let mut want_a: Vec<(i64, String)> = vec![(1, "first".into())];
    want_a.extend((0..30).step_by(3).enumerate().map(|(k, i)| (k as i64 + 2, format!("m{i}"))));
    want_a.push((12, "dropped".into()));
    assert_eq!(contents(&a).await, want_a);
    let want_fresh: Vec<(i64, String)> = (2..30).step_by(3).enumerate().map(|(k, i)| (k as i64 + 1, format!("m{i}"))).collect();
    assert_eq!(contents(&fresh).await, want_fresh);
    assert_eq!(contents(&c).await.len(), 11);
}

/// On SQLite a message is saved once it is in the message journal (one append); the database
/// gets it behind, many messages to a transaction. A crash before that loses nothing: the next
/// start commits what the journal holds, and a read of the running store waits for it first.
#[tokio::test]
async fn messages_only_in_the_journal_survive_a_crash() {
    use diesel::{Connection, RunQueryDsl};
    use parley_store::chat::{NewMessage, Role};
    let db = TestDb::new(Backend::Sqlite).await.unwrap();
    // Committed behind only when a reader asks or the counters are due (a second).
    let options = parley_store::PoolOptions { sqlite_journal_apply: std::time::Duration::from_secs(3600), ..parley_store::PoolOptions::new(4) };
    let store = Store::open_sqlite_with(&db.data_dir().join("parley.db"), options).await.unwrap();
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let sid = store.create_session(&b.id, "a").await.unwrap().id;
    let started = std::time::Instant::now();
    for i in 0..5 {
        store.append_message(&sid, NewMessage::simple(Role::User, format!("m{i}"))).await.unwrap();
    }
    let copy = db.crash_copy().await.unwrap();
    let journal = copy.data_dir().join("parley.db-messages");
    let copied_segments = std::fs::read_dir(&journal).unwrap().count();
    if started.elapsed() < std::time::Duration::from_millis(900) {
        // What the crash leaves: the rows in the journal, not in the database.
        let path = copy.data_dir().join("parley.db");
        let mut conn = diesel::SqliteConnection::establish(&path.to_string_lossy()).unwrap();
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let stored = diesel::sql_query("SELECT COUNT(*) AS n FROM chat_messages").get_result::<Count>(&mut conn).unwrap();
        assert_eq!(stored.n, 0, "not yet committed");
        assert!(copied_segments > 0, "but journaled");
    }
    let restarted = copy.open().await.unwrap();
    let saved: Vec<(i64, String)> = restarted.messages(&sid, 0, 10).await.unwrap().into_iter().map(|m| (m.seq, m.content)).collect();
    assert_eq!(saved, (0..5).map(|i| (i + 1, format!("m{i}"))).collect::<Vec<_>>(), "committed at start-up, in order");
    assert_eq!(restarted.session(&sid).await.unwrap().unwrap().message_count, 5, "and counted");
    restarted.append_message(&sid, NewMessage::simple(Role::Bot, "after")).await.unwrap();
    assert_eq!(restarted.messages(&sid, 0, 10).await.unwrap().last().map(|m| m.seq), Some(6), "numbering goes on");
    let left = segment_files(&journal);
    assert_eq!(left.len(), 1, "replayed and committed segments are deleted, the one being appended to stays: {left:?}");

    // The running store: a read waits for what was saved before it.
    let seqs: Vec<i64> = store.messages(&sid, 0, 10).await.unwrap().iter().map(|m| m.seq).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    // A message for a deleted conversation or bot is refused, not journaled.
    let other = store.create_session(&b.id, "b").await.unwrap().id;
    store.append_message(&other, NewMessage::simple(Role::User, "hi")).await.unwrap();
    store.delete_session(&sid).await.unwrap();
    let late = store.append_message(&sid, NewMessage::simple(Role::User, "late")).await;
    assert!(matches!(late, Err(StoreError::NotFound)), "{late:?}");
    store.delete_bot(&b.id).await.unwrap();
    let late = store.append_message(&other, NewMessage::simple(Role::User, "late")).await;
    assert!(matches!(late, Err(StoreError::NotFound)), "{late:?}");
    assert!(store.messages(&sid, 0, 10).await.unwrap().is_empty());
}

/// `parley backup`'s copy, taken beside the running store: it holds the messages that are
/// still only in the message journal (the store commits them behind, here only when asked),
/// opens as a database of its own with every message in order, and is never written over.
#[tokio::test]
async fn a_backup_beside_the_running_store_keeps_the_messages_still_only_in_its_journal() {
    use parley_store::backup::backup_sqlite;
    use parley_store::chat::{NewMessage, Role};
    let db = TestDb::new(Backend::Sqlite).await.unwrap();
    let options = parley_store::PoolOptions { sqlite_journal_apply: std::time::Duration::from_secs(3600), ..parley_store::PoolOptions::new(4) };
    let live = db.data_dir().join("parley.db");
    let store = Store::open_sqlite_with(&live, options).await.unwrap();
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Kept").await;
    let sid = store.create_session(&b.id, "a").await.unwrap().id;
    assert!(store.messages(&sid, 0, 10).await.unwrap().is_empty(), "everything before this is committed");
    for i in 0..4 {
        store.append_message(&sid, NewMessage::simple(Role::User, format!("m{i}"))).await.unwrap();
    }

    let dest = tempfile::tempdir().unwrap();
    let copy = dest.path().join("parley.db");
    let (from, to) = (live.clone(), copy.clone());
    let taken = tokio::task::spawn_blocking(move || backup_sqlite(&from, &to)).await.unwrap().unwrap();
    assert!(taken.journal_segments >= 1, "{taken:?}");
    assert!(taken.database_bytes > 0);
    let (from, to) = (live.clone(), copy.clone());
    let again = tokio::task::spawn_blocking(move || backup_sqlite(&from, &to)).await.unwrap();
    assert!(matches!(&again, Err(StoreError::Connection(m)) if m.contains("exists already")), "{again:?}");
    let missing = backup_sqlite(&db.data_dir().join("nothing.db"), &dest.path().join("other.db"));
    assert!(matches!(&missing, Err(StoreError::Connection(m)) if m.contains("there is no database")), "{missing:?}");

    let restored = Store::open_sqlite(&copy, 4).await.unwrap();
    let kept: Vec<(i64, String)> = restored.messages(&sid, 0, 10).await.unwrap().into_iter().map(|m| (m.seq, m.content)).collect();
    assert_eq!(kept, (0..4).map(|i| (i + 1, format!("m{i}"))).collect::<Vec<_>>());
    assert_eq!(restored.session(&sid).await.unwrap().unwrap().message_count, 4);
    // The running store goes on as before.
    store.append_message(&sid, NewMessage::simple(Role::Agent, "after")).await.unwrap();
    assert_eq!(store.messages(&sid, 0, 10).await.unwrap().len(), 5);
}

/// The message journal's segment files in `dir`.
fn segment_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    found.sort();
    found
}

/// One process owns a database's message journal. Another one (a second server on the same
/// data directory, or `parley plans set` beside a running one) must neither replay and delete
/// the segments the owner appends to nor write its own among them: a server is refused, a
/// command-line tool works alongside and journals in a directory of its own, which the
/// owner's next start replays once that process is gone.
#[tokio::test]
async fn a_running_servers_message_journal_is_left_to_it() {
    use parley_store::chat::{NewMessage, Role};
    let db = TestDb::new(Backend::Sqlite).await.unwrap();
    let options = || parley_store::PoolOptions { sqlite_journal_apply: std::time::Duration::from_secs(3600), ..parley_store::PoolOptions::new(4) };
    let store = Store::open_sqlite_with(&db.data_dir().join("parley.db"), options()).await.unwrap();
    let owner = user(&store, "owner@x.co").await;
    let b = bot(&store, &owner.id, "Chatty").await;
    let sid = store.create_session(&b.id, "a").await.unwrap().id;
    let late = store.create_session(&b.id, "b").await.unwrap().id;
    for i in 0..3 {
        store.append_message(&sid, NewMessage::simple(Role::User, format!("m{i}"))).await.unwrap();
    }
    // The running server, as another process sees it: its journal (copied as a crash leaves
    // it) and its lock on the journal (taken here on a descriptor of its own, as a process
    // other than this one would hold it).
    let copy = db.crash_copy().await.unwrap();
    let path = copy.data_dir().join("parley.db");
    let journal = copy.data_dir().join("parley.db-messages");
    let server_lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(journal.join("owner.lock")).unwrap();
    server_lock.try_lock().unwrap();
    let segments = segment_files(&journal);
    assert!(!segments.is_empty());

    let wait = std::time::Duration::from_millis(200);
    let refused = Store::open_sqlite_with(&path, parley_store::PoolOptions { sqlite_claim_wait: wait, ..options() }).await;
    let why = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(why.contains("in use by another running Parley"), "{why}");
    assert_eq!(segment_files(&journal), segments, "a refused server touches nothing");

    let tool = Store::open_sqlite_with(&path, parley_store::PoolOptions { alongside: true, ..options() }).await.unwrap();
    assert_eq!(segment_files(&journal), segments, "a tool alongside replays nothing");
    let admin = user(&tool, "admin@x.co").await;
    let own = bot(&tool, &admin.id, "Tooled").await;
    let t = tool.create_session(&own.id, "t").await.unwrap().id;
    tool.append_message(&t, NewMessage::simple(Role::User, "from the tool")).await.unwrap();
    let guest = journal.join(format!("guest-{}", std::process::id()));
    assert_eq!(segment_files(&guest).len(), 1, "the tool journals in its own directory");
    assert_eq!(tool.messages(&t, 0, 10).await.unwrap().len(), 1);
    drop(tool);

    // A tool that ended without committing (its directory left behind under another
    // process's number), then the server stopped: the next start commits both journals.
    let gone = journal.join("guest-1");
    std::fs::create_dir_all(&gone).unwrap();
    store.append_message(&late, NewMessage::simple(Role::User, "journaled by a tool")).await.unwrap();
    let late_copy = db.crash_copy().await.unwrap();
    for segment in segment_files(&late_copy.data_dir().join("parley.db-messages")) {
        std::fs::copy(&segment, gone.join(segment.file_name().unwrap())).unwrap();
    }
    drop(server_lock);
    let restarted = Store::open_sqlite_with(&path, options()).await.unwrap();
    let saved: Vec<String> = restarted.messages(&sid, 0, 10).await.unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(&saved[..3], ["m0", "m1", "m2"], "the server's journal, replayed: {saved:?}");
    let late_saved: Vec<String> = restarted.messages(&late, 0, 10).await.unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(late_saved, ["journaled by a tool"], "a gone tool's journal, replayed");
    assert!(!gone.exists(), "and its directory removed");
    assert_eq!(restarted.messages(&t, 0, 10).await.unwrap().len(), 1, "what the tool saved stays");
    assert_eq!(segment_files(&journal).len(), 1, "only the segment being appended to is left");
}

async fn signed_out_sessions_are_remembered_until_their_tokens_expire(backend: Backend) {
    let (_db, store) = store(backend).await;
    let ann = user(&store, "ann@example.com").await;
    let now = parley_store::time::now();
    let (user, out) = store.user_of_session(&ann.id, Some("laptop")).await.unwrap().unwrap();
    assert_eq!((user.id.as_str(), out), (ann.id.as_str(), false));
    assert!(store.user_of_session("nobody", Some("laptop")).await.unwrap().is_none());

    // A session past its token's expiry, then one still live: signing out the second prunes the first.
    store.sign_out_session("old", &ann.id, now - chrono::Duration::hours(1)).await.unwrap();
    assert!(store.user_of_session(&ann.id, Some("old")).await.unwrap().unwrap().1);
    store.sign_out_session("laptop", &ann.id, now + chrono::Duration::days(7)).await.unwrap();
    store.sign_out_session("laptop", &ann.id, now + chrono::Duration::days(7)).await.unwrap();
    assert!(store.user_of_session(&ann.id, Some("laptop")).await.unwrap().unwrap().1, "signing out twice is once");
    assert!(!store.user_of_session(&ann.id, Some("old")).await.unwrap().unwrap().1, "an expired one is forgotten");
    assert!(!store.user_of_session(&ann.id, Some("phone")).await.unwrap().unwrap().1);
    assert!(!store.user_of_session(&ann.id, None).await.unwrap().unwrap().1);

    let before = ann.token_version;
    assert_eq!(store.sign_out_everywhere(&ann.id).await.unwrap().token_version, before + 1);
    assert!(matches!(store.sign_out_everywhere("nobody").await, Err(StoreError::NotFound)));
}

async fn two_factor_codes_and_recovery_codes_work_once(backend: Backend) {
    let (_db, store) = store(backend).await;
    let u = user(&store, "tf@x.co").await;
    assert!(store.two_factor(&u.id).await.unwrap().is_none());
    assert!(matches!(store.enable_two_factor(&u.id, 5, &[]).await, Err(StoreError::NotFound)), "nothing to confirm");
    store.start_two_factor(&u.id, "SECRETONE").await.unwrap();
    store.start_two_factor(&u.id, "SECRETTWO").await.unwrap();
    let pending = store.two_factor(&u.id).await.unwrap().unwrap();
    assert_eq!((pending.secret.as_str(), pending.enabled), ("SECRETTWO", false), "a new setup replaces an unconfirmed one");
    assert!(!store.user_by_id(&u.id).await.unwrap().unwrap().two_factor_enabled);
    assert!(!store.accept_two_factor_step(&u.id, 9).await.unwrap(), "no code is accepted before it is on");

    store.enable_two_factor(&u.id, 10, &["r1".into(), "r2".into()]).await.unwrap();
    assert!(store.user_by_id(&u.id).await.unwrap().unwrap().two_factor_enabled);
    assert!(matches!(store.start_two_factor(&u.id, "OTHER").await, Err(StoreError::Conflict(_))), "on: no new secret");
    assert!(!store.accept_two_factor_step(&u.id, 10).await.unwrap(), "the enabling code's step is used");
    assert!(store.accept_two_factor_step(&u.id, 11).await.unwrap());
    assert!(!store.accept_two_factor_step(&u.id, 11).await.unwrap(), "a code works once");
    assert!(!store.accept_two_factor_step(&u.id, 10).await.unwrap(), "an older code is refused");

    let (a, b) = tokio::join!(store.use_recovery_code(&u.id, "r1"), store.use_recovery_code(&u.id, "r1"));
    assert_eq!([a.unwrap(), b.unwrap()].iter().filter(|used| **used).count(), 1, "a recovery code works once, also when raced");
    assert!(!store.use_recovery_code(&u.id, "nope").await.unwrap());
    assert_eq!(store.recovery_codes_left(&u.id).await.unwrap(), 1);

    store.disable_two_factor(&u.id).await.unwrap();
    assert!(store.two_factor(&u.id).await.unwrap().is_none());
    assert!(!store.user_by_id(&u.id).await.unwrap().unwrap().two_factor_enabled);
    assert!(!store.use_recovery_code(&u.id, "r2").await.unwrap(), "the codes went with it");
}
