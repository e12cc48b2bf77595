//! Bots, their widget configuration and their abuse-protection settings, and who may see them.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use serde::{Deserialize, Serialize};

use crate::models::{Bot, BotSettingsRow, KnowledgeSource};
use crate::schema::{bot_settings, bots, knowledge_sources, paused_bots, team_members};
use crate::{new_id, time, Role, Store, StoreError, StoreResult};

/// A user's uploads as the store knows them (see `Store::upload_footprint`).
#[derive(Debug, Clone, PartialEq)]
pub struct UploadFootprint {
    pub pdf_bytes: u64,
    /// URLs of their bots' icons and their avatar.
    pub pictures: Vec<String>,
}

pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful assistant for customer support";

/// Everything the chat widget and the customization editor set, with the spec's defaults for
/// any field missing from what is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WidgetConfig {
    pub selected_palette: u8,
    pub is_custom_color_mode: bool,
    pub primary_colour: String,
    pub secondary_colour: String,
    pub background_colour: String,
    pub theme_mode: String,
    pub typography: String,
    pub user_icon: String,
    pub bot_avatar: String,
    pub welcome_message: String,
    pub popup_message: String,
    pub placeholder: String,
    pub header_title: String,
    pub header_subtitle: String,
    pub company_name: String,
    pub support_email: String,
    pub business_hours: String,
    pub response_time: String,
    pub custom_questions: Vec<String>,
    pub chat_position: String,
    pub chat_size: String,
    pub animation_style: String,
    pub border_radius: u32,
    pub shadow_intensity: String,
    pub enable_sounds: bool,
    pub enable_typing_indicator: bool,
    pub enable_quick_replies: bool,
    pub enable_history: bool,
    #[serde(rename = "enableFAQ")]
    pub enable_faq: bool,
    pub enable_handover: bool,
    pub enable_lead_capture: bool,
    pub enable_rate_limit: bool,
    pub lead_capture_message: String,
    pub handover_message: String,
    pub auto_open_delay: u32,
    pub show_branding: bool,
    #[serde(rename = "customCSS")]
    pub custom_css: String,
    pub typing_delay: u32,
    pub message_history_limit: u32,
    pub max_message_length: u32,
    pub message_alignment: String,
}

impl Default for WidgetConfig {
    fn default() -> Self {
        WidgetConfig {
            selected_palette: 0,
            is_custom_color_mode: false,
            primary_colour: "#3B82F6".into(),
            secondary_colour: "#1c1d1d".into(),
            background_colour: "#f0f9ff".into(),
            theme_mode: "light".into(),
            typography: "16px".into(),
            user_icon: String::new(),
            bot_avatar: String::new(),
            welcome_message: "Hello, how can I help you today?".into(),
            popup_message: "hey there! I am here to assist you. How can I help?".into(),
            placeholder: "Type your message...".into(),
            header_title: "Chat Support".into(),
            header_subtitle: "We're here to help".into(),
            company_name: String::new(),
            support_email: String::new(),
            business_hours: String::new(),
            response_time: "< 2 minutes".into(),
            custom_questions: Vec::new(),
            chat_position: "bottom-right".into(),
            chat_size: "medium".into(),
            animation_style: "slide-up".into(),
            border_radius: 12,
            shadow_intensity: "medium".into(),
            enable_sounds: true,
            enable_typing_indicator: true,
            enable_quick_replies: true,
            enable_history: true,
            enable_faq: true,
            enable_handover: true,
            enable_lead_capture: true,
            enable_rate_limit: true,
            lead_capture_message: "To provide you with the best support, could you please share some details?".into(),
            handover_message: "Let me connect you with a human agent who can better assist you.".into(),
            auto_open_delay: 0,
            show_branding: true,
            custom_css: String::new(),
            typing_delay: 1500,
            message_history_limit: 100,
            max_message_length: 500,
            message_alignment: "default".into(),
        }
    }
}

const POSITIONS: [&str; 4] = ["bottom-right", "bottom-left", "top-right", "top-left"];
const SIZES: [&str; 4] = ["compact", "medium", "large", "full"];
const ANIMATIONS: [&str; 4] = ["fade", "slide-up", "slide-right", "scale"];
const SHADOWS: [&str; 4] = ["none", "light", "medium", "heavy"];
const FONT_SIZES: [&str; 4] = ["14px", "16px", "18px", "20px"];

