//! Bots over HTTP: the wizard's form, CRUD, roles, other teams' bots, restart persistence.

mod support;

use parley_store::Role;
use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};
use support::{message, TestApp};

on_both_backends!(
    create_list_get_update_delete,
    creation_refuses_bad_input_with_the_spec_messages,
    creation_with_icon_text_and_pdf_training,
    another_teams_bot_is_404_and_roles_are_enforced,
    the_free_plan_allows_one_assistant,
    bots_survive_a_restart,
    settings_and_public_theme,
    invitations_are_listed_and_answered,
    concurrent_creations_cannot_pass_the_plan,
    widget_text_fields_and_quick_questions_have_length_caps,
    the_theme_carries_what_the_live_chat_draws,
    unsafe_custom_css_is_refused_and_changes_nothing,
);

fn enterprise(s: &mut parley_config::Settings) {
    s.billing.default_plan = "enterprise".into();
}

async fn create_list_get_update_delete(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, enterprise).await;
    let (token, _) = app.signup("o@x.co").await;
    let t = Some(token.as_str());
    let form = Form::new().text("name", "  Support Bot ").text("websiteUrl", "https://shop.example.com").text("faqMethod", "skip");
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let bot = &body["bot"];
    let id = bot["_id"].as_str().unwrap();
    assert_eq!(bot["name"], "Support Bot");
    assert_eq!(bot["status"], "active");
    assert_eq!(bot["role"], "owner");
    assert_eq!(bot["websiteUrl"], "https://shop.example.com/");
    assert_eq!(bot["headerTitle"], "Chat Support");
    assert_eq!(bot["welcomeMessage"], "Hello, how can I help you today?");
    assert_eq!(bot["systemPrompt"], "You are a helpful assistant for customer support");
    assert_eq!(bot["enableHandover"], true);

    app.create_bot(&token, "Second").await;
    let (status, list) = app.get("/api/bots", t).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["bots"].as_array().unwrap().len(), 2);

    let (status, got) = app.get(&format!("/api/bots/{id}"), t).await;
    assert_eq!((status, got["bot"]["name"].clone()), (StatusCode::OK, json!("Support Bot")));

    let (status, updated) = app
        .put_json(
            &format!("/api/bots/{id}"),
            t,
            json!({"name": "Renamed", "status": "inactive", "primaryColour": "#112233", "welcomeMessage": "Hi there", "customQuestions": [" Where is my order? ", ""], "_id": id}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["bot"]["name"], "Renamed");
    assert_eq!(updated["bot"]["status"], "inactive");
    assert_eq!(updated["bot"]["primaryColour"], "#112233");
    assert_eq!(updated["bot"]["customQuestions"], json!(["Where is my order?"]));
    assert_eq!(updated["bot"]["headerTitle"], "Chat Support", "untouched widget fields keep their values");

    for (body, expected) in [
        (json!({"name": "  "}), "Bot name is required"),
        (json!({"status": "paused"}), "Status must be active or inactive"),
        (json!({"borderRadius": 30}), "Border radius must be 0-24 px in steps of 2"),
        (json!({"primaryColour": "red"}), "\"red\" is not a colour like #3B82F6"),
        (json!({"flavour": "vanilla"}), "Unknown field flavour"),
        (json!({"customQuestions": ["1", "2", "3", "4", "5", "6"]}), "At most 5 quick questions"),
    ] {
        let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, body.clone()).await;
        assert_eq!((status, message(&res)), (StatusCode::UNPROCESSABLE_ENTITY, expected), "{body}");
    }
    let (_, after) = app.get(&format!("/api/bots/{id}"), t).await;
    assert_eq!(after["bot"]["name"], "Renamed", "refused updates changed nothing");
    assert_eq!(after["bot"]["borderRadius"], 12);

    let (status, _) = app.delete(&format!("/api/bots/{id}"), t).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = app.get(&format!("/api/bots/{id}"), t).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn creation_refuses_bad_input_with_the_spec_messages(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, enterprise).await;
    let (token, _) = app.signup("o@x.co").await;
    let cases: Vec<(Form, u16, &str)> = vec![
        (Form::new().text("faqMethod", "skip"), 422, "Bot name is required"),
        (Form::new().text("name", "   "), 422, "Bot name is required"),
        (Form::new().text("name", "B").text("websiteUrl", "not a url"), 422, "Please enter a valid URL (e.g., https://example.com)"),
        (Form::new().text("name", "B").text("faqMethod", "fax"), 422, "Training method must be skip, upload or text"),
        (Form::new().text("name", "B").text("faqMethod", "text").text("faqText", "x".repeat(5001)), 422, "Custom text must be at most 5000 characters"),
        (Form::new().text("name", "B").text("faqMethod", "upload"), 422, "Please choose a PDF file to upload"),
        (
            Form::new().text("name", "B").text("faqMethod", "upload").part("faqFile", Part::bytes(b"PK\x03\x04 zip".to_vec()).file_name("a.pdf")),
            422,
            "Please upload a PDF file",
        ),
        (
            Form::new().text("name", "B").text("faqMethod", "upload").part("faqFile", Part::bytes(vec![b'%'; 10 * 1024 * 1024 + 1]).file_name("big.pdf")),
            413,
            "File size must be less than 10MB",
        ),
        (Form::new().text("name", "B").part("icon", Part::bytes(b"<svg onload=x>".to_vec()).file_name("i.svg")), 422, "Bot icon must be an image (PNG, JPEG, GIF or WebP)"),
    ];
    for (form, status, expected) in cases {
        let (got, body) = app.post_form("/api/bots", &token, form).await;
        assert_eq!((got.as_u16(), message(&body)), (status, expected));
    }
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(list["bots"], json!([]), "no refused form left a bot behind");
    let uploads = app.db.data_dir().join("uploads");
    let leftover = walk(&uploads);
    assert!(leftover.is_empty(), "no refused form left a file behind: {leftover:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    entries
        .flatten()
        .flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] })
        .collect()
}

