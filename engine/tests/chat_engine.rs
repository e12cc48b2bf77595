//! The chat engine end to end over a real store, on both backends: visitor turns, handoff,
//! takes decided once, live events in order, resolve, and nothing lost across actor restarts.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use parley_engine::chat::{BotReply, Brain, BrainError, Connection, Engine, EngineError, EngineSettings, Outgoing, ReplyRequest, ServerEvent, Sink, VisitorMessage, Who};
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::chat::CustomerInfo;
use parley_store::models::{ChatMessage, ChatSession};
use serde_json::{json, Value};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::{Backend, Role, Store};

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[actix_rt::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[actix_rt::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

on_both_backends!(
    a_visitor_turn_is_saved_answered_and_streamed,
    a_message_sent_again_with_its_client_id_is_saved_and_answered_once,
    handoff_take_race_live_messages_and_resolve,
    a_failing_or_slow_brain_gives_the_error_bubble_and_the_session_goes_on,
    roles_and_teams_are_enforced,
    viewers_and_other_bots_members_cannot_write_support_requests_or_details,
    a_session_change_reaches_its_visitor_as_the_visitors_view,
    visitor_details_and_transfer_reasons_have_length_caps,
    hundred_take_races_have_one_winner_each,
    limits_are_enforced_before_anything_is_saved,
    an_agent_who_leaves_a_bot_hears_no_more_of_it,
    a_removed_member_loses_live_access_at_once,
    only_members_who_may_take_sessions_are_online_agents,
    revoking_a_users_sessions_closes_their_connections,
    a_member_who_cannot_keep_up_makes_new_messages_busy_not_lost,
);

/// Answers "echo: {question}", streaming it in two halves; "fail" fails, "slow" sleeps.
struct TestBrain;

impl Brain for TestBrain {
    fn reply(&self, req: ReplyRequest) -> BoxFuture<'static, Result<BotReply, BrainError>> {
        Box::pin(async move {
            match req.question.as_str() {
                "fail" => Err(BrainError("model exploded".into())),
                "unknown" => Ok(BotReply { text: "I don't know.".into(), citations: vec![], offer_handoff: true, refused: true, suggestions: vec![] }),
                "slow" => {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(BotReply { text: "too late".into(), citations: vec![], offer_handoff: false, refused: false, suggestions: vec![] })
                }
                q => {
                    let text = format!("echo: {q} (after {} messages)", req.history.len());
                    let (a, b) = text.split_at(text.len() / 2);
                    (req.deltas)(a.to_string());
                    (req.deltas)(b.to_string());
                    Ok(BotReply { text, citations: vec![], offer_handoff: false, refused: false, suggestions: vec![] })
                }
            }
        })
    }
}

/// The fields of a message and a session these tests look at, as the wire names them (the
/// wire format itself is `parley-http`'s, tested there).
fn message_json(m: &ChatMessage) -> Value {
    json!({"_id": m.id, "role": m.role, "content": m.content, "isAgent": m.is_agent, "isError": m.is_error})
}

fn session_json(s: &ChatSession) -> Value {
    json!({"_id": s.id, "status": s.status, "rating": s.rating})
}

fn payload(event: &ServerEvent) -> Value {
    match event {
        ServerEvent::SupportRequest { session, customer_message, customer_info, timestamp } => json!({
            "sessionId": session.id, "session": session_json(session), "customerMessage": customer_message,
            "customerInfo": customer_info, "timestamp": timestamp,
        }),
        ServerEvent::CustomerMessage { session_id, message } | ServerEvent::NewMessage { session_id, message } | ServerEvent::MessageUpdated { session_id, message } => {
            json!({"sessionId": session_id, "message": message_json(message)})
        }
        ServerEvent::SessionTaken { session_id, agent_id, agent_name } => json!({"sessionId": session_id, "agentId": agent_id, "agentName": agent_name}),
        ServerEvent::ActiveSupportSessions { sessions } | ServerEvent::AllSessionsUpdate { sessions } => {
            json!({"sessions": sessions.iter().map(session_json).collect::<Vec<_>>()})
        }
        ServerEvent::SessionAssigned { session_id, session } | ServerEvent::SessionUpdated { session_id, session } => {
            json!({"sessionId": session_id, "session": session_json(session), "audience": "team"})
        }
        ServerEvent::VisitorSessionUpdated { session_id, session } => {
            json!({"sessionId": session_id, "session": session_json(session), "audience": "visitor"})
        }
        ServerEvent::CustomerTyping { session_id, is_typing } => json!({"sessionId": session_id, "isTyping": is_typing}),
        ServerEvent::MessageDelta { session_id, message_id, delta } => json!({"sessionId": session_id, "messageId": message_id, "delta": delta}),
        ServerEvent::SessionResolved { session_id, resolved_by, timestamp } => json!({"sessionId": session_id, "resolvedBy": resolved_by, "timestamp": timestamp}),
        ServerEvent::SessionDeleted { session_id } | ServerEvent::SessionJoined { session_id } | ServerEvent::HandoffOffered { session_id } => json!({"sessionId": session_id}),
        ServerEvent::SupportRequested { message } | ServerEvent::Error { message } => json!({"message": message}),
        ServerEvent::AgentJoined { agent_name, agent_id, message } => json!({"agentName": agent_name, "agentId": agent_id, "message": message}),
        ServerEvent::AgentTyping { is_typing } => json!({"isTyping": is_typing}),
        ServerEvent::Training { .. } => json!({}),
        ServerEvent::LeadCaptured { bot_id, lead_id } => json!({"botId": bot_id, "leadId": lead_id}),
    }
}

/// A live connection that records every event it is sent (and being closed, as `closed`).
struct Recorder(Arc<Mutex<Vec<(String, serde_json::Value)>>>);

impl Sink for Recorder {
    fn push(&self, event: &Arc<Outgoing>) {
        let payload: serde_json::Value = serde_json::from_str(event.encoded(|e| payload(e).to_string())).unwrap();
        self.0.lock().unwrap().push((event.name().to_string(), payload));
    }

    fn close(&self) {
        self.0.lock().unwrap().push(("closed".to_string(), serde_json::Value::Null));
    }
}

/// A connection whose outbound queue is full until `room` is set: it records what it is sent.
struct Backlogged {
    room: Arc<std::sync::atomic::AtomicBool>,
    log: Arc<Mutex<Vec<(String, serde_json::Value)>>>,
}

impl Sink for Backlogged {
    fn push(&self, event: &Arc<Outgoing>) {
        Recorder(self.log.clone()).push(event);
    }

    fn has_room(&self) -> bool {
        self.room.load(std::sync::atomic::Ordering::SeqCst)
    }
}

struct Client {
    conn: Connection,
    log: Arc<Mutex<Vec<(String, serde_json::Value)>>>,
}

static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A live connection registered with the engine (as the transport does on connect).
fn client(engine: &Engine, who: Who) -> Client {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink: Arc<dyn Sink> = Arc::new(Recorder(log.clone()));
    let conn = Connection { id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), who, sink, sign_in: None };
    engine.connect(&conn);
    Client { conn, log }
}