impl WidgetConfig {
    /// Reads stored JSON; fields missing take their defaults.
    pub fn from_json(text: &str) -> WidgetConfig {
        serde_json::from_str(text).unwrap_or_default()
    }

    /// Applies the editor's rules (spec 2 §5 and §9): blanks dropped from quick questions, at
    /// most 5; sliders within their ranges; choices from their lists. Returns the first rule
    /// broken, in words a person can act on.
    pub fn validate(&mut self) -> Result<(), String> {
        self.custom_questions = self
            .custom_questions
            .iter()
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty())
            .collect();
        if self.custom_questions.len() > 5 {
            return Err("At most 5 quick questions".into());
        }
        if self.custom_questions.iter().any(|q| q.chars().count() > QUICK_QUESTION_CHARS) {
            return Err(format!("Each quick question must be at most {QUICK_QUESTION_CHARS} characters"));
        }
        // Every visitor is shown these texts, and every widget load carries them.
        for (text, what, most) in [
            (&self.header_title, "Header title", SHORT_TEXT_CHARS),
            (&self.header_subtitle, "Header subtitle", SHORT_TEXT_CHARS),
            (&self.placeholder, "Placeholder", SHORT_TEXT_CHARS),
            (&self.company_name, "Company name", SHORT_TEXT_CHARS),
            (&self.business_hours, "Business hours", SHORT_TEXT_CHARS),
            (&self.response_time, "Response time", SHORT_TEXT_CHARS),
            (&self.support_email, "Support email", EMAIL_CHARS),
            (&self.bot_avatar, "Bot avatar", URL_CHARS),
            (&self.user_icon, "User icon", URL_CHARS),
        ] {
            if text.chars().count() > most {
                return Err(format!("{what} must be at most {most} characters"));
            }
        }
        // Shown to every visitor: an address their browser may load, and one they may write to.
        self.support_email = self.support_email.trim().to_string();
        if !self.support_email.is_empty() && !crate::contact::plausible_email(&self.support_email.to_lowercase()) {
            return Err("Support email must be a valid email address".into());
        }
        for (address, what) in [(&mut self.bot_avatar, "Bot avatar"), (&mut self.user_icon, "User icon")] {
            *address = address.trim().to_string();
            if !address.is_empty() && !crate::contact::picture_address(address) {
                return Err(format!("{what} must be a web address (https://…)"));
            }
        }
        let in_range = |v: u32, lo: u32, hi: u32, step: u32| v >= lo && v <= hi && (v - lo).is_multiple_of(step);
        if !in_range(self.border_radius, 0, 24, 2) {
            return Err("Border radius must be 0-24 px in steps of 2".into());
        }
        if !in_range(self.typing_delay, 500, 3000, 100) {
            return Err("Typing delay must be 500-3000 ms in steps of 100".into());
        }
        if !in_range(self.message_history_limit, 10, 500, 10) {
            return Err("Message history limit must be 10-500 in steps of 10".into());
        }
        if !in_range(self.max_message_length, 100, 2000, 50) {
            return Err("Max message length must be 100-2000 in steps of 50".into());
        }
        if self.selected_palette > 5 {
            return Err("Palette must be one of the 6 palettes".into());
        }
        let choice = |v: &str, list: &[&str], what: &str| {
            if list.contains(&v) { Ok(()) } else { Err(format!("{what} must be one of {}", list.join(", "))) }
        };
        choice(&self.chat_position, &POSITIONS, "Chat position")?;
        choice(&self.chat_size, &SIZES, "Chat size")?;
        choice(&self.animation_style, &ANIMATIONS, "Animation style")?;
        choice(&self.shadow_intensity, &SHADOWS, "Shadow intensity")?;
        choice(&self.typography, &FONT_SIZES, "Font size")?;
        choice(&self.theme_mode, &["light", "dark"], "Theme mode")?;
        choice(&self.message_alignment, &["default", "left", "right"], "Message alignment")?;
        crate::custom_css::check(&self.custom_css)?;
        if self.auto_open_delay > MAX_AUTO_OPEN_SECS {
            return Err(format!("Auto-open delay must be 0-{MAX_AUTO_OPEN_SECS} seconds"));
        }
        for colour in [&self.primary_colour, &self.secondary_colour, &self.background_colour] {
            if !is_hex_colour(colour) {
                return Err(format!("{colour:?} is not a colour like #3B82F6"));
            }
        }
        Ok(())
    }
}

