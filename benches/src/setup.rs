//! What a scenario needs before it starts, made through Parley's REST API as a real owner
//! would: an account, a bot (optionally trained on Q&A pairs), and visitor conversations.

use std::time::Duration;

use serde_json::{json, Value};

use crate::Res;

pub struct Api {
    http: reqwest::Client,
    base: String,
}

/// A signed-in owner and their bot.
pub struct Owner {
    pub token: String,
    pub bot_id: String,
}

/// A visitor conversation: its id and the token that lets the visitor's socket in.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub session_id: String,
    pub visitor_token: String,
}

impl Api {
    pub fn new(base: &str) -> Res<Api> {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?;
        Ok(Api { http, base: base.trim_end_matches('/').to_string() })
    }

    async fn call(&self, method: reqwest::Method, path: &str, token: Option<&str>, body: Option<Value>) -> Res<Value> {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await?;
        let status = res.status();
        let body: Value = res.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(format!("{path}: {status} {body}").into());
        }
        Ok(body)
    }

    /// A new owner with one bot; rate limiting off (the harness sends faster than a person).
    pub async fn owner_with_bot(&self, tag: &str) -> Res<Owner> {
        let email = format!("bench-{tag}-{}@bench.example", std::process::id());
        let signed = self
            .call(
                reqwest::Method::POST,
                "/api/auth/signup",
                None,
                Some(json!({"email": email, "password": "bench-password-1", "confirmPassword": "bench-password-1", "name": "Bench Owner"})),
            )
            .await?;
        let token = signed["token"].as_str().ok_or("signup gave no token")?.to_string();
        let form = reqwest::multipart::Form::new().text("name", "Bench bot");
        let res = self.http.post(format!("{}/api/bots", self.base)).bearer_auth(&token).multipart(form).send().await?;
        let status = res.status();
        let created: Value = res.json().await?;
        if !status.is_success() {
            return Err(format!("create bot: {status} {created}").into());
        }
        let bot_id = created["bot"]["_id"].as_str().ok_or("create bot gave no id")?.to_string();
        self.call(reqwest::Method::PUT, &format!("/api/bots/{bot_id}"), Some(&token), Some(json!({"enableRateLimit": false})))
            .await?;
        Ok(Owner { token, bot_id })
    }

    /// Adds Q&A pairs and waits until every one is trained.
    pub async fn train_qa(&self, owner: &Owner, pairs: &[(String, String)]) -> Res<()> {
        for (q, a) in pairs {
            self.call(
                reqwest::Method::POST,
                &format!("/api/bots/{}/sources/qa", owner.bot_id),
                Some(&owner.token),
                Some(json!({"question": q, "answer": a})),
            )
            .await?;
        }
        for _ in 0..600 {
            let list = self.call(reqwest::Method::GET, &format!("/api/bots/{}/sources", owner.bot_id), Some(&owner.token), None).await?;
            let qa = list["qa"].as_array().cloned().unwrap_or_default();
            if qa.len() >= pairs.len() && qa.iter().all(|p| p["status"] == "completed") {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err("training did not complete within 60 s".into())
    }

    /// Starts a visitor conversation (its first message is answered by the bot).
    pub async fn conversation(&self, bot_id: &str, first_message: &str) -> Res<Conversation> {
        let r = self.call(reqwest::Method::POST, "/api/chat", None, Some(json!({"botId": bot_id, "message": first_message}))).await?;
        Ok(Conversation {
            session_id: r["sessionId"].as_str().ok_or("no sessionId")?.to_string(),
            visitor_token: r["visitorToken"].as_str().ok_or("no visitorToken")?.to_string(),
        })
    }
}
