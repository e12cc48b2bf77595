//! What the live path needs to know about bots and members, without a database read per
//! message: a bot's live settings and a member's role on a bot, each held in a bounded cache.
//!
//! Entries are dropped when the bot, a setting or a role changes (`Engine::bot_changed`,
//! `Engine::access_changed`), and in any case after `FRESH_FOR`, so a change made by a path
//! that forgot to say so is seen within seconds.
//!
//! A missing entry is loaded by one caller while the others wanting it wait and then read the
//! cache. Without this, every expiry of a busy bot's entry sent each of its in-flight
//! messages to the database at once (at 20,000 msg/s, tens of thousands of reads queued for
//! 8 pooled connections, and messages refused while they timed out).

use std::sync::Arc;
use std::time::Duration;

use moka::sync::Cache;
use parley_store::bots::{BotSettings, WidgetConfig};
use parley_store::{Role, Store, StoreError};

/// Loads are single-flight per stripe: a key's loaders queue on the stripe its hash picks, so
/// a herd for one bot makes one read, and loads for different bots mostly run side by side.
const LOAD_STRIPES: usize = 64;

/// How long an entry may be served without being reloaded.
const FRESH_FOR: Duration = Duration::from_secs(10);
/// Bots and (member, bot) pairs kept.
const BOTS: u64 = 50_000;
const ROLES: u64 = 200_000;
/// Ids are UUIDs: a longer one names nothing, and is answered without a read or a cache entry
/// (a made-up id of thousands of characters would otherwise be kept, as "no such bot", per call).
const MAX_ID_CHARS: usize = 64;

/// A bot's settings as the live path uses them.
#[derive(Debug, Clone)]
pub struct BotInfo {
    pub id: String,
    pub owner_id: String,
    /// The bot answers visitors (status `active`).
    pub active: bool,
    /// Longest visitor message, in characters (the smaller of the bot's two limits).
    pub max_text: usize,
    pub enable_handover: bool,
    pub handover_message: String,
    pub enable_rate_limit: bool,
    pub settings: BotSettings,
}

#[derive(Clone)]
pub struct Directory {
    store: Store,
    bots: Cache<String, Option<Arc<BotInfo>>>,
    roles: Cache<(String, String), Option<Role>>,
    loading: Arc<[tokio::sync::Mutex<()>]>,
}

impl Directory {
    /// The load lock of `key`'s stripe.
    fn stripe(&self, key: &impl std::hash::Hash) -> &tokio::sync::Mutex<()> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(key);
        &self.loading[(hash as usize) % self.loading.len()]
    }
}

impl Directory {
    pub fn new(store: Store) -> Directory {
        Directory {
            store,
            bots: Cache::builder().max_capacity(BOTS).time_to_live(FRESH_FOR).build(),
            roles: Cache::builder().max_capacity(ROLES).time_to_live(FRESH_FOR).build(),
            loading: (0..LOAD_STRIPES).map(|_| tokio::sync::Mutex::new(())).collect(),
        }
    }

    /// The bot's live settings; `None` when there is no such bot.
    pub async fn bot(&self, bot_id: &str) -> Result<Option<Arc<BotInfo>>, StoreError> {
        if bot_id.len() > MAX_ID_CHARS {
            return Ok(None);
        }
        if let Some(known) = self.bots.get(bot_id) {
            return Ok(known);
        }
        let _loading = self.stripe(&bot_id).lock().await;
        if let Some(known) = self.bots.get(bot_id) {
            return Ok(known); // loaded by the caller this one waited for
        }
        let info = match self.store.bot_by_id(bot_id).await? {
            None => None,
            Some(bot) => {
                let widget = WidgetConfig::from_json(&bot.widget);
                let settings = self.store.bot_settings(&bot.id).await?;
                let widget_limit = i32::try_from(widget.max_message_length).unwrap_or(i32::MAX);
                let max_text = usize::try_from(settings.max_chat_text_size.min(widget_limit)).unwrap_or(500);
                Some(Arc::new(BotInfo {
                    id: bot.id,
                    owner_id: bot.owner_id,
                    active: bot.status == "active",
                    max_text,
                    enable_handover: widget.enable_handover,
                    handover_message: widget.handover_message,
                    enable_rate_limit: widget.enable_rate_limit,
                    settings,
                }))
            }
        };
        self.bots.insert(bot_id.to_string(), info.clone());
        Ok(info)
    }

    /// The member's role on the bot, `None` when they have none.
    pub async fn role(&self, user_id: &str, bot_id: &str) -> Result<Option<Role>, StoreError> {
        if bot_id.len() > MAX_ID_CHARS || user_id.len() > MAX_ID_CHARS {
            return Ok(None);
        }
        let key = (user_id.to_string(), bot_id.to_string());
        if let Some(known) = self.roles.get(&key) {
            return Ok(known);
        }
        let _loading = self.stripe(&key).lock().await;
        if let Some(known) = self.roles.get(&key) {
            return Ok(known);
        }
        let role = self.store.bot_for_user(bot_id, user_id).await?.map(|(_, role)| role);
        self.roles.insert(key, role);
        Ok(role)
    }

    pub fn forget_bot(&self, bot_id: &str) {
        self.bots.invalidate(bot_id);
    }

    /// Roles changed somewhere (a member added, changed or removed): forget them all. Rare,
    /// and reloading costs one read per member who acts next.
    pub fn forget_roles(&self) {
        self.roles.invalidate_all();
    }
}
