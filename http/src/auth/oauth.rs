//! Google and GitHub sign-in: the authorization-code flow with PKCE and a checked `state`,
//! through the oauth2 crate. Provider endpoints come from config, so a local provider can
//! stand in for tests with the same code path.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use parley_config::OAuthProvider;
use parley_store::users::ExternalIdentity;
use serde::Deserialize;

use crate::error::{ApiError, ApiResult};

/// How long a started sign-in may take before its state is forgotten.
pub(crate) const FLOW_TTL: Duration = Duration::from_secs(600);

/// What a callback hears when its state is unknown, expired, used, or not this browser's.
pub const FLOW_EXPIRED: &str = "This sign-in link has expired or was already used. Please try again.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Google,
    Github,
}

impl Provider {
    pub fn parse(s: &str) -> Option<Provider> {
        match s {
            "google" => Some(Provider::Google),
            "github" => Some(Provider::Github),
            _ => None,
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Provider::Google => "google",
            Provider::Github => "github",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Provider::Google => "Google",
            Provider::Github => "GitHub",
        }
    }
}

struct PendingFlow {
    provider: Provider,
    verifier: String,
    started: Instant,
}

/// Sign-ins under way, keyed by their `state` value. One node's memory: a flow must finish on
/// the node that started it (true for a single node; a shared store comes with scale-out).
#[derive(Default)]
pub struct PendingFlows(Mutex<HashMap<String, PendingFlow>>);

/// The most sign-ins kept under way at once. Each start is also counted against its address's
/// sign-in budget; this bounds the memory however many addresses start them.
const MAX_PENDING_FLOWS: usize = 10_000;

impl PendingFlows {
    /// False when the table is full of sign-ins still under way. The expired are swept only
    /// then, so a start costs no walk of the table.
    fn insert(&self, state: String, flow: PendingFlow) -> bool {
        let Ok(mut map) = self.0.lock() else { return false };
        if map.len() >= MAX_PENDING_FLOWS {
            map.retain(|_, f| f.started.elapsed() < FLOW_TTL);
        }
        if map.len() >= MAX_PENDING_FLOWS {
            return false;
        }
        map.insert(state, flow);
        true
    }

    fn take(&self, state: &str) -> Option<PendingFlow> {
        let mut map = self.0.lock().ok()?;
        map.remove(state).filter(|f| f.started.elapsed() < FLOW_TTL)
    }
}

fn redirect_url(base: &str, provider: Provider) -> String {
    format!("{base}/api/auth/{}/callback", provider.slug())
}

fn parse_url<T>(raw: &str, make: impl FnOnce(String) -> Result<T, url::ParseError>) -> ApiResult<T> {
    make(raw.to_string()).map_err(|e| ApiError::internal(format!("oauth endpoint {raw:?}: {e}")))
}

/// The provider's authorization URL for a new sign-in, and its `state` (for the browser's
/// flow cookie); the state and verifier are remembered for the callback.
pub fn start(
    provider: Provider,
    config: &OAuthProvider,
    public_base: &str,
    flows: &PendingFlows,
) -> ApiResult<(String, String)> {
    if !config.is_configured() {
        return Err(ApiError::unavailable(format!("{} sign-in is not configured", provider.label())));
    }
    let client = BasicClient::new(ClientId::new(config.client_id.clone()))
        .set_client_secret(ClientSecret::new(config.client_secret.clone()))
        .set_auth_uri(parse_url(&config.auth_url, AuthUrl::new)?)
        .set_token_uri(parse_url(&config.token_url, TokenUrl::new)?)
        .set_redirect_uri(parse_url(&redirect_url(public_base, provider), RedirectUrl::new)?);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut request = client.authorize_url(CsrfToken::new_random).set_pkce_challenge(challenge);
    for scope in config.scopes.split_whitespace() {
        request = request.add_scope(Scope::new(scope.to_string()));
    }
    let (url, state) = request.url();
    let kept = flows.insert(
        state.secret().clone(),
        PendingFlow { provider, verifier: verifier.secret().clone(), started: Instant::now() },
    );
    if !kept {
        return Err(ApiError::unavailable("Too many sign-ins are under way right now. Please try again in a minute."));
    }
    Ok((url.to_string(), state.secret().clone()))
}

/// Finishes a sign-in: checks the state, trades the code for a token and reads who the
/// person is from the provider.
pub async fn finish(
    provider: Provider,
    config: &OAuthProvider,
    public_base: &str,
    flows: &PendingFlows,
    http: &reqwest::Client,
    code: &str,
    state: &str,
) -> ApiResult<ExternalIdentity> {
    if !config.is_configured() {
        return Err(ApiError::unavailable(format!("{} sign-in is not configured", provider.label())));
    }
    let flow = flows
        .take(state)
        .filter(|f| f.provider == provider)
        .ok_or_else(|| ApiError::bad_request(FLOW_EXPIRED))?;
    let client = BasicClient::new(ClientId::new(config.client_id.clone()))
        .set_client_secret(ClientSecret::new(config.client_secret.clone()))
        .set_auth_uri(parse_url(&config.auth_url, AuthUrl::new)?)
        .set_token_uri(parse_url(&config.token_url, TokenUrl::new)?)
        .set_redirect_uri(parse_url(&redirect_url(public_base, provider), RedirectUrl::new)?);
    let token = client
        .exchange_code(AuthorizationCode::new(code.to_string()))
        .set_pkce_verifier(PkceCodeVerifier::new(flow.verifier))
        .request_async(http)
        .await
        .map_err(|e| provider_error(provider, e))?;
    let access = token.access_token().secret();
    match provider {
        Provider::Google => google_identity(config, http, access).await,
        Provider::Github => github_identity(config, http, access).await,
    }
}

