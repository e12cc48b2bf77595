//! Test harness: the real server from the one app factory, on a random port, over a fresh
//! SQLite file or a fresh PostgreSQL database, driven over HTTP like any client.
#![allow(dead_code)]

pub mod localstripe;
pub mod sio;
pub mod smtp;

use parley_config::Settings;
use parley_http::app::Application;
use parley_store::testing::TestDb;
use parley_store::{Backend, Role};
use reqwest::StatusCode;
use serde_json::{json, Value};

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub db: TestDb,
    pub settings: Settings,
    /// The running server's shared state (for driving background work such as a weekly
    /// report round at a chosen time).
    pub state: actix_web::web::Data<parley_http::state::AppState>,
    handle: actix_web::dev::ServerHandle,
}

/// Runs each listed test body once per backend.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[actix_web::test] async fn $name() { super::$name(parley_store::Backend::Sqlite).await } )* }
        mod postgres { $( #[actix_web::test] async fn $name() { super::$name(parley_store::Backend::Postgres).await } )* }
    };
}

pub fn settings_for(db: &TestDb) -> Settings {
    let mut settings = Settings::defaults().expect("defaults");
    settings.addr = "127.0.0.1:0".into();
    settings.data_dir = db.data_dir();
    settings.database_url = db.database_url.clone();
    settings.web.dashboard_dir = db.data_dir().join("no-dashboard");
    settings.web.widget_dir = db.data_dir().join("no-widget");
    // Tests that want the landing page's demo bot turn it on (api_demo.rs).
    settings.demo_bot = false;
    settings
}

impl TestApp {
    pub async fn spawn(backend: Backend) -> TestApp {
        Self::spawn_with(backend, |_| {}).await
    }

    pub async fn spawn_with(backend: Backend, tweak: impl FnOnce(&mut Settings)) -> TestApp {
        let db = TestDb::new(backend).await.expect("test database");
        let mut settings = settings_for(&db);
        tweak(&mut settings);
        Self::start(db, settings).await
    }

    async fn start(db: TestDb, settings: Settings) -> TestApp {
        let app = Application::build(settings.clone()).await.expect("app builds");
        let base = format!("http://127.0.0.1:{}", app.port());
        let handle = app.server_handle();
        let state = app.state();
        actix_web::rt::spawn(app.run_until_stopped());
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        TestApp { base, client, db, settings, state, handle }
    }

    /// Stops the server and starts a new one on the same data, as a restart would.
    pub async fn restart(self) -> TestApp {
        self.handle.stop(true).await;
        let TestApp { db, settings, .. } = self;
        Self::start(db, settings).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut req = self.client.post(self.url(path)).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        read(req.send().await.expect("request")).await
    }

    pub async fn put_json(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut req = self.client.put(self.url(path)).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        read(req.send().await.expect("request")).await
    }

    pub async fn patch_json(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut req = self.client.patch(self.url(path)).json(&body);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        read(req.send().await.expect("request")).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.client.get(self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        read(req.send().await.expect("request")).await
    }

    pub async fn delete(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut req = self.client.delete(self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        read(req.send().await.expect("request")).await
    }

    pub async fn post_form(&self, path: &str, token: &str, form: reqwest::multipart::Form) -> (StatusCode, Value) {
        let res = self.client.post(self.url(path)).bearer_auth(token).multipart(form).send().await.expect("request");
        read(res).await
    }

    /// Signs up and returns (token, user id).
    pub async fn signup(&self, email: &str) -> (String, String) {
        let (status, body) = self
            .post_json(
                "/api/auth/signup",
                None,
                json!({"email": email, "password": "password123", "confirmPassword": "password123", "name": "Test User"}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        (body["token"].as_str().expect("token").to_string(), body["user"]["_id"].as_str().expect("id").to_string())
    }

    /// Creates a bot through the wizard's form with only a name; returns its id.
    pub async fn create_bot(&self, token: &str, name: &str) -> String {
        let form = reqwest::multipart::Form::new().text("name", name.to_string()).text("faqMethod", "skip");
        let (status, body) = self.post_form("/api/bots", token, form).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["bot"]["_id"].as_str().expect("bot id").to_string()
    }

    /// Seats `email` (signed up already) on `bot`'s team with `role`: invited by the owner,
    /// accepted, active.
    pub async fn seat(&self, bot: &str, owner_email: &str, email: &str, role: Role) {
        let store = self.db.open().await.expect("store");
        let owner = store.user_by_email(owner_email).await.expect("owner lookup").expect("owner");
        let invite = store.invite_member(bot, email, role, &owner.id).await.expect("invite");
        let user = store.user_by_email(email).await.expect("member lookup").expect("member");
        store.respond_invitation(&invite.id, &user, true).await.expect("accept");
    }

    /// Signs `email` up and seats them on `bot` with `role`; returns their token.
    pub async fn member(&self, bot: &str, owner_email: &str, email: &str, role: Role) -> String {
        let (token, _) = self.signup(email).await;
        self.seat(bot, owner_email, email, role).await;
        token
    }
}

pub async fn read(res: reqwest::Response) -> (StatusCode, Value) {
    let status = res.status();
    let text = res.text().await.expect("body");
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
    (status, body)
}

/// The message of an API error body.
pub fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or("<no error message>")
}
