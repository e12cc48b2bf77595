//! How entities look in the API and on the live channel: camelCase, every entity with `_id`
//! (and `id`), times in RFC 3339. One view per entity so every route and event shows the same
//! shape; the chat's views (`chat`, `events`) are typed and serialize straight from the rows.

pub mod acks;
pub mod billing;
pub mod chat;
pub mod events;
pub mod leads;
pub mod visitor;

use parley_store::billing::Allowance;
use parley_store::bots::{BotSettings, WidgetConfig};
use parley_store::models::{Bot, NotificationPrefs, User};
use parley_store::team::Invitation;
use parley_store::time::to_rfc3339;
use parley_store::Role;
use serde_json::{json, Map, Value};

pub fn user(u: &User) -> Value {
    json!({
        "_id": u.id,
        "id": u.id,
        "name": u.name,
        "email": u.email,
        "profilePicture": u.profile_picture,
        "timezone": u.timezone,
        "language": u.language,
        "hasPassword": u.password_hash.is_some(),
        "emailVerified": u.email_verified,
        "twoFactorEnabled": u.two_factor_enabled,
        "createdAt": to_rfc3339(&u.created_at),
    })
}

/// One entry of the spec's `platform` list: the plan and what is left of it.
pub fn platform(a: &Allowance) -> Value {
    json!({
        "planType": a.plan.id,
        "planName": a.plan.name,
        "remainingCredits": a.remaining_credits(),
        "creditsUsed": a.credits_used,
        "creditsTotal": a.plan.credits_limit,
        "conversationsUsed": a.conversations_used,
        "conversationsTotal": a.plan.conversations_limit,
        "botsUsed": a.bots_used,
        "botsTotal": a.plan.bots_limit,
        "periodStart": to_rfc3339(&a.period_start),
        "periodEnd": to_rfc3339(&a.period_end),
    })
}

pub fn notifications(p: &NotificationPrefs) -> Value {
    json!({
        "emailNotifications": p.email_notifications,
        "pushNotifications": p.push_notifications,
        "weeklyReports": p.weekly_reports,
        "securityAlerts": p.security_alerts,
    })
}

/// The bot with its widget fields flattened in, as the spec's Bot entity lists them.
pub fn bot(b: &Bot, role: Role) -> Value {
    let mut out = Map::new();
    if let Ok(Value::Object(widget)) = serde_json::to_value(WidgetConfig::from_json(&b.widget)) {
        out.extend(widget);
    }
    let core = json!({
        "_id": b.id,
        "id": b.id,
        "name": b.name,
        "description": b.description,
        "icon": b.icon,
        "status": b.status,
        "websiteUrl": b.website_url,
        "systemPrompt": b.system_prompt,
        "lastActive": b.last_active.as_ref().map(to_rfc3339),
        "createdAt": to_rfc3339(&b.created_at),
        "updatedAt": to_rfc3339(&b.updated_at),
        "role": role.as_str(),
    });
    if let Value::Object(core) = core {
        out.extend(core);
    }
    Value::Object(out)
}

pub fn bot_settings(s: &BotSettings) -> Value {
    json!({"maxChatTextSize": s.max_chat_text_size, "urlWhitelist": s.url_whitelist})
}

pub fn invitation(i: &Invitation) -> Value {
    json!({
        "_id": i.member_id,
        "id": i.member_id,
        "botId": i.bot_id,
        "botName": i.bot_name,
        "botIcon": i.bot_icon,
        "role": i.role,
        "invitedBy": {"name": i.invited_by_name, "email": i.invited_by_email},
        "invitedAt": to_rfc3339(&i.invited_at),
        "expiresAt": i.expires_at.as_ref().map(to_rfc3339),
    })
}

pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::Owner => "Owner",
        Role::Admin => "Administrator",
        Role::Editor => "Editor",
        Role::Viewer => "Viewer",
        Role::Agent => "Support Agent",
    }
}

/// The permission chips of spec 1 §6 (the owner has an administrator's).
pub fn role_chips(role: Role) -> Vec<&'static str> {
    match role {
        Role::Owner | Role::Admin => vec!["Manage Team", "Edit Bot", "View Analytics"],
        Role::Editor => vec!["Edit Bot", "View Analytics"],
        Role::Viewer => vec!["View Only"],
        Role::Agent => vec!["Handle Support", "Join Sessions"],
    }
}

/// What each role may do, in the words of spec 1 §6.
pub fn role_permissions(role: Role) -> Vec<&'static str> {
    match role {
        Role::Owner => vec!["everything an administrator may", "delete the bot"],
        Role::Admin => vec!["manage team members", "edit bot configuration", "access all analytics", "manage integrations"],
        Role::Editor => vec!["edit bot settings", "manage training data", "view analytics", "test bot functionality"],
        Role::Viewer => vec!["view conversations", "basic analytics", "export data", "view bot status"],
        Role::Agent => vec!["join customer sessions", "respond to support requests", "view conversations", "resolve tickets"],
    }
}

/// The roles an invitation may give, as the Invite Member modal offers them.
pub fn invitation_roles() -> Value {
    let roles = [Role::Admin, Role::Editor, Role::Viewer, Role::Agent];
    Value::Array(
        roles
            .iter()
            .map(|r| json!({"value": r.as_str(), "label": role_label(*r), "chips": role_chips(*r), "permissions": role_permissions(*r)}))
            .collect(),
    )
}