async fn creation_with_icon_text_and_pdf_training(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, enterprise).await;
    let (token, _) = app.signup("o@x.co").await;
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let form = Form::new()
        .text("name", "With icon")
        .text("faqMethod", "text")
        .text("faqText", "We ship worldwide within 5 days.")
        .part("icon", Part::bytes(png.clone()).file_name("i.png"));
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let icon = body["bot"]["icon"].as_str().unwrap();
    let served = app.client.get(app.url(icon)).send().await.unwrap();
    assert_eq!(served.bytes().await.unwrap().to_vec(), png);
    let bot_id = body["bot"]["_id"].as_str().unwrap().to_string();
    let store = app.db.open().await.unwrap();
    let sources = settled_sources(&store, &bot_id).await;
    assert_eq!(sources, vec![("text".to_string(), "completed".to_string())], "the wizard's text is really trained");
    assert!(!store.bot_chunks(&bot_id).await.unwrap().is_empty());

    let pdf = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n".to_vec();
    let form = Form::new()
        .text("name", "With pdf")
        .text("faqMethod", "upload")
        .part("faqFile", Part::bytes(pdf).file_name("faq.pdf"));
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let pdf_bot = body["bot"]["_id"].as_str().unwrap().to_string();
    let sources = settled_sources(&store, &pdf_bot).await;
    assert_eq!(sources, vec![("pdf".to_string(), "failed".to_string())], "a broken PDF fails with a reason, it is not marked done");
    let reason = store.sources_of_bot(&pdf_bot).await.unwrap()[0].error.clone();
    assert!(reason.as_deref().is_some_and(|r| r.starts_with("the PDF could not be read")), "{reason:?}");
    // Training PDFs are private: not served.
    let private = walk(&app.db.data_dir().join("uploads/private"));
    assert_eq!(private.len(), 1);
    let name = private[0].file_name().unwrap().to_string_lossy().to_string();
    for path in [format!("/uploads/private/{name}"), format!("/uploads/public/../private/{name}")] {
        let res = app.client.get(app.url(&path)).send().await.unwrap();
        let body = res.text().await.unwrap();
        assert!(!body.starts_with("%PDF"), "{path} must not serve the PDF");
    }
}

