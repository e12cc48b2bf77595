//! The knowledge brain spends one of the owner's credits on each reply, and gives it back when
//! no reply comes of it (the model failed, or the session stopped waiting for it), on both
//! backends.

use std::sync::Arc;
use std::time::Duration;

use parley_engine::answer::{Answer, AnswerError, AnswerRequest, Answerer, DeltaSink};
use parley_engine::chat::{Brain, ReplyRequest};
use parley_engine::knowledge_brain::KnowledgeBrain;
use parley_engine::retrieval::{IndexCache, IndexOptions};
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::testing::TestDb;
use parley_store::users::NewUser;
use parley_store::{Backend, Store};

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[actix_rt::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[actix_rt::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

on_both_backends!(a_reply_spends_a_credit_and_a_failed_or_abandoned_one_gives_it_back);

/// "fail": the provider's error; "slow": no answer for a minute; anything else: an answer.
struct TestAnswerer;

#[async_trait::async_trait]
impl Answerer for TestAnswerer {
    async fn answer(&self, request: AnswerRequest<'_>, _sink: &dyn DeltaSink) -> Result<Answer, AnswerError> {
        match request.question {
            "fail" => Err(AnswerError::Provider { status: 500, message: "down".into() }),
            "slow" => {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Err(AnswerError::Empty)
            }
            q => Ok(Answer { text: format!("about {q}"), citations: Vec::new(), confident: true, offer_handoff: false, suggestions: Vec::new() }),
        }
    }

    fn name(&self) -> &'static str {
        "test"
    }
}

async fn credits_used(store: &Store, owner: &str) -> i32 {
    store.allowance(owner).await.unwrap().credits_used
}

async fn a_reply_spends_a_credit_and_a_failed_or_abandoned_one_gives_it_back(backend: Backend) {
    let db = TestDb::new(backend).await.unwrap();
    let store = db.open().await.unwrap();
    let owner = store.create_user(NewUser { email: "o@x.co".into(), name: "O".into(), password_hash: None, profile_picture: None }).await.unwrap();
    let bot = store
        .create_bot(NewBot { owner_id: owner.id.clone(), name: "Helper".into(), description: String::new(), website_url: None, icon: None, widget: WidgetConfig::default(), initial_sources: Vec::new() })
        .await
        .unwrap();
    let brain = KnowledgeBrain::new(store.clone(), Arc::new(IndexCache::new(None, IndexOptions::default(), 10_000)), Arc::new(TestAnswerer));
    let ask = |question: &str| ReplyRequest { bot: bot.clone(), session_id: "s".into(), question: question.into(), history: Vec::new(), deltas: Box::new(|_| {}) };

    // Credits are given back on a task of their own: the count is waited for.
    let settles_at = |want: i32| {
        let (store, owner) = (store.clone(), owner.id.clone());
        async move {
            let mut used = -1;
            for _ in 0..150 {
                used = credits_used(&store, &owner).await;
                if used == want {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            used
        }
    };
    assert_eq!(brain.reply(ask("hours")).await.unwrap().text, "about hours");
    assert_eq!(credits_used(&store, &owner.id).await, 1, "a reply spends a credit");
    assert!(brain.reply(ask("fail")).await.is_err());
    assert_eq!(settles_at(1).await, 1, "a failed reply spends nothing");
    // The session gives up waiting: its reply timeout drops the reply's future.
    let waiting = tokio::spawn(brain.reply(ask("slow")));
    assert_eq!(settles_at(2).await, 2, "held while the reply is being made");
    waiting.abort();
    assert_eq!(settles_at(1).await, 1, "an abandoned reply spends nothing");
}
