//! Mail that tells people something happened, each behind the recipient's own switch (the
//! settings screen's notification preferences).

use crate::error::ApiResult;
use crate::mail::templates;
use crate::state::AppState;

/// A visitor asked for a person and no agent of the bot is online: the owner and the bot's
/// admins and agents who keep email notifications on hear about it.
pub async fn support_request_unanswered(state: &AppState, bot_id: &str, customer: &str, message: &str) -> ApiResult<()> {
    let Some(bot) = state.store.bot_by_id(bot_id).await? else { return Ok(()) };
    let mut recipients = Vec::new();
    if let Some(owner) = state.store.user_by_id(&bot.owner_id).await? {
        recipients.push(owner);
    }
    for entry in state.store.team_roster(bot_id).await? {
        let handles = parley_store::Role::parse_member(&entry.member.role).is_some_and(|r| r.can_handle_support());
        if entry.member.status == "active" && handles {
            recipients.extend(entry.user);
        }
    }
    let link = state.mail.link("/agent-dashboard");
    for user in recipients {
        if !state.store.notification_prefs(&user.id).await?.email_notifications {
            continue;
        }
        state.mail.send(&user.email, templates::support_request(&bot.name, customer, message, &link), Some(link.clone())).await?;
    }
    Ok(())
}

/// A bot's budget for new conversations was used up: its owner hears about it in Recent
/// Activity, and by mail when their email notifications are on (the caller sends this at most
/// once an hour per bot).
pub async fn conversation_budget_tripped(state: &AppState, bot_id: &str) -> ApiResult<()> {
    let Some(bot) = state.store.bot_by_id(bot_id).await? else { return Ok(()) };
    let what = format!(
        "New conversations on {} were paused for a while: more were started than its budget of {} an hour allows. \
         Open conversations go on, and new ones resume on their own.",
        bot.name,
        state.settings.realtime.new_conversations_per_bot_per_hour.round()
    );
    state.store.log_activity(Some(&bot.owner_id), Some(&bot.id), "limits", &what).await?;
    let Some(owner) = state.store.user_by_id(&bot.owner_id).await? else { return Ok(()) };
    if state.store.notification_prefs(&owner.id).await?.email_notifications {
        let link = state.mail.link("/dashboard");
        state.mail.send(&owner.email, templates::conversation_budget(&bot.name, &what, &link), Some(link.clone())).await?;
    }
    Ok(())
}

/// Notices read per round of `tell_limits_reached`.
const LIMIT_NOTICES_PER_ROUND: i64 = 50;

/// Tells owners that a monthly limit of their plan was reached (the store notes the first
/// refusal per limit and period): in Recent Activity, and by mail when their email
/// notifications are on. A notice from a period already over is only marked. Returns how many
/// notices were handled.
pub async fn tell_limits_reached(state: &AppState) -> ApiResult<usize> {
    let notices = state.store.unsent_limit_notices(LIMIT_NOTICES_PER_ROUND).await?;
    for notice in &notices {
        let allowance = state.store.allowance(&notice.user_id).await?;
        if allowance.period_start == notice.period_start {
            let until = allowance.period_end.format("%B %-d, %Y");
            let plan = &allowance.plan;
            let what = match notice.limit_kind.as_str() {
                "credits" => format!(
                    "Your assistants have used all {} AI replies (credits) of the {} plan for this period. Until {until}, visitors are told \
                     the assistant has used its replies for the month and can ask for a person.",
                    plan.credits_limit, plan.name
                ),
                _ => format!(
                    "Your assistants have had all {} conversations of the {} plan for this period. Until {until}, new visitors are told \
                     the assistant is unavailable; open conversations go on.",
                    plan.conversations_limit, plan.name
                ),
            };
            state.store.log_activity(Some(&notice.user_id), None, "limits", &what).await?;
            if let Some(owner) = state.store.user_by_id(&notice.user_id).await? {
                if state.store.notification_prefs(&owner.id).await?.email_notifications {
                    let link = state.mail.link(parley_store::billing::BILLING_PATH);
                    state.mail.send(&owner.email, templates::plan_limit_reached(&owner.name, &what, &link), Some(link.clone())).await?;
                }
            }
        }
        state.store.mark_limit_notice_sent(notice).await?;
    }
    Ok(notices.len())
}
