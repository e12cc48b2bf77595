//! Hardening finding 8, on both backends: a multipart request is bounded as a whole and holds
//! only the fields its form names, once each; replaced and deleted pictures and PDFs leave the
//! disk; and a user's uploads have a quota.

mod support;

use std::path::{Path, PathBuf};

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use support::{message, TestApp};

on_both_backends!(
    a_form_is_bounded_as_a_whole_and_refuses_unknown_or_repeated_fields,
    replaced_and_deleted_files_leave_the_disk,
    a_users_uploads_have_a_quota,
);

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn png(extra: usize) -> Vec<u8> {
    let mut bytes = PNG.to_vec();
    bytes.resize(PNG.len() + extra, 0);
    bytes
}

fn pdf(size: usize) -> Vec<u8> {
    let mut bytes = b"%PDF-1.4\n".to_vec();
    bytes.resize(size, b' ');
    bytes
}

/// Every file under the uploads directory, as paths relative to it.
fn files_on_disk(data_dir: &Path) -> Vec<PathBuf> {
    let root = data_dir.join("uploads");
    let mut found = Vec::new();
    for kind in ["public", "private"] {
        if let Ok(entries) = std::fs::read_dir(root.join(kind)) {
            found.extend(entries.flatten().map(|e| PathBuf::from(kind).join(e.file_name())));
        }
    }
    found.sort();
    found
}

fn enterprise(s: &mut parley_config::Settings) {
    s.billing.default_plan = "enterprise".into();
}

async fn a_form_is_bounded_as_a_whole_and_refuses_unknown_or_repeated_fields(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        enterprise(s);
        // Each field fits its own cap; together they do not.
        s.uploads.max_form_bytes = 3 * 1024 * 1024;
    })
    .await;
    let (token, _) = app.signup("o@x.co").await;
    let cases = [
        (
            Form::new().text("name", "A").text("faqMethod", "upload").part("faqFile", Part::bytes(pdf(2 * 1024 * 1024)).file_name("a.pdf")).part("icon", Part::bytes(png(1024 * 1024 + 10)).file_name("i.png")),
            413,
            "The upload is too large (the limit is 3 MB per request)",
        ),
        (Form::new().text("name", "A").text("faqMethod", "skip").text("padding", "x"), 400, "Unexpected form field: padding"),
        (Form::new().text("name", "A").text("name", "B"), 400, "Field name was sent more than once"),
        (Form::new().text("name", "A").part("icon", Part::bytes(png(10)).file_name("a.png")).part("icon", Part::bytes(png(10)).file_name("b.png")), 400, "Field icon was sent more than once"),
    ];
    for (form, status, said) in cases {
        let (got, body) = app.post_form("/api/bots", &token, form).await;
        assert_eq!((got.as_u16(), message(&body)), (status, said), "{body}");
    }
    let (_, list) = app.get("/api/bots", Some(&token)).await;
    assert_eq!(list["bots"].as_array().map(Vec::len), Some(0), "refused forms created nothing");
    assert!(files_on_disk(&app.settings.data_dir).is_empty(), "refused forms wrote nothing");

    // The one-field forms too: an avatar with a second part is refused.
    let form = Form::new().part("avatar", Part::bytes(png(10)).file_name("a.png")).text("other", "x");
    let (status, body) = app.post_form("/api/me/avatar", &token, form).await;
    assert_eq!((status, message(&body)), (StatusCode::BAD_REQUEST, "Unexpected form field: other"));
}