impl Client {
    fn events(&self, name: &str) -> Vec<serde_json::Value> {
        self.log.lock().unwrap().iter().filter(|(n, _)| n == name).map(|(_, p)| p.clone()).collect()
    }

    async fn wait_until(&self, name: &str, pred: impl Fn(&serde_json::Value) -> bool) {
        for _ in 0..200 {
            if self.events(name).iter().any(&pred) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no matching {name} event in {:?}", self.log.lock().unwrap());
    }

    async fn wait_for(&self, name: &str, count: usize) -> Vec<serde_json::Value> {
        for _ in 0..200 {
            let got = self.events(name);
            if got.len() >= count {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("expected {count} {name} events, got {:?}", self.log.lock().unwrap());
    }
}

struct World {
    _db: TestDb,
    store: Store,
    engine: Engine,
    bot_id: String,
    owner: Who,
}

async fn member(store: &Store, email: &str, name: &str) -> (String, Who) {
    let u = store
        .create_user(NewUser { email: email.into(), name: name.into(), password_hash: None, profile_picture: None })
        .await
        .unwrap();
    (u.id.clone(), Who::Member { user_id: u.id, name: name.into() })
}

async fn world(backend: Backend, reply_timeout: Duration) -> World {
    let db = TestDb::new(backend).await.unwrap();
    let store = db.open().await.unwrap().with_default_plan("enterprise").await.unwrap();
    let (owner_id, owner) = member(&store, "owner@x.co", "Olive").await;
    let bot = store
        .create_bot(NewBot { owner_id, name: "Helper".into(), description: String::new(), website_url: None, icon: None, widget: WidgetConfig::default(), initial_sources: Vec::new() })
        .await
        .unwrap();
    let engine = Engine::new(store.clone(), Arc::new(TestBrain), EngineSettings { reply_timeout, arbiters: 2, ..EngineSettings::default() });
    World { _db: db, store, engine, bot_id: bot.id, owner }
}

async fn join_team(w: &World, email: &str, name: &str, role: Role) -> Who {
    let (_, who) = member(&w.store, email, name).await;
    let owner_id = match &w.owner { Who::Member { user_id, .. } => user_id.clone(), _ => unreachable!() };
    let invite = w.store.invite_member(&w.bot_id, email, role, &owner_id).await.unwrap();
    let user = w.store.user_by_email(email).await.unwrap().unwrap();
    w.store.respond_invitation(&invite.id, &user, true).await.unwrap();
    who
}

async fn say(w: &World, session: Option<&str>, text: &str) -> parley_engine::chat::TurnOutcome {
    w.engine
        .visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), session_id: session.map(str::to_string), text: text.into(), lead: None, ack_on_save: false, client_id: None })
        .await
        .unwrap()
}

