//! A real, stateful local Stripe for the billing tests: localstripe (PyPI) through
//! `scripts/localstripe-server.py` (loopback, a free port, in-memory state, and the parts of
//! Stripe's subscription flow localstripe lacks; see that file). One per test, stopped on drop.
//! Its webhooks are signed with the endpoint's secret and POSTed to the server under test.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use parley_config::Settings;
use serde_json::{json, Value};

pub const SECRET_KEY: &str = "sk_test_parley";
pub const PUBLISHABLE_KEY: &str = "pk_test_parley";
pub const WEBHOOK_SECRET: &str = "whsec_parley_localstripe";
pub const MONTHLY: &str = "price_pro_monthly";
pub const YEARLY: &str = "price_pro_yearly";

/// Stripe's test cards: one that pays, one whose charges are declined (attaching it works).
pub const CARD_OK: &str = "4242424242424242";
pub const CARD_DECLINED: &str = "4000000000000341";

pub struct LocalStripe {
    pub base: String,
    client: reqwest::Client,
    child: Child,
}

impl Drop for LocalStripe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl LocalStripe {
    /// Starts localstripe with the two Pro prices (as plans: localstripe has no Price object).
    pub async fn start() -> LocalStripe {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/localstripe-server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg("0")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs scripts/localstripe-server.py");
        let stdout = child.stdout.take().expect("stdout");
        let line = tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            BufReader::new(stdout).read_line(&mut line).map(|_| line)
        });
        let line = tokio::time::timeout(Duration::from_secs(30), line).await.expect("localstripe starts within 30 s").unwrap().unwrap();
        let base = line
            .trim()
            .strip_prefix("localstripe listening on ")
            .unwrap_or_else(|| panic!("localstripe did not start ({line:?}): `pip install localstripe` (scripts/test-env.sh does)"))
            .to_string();
        let ls = LocalStripe { base, client: reqwest::Client::new(), child };
        ls.post("products", &[("id", "prod_parley_pro"), ("name", "Parley Pro"), ("type", "service")]).await;
        for (id, amount, interval) in [(MONTHLY, "2900", "month"), (YEARLY, "27840", "year")] {
            ls.post("plans", &[("id", id), ("product", "prod_parley_pro"), ("amount", amount), ("currency", "usd"), ("interval", interval)]).await;
        }
        ls
    }

    /// The server's Stripe settings pointing here.
    pub fn configure(&self, s: &mut Settings) {
        s.stripe.secret_key = SECRET_KEY.into();
        s.stripe.publishable_key = PUBLISHABLE_KEY.into();
        s.stripe.webhook_secret = WEBHOOK_SECRET.into();
        s.stripe.api_base = self.base.clone();
        s.stripe.js_url = format!("{}/js.stripe.com/v3/", self.base);
        s.stripe.price_pro_monthly = MONTHLY.into();
        s.stripe.price_pro_yearly = YEARLY.into();
    }

    /// Sends every event to `url`, signed with `WEBHOOK_SECRET` (localstripe's `/_config/webhooks`).
    pub async fn deliver_to(&self, url: &str) {
        let res = self.client.post(format!("{}/_config/webhooks/parley", self.base)).form(&[("url", url), ("secret", WEBHOOK_SECRET)]).send().await.unwrap();
        assert!(res.status().is_success(), "webhook registration: {}", res.status());
    }

    /// Delivers `event` to `url` signed as localstripe signs its own deliveries (for an event
    /// Stripe would send late, out of order); the status and body.
    pub async fn deliver_signed(&self, url: &str, event: &Value) -> (reqwest::StatusCode, Value) {
        let body = serde_json::to_vec(event).unwrap();
        let at = chrono::Utc::now().timestamp();
        let header = format!("t={at},v1={}", parley_http::payments::signature::sign(WEBHOOK_SECRET, at, &body));
        let res = self.client.post(url).header("Stripe-Signature", header).header("Content-Type", "application/json").body(body).send().await.unwrap();
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// A call with the secret key that must succeed.
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Value {
        let (status, body) = self.try_post(path, form).await;
        assert!(status.is_success(), "POST /v1/{path}: {status} {body}");
        body
    }

    pub async fn try_post(&self, path: &str, form: &[(&str, &str)]) -> (reqwest::StatusCode, Value) {
        let res = self.client.post(format!("{}/v1/{path}", self.base)).bearer_auth(SECRET_KEY).form(form).send().await.unwrap();
        (res.status(), res.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> Value {
        let res = self.client.get(format!("{}/v1/{path}", self.base)).bearer_auth(SECRET_KEY).send().await.unwrap();
        assert!(res.status().is_success(), "GET /v1/{path}: {}", res.status());
        res.json().await.unwrap()
    }

    /// What Stripe.js's `confirmCardPayment(clientSecret, {payment_method: {card}})` does in the
    /// browser: confirms the payment intent with the typed card, the publishable key and the
    /// client secret. The status and body.
    pub async fn confirm_card(&self, client_secret: &str, number: &str) -> (reqwest::StatusCode, Value) {
        let intent = client_secret.split("_secret_").next().unwrap();
        let body = json!({
            "client_secret": client_secret,
            "payment_method_data": {"type": "card", "card": {"number": number, "exp_month": "12", "exp_year": "2034", "cvc": "123"}},
        });
        let res = self
            .client
            .post(format!("{}/v1/payment_intents/{intent}/confirm?key={PUBLISHABLE_KEY}", self.base))
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        (res.status(), res.json().await.unwrap_or(Value::Null))
    }

    /// A renewal whose card is declined: the customer's default card becomes a declining one,
    /// and the subscription's next invoice is made and paid (localstripe has no clock to
    /// advance). Stripe answers 402 and sends `invoice.payment_failed`.
    pub async fn fail_renewal(&self, customer: &str, subscription: &str) {
        let pm = self
            .post("payment_methods", &[("type", "card"), ("card[number]", CARD_DECLINED), ("card[exp_month]", "12"), ("card[exp_year]", "2034"), ("card[cvc]", "123")])
            .await;
        let pm = pm["id"].as_str().unwrap();
        self.post(&format!("payment_methods/{pm}/attach"), &[("customer", customer)]).await;
        self.post(&format!("customers/{customer}"), &[("invoice_settings[default_payment_method]", pm)]).await;
        let invoice = self.post("invoices", &[("customer", customer), ("subscription", subscription)]).await;
        let (status, body) = self.try_post(&format!("invoices/{}/pay", invoice["id"].as_str().unwrap()), &[]).await;
        assert_eq!(status, reqwest::StatusCode::PAYMENT_REQUIRED, "{body}");
    }
}
