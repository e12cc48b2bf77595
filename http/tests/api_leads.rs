//! Leads on both backends: the details a visitor leaves in the chat become one scored lead per
//! conversation, listed for the bot's team and no one else; the Leads page's calls
//! (`/api/leads`: list, create, edit, status, delete, stats, export) with spec 1 §6's roles.

mod support;

use parley_store::Role;
use reqwest::StatusCode;
use serde_json::json;
use support::sio::SioClient;
use support::{message, TestApp};

on_both_backends!(
    a_visitors_details_become_the_bots_lead,
    leads_are_searched_filtered_sorted_and_paged,
    accented_names_are_found_in_any_case_and_sorted_among_their_letters,
    each_role_does_what_spec_1_allows,
    bad_input_is_refused_in_the_specs_words_and_changes_nothing,
    stats_count_the_cards_and_the_insights,
    the_export_streams_csv_and_json,
    the_team_hears_of_a_new_lead_live,
);

async fn a_visitors_details_become_the_bots_lead(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (viewer, _) = app.signup("viewer@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    app.seat(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let leads = format!("/api/bots/{bot}/leads");

    // A message without details saves no lead.
    let (status, first) = app.post_json("/api/chat", None, json!({"botId": bot, "message": "Hi"})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let (sid, token) = (first["sessionId"].as_str().unwrap().to_string(), first["visitorToken"].as_str().unwrap().to_string());
    assert_eq!(app.get(&leads, Some(&owner)).await.1["total"], 0);

    // Details with a message: one lead, scored, with the conversation.
    let (status, _) = app
        .post_json(
            "/api/chat",
            None,
            json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "Call me",
                   "leadData": {"name": " Vic ", "email": "vic@visitor.example", "phone": "", "company": ""}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, list) = app.get(&leads, Some(&owner)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total"], 1);
    let lead = &list["leads"][0];
    assert_eq!((lead["name"].as_str(), lead["email"].as_str(), lead["phone"].as_str()), (Some("Vic"), Some("vic@visitor.example"), None));
    assert_eq!((lead["status"].as_str(), lead["source"].as_str(), lead["sessionId"].as_str()), (Some("new"), Some("website_chat"), Some(sid.as_str())));
    let first_score = lead["leadScore"].as_i64().unwrap();
    assert!(first_score >= 45, "email + name + some messages: {first_score}");

    // More details later in the same conversation fill in the same lead.
    let (status, _) = app
        .post_json(
            "/api/chat",
            None,
            json!({"botId": bot, "sessionId": sid, "visitorToken": token, "message": "and my phone",
                   "leadData": {"phone": "+44 20 7946 0000", "company": "Acme"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, list) = app.get(&leads, Some(&viewer)).await;
    assert_eq!(list["total"], 1, "one lead per conversation");
    let lead = &list["leads"][0];
    assert_eq!((lead["name"].as_str(), lead["phone"].as_str(), lead["company"].as_str()), (Some("Vic"), Some("+44 20 7946 0000"), Some("Acme")));
    assert!(lead["leadScore"].as_i64().unwrap() > first_score);

    // Only the bot's team sees them; pages are bounded.
    assert_eq!(app.get(&leads, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&leads, None).await.0, StatusCode::UNAUTHORIZED);
    let (_, page) = app.get(&format!("{leads}?page=2&limit=1"), Some(&owner)).await;
    assert_eq!((page["leads"].as_array().unwrap().len(), page["total"].as_i64()), (0, Some(1)));
}


async fn new_lead(app: &TestApp, token: &str, body: serde_json::Value) -> serde_json::Value {
    let (status, created) = app.post_json("/api/leads", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["message"], "Lead created successfully");
    created["lead"].clone()
}

fn names(list: &serde_json::Value) -> Vec<String> {
    list["leads"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap_or("").to_string()).collect()
}

async fn leads_are_searched_filtered_sorted_and_paged(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let shop = app.create_bot(&owner, "Shop").await;
    let blog = app.create_bot(&owner, "Blog").await;
    let theirs = app.create_bot(&stranger, "Theirs").await;
    new_lead(&app, &owner, json!({"botId": shop, "name": "Ann Able", "email": "ann@acme.example", "company": "Acme", "leadScore": 90, "priority": "high"})).await;
    new_lead(&app, &owner, json!({"botId": shop, "name": "bob 100% Real", "email": "bob@b.example", "leadScore": 20, "status": "contacted"})).await;
    new_lead(&app, &owner, json!({"botId": blog, "name": "Cy_Under", "company": "ACME Ltd", "leadScore": 60, "status": "converted", "priority": "urgent"})).await;
    new_lead(&app, &stranger, json!({"botId": theirs, "name": "Not Yours", "company": "Acme"})).await;

    // Every bot the user may see, newest first; another team's leads never.
    let (status, all) = app.get("/api/leads", Some(&owner)).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(all["total"], 3);
    assert_eq!(names(&all), ["Cy_Under", "bob 100% Real", "Ann Able"]);
    let first = &all["leads"][0];
    assert_eq!((first["botName"].as_str(), first["source"].as_str(), first["leadScore"].as_i64()), (Some("Blog"), Some("manual"), Some(60)));

    // Search: name, email or company, any case; % and _ are plain characters.
    assert_eq!(names(&app.get("/api/leads?q=ACME", Some(&owner)).await.1), ["Cy_Under", "Ann Able"]);
    assert_eq!(names(&app.get("/api/leads?q=B%40B.EX", Some(&owner)).await.1), ["bob 100% Real"]);
    assert_eq!(names(&app.get("/api/leads?q=100%25", Some(&owner)).await.1), ["bob 100% Real"]);
    assert_eq!(app.get("/api/leads?q=1%25%25", Some(&owner)).await.1["total"], 0, "% is not a wildcard");
    assert_eq!(names(&app.get("/api/leads?q=y_u", Some(&owner)).await.1), ["Cy_Under"]);
    assert_eq!(app.get("/api/leads?q=n_a", Some(&owner)).await.1["total"], 0, "_ is not a wildcard");

    // Status, priority, one bot.
    assert_eq!(names(&app.get("/api/leads?status=contacted", Some(&owner)).await.1), ["bob 100% Real"]);
    assert_eq!(names(&app.get("/api/leads?priority=urgent", Some(&owner)).await.1), ["Cy_Under"]);
    assert_eq!(app.get("/api/leads?status=all&priority=all", Some(&owner)).await.1["total"], 3);
    assert_eq!(names(&app.get(&format!("/api/leads?botId={shop}"), Some(&owner)).await.1), ["bob 100% Real", "Ann Able"]);
    assert_eq!(app.get(&format!("/api/leads?botId={theirs}"), Some(&owner)).await.0, StatusCode::NOT_FOUND);

    // The six sorts.
    for (sort, want) in [
        ("oldest", ["Ann Able", "bob 100% Real", "Cy_Under"]),
        ("score_high", ["Ann Able", "Cy_Under", "bob 100% Real"]),
        ("score_low", ["bob 100% Real", "Cy_Under", "Ann Able"]),
        ("name_asc", ["Ann Able", "bob 100% Real", "Cy_Under"]),
        ("name_desc", ["Cy_Under", "bob 100% Real", "Ann Able"]),
    ] {
        assert_eq!(names(&app.get(&format!("/api/leads?sort={sort}"), Some(&owner)).await.1), want, "{sort}");
    }
    let (status, bad) = app.get("/api/leads?sort=random", Some(&owner)).await;
    assert_eq!((status, message(&bad)), (StatusCode::UNPROCESSABLE_ENTITY, "Sort must be one of newest, oldest, score_high, score_low, name_asc, name_desc"));

    // Server pages.
    let (_, page) = app.get("/api/leads?sort=name_asc&page=2&limit=2", Some(&owner)).await;
    assert_eq!((names(&page), page["total"].as_i64()), (vec!["Cy_Under".to_string()], Some(3)));
    assert_eq!(app.get("/api/leads", None).await.0, StatusCode::UNAUTHORIZED);
}

async fn accented_names_are_found_in_any_case_and_sorted_among_their_letters(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    for (name, company) in [("zoe", "Zed"), ("Émile Zola", "Ünited"), ("Ava", "Alpha"), ("éva", "Øresund"), ("Eric", "Acme")] {
        new_lead(&app, &owner, json!({"botId": bot, "name": name, "company": company})).await;
    }
    // Any case, with or without the accents typed (the browser sends the query URL-encoded).
    for q in ["%C3%A9mile", "%C3%89MILE", "emile", "ZOLA"] {
        assert_eq!(names(&app.get(&format!("/api/leads?q={q}"), Some(&owner)).await.1), ["Émile Zola"], "{q}");
    }
    assert_eq!(names(&app.get("/api/leads?q=%C3%BCnited", Some(&owner)).await.1), ["Émile Zola"]);
    assert_eq!(names(&app.get("/api/leads?q=united", Some(&owner)).await.1), ["Émile Zola"]);
    // Ø is a letter of its own, not an accented O.
    assert_eq!(names(&app.get("/api/leads?q=%C3%B8re", Some(&owner)).await.1), ["éva"]);
    assert_eq!(app.get("/api/leads?q=oresund", Some(&owner)).await.1["total"], 0);

    // A-Z puts É among the E's, on every page and in the export's pages alike.
    let az = ["Ava", "Émile Zola", "Eric", "éva", "zoe"];
    assert_eq!(names(&app.get("/api/leads?sort=name_asc", Some(&owner)).await.1), az);
    let mut za = az;
    za.reverse();
    assert_eq!(names(&app.get("/api/leads?sort=name_desc", Some(&owner)).await.1), za);
    let (_, page) = app.get("/api/leads?sort=name_asc&page=2&limit=2", Some(&owner)).await;
    assert_eq!(names(&page), ["Eric", "éva"]);
    let (status, _, _, json_text) = download(&app, "/api/leads/export?format=json&sort=name_asc", &owner).await;
    assert_eq!(status, StatusCode::OK);
    let exported: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    let exported: Vec<&str> = exported.as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(exported, az);
}

async fn each_role_does_what_spec_1_allows(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, stranger_id) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let admin = app.member(&bot, "owner@x.co", "admin@x.co", Role::Admin).await;
    let editor = app.member(&bot, "owner@x.co", "editor@x.co", Role::Editor).await;
    let viewer = app.member(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let agent = app.member(&bot, "owner@x.co", "agent@x.co", Role::Agent).await;
    let lead = new_lead(&app, &admin, json!({"botId": bot, "name": "Dee"})).await;
    let id = lead["_id"].as_str().unwrap().to_string();
    let (path, status_path) = (format!("/api/leads/{id}"), format!("/api/leads/{id}/status"));

    // Editor edits every field, and may assign the lead to a member of the bot.
    let store = app.db.open().await.unwrap();
    let agent_id = store.user_by_email("agent@x.co").await.unwrap().unwrap().id;
    let (status, edited) = app
        .put_json(&path, Some(&editor), json!({"name": "Dee Dee", "email": "DEE@x.example", "phone": "+1 555", "company": "Dee Co",
            "status": "qualified", "priority": "low", "leadScore": 77, "notes": "Wants a demo", "tags": "vip, trial",
            "assignedTo": agent_id, "lastContact": "2026-11-20T10:00:00Z"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{edited}");
    assert_eq!(edited["message"], "Lead updated successfully");
    let l = &edited["lead"];
    assert_eq!((l["name"].as_str(), l["email"].as_str(), l["status"].as_str(), l["priority"].as_str()), (Some("Dee Dee"), Some("dee@x.example"), Some("qualified"), Some("low")));
    assert_eq!((l["leadScore"].as_i64(), l["tags"].clone(), l["assignedToName"].as_str()), (Some(77), json!(["vip", "trial"]), Some("Test User")));
    assert_eq!(l["lastContact"], "2026-11-20T10:00:00.000Z");
    // Absent fields stay; null clears.
    let (_, kept) = app.put_json(&path, Some(&editor), json!({"phone": null})).await;
    assert_eq!((kept["lead"]["phone"].clone(), kept["lead"]["name"].as_str()), (json!(null), Some("Dee Dee")));
    // The assignee leaves the team: the edit form, which sends the current assignee back, still
    // saves; choosing someone off the team is still refused.
    let agent_seat = store.team_members(&bot).await.unwrap().into_iter().find(|m| m.email == "agent@x.co").unwrap().id;
    assert_eq!(app.delete(&format!("/api/bots/{bot}/team/{agent_seat}"), Some(&owner)).await.0, StatusCode::OK);
    let (status, body) = app.put_json(&path, Some(&editor), json!({"notes": "Called back", "assignedTo": agent_id})).await;
    assert_eq!((status, body["lead"]["notes"].as_str()), (StatusCode::OK, Some("Called back")), "{body}");
    let (status, body) = app.put_json(&path, Some(&editor), json!({"assignedTo": stranger_id})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "The assigned member must be on this bot's team"));
    app.seat(&bot, "owner@x.co", "agent@x.co", Role::Agent).await;

    // Agent: status only. Viewer: neither. Another team: the lead does not exist.
    let (status, body) = app.patch_json(&status_path, Some(&agent), json!({"status": "contacted"})).await;
    assert_eq!((status, body["message"].as_str(), body["lead"]["status"].as_str()), (StatusCode::OK, Some("Lead status updated"), Some("contacted")));
    assert_eq!(app.put_json(&path, Some(&agent), json!({"name": "X"})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.patch_json(&status_path, Some(&viewer), json!({"status": "lost"})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.put_json(&path, Some(&viewer), json!({"name": "X"})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.post_json("/api/leads", Some(&viewer), json!({"botId": bot, "name": "V"})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.post_json("/api/leads", Some(&agent), json!({"botId": bot, "name": "A"})).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.put_json(&path, Some(&stranger), json!({"name": "X"})).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.patch_json(&status_path, Some(&stranger), json!({"status": "lost"})).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.delete(&path, Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.post_json("/api/leads", Some(&stranger), json!({"botId": bot, "name": "S"})).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/api/leads", Some(&stranger)).await.1["total"], 0);
    for reader in [&viewer, &agent, &editor] {
        assert_eq!(app.get("/api/leads", Some(reader)).await.1["total"], 1);
    }

    // Delete: not editor, viewer or agent; admin yes; then it is gone.
    for refused in [&editor, &viewer, &agent] {
        assert_eq!(app.delete(&path, Some(refused)).await.0, StatusCode::FORBIDDEN);
    }
    let (status, body) = app.delete(&path, Some(&admin)).await;
    assert_eq!((status, body["message"].as_str()), (StatusCode::OK, Some("Lead deleted successfully")));
    assert_eq!(app.delete(&path, Some(&owner)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/api/leads", Some(&owner)).await.1["total"], 0);
}

async fn bad_input_is_refused_in_the_specs_words_and_changes_nothing(backend: parley_store::Backend) {
    let app = TestApp::spawn(backend).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (outsider, outsider_id) = app.signup("outsider@x.co").await;
    let _ = outsider;
    let bot = app.create_bot(&owner, "Shop").await;

    let (status, body) = app.post_json("/api/leads", Some(&owner), json!({"name": "No Bot"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please select a bot"));
    for (bad, words) in [
        (json!({"email": "not-an-email"}), "Please enter a valid email address"),
        (json!({"status": "won"}), "Status must be one of new, contacted, qualified, converted, lost"),
        (json!({"priority": "asap"}), "Priority must be one of low, medium, high, urgent"),
        (json!({"leadScore": 101}), "Score must be a whole number from 0 to 100"),
        (json!({"assignedTo": outsider_id}), "The assigned member must be on this bot's team"),
        (json!({"name": "n".repeat(101)}), "Name must be at most 100 characters"),
    ] {
        let mut create = bad.clone();
        create["botId"] = json!(bot);
        let (status, body) = app.post_json("/api/leads", Some(&owner), create).await;
        assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, words), "{bad}");
    }
    assert_eq!(app.get("/api/leads", Some(&owner)).await.1["total"], 0, "nothing was created");

    // A new lead has the spec's defaults: status new, priority medium, score 50.
    let lead = new_lead(&app, &owner, json!({"botId": bot})).await;
    assert_eq!((lead["status"].as_str(), lead["priority"].as_str(), lead["leadScore"].as_i64()), (Some("new"), Some("medium"), Some(50)));
    let path = format!("/api/leads/{}", lead["_id"].as_str().unwrap());
    let (status, body) = app.put_json(&path, Some(&owner), json!({"name": "Kept?", "email": "nope"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Please enter a valid email address"));
    let (status, body) = app.patch_json(&format!("{path}/status"), Some(&owner), json!({"status": "done"})).await;
    assert_eq!((status, message(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "Status must be one of new, contacted, qualified, converted, lost"));
    let (_, list) = app.get("/api/leads", Some(&owner)).await;
    assert_eq!((list["leads"][0]["name"].clone(), list["leads"][0]["status"].as_str()), (json!(null), Some("new")), "a refused edit changes nothing");
}

async fn stats_count_the_cards_and_the_insights(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let shop = app.create_bot(&owner, "Shop").await;
    let blog = app.create_bot(&owner, "Blog").await;
    // A visitor's lead (website_chat) and typed-in ones (manual).
    let (_, first) = app
        .post_json("/api/chat", None, json!({"botId": shop, "message": "Hi", "leadData": {"name": "Vic", "email": "vic@v.example", "phone": "+1 2"}}))
        .await;
    assert!(first["sessionId"].is_string(), "{first}");
    new_lead(&app, &owner, json!({"botId": shop, "name": "Ann", "status": "converted"})).await;
    let old = new_lead(&app, &owner, json!({"botId": shop, "email": "old@x.example", "status": "converted"})).await;
    let older = new_lead(&app, &owner, json!({"botId": shop, "email": "older@x.example", "status": "lost"})).await;
    new_lead(&app, &owner, json!({"botId": blog, "phone": "+1 3", "status": "contacted"})).await;
    // Two leads from last month: one converted.
    let store = app.db.open().await.unwrap();
    let now = parley_store::time::now();
    let last_month = {
        use chrono::Datelike;
        let first_of_month = now.date().with_day(1).unwrap().and_hms_opt(12, 0, 0).unwrap();
        first_of_month - chrono::Duration::days(3)
    };
    store.set_lead_captured_at(old["_id"].as_str().unwrap(), last_month).await.unwrap();
    store.set_lead_captured_at(older["_id"].as_str().unwrap(), last_month).await.unwrap();

    let (status, body) = app.get("/api/leads/stats", Some(&owner)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let s = &body["stats"];
    assert_eq!((s["total"].as_i64(), s["new"].as_i64(), s["contacted"].as_i64(), s["qualified"].as_i64(), s["converted"].as_i64(), s["lost"].as_i64()), (Some(5), Some(1), Some(1), Some(0), Some(2), Some(1)));
    assert_eq!((s["withEmail"].as_i64(), s["withName"].as_i64(), s["withPhone"].as_i64()), (Some(3), Some(2), Some(2)));
    // This month: Vic, Ann (converted), the blog's lead: 1 of 3. Last month: 1 of 2.
    assert_eq!(s["conversion"]["thisMonth"], json!({"captured": 3, "converted": 1, "rate": 33.3}));
    assert_eq!(s["conversion"]["lastMonth"], json!({"captured": 2, "converted": 1, "rate": 50.0}));
    assert_eq!(s["conversionRate"], json!(33.3));
    assert_eq!(s["sources"], json!([{"source": "manual", "count": 4, "percent": 80.0}, {"source": "website_chat", "count": 1, "percent": 20.0}]));

    // One bot's numbers.
    let (_, blog_stats) = app.get(&format!("/api/leads/stats?botId={blog}"), Some(&owner)).await;
    assert_eq!((blog_stats["stats"]["total"].as_i64(), blog_stats["stats"]["contacted"].as_i64()), (Some(1), Some(1)));
    assert_eq!(blog_stats["stats"]["conversion"]["lastMonth"]["rate"], json!(null), "no leads last month: no rate");
    let (stranger, _) = app.signup("stranger@x.co").await;
    assert_eq!(app.get(&format!("/api/leads/stats?botId={blog}"), Some(&stranger)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.get("/api/leads/stats", Some(&stranger)).await.1["stats"]["total"], 0);
}

async fn download(app: &TestApp, path: &str, token: &str) -> (StatusCode, String, String, String) {
    let res = app.client.get(app.url(path)).bearer_auth(token).send().await.unwrap();
    let status = res.status();
    let header = |name: &str| res.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let (kind, disposition) = (header("content-type"), header("content-disposition"));
    (status, kind, disposition, res.text().await.unwrap())
}

async fn the_export_streams_csv_and_json(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let viewer = app.member(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    let evil = new_lead(&app, &owner, json!({"botId": bot, "name": "=HYPERLINK(\"http://x.example\",\"click\")", "company": "Smith, Jones & \"Co\"", "phone": "+44 1", "notes": "line one\nline two", "tags": ["a", "b"], "status": "qualified"})).await;
    new_lead(&app, &owner, json!({"botId": bot, "name": "Zoë Ü", "email": "zoe@x.example"})).await;
    // More than one page of the stream, so the keyset continues across pages.
    app.db.open().await.unwrap().seed_leads(&bot, 1200).await.unwrap();

    let (status, kind, disposition, csv) = download(&app, "/api/leads/export?format=csv&sort=name_asc", &viewer).await;
    assert_eq!(status, StatusCode::OK, "{csv}");
    assert!(kind.starts_with("text/csv") && disposition.starts_with("attachment") && disposition.contains(".csv"), "{kind} {disposition}");
    assert!(csv.starts_with("\u{feff}Name,Email,Phone,Company,Status,Priority,Score,"), "BOM and header: {:?}", &csv[..40]);
    let records = csv.split("\r\n").filter(|r| !r.is_empty()).count();
    assert_eq!(records, 1 + 1202, "the header and every lead (a line break inside quotes is no record end)");
    assert!(csv.contains("\"'=HYPERLINK(\"\"http://x.example\"\",\"\"click\"\")\""), "a formula is neutralised and quoted");
    assert!(csv.contains(",'+44 1,\"Smith, Jones & \"\"Co\"\"\",qualified,"), "{}", &csv[..400]);
    assert!(csv.contains("\"line one\nline two\""));
    assert!(csv.contains("Zoë Ü,zoe@x.example"), "UTF-8 kept");
    // Names in order across the stream's pages, each lead once.
    let (_, _, _, json_text) = download(&app, "/api/leads/export?format=json&sort=name_asc", &viewer).await;
    let all: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    let list = all.as_array().unwrap();
    assert_eq!(list.len(), 1202);
    let ids: std::collections::HashSet<&str> = list.iter().map(|l| l["_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 1202, "no lead twice");
    let keys: Vec<String> = list.iter().map(|l| parley_store::fold::fold(l["name"].as_str().unwrap_or(""))).collect();
    if backend == parley_store::Backend::Sqlite {
        // PostgreSQL compares the folded names by the database's collation, not by bytes.
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "sorted A-Z");
    }
    for sort in ["newest", "oldest", "score_high", "score_low", "name_desc"] {
        let (_, _, _, text) = download(&app, &format!("/api/leads/export?format=json&sort={sort}"), &owner).await;
        let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        let ids: std::collections::HashSet<String> = list.iter().map(|l| l["_id"].as_str().unwrap().to_string()).collect();
        assert_eq!((list.len(), ids.len()), (1202, 1202), "{sort}: every lead once");
    }

    // The list's filters, and a selection.
    let (_, _, _, text) = download(&app, "/api/leads/export?format=json&status=qualified&q=hyperlink", &owner).await;
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert_eq!((list.len(), list[0]["tags"].clone()), (1, json!(["a", "b"])));
    let (_, _, _, text) = download(&app, &format!("/api/leads/export?format=csv&ids={}", evil["_id"].as_str().unwrap()), &owner).await;
    assert_eq!(text.split("\r\n").filter(|r| !r.is_empty()).count(), 1 + 1, "the header and the one selected lead");

    // Refusals.
    let (status, _, _, body) = download(&app, "/api/leads/export?format=xml", &owner).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body.contains("Format must be csv or json"));
    assert_eq!(download(&app, &format!("/api/leads/export?format=csv&botId={bot}"), &stranger).await.0, StatusCode::NOT_FOUND);
    let (_, _, _, nothing) = download(&app, "/api/leads/export?format=json", &stranger).await;
    assert_eq!(nothing, "[]");
}

async fn the_team_hears_of_a_new_lead_live(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| s.billing.default_plan = "enterprise".into()).await;
    let (owner, _) = app.signup("owner@x.co").await;
    let (stranger, _) = app.signup("stranger@x.co").await;
    let bot = app.create_bot(&owner, "Shop").await;
    let viewer = app.member(&bot, "owner@x.co", "viewer@x.co", Role::Viewer).await;
    // Connected, on no particular screen: no join of any kind.
    let mut member_socket = SioClient::connect(&app, json!({"token": viewer})).await;
    let mut stranger_socket = SioClient::connect(&app, json!({"token": stranger})).await;

    let (status, chat) = app
        .post_json("/api/chat", None, json!({"botId": bot, "message": "Hi", "leadData": {"name": "Vic", "email": "vic@v.example"}}))
        .await;
    assert_eq!(status, StatusCode::OK, "{chat}");
    let lead_id = app.get("/api/leads", Some(&owner)).await.1["leads"][0]["_id"].as_str().unwrap().to_string();
    let heard = tokio::time::timeout(std::time::Duration::from_secs(10), member_socket.wait_for("lead-captured")).await.expect("lead-captured");
    assert_eq!(heard, json!({"botId": bot, "leadId": lead_id}));

    // Another team's member hears nothing (an ack round trip collects whatever was sent first).
    stranger_socket.emit_with_ack("update-agent-status", json!({"status": "online"})).await;
    assert!(!stranger_socket.events.iter().any(|(name, _)| name == "lead-captured"), "{:?}", stranger_socket.events);
}