async fn a_message_sent_again_with_its_client_id_is_saved_and_answered_once(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let sid = say(&w, None, "Hello").await.session_id;
    let send = |text: &str, client_id: Option<&str>| {
        w.engine.visitor_message(VisitorMessage {
            bot_id: w.bot_id.clone(),
            session_id: Some(sid.clone()),
            text: text.into(),
            ack_on_save: true,
            client_id: client_id.map(str::to_string),
            ..Default::default()
        })
    };
    let first = send("Where is my parcel?", Some("c-1")).await.unwrap();
    // The ack was lost; the widget's Retry sends it again with the same id.
    let again = send("Where is my parcel?", Some("c-1")).await.unwrap();
    assert_eq!(again.user_message.id, first.user_message.id, "the resend is answered with the message saved");
    // The same words with another id (or none) are a new message.
    let other = send("Where is my parcel?", Some("c-2")).await.unwrap();
    assert_ne!(other.user_message.id, first.user_message.id);
    // An id reused for other words (a careless client) loses nothing: a new message.
    let reused = send("Thanks", Some("c-1")).await.unwrap();
    assert_ne!(reused.user_message.id, first.user_message.id);
    assert_eq!(reused.user_message.content, "Thanks");
    let too_long = send("x", Some(&"c".repeat(65))).await;
    assert!(matches!(too_long, Err(EngineError::Invalid(ref m)) if m.contains("clientId")), "{too_long:?}");

    // A member's Send pressed again after no ack came: the message saved first, once.
    let agent = w.engine.agent_message(&w.owner, &sid, "It left yesterday", Some("d-1")).await.unwrap();
    let again = w.engine.agent_message(&w.owner, &sid, "It left yesterday", Some("d-1")).await.unwrap();
    assert_eq!(again.id, agent.id);
    // Ids are the sender's own: a visitor using the member's id and words says something new.
    let visitor = send("It left yesterday", Some("d-1")).await.unwrap();
    assert_ne!(visitor.user_message.id, agent.id);
    let stored = w.store.messages(&sid, 0, 100).await.unwrap();
    assert_eq!(stored.iter().filter(|m| m.role == "agent" && m.content == "It left yesterday").count(), 1);

    // Once the bot has answered both, the conversation holds each message once and one reply each.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let stored = w.store.messages(&sid, 0, 100).await.unwrap();
        let asked = stored.iter().filter(|m| m.role == "user" && m.content == "Where is my parcel?").count();
        let answered = stored.iter().filter(|m| m.role == "bot" && m.content.starts_with("echo: Where is my parcel?")).count();
        if answered == 2 {
            assert_eq!(asked, 2);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{stored:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_visitor_turn_is_saved_answered_and_streamed(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let first = say(&w, None, "  Where is my order?  ").await;
    assert_eq!(first.reply.as_ref().unwrap().content, "echo: Where is my order? (after 0 messages)");
    let sid = first.session_id.clone();
    let visitor = client(&w.engine, Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() });
    w.engine.join_session(&visitor.conn, &sid).await.unwrap();
    visitor.wait_for("session-joined", 1).await;
    let second = say(&w, Some(&sid), "And returns?").await;
    assert_eq!(second.reply.as_ref().unwrap().content, "echo: And returns? (after 2 messages)");
    let live = visitor.wait_for("new-message", 2).await;
    assert_eq!(live[0]["message"]["role"], "user");
    assert_eq!(live[1]["message"]["role"], "bot");
    let deltas: String = visitor.wait_for("message-delta", 2).await.iter().map(|d| d["delta"].as_str().unwrap().to_string()).collect();
    assert_eq!(deltas, "echo: And returns? (after 2 messages)");
    // Saved, in order, with numbers that say so.
    let stored = w.store.messages(&sid, 0, 100).await.unwrap();
    let seqs: Vec<i64> = stored.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4]);
    assert_eq!(w.store.session(&sid).await.unwrap().unwrap().title, "Where is my order?");

    // A reply that could not help offers the visitor a person, after the reply itself.
    assert!(visitor.events("handoff-offered").is_empty());
    let third = say(&w, Some(&sid), "unknown").await;
    assert!(third.offer_handoff);
    let offered = visitor.wait_for("handoff-offered", 1).await;
    assert_eq!(offered[0]["sessionId"], sid.as_str());
    let order: Vec<String> = visitor.log.lock().unwrap().iter().map(|(n, _)| n.clone()).filter(|n| n == "new-message" || n == "handoff-offered").collect();
    assert_eq!(order.last().map(String::as_str), Some("handoff-offered"));
}

