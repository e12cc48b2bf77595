//! Teams through real mail on both backends: invitations by emailed link (accept, decline,
//! resend, revoke), role changes and removal with access ending at once, the owner's row
//! fixed, and the invitation hijacks the security review found, refused.

mod support;

use reqwest::StatusCode;
use serde_json::{json, Value};
use support::smtp::SmtpServer;
use support::{message, TestApp};

on_both_backends!(
    invite_by_mail_accept_change_role_and_remove,
    hijack_attempts_are_refused,
    resend_revoke_and_decline,
    an_expired_invitation_says_whom_to_ask,
    invitations_are_validated_and_only_owners_and_admins_manage,
    invitation_mails_have_a_budget_per_member,
    a_removed_or_demoted_admins_invitations_are_withdrawn,
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

/// The query parameters of a link.
fn params(link: &str) -> Value {
    let query = link.split_once('?').map(|(_, q)| q).unwrap_or("");
    let map: serde_json::Map<String, Value> =
        url::form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), Value::String(v.into_owned()))).collect();
    Value::Object(map)
}

/// Signs up and follows the verification link from the mail; returns (token, id).
async fn verified_signup(app: &TestApp, smtp: &SmtpServer, email: &str) -> (String, String) {
    let (token, id) = app.signup(email).await;
    let mail = smtp.wait_for(email, 1).await;
    let link = mail.link(&format!("{}/verify-email?token=", app.base)).expect("verification link");
    let (status, body) = app.post_json("/api/auth/verify-email", None, json!({"token": params(&link)["token"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["emailVerified"], true);
    (token, id)
}

/// Invites `email` as `role`; returns the link's parameters (botId, memberId, token).
async fn invite(app: &TestApp, smtp: &SmtpServer, owner: &str, bot: &str, email: &str, role: &str, nth: usize) -> Value {
    let (status, body) = app.post_json(&format!("/api/bots/{bot}/team/invite"), Some(owner), json!({"email": email, "role": role})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["member"]["status"], "pending");
    let mail = smtp.wait_for(email, nth).await;
    let link = mail.link(&format!("{}/teams?action=accept", app.base)).expect("invitation link");
    let p = params(&link);
    assert_eq!(p["botId"], bot);
    assert_eq!(p["memberId"], body["member"]["_id"]);
    p
}

async fn invite_by_mail_accept_change_role_and_remove(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (owner, owner_id) = verified_signup(&app, &smtp, "owner@shop.example").await;
    let (ann, ann_id) = verified_signup(&app, &smtp, "ann@shop.example").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    let p = invite(&app, &smtp, &owner, &bot, "ann@shop.example", "agent", 2).await;
    let mail = smtp.wait_for("ann@shop.example", 2).await;
    assert!(mail.subject().contains("Helpdesk"), "{}", mail.subject());
    assert!(mail.html().contains("Accept invitation"));

    // The confirmation step names the bot and the inviter, and needs the token.
    let preview = format!("/api/team/accept-invitation?botId={}&memberId={}&token={}", p["botId"].as_str().unwrap(), p["memberId"].as_str().unwrap(), p["token"].as_str().unwrap());
    let (status, body) = app.get(&preview, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["invitation"]["botName"], "Helpdesk");
    assert_eq!(body["invitation"]["role"], "agent");
    assert_eq!(body["invitation"]["invitedBy"]["email"], "owner@shop.example");
    let (status, _) = app.get(&preview.replace("&token=", "&token=x"), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a wrong token shows nothing");

    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&ann), p.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Invitation accepted successfully!");
    let (status, _) = app.post_json("/api/team/accept-invitation", Some(&ann), p.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a link works once");
    let (status, body) = app.get(&format!("/api/bots/{bot}"), Some(&ann)).await;
    assert_eq!((status, body["bot"]["role"].clone()), (StatusCode::OK, json!("agent")));

    // The team as the screen shows it: owner first, chips, what the caller may do.
    let (status, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&owner)).await;
    assert_eq!(status, StatusCode::OK, "{team}");
    assert_eq!((team["canInvite"].clone(), team["canRemoveMembers"].clone()), (json!(true), json!(true)));
    let members = team["members"].as_array().unwrap();
    assert_eq!(members.len(), 2);
    assert_eq!((members[0]["role"].clone(), members[0]["isOwner"].clone(), members[0]["_id"].clone()), (json!("owner"), json!(true), json!(owner_id)));
    let member_id = p["memberId"].as_str().unwrap().to_string();
    let ann_row = &members[1];
    assert_eq!(ann_row["_id"], member_id.as_str());
    assert_eq!(ann_row["userId"], ann_id.as_str());
    assert_eq!(ann_row["email"], "ann@shop.example");
    assert_eq!(ann_row["name"], "Test User");
    assert_eq!(ann_row["status"], "active");
    assert_eq!(ann_row["chips"], json!(["Handle Support", "Join Sessions"]));
    assert!(ann_row["joinedAt"].is_string());
    let (_, as_agent) = app.get(&format!("/api/bots/{bot}/team"), Some(&ann)).await;
    assert_eq!((as_agent["canInvite"].clone(), as_agent["canRemoveMembers"].clone()), (json!(false), json!(false)));

    // Only owners and admins manage; the owner's row is fixed.
    let member_path = format!("/api/bots/{bot}/team/{member_id}");
    let (status, _) = app.put_json(&member_path, Some(&ann), json!({"role": "admin"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "an agent cannot promote themselves");
    let owner_path = format!("/api/bots/{bot}/team/{owner_id}");
    let (status, body) = app.put_json(&owner_path, Some(&owner), json!({"role": "viewer"})).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "The owner's role cannot be changed"));
    let (status, body) = app.delete(&owner_path, Some(&owner)).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "The owner cannot be removed from the team"));
    let (status, body) = app.put_json(&member_path, Some(&owner), json!({"role": "owner"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    // Ann is handling a customer when she is made a viewer: the customer goes back to the queue.
    let (_, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hello"})).await;
    let sid = first["sessionId"].as_str().unwrap().to_string();
    app.db.open().await.unwrap().request_support(&sid, &parley_store::chat::CustomerInfo::default()).await.unwrap();
    let (status, body) = app.post_json(&format!("/api/chat/session/{sid}/assign-agent"), Some(&ann), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.put_json(&member_path, Some(&owner), json!({"role": "viewer"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["member"]["role"], "viewer");
    let (_, queue) = app.get(&format!("/api/chat/bot/{bot}/support-sessions"), Some(&owner)).await;
    let waiting: Vec<&str> = queue["sessions"].as_array().unwrap().iter().filter_map(|s| s["_id"].as_str()).collect();
    assert_eq!(waiting, [sid.as_str()], "back in the support queue: {queue}");
    assert_eq!(body["member"]["chips"], json!(["View Only"]));
    let (_, body) = app.get(&format!("/api/bots/{bot}"), Some(&ann)).await;
    assert_eq!(body["bot"]["role"], "viewer", "the new role applies at once");

    let (status, body) = app.delete(&member_path, Some(&owner)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Team member removed successfully");
    let (status, _) = app.get(&format!("/api/bots/{bot}"), Some(&ann)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a removed member's access is gone");
    let (status, _) = app.delete(&member_path, Some(&owner)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn hijack_attempts_are_refused(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (owner, _) = verified_signup(&app, &smtp, "owner@shop.example").await;
    let bot = app.create_bot(&owner, "Admin console").await;

    // (a) The attacker registers the invitee's address first and cannot verify it.
    let (squatter, _) = app.signup("boss@shop.example").await;
    let p = invite(&app, &smtp, &owner, &bot, "boss@shop.example", "admin", 2).await;
    let (status, body) = app.get("/api/invitations", Some(&squatter)).await;
    assert_eq!((status, &body["invitations"], &body["emailUnverified"]), (StatusCode::OK, &json!([]), &json!(true)), "{body}");
    let id = p["memberId"].as_str().unwrap();
    let (status, _) = app.post_json(&format!("/api/invitations/{id}/respond"), Some(&squatter), json!({"accept": true})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let by_email = json!({"botId": bot, "memberId": id});
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&squatter), by_email.clone()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("email_unverified")), "{body}");
    let (status, body) = app.get(&format!("/api/bots/{bot}"), Some(&squatter)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // (b) A verified attacker switches their email to the invitee's: nothing changes until the
    // link mailed to that address is followed, which the attacker never sees.
    let (mallory, _) = verified_signup(&app, &smtp, "mallory@evil.example").await;
    let (status, body) = app.put_json("/api/me", Some(&mallory), json!({"email": "boss2@shop.example"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Enter your current password to change your email address"));
    let (status, body) = app.put_json("/api/me", Some(&mallory), json!({"email": "boss2@shop.example", "currentPassword": "nope"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Current password is incorrect"));
    let p2 = invite(&app, &smtp, &owner, &bot, "boss2@shop.example", "admin", 1).await;
    let (status, body) = app.put_json("/api/me", Some(&mallory), json!({"email": "boss2@shop.example", "currentPassword": "password123"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["email"], "mallory@evil.example", "the email does not change yet");
    assert_eq!(body["pendingEmail"], "boss2@shop.example");
    let confirm = smtp.wait_for("boss2@shop.example", 2).await;
    assert!(confirm.subject().contains("Confirm your new email"));
    let (_, list) = app.get("/api/invitations", Some(&mallory)).await;
    assert_eq!(list["invitations"], json!([]), "invitations follow the verified address only");
    let by_email = json!({"botId": bot, "memberId": p2["memberId"]});
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&mallory), by_email).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    // A guessed token fails too.
    let guessed = json!({"botId": bot, "memberId": p2["memberId"], "token": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"});
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&mallory), guessed).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "This invitation link is invalid or was already used."));
    let (status, _) = app.get(&format!("/api/bots/{bot}"), Some(&mallory)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The real invitee, verified, accepts with the link; the team shows one admin.
    let (boss, _) = verified_signup(&app, &smtp, "boss3@shop.example").await;
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&boss), p.clone()).await;
    assert_eq!(status, StatusCode::OK, "the token is the proof, whatever the account's address: {body}");
    let (_, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&owner)).await;
    let active: Vec<_> = team["members"].as_array().unwrap().iter().filter(|m| m["status"] == "active" && m["role"] == "admin").collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["email"], "boss3@shop.example");
}

async fn resend_revoke_and_decline(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (owner, _) = verified_signup(&app, &smtp, "owner@shop.example").await;
    let (bea, _) = verified_signup(&app, &smtp, "bea@shop.example").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let first = invite(&app, &smtp, &owner, &bot, "bea@shop.example", "editor", 2).await;
    let member = first["memberId"].as_str().unwrap().to_string();

    // Resend: a new link; the old one stops working.
    let (status, body) = app.post_json(&format!("/api/bots/{bot}/team/{member}/resend"), Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mail = smtp.wait_for("bea@shop.example", 3).await;
    let second = params(&mail.link(&format!("{}/teams?action=accept", app.base)).unwrap());
    assert_ne!(second["token"], first["token"]);
    let (status, _) = app.post_json("/api/team/accept-invitation", Some(&bea), first.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/team/{member}/resend"), Some(&bea), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "not on the team: the bot does not exist for her");

    // Revoke: the link leads nowhere.
    let (status, body) = app.delete(&format!("/api/bots/{bot}/team/{member}"), Some(&owner)).await;
    assert_eq!((status, body["revoked"].clone()), (StatusCode::OK, json!(true)));
    let (status, _) = app.post_json("/api/team/accept-invitation", Some(&bea), second).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Decline with the link alone, no account needed.
    let third = invite(&app, &smtp, &owner, &bot, "bea@shop.example", "viewer", 4).await;
    let (status, _) = app.post_json("/api/team/decline-invitation", None, json!({"botId": bot, "memberId": third["memberId"], "token": "wrong"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = app.post_json("/api/team/decline-invitation", None, third.clone()).await;
    assert_eq!((status, body["message"].clone()), (StatusCode::OK, json!("Invitation declined")));
    let (_, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&owner)).await;
    assert_eq!(team["members"].as_array().unwrap().len(), 1, "only the owner is left");
}

async fn an_expired_invitation_says_whom_to_ask(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (owner, _) = verified_signup(&app, &smtp, "olive@shop.example").await;
    let (cy, _) = verified_signup(&app, &smtp, "cy@shop.example").await;
    let (status, _) = app.put_json("/api/me", Some(&owner), json!({"name": "Olive"})).await;
    assert_eq!(status, StatusCode::OK);
    let bot = app.create_bot(&owner, "Shop").await;
    let p = invite(&app, &smtp, &owner, &bot, "cy@shop.example", "agent", 2).await;
    let store = app.db.open().await.unwrap();
    store.age_invitation(p["memberId"].as_str().unwrap(), chrono::Duration::days(8)).await.unwrap();
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&cy), p.clone()).await;
    assert_eq!((status, message(&body)), (StatusCode::GONE, "This invitation has expired. Ask Olive to send a new one."));
    let (_, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&owner)).await;
    assert_eq!(team["members"][1]["status"], "expired");
    let (_, list) = app.get("/api/invitations", Some(&cy)).await;
    assert_eq!(list["invitations"], json!([]), "expired invitations are not offered");
    // A resend starts another 7 days.
    let member = p["memberId"].as_str().unwrap();
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/team/{member}/resend"), Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let fresh = params(&smtp.wait_for("cy@shop.example", 3).await.link(&format!("{}/teams?action=accept", app.base)).unwrap());
    let (status, body) = app.post_json("/api/team/accept-invitation", Some(&cy), fresh).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn invitations_are_validated_and_only_owners_and_admins_manage(backend: parley_store::Backend) {
    let (app, smtp) = app_with_mail(backend).await;
    let (owner, _) = verified_signup(&app, &smtp, "owner@shop.example").await;
    let (ada, _) = verified_signup(&app, &smtp, "ada@shop.example").await;
    let (eve, _) = verified_signup(&app, &smtp, "eve@shop.example").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let path = format!("/api/bots/{bot}/team/invite");
    for (body, status, said) in [
        (json!({"email": "  ", "role": "viewer"}), 422, "Email address is required"),
        (json!({"email": "not-an-email", "role": "viewer"}), 422, "Please enter a valid email address"),
        (json!({"email": "x@shop.example", "role": "owner"}), 422, "Role must be admin, editor, viewer or agent"),
        (json!({"email": "OWNER@shop.example", "role": "admin"}), 409, "The owner is already on the team"),
    ] {
        let (got, res) = app.post_json(&path, Some(&owner), body.clone()).await;
        assert_eq!((got.as_u16(), message(&res)), (status, said), "{body}");
    }
    let pa = invite(&app, &smtp, &owner, &bot, "ada@shop.example", "admin", 2).await;
    let (status, body) = app.post_json(&path, Some(&owner), json!({"email": "ada@shop.example", "role": "viewer"})).await;
    assert_eq!((status, message(&body)), (StatusCode::CONFLICT, "This person is already on the team or invited"));
    let (status, _) = app.post_json("/api/team/accept-invitation", Some(&ada), pa).await;
    assert_eq!(status, StatusCode::OK);
    // No role given: a viewer. An editor may not invite; an admin may, and manages the team.
    let (status, body) = app.post_json(&path, Some(&ada), json!({"email": "eve@shop.example"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["member"]["role"], "viewer");
    let link = params(&smtp.wait_for("eve@shop.example", 2).await.link(&format!("{}/teams?action=accept", app.base)).unwrap());
    let (status, _) = app.post_json("/api/team/accept-invitation", Some(&eve), link.clone()).await;
    assert_eq!(status, StatusCode::OK);
    let eve_member = link["memberId"].as_str().unwrap();
    let (status, _) = app.put_json(&format!("/api/bots/{bot}/team/{eve_member}"), Some(&ada), json!({"role": "editor"})).await;
    assert_eq!(status, StatusCode::OK, "an admin changes roles");
    let (status, body) = app.post_json(&path, Some(&eve), json!({"email": "z@shop.example", "role": "viewer"})).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "Your role does not allow managing the team"));
    let (status, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&eve)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((team["role"].clone(), team["canInvite"].clone()), (json!("editor"), json!(false)));
    assert_eq!(team["roles"].as_array().unwrap().iter().map(|r| r["value"].clone()).collect::<Vec<_>>(), vec![json!("admin"), json!("editor"), json!("viewer"), json!("agent")]);
    // The invitation list of a verified account shows its pending invitations, with expiry.
    let other_bot = app.create_bot(&owner, "Second").await;
    let (status, _) = app.post_json(&format!("/api/bots/{other_bot}/team/invite"), Some(&owner), json!({"email": "eve@shop.example", "role": "agent"})).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, list) = app.get("/api/invitations", Some(&eve)).await;
    assert_eq!(list["invitations"].as_array().unwrap().len(), 1);
    assert_eq!(list["invitations"][0]["botName"], "Second");
    assert!(list["invitations"][0]["expiresAt"].is_string());
}

/// An account cannot mail-bomb an address through invitations: invites and resends share one
/// budget per inviting member; another member's is their own.
async fn invitation_mails_have_a_budget_per_member(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        s.billing.default_plan = "enterprise".into();
        s.auth.invitation_burst = 2.0;
        s.auth.invitations_per_hour = 1.0;
    })
    .await;
    let (owner, _) = app.signup("boss@shop.example").await;
    let (other, _) = app.signup("other@shop.example").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    let mine = app.create_bot(&other, "Theirs").await;
    let (status, body) = app.post_json(&format!("/api/bots/{bot}/team/invite"), Some(&owner), json!({"email": "target@else.example", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let member = body["member"]["_id"].as_str().unwrap().to_string();
    // Refused invitations mail nothing, so they spend none of the budget.
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/team/invite"), Some(&owner), json!({"email": "TARGET@else.example", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/team/no-such-member/resend"), Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let resend = format!("/api/bots/{bot}/team/{member}/resend");
    let (status, _) = app.post_json(&resend, Some(&owner), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = app.post_json(&resend, Some(&owner), json!({})).await;
    assert_eq!((status, message(&body)), (StatusCode::TOO_MANY_REQUESTS, "You have sent many invitations in a short time. Please try again later."));
    let (status, _) = app.post_json(&format!("/api/bots/{bot}/team/invite"), Some(&owner), json!({"email": "second@else.example", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (_, team) = app.get(&format!("/api/bots/{bot}/team"), Some(&owner)).await;
    assert!(!team.to_string().contains("second@else.example"), "a refused invite saves nothing");
    let (status, _) = app.post_json(&format!("/api/bots/{mine}/team/invite"), Some(&other), json!({"email": "target@else.example", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::CREATED, "another member's budget is their own");
}

/// An admin's pending invitations go when the admin is removed or may no longer manage the team:
/// one could otherwise let them back in under another address.
async fn a_removed_or_demoted_admins_invitations_are_withdrawn(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("boss@shop.example").await;
    let bot = app.create_bot(&owner, "Helpdesk").await;
    let store = app.db.open().await.unwrap();
    let seat_of = |email: &'static str| {
        let store = store.clone();
        let bot = bot.clone();
        async move { store.team_members(&bot).await.unwrap().into_iter().find(|m| m.email == email).map(|m| m.id) }
    };
    for (admin, alias) in [("ann@shop.example", "ann2@evil.example"), ("bea@shop.example", "bea2@evil.example")] {
        app.member(&bot, "boss@shop.example", admin, parley_store::Role::Admin).await;
        let admin_id = store.user_by_email(admin).await.unwrap().unwrap().id;
        store.invite_member(&bot, alias, parley_store::Role::Admin, &admin_id).await.unwrap();
        assert!(seat_of(alias).await.is_some());
    }
    let keep = store.invite_member(&bot, "kept@shop.example", parley_store::Role::Viewer, &store.user_by_email("boss@shop.example").await.unwrap().unwrap().id).await.unwrap();

    let ann = seat_of("ann@shop.example").await.unwrap();
    assert_eq!(app.delete(&format!("/api/bots/{bot}/team/{ann}"), Some(&owner)).await.0, StatusCode::OK);
    assert!(seat_of("ann2@evil.example").await.is_none(), "a removed admin's invitation is withdrawn");
    let bea = seat_of("bea@shop.example").await.unwrap();
    let (status, body) = app.put_json(&format!("/api/bots/{bot}/team/{bea}"), Some(&owner), json!({"role": "viewer"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(seat_of("bea2@evil.example").await.is_none(), "a demoted admin's invitation is withdrawn");
    assert_eq!(seat_of("kept@shop.example").await, Some(keep.id), "others' invitations stay");
}