/// Longest wait before the chat opens by itself (10 minutes; 0 = never).
const MAX_AUTO_OPEN_SECS: u32 = 600;
/// Longest quick question (as long as a Q&A pair's question).
const QUICK_QUESTION_CHARS: usize = 150;
/// Longest header, placeholder, company name, hours and response time.
const SHORT_TEXT_CHARS: usize = 100;
/// Longest email address (RFC 5321's path limit).
const EMAIL_CHARS: usize = crate::contact::EMAIL_CHARS;
/// Longest picture URL.
const URL_CHARS: usize = 2048;

fn is_hex_colour(s: &str) -> bool {
    let Some(hex) = s.strip_prefix('#') else { return false };
    matches!(hex.len(), 3 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit())
}

/// Abuse protection (spec 1 "Bot Settings").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotSettings {
    pub max_chat_text_size: i32,
    pub url_whitelist: Vec<String>,
}

impl BotSettings {
    fn from_row(row: &BotSettingsRow) -> BotSettings {
        BotSettings {
            max_chat_text_size: row.max_chat_text_size,
            url_whitelist: serde_json::from_str(&row.url_whitelist).unwrap_or_default(),
        }
    }
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings { max_chat_text_size: 1000, url_whitelist: Vec::new() }
    }
}

#[derive(Debug, Clone)]
pub struct NewBot {
    pub owner_id: String,
    pub name: String,
    pub description: String,
    pub website_url: Option<String>,
    pub icon: Option<String>,
    pub widget: WidgetConfig,
    /// Training data given in the creation wizard, stored with the bot in one transaction.
    pub initial_sources: Vec<InitialSource>,
}

/// A source given at creation (a PDF, text, or the website to crawl); it starts `processing`
/// and the trainer picks it up.
#[derive(Debug, Clone)]
pub struct InitialSource {
    pub kind: String,
    pub name: String,
    /// The start address of a website source.
    pub url: Option<String>,
    pub content: Option<String>,
    pub file_path: Option<String>,
    pub size_bytes: Option<i64>,
}

/// Fields a bot update may change; `None` leaves a field as it is.
#[derive(Default)]
pub struct BotUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    pub status: Option<String>,
    pub icon: Option<Option<String>>,
    pub website_url: Option<Option<String>>,
    pub system_prompt: Option<String>,
    pub widget: Option<WidgetConfig>,
    /// A change to the widget made from the configuration as stored when the update runs (in
    /// its transaction), so two saves of different widget fields at once both land; its
    /// refusal is `StoreError::Invalid` with its words. After `widget`, if both are given.
    pub widget_change: Option<WidgetChange>,
    /// With `status: "active"` on a bot that is not: the owner may have at most this many
    /// active bots (their plan's), counted inside the update's transaction with the owner's
    /// row locked first, so two bots switched on at once cannot pass the plan
    /// (`StoreError::LimitReached` when full). `None` or unlimited: no check.
    pub active_limit: Option<i32>,
}

/// See [`BotUpdate::widget_change`].
pub type WidgetChange = Box<dyn FnOnce(WidgetConfig) -> Result<WidgetConfig, String> + Send>;

impl Store {
    /// Creates the bot and its default settings together.
    pub async fn create_bot(&self, new: NewBot) -> StoreResult<Bot> {
        self.create_bot_within(new, crate::billing::UNLIMITED)
            .await?
            .ok_or_else(|| StoreError::Conflict("the owner has reached their plan's number of bots".into()))
    }