async fn handoff_take_race_live_messages_and_resolve(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let ann = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    let bob = join_team(&w, "bob@x.co", "Bob", Role::Agent).await;
    // Another bot's agent must hear nothing.
    let other_owner = member(&w.store, "other@x.co", "Other").await;
    let other_bot = w
        .store
        .create_bot(NewBot { owner_id: other_owner.0, name: "Other".into(), description: String::new(), website_url: None, icon: None, widget: WidgetConfig::default(), initial_sources: Vec::new() })
        .await
        .unwrap();
    let stranger = client(&w.engine, other_owner.1.clone());
    w.engine.join_as_agent(&stranger.conn, &other_bot.id).await.unwrap();

    let a = client(&w.engine, ann.clone());
    let b = client(&w.engine, bob.clone());
    w.engine.join_as_agent(&a.conn, &w.bot_id).await.unwrap();
    w.engine.join_as_agent(&b.conn, &w.bot_id).await.unwrap();

    let sid = say(&w, None, "hello").await.session_id;
    let visitor = client(&w.engine, Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() });
    w.engine.join_session(&visitor.conn, &sid).await.unwrap();
    let info = CustomerInfo { name: Some("Vic".into()), email: Some("vic@v.co".into()), ..Default::default() };
    w.engine.request_support(&visitor.conn.who, &sid, "I need a person", info).await.unwrap();
    visitor.wait_for("support-requested", 1).await;
    for agent in [&a, &b] {
        let req = agent.wait_for("support-request", 1).await;
        assert_eq!(req[0]["sessionId"], sid.as_str());
        assert_eq!(req[0]["customerInfo"]["email"], "vic@v.co");
        assert_eq!(req[0]["customerMessage"], "I need a person");
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(stranger.events("support-request").is_empty(), "another bot's agent hears nothing");

    let (ra, rb) = tokio::join!(w.engine.take_session(&ann, &sid), w.engine.take_session(&bob, &sid));
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert!(ra.won ^ rb.won, "exactly one wins");
    let (winner, winner_who, loser) = if ra.won { (&a, &ann, &b) } else { (&b, &bob, &a) };
    winner.wait_for("session-assigned", 1).await;
    loser.wait_for("session-taken", 1).await;
    let joined = visitor.wait_for("agent-joined", 1).await;
    let winner_name = match winner_who { Who::Member { name, .. } => name.clone(), _ => unreachable!() };
    assert_eq!(joined[0]["agentName"], winner_name.as_str());
    // The visitor learns the agent's name and an alias, never their account id; the team's
    // events keep the id.
    let winner_id = match winner_who { Who::Member { user_id, .. } => user_id.clone(), _ => unreachable!() };
    let alias = joined[0]["agentId"].as_str().expect("an agentId, as the spec lists it");
    assert_eq!(alias, parley_engine::chat::alias::visitor_alias(&sid, &winner_id));
    assert!(!joined[0].to_string().contains(&winner_id), "the account id reached the visitor: {}", joined[0]);
    assert_eq!(loser.events("session-taken")[0]["agentId"], winner_id.as_str());

    // With an agent on, the visitor's message goes to the agent, not the AI.
    let outcome = say(&w, Some(&sid), "are you human?").await;
    assert!(outcome.agent_connected && outcome.reply.is_none());
    winner.wait_for("customer-message", 1).await;
    w.engine.join_session(&winner.conn, &sid).await.unwrap();
    w.engine.agent_message(winner_who, &sid, "Yes, I am!", None).await.unwrap();
    visitor.wait_until("new-message", |m| m["message"]["content"] == "Yes, I am!" && m["message"]["isAgent"] == true).await;
    w.engine.typing(&visitor.conn.who, &sid, true).await.unwrap();
    winner.wait_for("customer-typing", 1).await;
    w.engine.typing(winner_who, &sid, true).await.unwrap();
    assert_eq!(visitor.wait_for("agent-typing", 1).await[0]["isTyping"], true);

    let resolved = w.engine.resolve(winner_who, &sid, Some(5), Some("Sorted".into())).await.unwrap();
    assert_eq!(resolved.status, "resolved");
    assert_eq!(resolved.rating, Some(5));
    visitor.wait_for("session-resolved", 1).await;
    let stored = w.store.session(&sid).await.unwrap().unwrap();
    assert!(stored.resolved_at.is_some());
    assert_eq!(stored.resolution_notes.as_deref(), Some("Sorted"), "the agent's notes, kept apart from the visitor's feedback");
    assert_eq!(stored.feedback, None);
    let messages = w.store.messages(&sid, 0, 100).await.unwrap();
    assert!(messages.iter().any(|m| m.role == "system" && m.content == format!("Session resolved by {winner_name}")));
    // Back with the bot.
    let after = say(&w, Some(&sid), "thanks").await;
    assert!(after.reply.is_some() && !after.agent_connected);
}

async fn a_failing_or_slow_brain_gives_the_error_bubble_and_the_session_goes_on(backend: Backend) {
    let w = world(backend, Duration::from_millis(300)).await;
    let failed = say(&w, None, "fail").await;
    let reply = failed.reply.unwrap();
    assert_eq!(reply.content, "Sorry, I encountered an error processing your request.");
    assert!(reply.is_error);
    let slow = say(&w, Some(&failed.session_id), "slow").await;
    assert!(slow.reply.unwrap().is_error);
    let fine = say(&w, Some(&failed.session_id), "ok").await;
    assert!(!fine.reply.unwrap().is_error);
}