fn provider_error(provider: Provider, e: impl std::fmt::Display) -> ApiError {
    tracing::warn!("{} sign-in failed: {e}", provider.label());
    ApiError::new(
        actix_web::http::StatusCode::BAD_GATEWAY,
        "oauth_failed",
        format!("{} sign-in failed. Please try again.", provider.label()),
    )
}

async fn get_json<T: for<'de> Deserialize<'de>>(http: &reqwest::Client, url: &str, token: &str, provider: Provider) -> ApiResult<T> {
    http.get(url)
        .bearer_auth(token)
        .header(reqwest::header::USER_AGENT, "Parley")
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| provider_error(provider, e))?
        .json::<T>()
        .await
        .map_err(|e| provider_error(provider, e))
}

#[derive(Deserialize)]
struct GoogleUser {
    sub: String,
    email: Option<String>,
    /// A boolean from Google's OpenID userinfo (older endpoints sent the string "true").
    #[serde(default)]
    email_verified: Option<serde_json::Value>,
    name: Option<String>,
    picture: Option<String>,
}

/// Whether a userinfo's `email_verified` says yes. Absent counts as no: the address is trusted
/// to link an existing account, so only a provider that vouches for it may (a stand-in or an
/// enterprise provider that leaves the claim out signs in only with a verified address).
fn vouched(email_verified: Option<&serde_json::Value>) -> bool {
    match email_verified {
        Some(serde_json::Value::Bool(yes)) => *yes,
        Some(serde_json::Value::String(s)) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

async fn google_identity(config: &OAuthProvider, http: &reqwest::Client, token: &str) -> ApiResult<ExternalIdentity> {
    let user: GoogleUser = get_json(http, &config.userinfo_url, token, Provider::Google).await?;
    let email = user
        .email
        .filter(|_| vouched(user.email_verified.as_ref()))
        .ok_or_else(|| ApiError::bad_request("Your Google account has no verified email address"))?;
    Ok(ExternalIdentity {
        provider: "google".into(),
        subject: user.sub,
        name: user.name.unwrap_or_default(),
        email,
        picture: user.picture,
    })
}

#[derive(Deserialize)]
struct GithubUser {
    id: serde_json::Value,
    login: Option<String>,
    name: Option<String>,
    email: Option<String>,
    avatar_url: Option<String>,
}

#[derive(Deserialize)]
struct GithubEmail {
    email: String,
    primary: bool,
    verified: bool,
}

async fn github_identity(config: &OAuthProvider, http: &reqwest::Client, token: &str) -> ApiResult<ExternalIdentity> {
    let user: GithubUser = get_json(http, &config.userinfo_url, token, Provider::Github).await?;
    let email = match user.email.filter(|e| !e.is_empty()) {
        Some(email) => email,
        None => {
            // A private email is only given by the emails endpoint.
            let url = format!("{}/emails", config.userinfo_url.trim_end_matches('/'));
            let emails: Vec<GithubEmail> = get_json(http, &url, token, Provider::Github).await?;
            emails
                .into_iter()
                .find(|e| e.primary && e.verified)
                .map(|e| e.email)
                .ok_or_else(|| ApiError::bad_request("Your GitHub account has no verified email address"))?
        }
    };
    let subject = match user.id {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    Ok(ExternalIdentity {
        provider: "github".into(),
        subject,
        name: user.name.or(user.login).unwrap_or_default(),
        email,
        picture: user.avatar_url,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(age: Duration) -> PendingFlow {
        PendingFlow { provider: Provider::Github, verifier: String::new(), started: Instant::now().checked_sub(age).unwrap() }
    }

    #[test]
    fn only_an_address_the_provider_vouches_for_counts() {
        use serde_json::json;
        for (claim, verified) in [(json!(true), true), (json!("true"), true), (json!(false), false), (json!("false"), false), (json!(1), false)] {
            assert_eq!(vouched(Some(&claim)), verified, "{claim}");
        }
        assert!(!vouched(None), "a provider that says nothing does not vouch");
    }

    #[test]
    fn pending_sign_ins_are_bounded_and_the_expired_make_room() {
        let flows = PendingFlows::default();
        for i in 0..MAX_PENDING_FLOWS {
            let age = if i % 2 == 0 { FLOW_TTL + Duration::from_secs(1) } else { Duration::ZERO };
            assert!(flows.insert(format!("s{i}"), flow(age)));
        }
        assert!(flows.insert("fresh".into(), flow(Duration::ZERO)), "the expired half is swept to make room");
        while flows.0.lock().unwrap().len() < MAX_PENDING_FLOWS {
            let n = flows.0.lock().unwrap().len();
            assert!(flows.insert(format!("more{n}"), flow(Duration::ZERO)));
        }
        assert!(!flows.insert("one too many".into(), flow(Duration::ZERO)), "full of sign-ins under way");
        assert!(flows.take("fresh").is_some());
    }
}