    /// Creates the bot unless its owner already owns `limit` bots (`UNLIMITED`: no limit);
    /// `None` when they do. The count and the insert are one transaction that first
    /// write-locks the owner's row, so concurrent creations by one owner take turns and cannot
    /// go past the plan (SQLite's IMMEDIATE transaction already serialises writers; on
    /// PostgreSQL the row lock does).
    pub async fn create_bot_within(&self, new: NewBot, limit: i32) -> StoreResult<Option<Bot>> {
        let now = time::now();
        let widget = serde_json::to_string(&new.widget)?;
        let bot = Bot {
            id: new_id(),
            owner_id: new.owner_id,
            name: new.name,
            description: new.description,
            icon: new.icon,
            status: "active".into(),
            website_url: new.website_url,
            system_prompt: DEFAULT_SYSTEM_PROMPT.into(),
            widget,
            knowledge_version: 0,
            last_active: None,
            created_at: now,
            updated_at: now,
        };
        let settings = BotSettingsRow {
            bot_id: bot.id.clone(),
            max_chat_text_size: 1000,
            url_whitelist: "[]".into(),
            updated_at: now,
        };
        let sources: Vec<KnowledgeSource> = new.initial_sources.into_iter().map(|s| KnowledgeSource {
            id: new_id(),
            bot_id: bot.id.clone(),
            kind: s.kind,
            name: s.name,
            status: "processing".into(),
            error: None,
            url: s.url,
            content: s.content,
            file_path: s.file_path,
            size_bytes: s.size_bytes,
            pages: None,
            created_at: now,
            updated_at: now,
        }).collect();
        db_tx!(self, |conn| async move {
            use crate::schema::users;
            if !crate::billing::is_unlimited(limit) {
                diesel::update(users::table.find(&bot.owner_id)).set(users::id.eq(users::id)).execute(conn).await?;
                let owned: i64 = bots::table.filter(bots::owner_id.eq(&bot.owner_id)).count().get_result(conn).await?;
                if owned >= i64::from(limit) {
                    return Ok(None);
                }
            }
            diesel::insert_into(bots::table).values(&bot).execute(conn).await?;
            diesel::insert_into(bot_settings::table).values(&settings).execute(conn).await?;
            for source in &sources {
                diesel::insert_into(knowledge_sources::table).values(source).execute(conn).await?;
            }
            Ok(Some(bot))
        })
    }

    /// Ids of every bot the user owns or is an active member of.
    pub async fn visible_bot_ids(&self, user_id: &str) -> StoreResult<Vec<String>> {
        db_run!(self, |conn| {
            let mut ids: Vec<String> =
                bots::table.filter(bots::owner_id.eq(user_id)).select(bots::id).load(conn).await?;
            let member: Vec<String> = team_members::table
                .filter(team_members::user_id.eq(user_id))
                .filter(team_members::status.eq("active"))
                .select(team_members::bot_id)
                .load(conn)
                .await?;
            ids.extend(member);
            Ok::<_, StoreError>(ids)
        })
    }

    /// Every bot the user may see, with their role on it, newest first.
    pub async fn bots_for_user(&self, user_id: &str) -> StoreResult<Vec<(Bot, Role)>> {
        db_run!(self, |conn| {
            let owned: Vec<Bot> = bots::table
                .filter(bots::owner_id.eq(user_id))
                .order(bots::created_at.desc())
                .load(conn)
                .await?;
            let member: Vec<(Bot, String)> = team_members::table
                .inner_join(bots::table)
                .filter(team_members::user_id.eq(user_id))
                .filter(team_members::status.eq("active"))
                .filter(bots::owner_id.ne(user_id))
                .order(bots::created_at.desc())
                .select((Bot::as_select(), team_members::role))
                .load(conn)
                .await?;
            let mut all: Vec<(Bot, Role)> = owned.into_iter().map(|b| (b, Role::Owner)).collect();
            all.extend(member.into_iter().filter_map(|(b, r)| Role::parse_member(&r).map(|r| (b, r))));
            Ok::<_, StoreError>(all)
        })
    }

    /// The bot and the user's role on it, or `None` when it does not exist *or* the user has
    /// no part in it (callers answer 404 either way, so existence does not leak).
    pub async fn bot_for_user(&self, bot_id: &str, user_id: &str) -> StoreResult<Option<(Bot, Role)>> {
        db_run!(self, |conn| {
            let Some(bot) = bots::table.find(bot_id).first::<Bot>(conn).await.optional()? else {
                return Ok(None);
            };
            if bot.owner_id == user_id {
                return Ok(Some((bot, Role::Owner)));
            }
            let role: Option<String> = team_members::table
                .filter(team_members::bot_id.eq(bot_id))
                .filter(team_members::user_id.eq(user_id))
                .filter(team_members::status.eq("active"))
                .select(team_members::role)
                .first(conn)
                .await
                .optional()?;
            Ok::<_, StoreError>(role.and_then(|r| Role::parse_member(&r)).map(|r| (bot, r)))
        })
    }