async fn roles_and_teams_are_enforced(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let viewer = join_team(&w, "viewer@x.co", "Vera", Role::Viewer).await;
    let (_, outsider) = member(&w.store, "out@x.co", "Out").await;
    let sid = say(&w, None, "hi").await.session_id;
    w.engine.request_support(&Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() }, &sid, "", CustomerInfo::default()).await.unwrap();
    assert!(matches!(w.engine.take_session(&viewer, &sid).await, Err(EngineError::Forbidden(_))));
    assert!(matches!(w.engine.take_session(&outsider, &sid).await, Err(EngineError::NotFound(_))));
    assert!(matches!(w.engine.agent_message(&viewer, &sid, "hi", None).await, Err(EngineError::Forbidden(_))));
    let other_visitor = Who::Visitor { session_id: "someone-else".into(), bot_id: w.bot_id.clone() };
    assert!(matches!(w.engine.typing(&other_visitor, &sid, true).await, Err(EngineError::NotFound(_))));
    let c = client(&w.engine, outsider.clone());
    assert!(matches!(w.engine.join_as_agent(&c.conn, &w.bot_id).await, Err(EngineError::NotFound(_))));
    // The owner may.
    assert!(w.engine.take_session(&w.owner, &sid).await.unwrap().won);
}

/// Hardening finding 7: a viewer reads conversations but never writes into them, and a role
/// counts only on its own bot. Refused calls change nothing: no support request, no details
/// on the session, no lead.
async fn viewers_and_other_bots_members_cannot_write_support_requests_or_details(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let viewer = join_team(&w, "viewer@x.co", "Vera", Role::Viewer).await;
    let (other_owner_id, _) = member(&w.store, "other@x.co", "Otto").await;
    let other_bot = w
        .store
        .create_bot(NewBot { owner_id: other_owner_id.clone(), name: "Other".into(), description: String::new(), website_url: None, icon: None, widget: WidgetConfig::default(), initial_sources: Vec::new() })
        .await
        .unwrap();
    let (_, agent_elsewhere) = member(&w.store, "abe@x.co", "Abe").await;
    let invite = w.store.invite_member(&other_bot.id, "abe@x.co", Role::Agent, &other_owner_id).await.unwrap();
    w.store.respond_invitation(&invite.id, &w.store.user_by_email("abe@x.co").await.unwrap().unwrap(), true).await.unwrap();

    let sid = say(&w, None, "hi").await.session_id;
    let details = CustomerInfo { name: Some("Mallory".into()), email: Some("m@evil.example".into()), ..Default::default() };
    let refused = [(&viewer, "forbidden"), (&agent_elsewhere, "not found")];
    for (who, expected) in refused {
        let support = w.engine.request_support(who, &sid, "help", details.clone()).await;
        let left = w.engine.leave_details(who, &sid, details.clone()).await;
        for outcome in [support.map(|_| ()), left] {
            match (expected, outcome) {
                ("forbidden", Err(EngineError::Forbidden(_))) | ("not found", Err(EngineError::NotFound(_))) => {}
                (_, other) => panic!("{who:?}: expected {expected}, got {other:?}"),
            }
        }
    }
    let session = w.store.session(&sid).await.unwrap().unwrap();
    assert!(!session.needs_human_support, "no support request was made");
    assert_eq!((session.customer_name, session.customer_email), (None, None), "no details were saved");
    assert!(w.store.lead_for_session(&w.bot_id, &sid).await.unwrap().is_none(), "no lead was captured");

    // An agent of this bot may leave them on the visitor's behalf.
    let agent = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    w.engine.leave_details(&agent, &sid, details).await.unwrap();
    assert_eq!(w.store.lead_for_session(&w.bot_id, &sid).await.unwrap().unwrap().name.as_deref(), Some("Mallory"));
}

/// Hardening finding 11: the visitor hears a session change as the visitor's event (the
/// transport writes it with the visitor's reduced view), the team as the team's.
async fn a_session_change_reaches_its_visitor_as_the_visitors_view(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let sid = say(&w, None, "hi").await.session_id;
    let visitor = client(&w.engine, Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() });
    let agent = client(&w.engine, w.owner.clone());
    w.engine.join_session(&visitor.conn, &sid).await.unwrap();
    w.engine.join_session(&agent.conn, &sid).await.unwrap();
    let Who::Member { user_id, .. } = &w.owner else { unreachable!() };
    w.engine.set_status(user_id, &sid, None, Some("urgent")).await.unwrap();
    let seen = visitor.wait_for("session-updated", 1).await;
    assert!(seen.iter().all(|e| e["audience"] == "visitor"), "{seen:?}");
    let seen = agent.wait_for("session-updated", 1).await;
    assert!(seen.iter().all(|e| e["audience"] == "team"), "{seen:?}");
}

