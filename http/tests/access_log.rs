//! Hardening finding 5: the access log keeps no query string (Engine.IO `sid`, tokens in links).
//! One test in its own binary: it installs the process's `log` logger to read what is logged.

mod support;

use std::sync::Mutex;

use support::TestApp;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }

    fn log(&self, record: &log::Record) {
        LINES.lock().unwrap().push(format!("{}: {}", record.target(), record.args()));
    }

    fn flush(&self) {}
}

#[actix_web::test]
async fn the_access_log_has_paths_without_query_strings() {
    log::set_logger(&Capture).unwrap();
    log::set_max_level(log::LevelFilter::Info);
    let app = TestApp::spawn(parley_store::Backend::Sqlite).await;
    let secret_paths = [
        "/api/me?token=eyJ-secret-token",
        "/socket.io/?EIO=4&transport=polling&sid=secret-sid-123",
        "/reset-password?token=secret-reset-link",
    ];
    for path in secret_paths {
        app.client.get(app.url(path)).send().await.unwrap();
    }
    // The log line is written when the response body is done; give it a moment.
    let mut lines = Vec::new();
    for _ in 0..100 {
        lines = LINES.lock().unwrap().iter().filter(|l| l.contains("logger")).cloned().collect::<Vec<_>>();
        if lines.len() >= secret_paths.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(lines.iter().any(|l| l.contains("GET /api/me 401")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("GET /socket.io/ ")), "{lines:#?}");
    for line in &lines {
        assert!(!line.contains("secret") && !line.contains('?'), "a query string reached the log: {line}");
    }
}