/// The sources once none is `processing` any more (training runs in the background).
async fn settled_sources(store: &parley_store::Store, bot_id: &str) -> Vec<(String, String)> {
    for _ in 0..600 {
        let sources = parley_store_sources(store, bot_id).await;
        if sources.iter().all(|(_, status)| status != "processing") {
            return sources;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("sources still processing: {:?}", parley_store_sources(store, bot_id).await);
}

async fn parley_store_sources(store: &parley_store::Store, bot_id: &str) -> Vec<(String, String)> {
    store
        .sources_of_bot(bot_id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.kind, s.status))
        .collect()
}

async fn another_teams_bot_is_404_and_roles_are_enforced(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, enterprise).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let (viewer, _) = app.signup("viewer@x.co").await;
    let (editor, _) = app.signup("editor@x.co").await;
    let bot = app.create_bot(&owner, "Private").await;
    let path = format!("/api/bots/{bot}");

    for (status, _) in [
        app.get(&path, Some(&stranger)).await,
        app.put_json(&path, Some(&stranger), json!({"name": "Mine now"})).await,
        app.delete(&path, Some(&stranger)).await,
        app.get(&format!("{path}/settings"), Some(&stranger)).await,
    ] {
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    let (_, missing) = app.get("/api/bots/does-not-exist", Some(&stranger)).await;
    let (_, hidden) = app.get(&path, Some(&stranger)).await;
    assert_eq!(missing, hidden, "a hidden bot looks exactly like a missing one");

    for (email, role) in [("viewer@x.co", Role::Viewer), ("editor@x.co", Role::Editor)] {
        app.seat(&bot, "owner@x.co", email, role).await;
    }
    let (status, body) = app.get(&path, Some(&viewer)).await;
    assert_eq!((status, body["bot"]["role"].clone()), (StatusCode::OK, json!("viewer")));
    let (status, body) = app.put_json(&path, Some(&viewer), json!({"name": "Nope"})).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "Your role does not allow editing this bot"));
    let (status, _) = app.put_json(&path, Some(&editor), json!({"name": "Edited"})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = app.delete(&path, Some(&editor)).await;
    assert_eq!((status, message(&body)), (StatusCode::FORBIDDEN, "Only the owner can do this"));
    let (_, list) = app.get("/api/bots", Some(&viewer)).await;
    assert_eq!(list["bots"][0]["role"], "viewer");
    let (_, list) = app.get("/api/bots", Some(&stranger)).await;
    assert_eq!(list["bots"], json!([]));
}