/// Hardening finding 13: a visitor's details become the bot's lead, shown to the team and in
/// mails; each field has a cap, on every path that takes them, and a refusal saves nothing.
async fn visitor_details_and_transfer_reasons_have_length_caps(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let long = |n: usize| Some("x".repeat(n));
    let cases = [
        (CustomerInfo { name: long(101), ..Default::default() }, "Name must be at most 100 characters"),
        (CustomerInfo { email: long(255), ..Default::default() }, "Email must be at most 254 characters"),
        (CustomerInfo { name: Some("Vic".into()), email: Some("vic at home".into()), ..Default::default() }, "Please enter a valid email address"),
        (CustomerInfo { phone: long(41), ..Default::default() }, "Phone must be at most 40 characters"),
        (CustomerInfo { name: Some("Vic".into()), company: long(101), ..Default::default() }, "Company must be at most 100 characters"),
    ];
    for (info, said) in &cases {
        let first = w.engine.visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), text: "hi".into(), lead: Some(info.clone()), ..Default::default() }).await;
        assert_eq!(first.map(|_| ()).map_err(|e| e.to_string()), Err(said.to_string()));
    }
    let (sessions, total) = w.store.sessions_of_bots(&[w.bot_id.clone()], parley_store::chat::SessionFilter::All, None, None, Default::default(), 0, 10).await.unwrap();
    assert!(sessions.is_empty() && total == 0, "a refused first message started nothing");

    let sid = say(&w, None, "hi").await.session_id;
    let visitor = Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() };
    for (info, said) in &cases {
        let support = w.engine.request_support(&visitor, &sid, "help", info.clone()).await.map(|_| ());
        let details = w.engine.leave_details(&visitor, &sid, info.clone()).await;
        for outcome in [support, details] {
            assert_eq!(outcome.map_err(|e| e.to_string()), Err(said.to_string()));
        }
    }
    let session = w.store.session(&sid).await.unwrap().unwrap();
    assert!(!session.needs_human_support && session.customer_name.is_none(), "refused details changed nothing");
    assert!(w.store.lead_for_session(&w.bot_id, &sid).await.unwrap().is_none());
    // At the caps is fine.
    let fits = CustomerInfo { name: long(100), email: Some(format!("{}@x.co", "a".repeat(249))), phone: long(40), company: long(100) };
    w.engine.leave_details(&visitor, &sid, fits).await.unwrap();

    let err = w.engine.transfer(&w.owner, &sid, "someone", &"r".repeat(501)).await.unwrap_err();
    assert_eq!(err.to_string(), "Reason must be at most 500 characters");
}

async fn hundred_take_races_have_one_winner_each(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let mut agents = Vec::new();
    for i in 0..4 {
        agents.push(join_team(&w, &format!("a{i}@x.co"), &format!("Agent {i}"), Role::Agent).await);
    }
    let mut sessions = Vec::new();
    for i in 0..100 {
        let s = w.store.create_session(&w.bot_id, &format!("s{i}")).await.unwrap();
        w.store.request_support(&s.id, &CustomerInfo::default()).await.unwrap();
        sessions.push(s.id);
    }
    let mut races = Vec::new();
    for sid in &sessions {
        for agent in &agents {
            let engine = w.engine.clone();
            let (agent, sid) = (agent.clone(), sid.clone());
            races.push(actix_rt::spawn(async move { (sid.clone(), engine.take_session(&agent, &sid).await.unwrap().won) }));
        }
    }
    let mut wins = std::collections::HashMap::new();
    for race in races {
        let (sid, won) = race.await.unwrap();
        *wins.entry(sid).or_insert(0) += usize::from(won);
    }
    assert_eq!(wins.len(), 100);
    assert!(wins.values().all(|&n| n == 1), "{wins:?}");
}

async fn limits_are_enforced_before_anything_is_saved(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let long = "x".repeat(501);
    let err = w
        .engine
        .visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), session_id: None, text: long, lead: None, ack_on_save: false, client_id: None })
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Message is too long (501 characters; the limit is 500)");
    assert!(matches!(w.engine.visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), text: "   ".into(), ..Default::default() }).await, Err(EngineError::Invalid(_))));
    let (sessions, total) = w.store.sessions_of_bots(&[w.bot_id.clone()], parley_store::chat::SessionFilter::All, None, None, Default::default(), 0, 10).await.unwrap();
    assert!(sessions.is_empty() && total == 0, "refused messages left no session");
    w.store.update_bot(&w.bot_id, parley_store::bots::BotUpdate { status: Some("inactive".into()), ..Default::default() }).await.unwrap();
    // The bot routes tell the engine after every change (its live settings are cached).
    w.engine.bot_changed(&w.bot_id);
    let err = w.engine.visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), text: "hi".into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(err.to_string(), "This assistant is offline right now");
}