async fn replaced_and_deleted_files_leave_the_disk(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, enterprise).await;
    let (token, _) = app.signup("o@x.co").await;
    let data_dir = app.settings.data_dir.clone();
    let form = Form::new().text("name", "Pictured").text("faqMethod", "upload").part("faqFile", Part::bytes(pdf(2000)).file_name("faq.pdf")).part("icon", Part::bytes(png(1)).file_name("i.png"));
    let (status, body) = app.post_form("/api/bots", &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let bot = body["bot"]["_id"].as_str().unwrap().to_string();
    let first_icon = body["bot"]["icon"].as_str().unwrap().to_string();
    let form = Form::new().part("file", Part::bytes(pdf(3000)).file_name("more.pdf"));
    let (status, body) = app.post_form(&format!("/api/bots/{bot}/sources/pdf"), &token, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(files_on_disk(&data_dir).len(), 3, "an icon and two PDFs");

    // A new icon replaces the old one's file.
    let (status, body) = app.post_form(&format!("/api/bots/{bot}/icon"), &token, Form::new().part("icon", Part::bytes(png(2)).file_name("j.png"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let second_icon = body["bot"]["icon"].as_str().unwrap().to_string();
    assert_ne!(first_icon, second_icon);
    let first_name = first_icon.trim_start_matches("/uploads/public/");
    assert!(!files_on_disk(&data_dir).iter().any(|f| f.ends_with(first_name)), "the old icon's file is gone");
    assert_ne!(app.client.get(app.url(&first_icon)).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(files_on_disk(&data_dir).len(), 3);

    // So does a new avatar.
    let avatar = |bytes: Vec<u8>| Form::new().part("avatar", Part::bytes(bytes).file_name("me.png"));
    let (_, first) = app.post_form("/api/me/avatar", &token, avatar(png(3))).await;
    let (_, second) = app.post_form("/api/me/avatar", &token, avatar(png(4))).await;
    assert_ne!(first["profilePicture"], second["profilePicture"]);
    assert_eq!(files_on_disk(&data_dir).len(), 4, "the icon, two PDFs and one avatar");

    // Deleting the bot deletes its files; the owner's avatar stays.
    let (status, _) = app.delete(&format!("/api/bots/{bot}"), Some(&token)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let left = files_on_disk(&data_dir);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(second["profilePicture"].as_str().unwrap().ends_with(left[0].file_name().unwrap().to_str().unwrap()));
}

async fn a_users_uploads_have_a_quota(backend: parley_store::Backend) {
    let app = TestApp::spawn_with(backend, |s| {
        enterprise(s);
        s.uploads.quota_bytes_per_user = 10_000;
    })
    .await;
    let (owner, _) = app.signup("o@x.co").await;
    let form = Form::new().text("name", "Full").text("faqMethod", "upload").part("faqFile", Part::bytes(pdf(6000)).file_name("a.pdf"));
    let (status, body) = app.post_form("/api/bots", &owner, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let bot = body["bot"]["_id"].as_str().unwrap().to_string();
    let before = files_on_disk(&app.settings.data_dir);

    let full = "The storage for uploaded files is full (the limit is 1 MB). Delete some files and try again.";
    let form = Form::new().part("file", Part::bytes(pdf(5000)).file_name("b.pdf"));
    let (status, body) = app.post_form(&format!("/api/bots/{bot}/sources/pdf"), &owner, form).await;
    assert_eq!((status, message(&body)), (StatusCode::PAYLOAD_TOO_LARGE, full));
    let (status, body) = app.post_form("/api/me/avatar", &owner, Form::new().part("avatar", Part::bytes(png(4500)).file_name("me.png"))).await;
    assert_eq!((status, message(&body)), (StatusCode::PAYLOAD_TOO_LARGE, full));
    let form = Form::new().text("name", "Another").text("faqMethod", "upload").part("faqFile", Part::bytes(pdf(4500)).file_name("c.pdf"));
    let (status, body) = app.post_form("/api/bots", &owner, form).await;
    assert_eq!((status, message(&body)), (StatusCode::PAYLOAD_TOO_LARGE, full));
    assert_eq!(files_on_disk(&app.settings.data_dir), before, "refused uploads wrote nothing");
    let (_, list) = app.get("/api/bots", Some(&owner)).await;
    assert_eq!(list["bots"].as_array().map(Vec::len), Some(1));

    // What fits still goes in; another user has their own quota.
    let form = Form::new().part("file", Part::bytes(pdf(3000)).file_name("d.pdf"));
    let (status, body) = app.post_form(&format!("/api/bots/{bot}/sources/pdf"), &owner, form).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (other, _) = app.signup("p@x.co").await;
    let (status, _) = app.post_form("/api/me/avatar", &other, Form::new().part("avatar", Part::bytes(png(4500)).file_name("me.png"))).await;
    assert_eq!(status, StatusCode::OK);
}

/// Found by `tests/fuzz_decoders.rs`: actix-multipart's parser panics on a one-byte boundary,
/// which took down the worker serving the request. Such a form is refused before it is read,
/// and the server goes on answering.
#[actix_web::test]
async fn a_one_byte_multipart_boundary_is_refused_not_a_crash() {
    let app = TestApp::spawn(parley_store::Backend::Sqlite).await;
    let (token, _) = app.signup("boundary@x.co").await;
    for _ in 0..3 {
        let res = app
            .client
            .post(app.url("/api/me/avatar"))
            .bearer_auth(&token)
            .header("Content-Type", "multipart/form-data; boundary=_")
            .body("-\r\n-\r\n--_\r\n")
            .send()
            .await
            .expect("an answer, not a dropped connection");
        assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    }
    assert_eq!(app.get("/api/health", None).await.0, StatusCode::OK);
}