async fn the_free_plan_allows_one_assistant(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("free@x.co").await;
    app.create_bot(&token, "Only one").await;
    let (status, body) = app.post_form("/api/bots", &token, Form::new().text("name", "Two")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(message(&body), "Your Free plan allows 1 assistant. Upgrade your plan on the Billing page (/billing) to create more.");
    assert_eq!((&body["error"]["code"], &body["error"]["limit"], &body["error"]["upgradeUrl"]), (&json!("plan_limit"), &json!("bots"), &json!("/billing")));
}

async fn bots_survive_a_restart(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("keep@x.co").await;
    let bot = app.create_bot(&token, "Persistent").await;
    let app = app.restart().await;
    let (status, body) = app.get(&format!("/api/bots/{bot}"), Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "the token and the bot both survive: {body}");
    assert_eq!(body["bot"]["name"], "Persistent");
}

async fn settings_and_public_theme(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("s@x.co").await;
    let t = Some(token.as_str());
    let bot = app.create_bot(&token, "Themed").await;
    let path = format!("/api/bots/{bot}/settings");
    let (status, body) = app.get(&path, t).await;
    assert_eq!((status, body.clone()), (StatusCode::OK, json!({"maxChatTextSize": 1000, "urlWhitelist": []})));
    let (status, body) = app
        .put_json(&path, t, json!({"maxChatTextSize": 2000, "urlWhitelist": [" https://shop.example.com/ ", "shop.example.com", "", "http://localhost:5173"]}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"maxChatTextSize": 2000, "urlWhitelist": ["https://shop.example.com", "http://localhost:5173"]}));
    for (size, status) in [(json!(99), 422), (json!(10001), 422), (json!("abc"), 422), (json!(null), 422), (json!(100.5), 422), (json!(100), 200), (json!(500.0), 200), (json!(10000), 200)] {
        let (got, res) = app.put_json(&path, t, json!({"maxChatTextSize": size})).await;
        assert_eq!(got.as_u16(), status, "{size}: {res}");
        if status == 422 {
            assert_eq!(message(&res), "Maximum chat text size must be between 100 and 10000");
        }
    }
    let (status, _) = app.put_json(&path, t, json!({"urlWhitelist": ["javascript:alert(1)"]})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    let (status, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(theme["name"], "Themed");
    assert_eq!(theme["primaryColour"], "#3B82F6");
    assert_eq!(theme["enableHandover"], true);
    assert!(theme.get("urlWhitelist").is_none() && theme.get("systemPrompt").is_none());
    // The chat's counter gets the limit the server enforces: the smaller of the widget's maximum
    // message length (500 by default) and Max chat text size.
    assert_eq!(theme["maxMessageLength"], 500, "Max chat text size is 10000 here");
    let (status, _) = app.put_json(&path, t, json!({"maxChatTextSize": 200})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(theme["maxMessageLength"], 200);
    let (status, _) = app.get("/api/bots/nope/theme", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn invitations_are_listed_and_answered(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (guest, _) = app.signup("guest@x.co").await;
    let (other, _) = app.signup("other@x.co").await;
    let bot = app.create_bot(&owner, "Team bot").await;
    let store = app.db.open().await.unwrap();
    let owner_id = store.user_by_email("owner@x.co").await.unwrap().unwrap().id;
    store.invite_member(&bot, "guest@x.co", Role::Agent, &owner_id).await.unwrap();

    // Anyone can register any address: until it is verified, invitations to it stay closed.
    let (status, body) = app.get("/api/invitations", Some(&guest)).await;
    assert_eq!((status, &body["invitations"]), (StatusCode::OK, &json!([])), "an unverified address is shown none");
    let (status, _) = app.post_json("/api/invitations/anything/respond", Some(&guest), json!({"accept": true})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    for email in ["guest@x.co", "other@x.co"] {
        let id = store.user_by_email(email).await.unwrap().unwrap().id;
        store.mark_email_verified(&id).await.unwrap();
    }

    let (status, body) = app.get("/api/invitations", Some(&guest)).await;
    assert_eq!(status, StatusCode::OK);
    let inv = &body["invitations"][0];
    assert_eq!(inv["botName"], "Team bot");
    assert_eq!(inv["role"], "agent");
    assert_eq!(inv["invitedBy"]["email"], "owner@x.co");
    let id = inv["_id"].as_str().unwrap();
    let (_, none) = app.get("/api/invitations", Some(&other)).await;
    assert_eq!(none["invitations"], json!([]));
    let (status, _) = app.post_json(&format!("/api/invitations/{id}/respond"), Some(&other), json!({"accept": true})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "an invitation for someone else cannot be taken");
    let (status, _) = app.post_json(&format!("/api/invitations/{id}/respond"), Some(&guest), json!({"accept": true})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = app.get("/api/bots", Some(&guest)).await;
    assert_eq!(list["bots"][0]["role"], "agent");
    let (_, after) = app.get("/api/invitations", Some(&guest)).await;
    assert_eq!(after["invitations"], json!([]));
}

/// Hardening finding 13: the plan check and the insert were two steps, so concurrent
/// creations all passed the check. Now exactly the plan's number is created.
async fn concurrent_creations_cannot_pass_the_plan(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("racer@x.co").await;
    let attempts = (0..6).map(|i| app.post_form("/api/bots", &token, Form::new().text("name", format!("Racer {i}"))));
    let outcomes = futures_util::future::join_all(attempts).await;
    let created = outcomes.iter().filter(|(s, _)| *s == StatusCode::CREATED).count();
    let refused: Vec<_> = outcomes.iter().filter(|(s, _)| *s == StatusCode::FORBIDDEN).map(|(_, b)| message(b).to_string()).collect();
    assert_eq!((created, refused.len()), (1, 5), "{outcomes:?}");
    assert!(refused.iter().all(|m| m == "Your Free plan allows 1 assistant. Upgrade your plan on the Billing page (/billing) to create more."), "{refused:?}");
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(list["bots"].as_array().map(Vec::len), Some(1));
}

/// Hardening finding 13: the widget's texts are shown to every visitor and stored per bot;
/// each has a cap, and an over-long value changes nothing.
async fn widget_text_fields_and_quick_questions_have_length_caps(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("caps@x.co").await;
    let t = Some(token.as_str());
    let id = app.create_bot(&token, "Capped").await;
    let long = |n: usize| "x".repeat(n);
    for (body, expected) in [
        (json!({"headerTitle": long(101)}), "Header title must be at most 100 characters"),
        (json!({"headerSubtitle": long(101)}), "Header subtitle must be at most 100 characters"),
        (json!({"placeholder": long(101)}), "Placeholder must be at most 100 characters"),
        (json!({"companyName": long(101)}), "Company name must be at most 100 characters"),
        (json!({"businessHours": long(101)}), "Business hours must be at most 100 characters"),
        (json!({"responseTime": long(101)}), "Response time must be at most 100 characters"),
        (json!({"supportEmail": long(255)}), "Support email must be at most 254 characters"),
        (json!({"botAvatar": long(2049)}), "Bot avatar must be at most 2048 characters"),
        (json!({"userIcon": long(2049)}), "User icon must be at most 2048 characters"),
        (json!({"supportEmail": "hello"}), "Support email must be a valid email address"),
        (json!({"botAvatar": "javascript:alert(1)"}), "Bot avatar must be a web address (https://…)"),
        (json!({"userIcon": "data:text/html,<script>alert(1)</script>"}), "User icon must be a web address (https://…)"),
        (json!({"customQuestions": ["fine", long(151)]}), "Each quick question must be at most 150 characters"),
    ] {
        let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, body.clone()).await;
        assert_eq!((status, message(&res)), (StatusCode::UNPROCESSABLE_ENTITY, expected), "{body}");
    }
    let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, json!({"headerTitle": long(100), "customQuestions": [long(150)]})).await;
    assert_eq!(status, StatusCode::OK, "at the cap is fine: {res}");
    let (_, after) = app.get(&format!("/api/bots/{id}"), t).await;
    assert_eq!(after["bot"]["headerSubtitle"], "We're here to help", "refused updates changed nothing");

    // Fields of the wrong type are refused by name; null clears a website, not a name.
    for (body, expected) in [
        (json!({"websiteUrl": 42}), "websiteUrl must be text"),
        (json!({"name": null}), "Bot name is required"),
        (json!({"name": 7}), "name must be text"),
    ] {
        let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, body.clone()).await;
        assert_eq!((status, message(&res)), (StatusCode::UNPROCESSABLE_ENTITY, expected), "{body}");
    }
    let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, json!({"websiteUrl": "https://shop.example.com"})).await;
    assert_eq!(status, StatusCode::OK, "{res}");
    let (status, res) = app.put_json(&format!("/api/bots/{id}"), t, json!({"websiteUrl": null})).await;
    assert_eq!((status, &res["bot"]["websiteUrl"]), (StatusCode::OK, &Value::Null), "{res}");

    // The customization save's own names (spec 2 §3), and what a client echoes back.
    let (status, res) = app
        .put_json(
            &format!("/api/bots/{id}"),
            t,
            json!({"botId": id, "conversationCount": 3, "customPrimaryColor": "#112233", "customSecondaryColor": "#445566", "customBgColor": "#ffffff",
                   "selectedFontSize": 18, "userAvatar": "https://cdn.example/u.png", "botName": "Renamed"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    let bot = &res["bot"];
    assert_eq!(
        (&bot["primaryColour"], &bot["secondaryColour"], &bot["backgroundColour"], &bot["typography"], &bot["userIcon"], &bot["name"]),
        (&json!("#112233"), &json!("#445566"), &json!("#ffffff"), &json!("18px"), &json!("https://cdn.example/u.png"), &json!("Renamed"))
    );
}

/// Issue 19: every editor setting reaches the visitor chat through the public theme.
async fn the_theme_carries_what_the_live_chat_draws(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("look@x.co").await;
    let t = Some(token.as_str());
    let bot = app.create_bot(&token, "Looks").await;
    let settings = json!({
        "borderRadius": 20, "shadowIntensity": "heavy", "animationStyle": "fade", "botAvatar": "https://cdn.example/a.png",
        "typingDelay": 2000, "companyName": "Acme", "supportEmail": "help@acme.example", "popupMessage": "Hi!",
        "autoOpenDelay": 5, "handoverMessage": "A person will take it from here.", "businessHours": "Mon-Fri 9:00-17:00",
        "responseTime": "about 5 minutes", "customCSS": ".parley-header { letter-spacing: 3px }", "enableFAQ": true,
    });
    let (status, body) = app.put_json(&format!("/api/bots/{bot}"), t, settings.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app
        .post_json(&format!("/api/bots/{bot}/sources/qa"), t, json!({"question": "Do you ship abroad?", "answer": "Yes, to 40 countries."}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mut theme = json!({});
    for _ in 0..600 {
        theme = app.get(&format!("/api/bots/{bot}/theme"), None).await.1;
        if theme["faqQuestions"] != json!([]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for (key, value) in settings.as_object().unwrap() {
        assert_eq!(&theme[key], value, "{key} in {theme}");
    }
    assert_eq!(theme["faqQuestions"], json!(["Do you ship abroad?"]), "a trained pair's question");
    assert_eq!(theme["agentsOnline"], false);

    let (status, _) = app.put_json(&format!("/api/bots/{bot}"), t, json!({"enableFAQ": false})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(theme["faqQuestions"], json!([]), "FAQ off: no questions");

    let (status, body) = app.put_json(&format!("/api/bots/{bot}"), t, json!({"autoOpenDelay": 601})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Auto-open delay must be 0-600 seconds"));
}

async fn unsafe_custom_css_is_refused_and_changes_nothing(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (token, _) = app.signup("css@x.co").await;
    let t = Some(token.as_str());
    let bot = app.create_bot(&token, "Styled").await;
    let good = ".parley-bubble-user { background: url(data:image/png;base64,AAAA) }";
    let (status, body) = app.put_json(&format!("/api/bots/{bot}"), t, json!({"customCSS": good})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for (css, why) in [
        ("@import 'https://evil.example/x.css';", "Custom CSS may not use @import"),
        (".a { background: url(https://evil.example/p.png) }", "Custom CSS may load pictures only as url(data:image/…), not from another site"),
        (".a { width: expression(alert(1)) }", "Custom CSS may not use expression()"),
        ("</style><script>alert(1)</script>", "Custom CSS may not contain '<' (no HTML or </style>)"),
        (".a { background: u\\72l(https://evil.example) }", "Custom CSS may not contain backslash escapes"),
    ] {
        let (status, body) = app.put_json(&format!("/api/bots/{bot}"), t, json!({"customCSS": css, "companyName": "Changed"})).await;
        assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, why), "{css}");
    }
    let (_, got) = app.get(&format!("/api/bots/{bot}"), t).await;
    assert_eq!((got["bot"]["customCSS"].as_str(), got["bot"]["companyName"].as_str()), (Some(good), Some("")), "nothing changed");
    let (_, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(theme["customCSS"], good);

    // CSS stored before the check existed is not served.
    let store = &app.state.store;
    let row = store.bot_by_id(&bot).await.unwrap().unwrap();
    let mut widget: serde_json::Value = serde_json::from_str(&row.widget).unwrap();
    widget["customCSS"] = json!("@import 'https://evil.example/x.css';");
    let update = parley_store::bots::BotUpdate { widget: Some(serde_json::from_value(widget).unwrap()), ..Default::default() };
    store.update_bot(&bot, update).await.unwrap();
    let (_, theme) = app.get(&format!("/api/bots/{bot}/theme"), None).await;
    assert_eq!(theme["customCSS"], "");
}
