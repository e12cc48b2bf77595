//! The few calls Parley makes to Stripe's REST API, in Stripe's documented protocol: form-encoded
//! bodies (`items[0][price]=…`), the secret key as a bearer token, JSON answers, errors as
//! `{"error": {"type", "code", "message"}}`. The API base comes from the settings, so localstripe
//! can stand in for Stripe in tests.
//!
//! Not the `async-stripe` crate: its generated types (`async-stripe-shared` alone is ~240,000
//! lines, compiled whatever features are chosen) cost minutes of build on every clean build
//! for four calls; see the README's billing section.

use std::time::Duration;

use parley_config::StripeSettings;
use serde_json::Value;

/// Parley reads the objects in this API version's shapes (`latest_invoice.payment_intent`,
/// `current_period_end` on the subscription); pinning it keeps an account's default version
/// from changing them under us.
pub const API_VERSION: &str = "2024-06-20";

/// Stripe answers within seconds; a call hanging longer fails the user's click, not the server.
const TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug)]
pub enum StripeError {
    /// Stripe was not reached, or its answer was not JSON.
    Transport(String),
    /// Stripe answered with an error (`status`, and its `message`, which never holds the key).
    Api { status: u16, code: Option<String>, message: String },
    /// Stripe answered, but without a field Parley needs.
    Shape(String),
}

impl std::fmt::Display for StripeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StripeError::Transport(e) => write!(f, "Stripe not reached: {e}"),
            StripeError::Api { status, code, message } => write!(f, "Stripe answered {status} ({}): {message}", code.as_deref().unwrap_or("-")),
            StripeError::Shape(e) => write!(f, "unexpected answer from Stripe: {e}"),
        }
    }
}

pub struct Stripe<'a> {
    http: &'a reqwest::Client,
    base: String,
    secret_key: &'a str,
}

/// A form body in Stripe's bracket notation, in order.
pub type Form = Vec<(String, String)>;

pub fn field(key: &str, value: impl Into<String>) -> (String, String) {
    (key.to_string(), value.into())
}

impl<'a> Stripe<'a> {
    pub fn new(http: &'a reqwest::Client, settings: &'a StripeSettings) -> Self {
        Stripe { http, base: settings.api_base.trim_end_matches('/').to_string(), secret_key: settings.secret_key.trim() }
    }

    /// `POST /v1/{path}`. `idempotency`: Stripe answers a repeated key with the first result
    /// (a double click makes one customer, not two).
    pub async fn post(&self, path: &str, form: &Form, idempotency: Option<&str>) -> Result<Value, StripeError> {
        let mut req = self.http.post(format!("{}/v1/{path}", self.base)).form(form);
        if let Some(key) = idempotency {
            req = req.header("Idempotency-Key", key);
        }
        self.send(req).await
    }

    /// `GET /v1/{path}` with query parameters.
    pub async fn get(&self, path: &str, query: &Form) -> Result<Value, StripeError> {
        self.send(self.http.get(format!("{}/v1/{path}", self.base)).query(query)).await
    }

    /// `DELETE /v1/{path}`.
    pub async fn delete(&self, path: &str) -> Result<Value, StripeError> {
        self.send(self.http.delete(format!("{}/v1/{path}", self.base))).await
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> Result<Value, StripeError> {
        let res = req
            .bearer_auth(self.secret_key)
            .header("Stripe-Version", API_VERSION)
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(|e| StripeError::Transport(e.without_url().to_string()))?;
        let status = res.status();
        let body: Value = res.json().await.map_err(|e| StripeError::Transport(format!("answer not JSON ({status}): {e}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let error = body.get("error");
        let text = |key: &str| error.and_then(|e| e.get(key)).and_then(Value::as_str).map(str::to_string);
        Err(StripeError::Api { status: status.as_u16(), code: text("code"), message: text("message").unwrap_or_else(|| "no message".into()) })
    }
}

/// A string at `path` in a JSON answer.
pub fn text(v: &Value, path: &[&str]) -> Option<String> {
    let mut at = v;
    for key in path {
        at = at.get(key)?;
    }
    at.as_str().map(str::to_string)
}

/// The client secret of the first payment of a subscription created with
/// `expand[]=latest_invoice.payment_intent`: on the payment intent in the pinned API version,
/// on the invoice's `confirmation_secret` in newer ones.
pub fn first_payment_secret(subscription: &Value) -> Option<String> {
    text(subscription, &["latest_invoice", "payment_intent", "client_secret"])
        .or_else(|| text(subscription, &["latest_invoice", "confirmation_secret", "client_secret"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_payment_secret_is_read_in_either_api_shape() {
        let old = json!({"latest_invoice": {"payment_intent": {"client_secret": "pi_1_secret_a"}}});
        let new = json!({"latest_invoice": {"confirmation_secret": {"client_secret": "pi_2_secret_b"}}});
        assert_eq!(first_payment_secret(&old).as_deref(), Some("pi_1_secret_a"));
        assert_eq!(first_payment_secret(&new).as_deref(), Some("pi_2_secret_b"));
        assert_eq!(first_payment_secret(&json!({"latest_invoice": "in_1"})), None);
    }
}