async fn an_agent_who_leaves_a_bot_hears_no_more_of_it(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let ann = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    let a = client(&w.engine, ann.clone());
    w.engine.join_as_agent(&a.conn, &w.bot_id).await.unwrap();
    let first = say(&w, None, "hello").await.session_id;
    // A new conversation reaches the bot's online agents at once.
    a.wait_until("session-updated", |e| e["sessionId"] == first.as_str() && e["session"]["status"] == "active").await;
    w.engine.join_session(&a.conn, &first).await.unwrap();
    w.engine.request_support(&w.owner, &first, "help", CustomerInfo::default()).await.unwrap();
    a.wait_for("support-request", 1).await;

    w.engine.leave_as_agent(&a.conn, &w.bot_id).await.unwrap();
    // Leaving twice, or a bot never joined, is fine.
    w.engine.leave_as_agent(&a.conn, &w.bot_id).await.unwrap();
    let before = a.log.lock().unwrap().len();

    let second = say(&w, None, "hello again").await.session_id;
    w.engine.request_support(&w.owner, &second, "help", CustomerInfo::default()).await.unwrap();
    say(&w, Some(&first), "anyone there?").await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let after: Vec<String> = a.log.lock().unwrap().iter().skip(before).map(|(n, _)| n.clone()).collect();
    assert!(after.is_empty(), "nothing of the bot reaches an agent who left it: {after:?}");

    // Joining again brings it all back, starting with the queue.
    w.engine.join_as_agent(&a.conn, &w.bot_id).await.unwrap();
    a.wait_until("active-support-sessions", |e| e["sessions"].as_array().is_some_and(|s| s.len() == 2)).await;
}