    /// A bot by id with no access check: for public visitor calls, which check the bot's own
    /// rules (active, whitelist) instead.
    pub async fn bot_by_id(&self, bot_id: &str) -> StoreResult<Option<Bot>> {
        db_run!(self, |conn| bots::table.find(bot_id).first::<Bot>(conn).await.optional())
            .map_err(Into::into)
    }

    pub async fn update_bot(&self, bot_id: &str, update: BotUpdate) -> StoreResult<Bot> {
        let widget = update.widget.as_ref().map(serde_json::to_string).transpose()?;
        let now = time::now();
        db_tx!(self, owned(bot_id), |conn| async move {
            use crate::schema::users;
            let switching_on = update.status.as_deref() == Some("active");
            let active_limit = update.active_limit.filter(|l| switching_on && !crate::billing::is_unlimited(*l));
            if active_limit.is_some() {
                // The owner's row before the bot's, the order a plan change takes them in
                // (`fit_bots_to_plan`), so the two cannot deadlock on PostgreSQL. SQLite's
                // IMMEDIATE transaction already serialises writers.
                let owner: String = bots::table.find(bot_id).select(bots::owner_id).first(conn).await?;
                diesel::update(users::table.find(&owner)).set(users::id.eq(users::id)).execute(conn).await?;
            }
            // Written first, so the row is this transaction's until it commits: on PostgreSQL a
            // concurrent update (an icon upload beside a settings save) waits, then reads what
            // this one wrote instead of writing its stale copy of the other columns back.
            if diesel::update(bots::table.find(bot_id)).set(bots::updated_at.eq(now)).execute(conn).await? == 0 {
                return Err(StoreError::NotFound);
            }
            let mut bot: Bot = bots::table.find(bot_id).first(conn).await?;
            if let Some(v) = update.name {
                bot.name = v;
            }
            if let Some(v) = update.description {
                bot.description = v;
            }
            if let Some(v) = update.status {
                // Switched on by hand: no longer one the plan paused (a later plan change would
                // otherwise count it twice).
                if v == "active" && bot.status != "active" {
                    if let Some(limit) = active_limit {
                        let active: i64 = bots::table
                            .filter(bots::owner_id.eq(&bot.owner_id))
                            .filter(bots::status.eq("active"))
                            .count()
                            .get_result(conn)
                            .await?;
                        if active >= i64::from(limit) {
                            return Err(StoreError::LimitReached("the plan's active assistants are all on".into()));
                        }
                    }
                    diesel::delete(paused_bots::table.find(bot_id)).execute(conn).await?;
                }
                bot.status = v;
            }
            if let Some(v) = update.icon {
                bot.icon = v;
            }
            if let Some(v) = update.website_url {
                bot.website_url = v;
            }
            if let Some(v) = update.system_prompt {
                bot.system_prompt = v;
            }
            if let Some(v) = widget {
                bot.widget = v;
            }
            if let Some(change) = update.widget_change {
                let changed = change(WidgetConfig::from_json(&bot.widget)).map_err(StoreError::Invalid)?;
                bot.widget = serde_json::to_string(&changed)?;
            }
            bot.updated_at = now;
            diesel::update(bots::table.find(bot_id))
                .set((
                    bots::name.eq(&bot.name),
                    bots::description.eq(&bot.description),
                    bots::status.eq(&bot.status),
                    bots::icon.eq(&bot.icon),
                    bots::website_url.eq(&bot.website_url),
                    bots::system_prompt.eq(&bot.system_prompt),
                    bots::widget.eq(&bot.widget),
                    bots::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            Ok(bot)
        })
    }

    /// How many of the owner's bots answer visitors (status `active`).
    pub async fn active_bot_count(&self, owner_id: &str) -> StoreResult<i64> {
        db_run!(self, |conn| bots::table.filter(bots::owner_id.eq(owner_id)).filter(bots::status.eq("active")).count().get_result(conn).await)
            .map_err(Into::into)
    }

    /// Deletes the bot and, through the foreign keys, everything that belongs to it.
    pub async fn delete_bot(&self, bot_id: &str) -> StoreResult<()> {
        let n = db_run!(self, |conn| diesel::delete(bots::table.find(bot_id)).execute(conn).await)?;
        if n == 0 {
            return Err(StoreError::NotFound);
        }
        self.writer.forget(crate::writer::Forget::Bot(bot_id.to_string())).await;
        Ok(())
    }

    /// What a user's uploads are, for their disk quota: the bytes of the training PDFs of the
    /// bots they own, and the URLs of the pictures that are theirs (their bots' icons, their
    /// avatar), whose files the caller measures.
    pub async fn upload_footprint(&self, owner_id: &str) -> StoreResult<UploadFootprint> {
        use crate::schema::users;
        db_run!(self, |conn| {
            let owned = bots::table.filter(bots::owner_id.eq(owner_id)).select(bots::id);
            let sizes: Vec<Option<i64>> = knowledge_sources::table
                .filter(knowledge_sources::kind.eq("pdf"))
                .filter(knowledge_sources::bot_id.eq_any(owned))
                .select(knowledge_sources::size_bytes)
                .load(conn)
                .await?;
            let mut pictures: Vec<String> =
                bots::table.filter(bots::owner_id.eq(owner_id)).select(bots::icon).load::<Option<String>>(conn).await?.into_iter().flatten().collect();
            let avatar: Option<Option<String>> = users::table.find(owner_id).select(users::profile_picture).first(conn).await.optional()?;
            pictures.extend(avatar.flatten());
            let pdf_bytes = sizes.into_iter().flatten().map(|s| u64::try_from(s).unwrap_or(0)).sum();
            Ok::<_, StoreError>(UploadFootprint { pdf_bytes, pictures })
        })
    }

    /// The bot's training sources, oldest first.
    pub async fn sources_of_bot(&self, bot_id: &str) -> StoreResult<Vec<KnowledgeSource>> {
        db_run!(self, |conn| knowledge_sources::table
            .filter(knowledge_sources::bot_id.eq(bot_id))
            .order(knowledge_sources::created_at)
            .load::<KnowledgeSource>(conn)
            .await)
        .map_err(Into::into)
    }

    pub async fn bot_settings(&self, bot_id: &str) -> StoreResult<BotSettings> {
        let row = db_run!(self, |conn| bot_settings::table
            .find(bot_id)
            .first::<BotSettingsRow>(conn)
            .await
            .optional())?;
        Ok(row.as_ref().map(BotSettings::from_row).unwrap_or_default())
    }

    pub async fn save_bot_settings(&self, bot_id: &str, settings: &BotSettings) -> StoreResult<BotSettings> {
        let row = BotSettingsRow {
            bot_id: bot_id.to_string(),
            max_chat_text_size: settings.max_chat_text_size,
            url_whitelist: serde_json::to_string(&settings.url_whitelist)?,
            updated_at: time::now(),
        };
        db_run!(self, |conn| diesel::insert_into(bot_settings::table)
            .values(&row)
            .on_conflict(bot_settings::bot_id)
            .do_update()
            .set((
                bot_settings::max_chat_text_size.eq(row.max_chat_text_size),
                bot_settings::url_whitelist.eq(&row.url_whitelist),
                bot_settings::updated_at.eq(row.updated_at),
            ))
            .execute(conn)
            .await)?;
        Ok(BotSettings::from_row(&row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_widget_fields_take_the_spec_defaults() {
        let w = WidgetConfig::from_json(r##"{"primaryColour":"#000000"}"##);
        assert_eq!(w.primary_colour, "#000000");
        assert_eq!(w.header_title, "Chat Support");
        assert_eq!(w.max_message_length, 500);
        assert!(w.enable_handover && w.enable_lead_capture && w.show_branding);
        assert_eq!(WidgetConfig::from_json("not json"), WidgetConfig::default());
        let json = serde_json::to_value(WidgetConfig::default()).unwrap();
        assert!(json.get("enableFAQ").is_some() && json.get("customCSS").is_some());
    }

    #[test]
    fn validation_keeps_sliders_and_choices_in_range() {
        let mut w = WidgetConfig::default();
        w.custom_questions = vec![" a ".into(), "".into(), "b".into()];
        assert!(w.validate().is_ok());
        assert_eq!(w.custom_questions, vec!["a", "b"]);
        w.border_radius = 25;
        assert!(w.validate().unwrap_err().contains("Border radius"));
        w.border_radius = 24;
        w.chat_size = "huge".into();
        assert!(w.validate().unwrap_err().contains("Chat size"));
        w.chat_size = "full".into();
        w.custom_questions = (0..6).map(|i| i.to_string()).collect();
        assert!(w.validate().is_err());
    }
}
