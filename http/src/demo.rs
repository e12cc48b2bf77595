//! The landing page's demo bot: a real Parley bot, created on first start from the Q&A seed in
//! `http/demo/parley-bot.json` (questions about Parley itself), answering through the real
//! retrieval and widget. Its account cannot sign in (no password, an unroutable address) and is
//! on the unlimited plan, so it counts against nobody's plan; the visitor limits of every bot
//! apply to it (and its own per-conversation rate limit is on). `PARLEY_DEMO_BOT=off` skips it.
//! `PARLEY_DEMO_OPERATORS` names the accounts seated as its agents, who take its handoffs.

use parley_engine::ingest::Trainer;
use parley_store::bots::{NewBot, WidgetConfig};
use parley_store::users::NewUser;
use parley_store::{Role, Store, StoreError};
use serde::Deserialize;

const SEED: &str = include_str!("../demo/parley-bot.json");

/// The demo bot's owner. `.invalid` never resolves, so no mail reaches it and no one can prove
/// the address to link a Google or GitHub sign-in to it.
pub const DEMO_EMAIL: &str = "demo-bot@parley.invalid";
const DEMO_PLAN: &str = "enterprise";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Seed {
    name: String,
    description: String,
    welcome_message: String,
    header_title: String,
    custom_questions: Vec<String>,
    qa: Vec<Pair>,
}

#[derive(Deserialize)]
struct Pair {
    question: String,
    answer: String,
}

/// The demo bot's id, creating it (and training its Q&A pairs in the background) when this
/// database has none yet. Idempotent: later starts find the bot by its owner and name.
pub async fn ensure(store: &Store, trainer: &Trainer) -> Result<String, String> {
    let seed: Seed = serde_json::from_str(SEED).map_err(|e| format!("demo bot seed: {e}"))?;
    let owner = match store.user_by_email(DEMO_EMAIL).await.map_err(|e| e.to_string())? {
        Some(user) => user,
        None => store
            .create_user_on_plan(NewUser { email: DEMO_EMAIL.into(), name: "Parley".into(), password_hash: None, profile_picture: None }, DEMO_PLAN)
            .await
            .map_err(|e| e.to_string())?,
    };
    let owned = store.bots_for_user(&owner.id).await.map_err(|e| e.to_string())?;
    if let Some((bot, _)) = owned.into_iter().find(|(b, _)| b.name == seed.name) {
        return Ok(bot.id);
    }
    let widget = WidgetConfig {
        welcome_message: seed.welcome_message,
        header_title: seed.header_title,
        custom_questions: seed.custom_questions,
        company_name: "Parley".into(),
        enable_rate_limit: true,
        ..WidgetConfig::default()
    };
    let bot = store
        .create_bot(NewBot {
            owner_id: owner.id,
            name: seed.name,
            description: seed.description,
            website_url: None,
            icon: None,
            widget,
            initial_sources: Vec::new(),
        })
        .await
        .map_err(|e| e.to_string())?;
    for pair in seed.qa {
        let added = trainer.add_qa(&bot.id, &pair.question, &pair.answer).await.map_err(|e| format!("demo bot Q&A {:?}: {e}", pair.question))?;
        drop(trainer.spawn_qa(added.id));
    }
    tracing::info!(bot = %bot.id, "created the demo bot from http/demo/parley-bot.json");
    Ok(bot.id)
}

/// Seats each account named in `emails` (comma-separated) as an agent of the demo bot, so a
/// visitor who asks for a person reaches whichever of them is online. Idempotent: someone
/// already on the team is left as they are. Problems are logged, never fatal: the demo works
/// without operators (the handoff then waits, as on any bot with nobody online).
pub async fn seat_operators(store: &Store, bot_id: &str, emails: &str) {
    let Ok(Some(bot)) = store.bot_by_id(bot_id).await else {
        tracing::warn!(bot = bot_id, "demo operators: the demo bot is not there");
        return;
    };
    for email in emails.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        if let Err(e) = seat(store, bot_id, &bot.owner_id, email).await {
            tracing::warn!(email, "demo operator not seated: {e}");
        }
    }
}

async fn seat(store: &Store, bot_id: &str, owner_id: &str, email: &str) -> Result<(), String> {
    let user = store
        .user_by_email(email)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("no account with that email yet (sign up, then restart)")?;
    // Anyone may sign up with any address; only its owner, who followed the mail's link, is
    // seated to answer the landing page's visitors.
    if !user.email_verified {
        return Err("that account has not verified its email address yet (follow the link mailed at sign-up, then restart)".into());
    }
    let invite = match store.invite_member(bot_id, email, Role::Agent, owner_id).await {
        Ok(invite) => invite,
        Err(StoreError::Conflict(_)) => return Ok(()), // already on the team, or invited
        Err(e) => return Err(e.to_string()),
    };
    match store.accept_invitation(bot_id, &invite.id, &user.id).await {
        Ok(_) => {
            tracing::info!(email, "seated as an agent of the demo bot");
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}