async fn only_members_who_may_take_sessions_are_online_agents(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let vic = join_team(&w, "vic@x.co", "Vic", Role::Viewer).await;
    let ann = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    let ann_id = match &ann { Who::Member { user_id, .. } => user_id.clone(), _ => unreachable!() };
    let v = client(&w.engine, vic);
    w.engine.join_as_agent(&v.conn, &w.bot_id).await.unwrap();
    assert_eq!(w.engine.agents_online(&w.bot_id), 0, "a viewer watching the queue is not someone a visitor can reach");
    let a = client(&w.engine, ann);
    w.engine.join_as_agent(&a.conn, &w.bot_id).await.unwrap();
    assert_eq!(w.engine.agents_online(&w.bot_id), 1);

    let sid = say(&w, None, "hello").await.session_id;
    w.engine.request_support(&w.owner, &sid, "help", CustomerInfo::default()).await.unwrap();
    assert!(w.engine.take_session(&w.owner, &sid).await.unwrap().won);
    let set_role = |role: Role| {
        let (store, bot_id, ann_id) = (w.store.clone(), w.bot_id.clone(), ann_id.clone());
        async move {
            let member = store.team_members(&bot_id).await.unwrap().into_iter().find(|m| m.user_id.as_deref() == Some(ann_id.as_str())).unwrap();
            store.set_member_role(&bot_id, &member.id, role).await.unwrap();
        }
    };
    set_role(Role::Viewer).await;
    w.engine.role_changed(&w.bot_id, &ann_id, Role::Viewer);
    assert_eq!(w.engine.agents_online(&w.bot_id), 0, "demoted while connected");
    let refused = w.engine.transfer(&w.owner, &sid, &ann_id, "").await;
    assert!(matches!(refused, Err(EngineError::Refused(_))), "a viewer is no transfer target: {refused:?}");

    set_role(Role::Agent).await;
    w.engine.role_changed(&w.bot_id, &ann_id, Role::Agent);
    assert_eq!(w.engine.agents_online(&w.bot_id), 1);
    let moved = w.engine.transfer(&w.owner, &sid, &ann_id, "").await.unwrap();
    assert_eq!(moved.assigned_agent_id.as_deref(), Some(ann_id.as_str()));
    a.wait_for("session-assigned", 1).await;
    assert!(v.events("session-assigned").is_empty(), "only the new agent is told the session is theirs");

    // Demoted while handling it: the conversation goes back to the queue, not left with her.
    set_role(Role::Viewer).await;
    w.engine.role_changed(&w.bot_id, &ann_id, Role::Viewer);
    let heard = v.events("session-updated").len();
    assert_eq!(w.engine.requeue_sessions_of(&w.bot_id, &ann_id).await.unwrap(), 1);
    let back = w.store.session(&sid).await.unwrap().unwrap();
    assert_eq!((back.assigned_agent_id, back.needs_human_support, back.status.as_str()), (None, true, "pending"));
    let note = parley_engine::chat::session::REQUEUED_NOTE;
    for _ in 0..200 {
        if w.store.messages(&sid, 0, 500).await.unwrap().iter().any(|m| m.content == note) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(w.store.messages(&sid, 0, 500).await.unwrap().iter().any(|m| m.role == "system" && m.content == note), "the conversation says why");
    v.wait_for("session-updated", heard + 1).await;
    assert_eq!(v.events("session-updated").last().unwrap()["session"]["status"], "pending", "the team sees it waiting again");
    assert!(w.engine.take_session(&w.owner, &sid).await.unwrap().won, "another agent can take it");
    assert_eq!(w.engine.requeue_sessions_of(&w.bot_id, &ann_id).await.unwrap(), 0);
}

async fn a_removed_member_loses_live_access_at_once(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let ann = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    let ann_id = match &ann { Who::Member { user_id, .. } => user_id.clone(), _ => unreachable!() };
    let a = client(&w.engine, ann.clone());
    assert_eq!(w.engine.agents_online(&w.bot_id), 0);
    w.engine.join_as_agent(&a.conn, &w.bot_id).await.unwrap();
    assert_eq!(w.engine.agents_online(&w.bot_id), 1);
    let sid = say(&w, None, "hello").await.session_id;
    w.engine.join_session(&a.conn, &sid).await.unwrap();
    // The joiner's own event may land after the call returns; it must not count as "after".
    a.wait_for("session-joined", 1).await;
    // Joining cached her role on the live path; the store change alone would show only later.

    let member = w.store.team_members(&w.bot_id).await.unwrap().into_iter().find(|m| m.user_id.as_deref() == Some(ann_id.as_str())).unwrap();
    w.store.remove_member(&w.bot_id, &member.id).await.unwrap();
    w.engine.member_removed(&w.bot_id, &ann_id);
    assert_eq!(w.engine.agents_online(&w.bot_id), 0, "she is no longer an online agent of the bot");
    let refused = w.engine.agent_message(&ann, &sid, "still here?", None).await;
    assert!(matches!(refused, Err(EngineError::NotFound(_))), "{refused:?}");
    assert!(w.engine.join_as_agent(&a.conn, &w.bot_id).await.is_err());
    let before = a.log.lock().unwrap().len();
    w.engine.request_support(&w.owner, &sid, "help", CustomerInfo::default()).await.unwrap();
    say(&w, Some(&sid), "anyone?").await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let after: Vec<String> = a.log.lock().unwrap().iter().skip(before).map(|(n, _)| n.clone()).collect();
    assert!(after.is_empty(), "nothing of the bot reaches a removed member: {after:?}");
}

async fn revoking_a_users_sessions_closes_their_connections(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let ann = join_team(&w, "ann@x.co", "Ann", Role::Agent).await;
    let bob = join_team(&w, "bob@x.co", "Bob", Role::Agent).await;
    let ann_id = match &ann { Who::Member { user_id, .. } => user_id.clone(), _ => unreachable!() };
    let a1 = client(&w.engine, ann.clone());
    let a2 = client(&w.engine, ann);
    let b = client(&w.engine, bob);
    w.engine.user_signed_out(&ann_id);
    assert_eq!(a1.events("closed").len(), 1);
    assert_eq!(a2.events("closed").len(), 1);
    assert!(b.events("closed").is_empty(), "other users stay connected");
}

/// While one member's connection has no room, a new message from either side is refused as
/// busy before it is saved (nothing half-done), and once the reader catches up the same
/// message goes through and is delivered.
async fn a_member_who_cannot_keep_up_makes_new_messages_busy_not_lost(backend: Backend) {
    let w = world(backend, Duration::from_secs(5)).await;
    let sid = say(&w, None, "hello").await.session_id;
    w.engine.request_support(&w.owner, &sid, "help", CustomerInfo::default()).await.unwrap();
    assert!(w.engine.take_session(&w.owner, &sid).await.unwrap().won);
    let agent = client(&w.engine, w.owner.clone());
    w.engine.join_session(&agent.conn, &sid).await.unwrap();

    let room = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink: Arc<dyn Sink> = Arc::new(Backlogged { room: room.clone(), log: log.clone() });
    let who = Who::Visitor { session_id: sid.clone(), bot_id: w.bot_id.clone() };
    let slow = Connection { id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), who, sink, sign_in: None };
    w.engine.connect(&slow);
    w.engine.join_session(&slow, &sid).await.unwrap();

    let refused = w.engine.visitor_message(VisitorMessage { bot_id: w.bot_id.clone(), session_id: Some(sid.clone()), text: "one".into(), lead: None, ack_on_save: true, client_id: None }).await;
    assert!(matches!(refused, Err(EngineError::Busy(ref m)) if m == parley_engine::chat::BUSY), "{refused:?}");
    let refused = w.engine.agent_message(&w.owner, &sid, "two", None).await;
    assert!(matches!(refused, Err(EngineError::Busy(_))), "{refused:?}");
    let saved = w.store.messages(&sid, 0, 100).await.unwrap();
    assert!(!saved.iter().any(|m| m.content == "one" || m.content == "two"), "a refused message is not saved: {saved:?}");

    room.store(true, std::sync::atomic::Ordering::SeqCst);
    let outcome = say(&w, Some(&sid), "one").await;
    assert!(outcome.agent_connected);
    w.engine.agent_message(&w.owner, &sid, "two", None).await.unwrap();
    agent.wait_until("new-message", |m| m["message"]["content"] == "two").await;
    for text in ["one", "two"] {
        let delivered = log.lock().unwrap().iter().any(|(n, p)| n == "new-message" && p["message"]["content"] == text);
        assert!(delivered, "{text} reached the slow member once there was room");
    }
}
