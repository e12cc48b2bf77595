//! Signed tokens: a member's session (`kind = "user"`) and, later, a visitor's chat token
//! (`kind = "visitor"`, bound to one bot and session). Both HS256 with the server's secret.

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use parley_store::models::User;
use serde::{Deserialize, Serialize};

use super::caller::{Caller, CallerError};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub kind: String,
    pub iat: i64,
    pub exp: i64,
    /// For visitor tokens: the bot the session belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// For user tokens: the user's token version when it was issued. A password change or
    /// reset raises the version, and every token carrying an older one is refused.
    #[serde(default)]
    pub ver: i32,
    /// For user tokens issued by a Google or GitHub sign-in: that provider. With `iat`, it
    /// tells a fresh sign-in through a linked provider, which is how an account without a
    /// password confirms it is its owner (see `fresh_provider_sign_in`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// For user tokens: the session this token is, so that signing out can end it alone (see
    /// `Store::sign_out_session`). Tokens issued before sessions had ids carry none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
}

/// The kind of a sign-in waiting for its second factor.
pub const TWO_FACTOR_KIND: &str = "two_factor";
/// How long a person has to type the code once their password was accepted.
pub const TWO_FACTOR_CHALLENGE_SECS: i64 = 300;

/// Clock skew a token's expiry is given.
pub const LEEWAY_SECS: u64 = 5;

#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    ttl_secs: i64,
}

impl TokenKeys {
    pub fn new(secret: &str, ttl_hours: u64) -> TokenKeys {
        TokenKeys {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            ttl_secs: i64::try_from(ttl_hours.saturating_mul(3600)).unwrap_or(i64::MAX / 2),
        }
    }

    /// A session for `user`, bound to their current token version.
    pub fn issue_user(&self, user: &User) -> ApiResult<String> {
        self.encode(user.id.as_str(), "user", None, user.token_version, None, self.ttl_secs)
    }

    /// A session for `user` who just signed in through `provider` (its slug).
    pub fn issue_user_via(&self, user: &User, provider: &str) -> ApiResult<String> {
        self.encode(user.id.as_str(), "user", None, user.token_version, Some(provider), self.ttl_secs)
    }

    /// A sign-in half done: `user` passed the first factor (their password, or the provider
    /// `via`) and must still give a code. Worth nothing as a session; expires in minutes, and
    /// with a password change like a session.
    pub fn issue_two_factor_challenge(&self, user: &User, via: Option<&str>) -> ApiResult<String> {
        self.encode(user.id.as_str(), TWO_FACTOR_KIND, None, user.token_version, via, TWO_FACTOR_CHALLENGE_SECS)
    }

    pub fn issue(&self, subject: &str, kind: &str, bot: Option<&str>) -> ApiResult<String> {
        self.encode(subject, kind, bot, 0, None, self.ttl_secs)
    }

    fn encode(&self, subject: &str, kind: &str, bot: Option<&str>, ver: i32, via: Option<&str>, ttl_secs: i64) -> ApiResult<String> {
        let now = chrono::Utc::now().timestamp();
        let sid = (kind == "user").then(parley_store::new_id);
        let claims = Claims {
            sub: subject.to_string(),
            kind: kind.to_string(),
            iat: now,
            exp: now.saturating_add(ttl_secs),
            bot: bot.map(str::to_string),
            ver,
            via: via.map(str::to_string),
            sid,
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(ApiError::internal)
    }

    /// The user a session token stands for: valid, unexpired, not signed out, and issued
    /// since the user's last password change or reset. `None` for anything else.
    pub async fn user_of(&self, store: &parley_store::Store, token: &str) -> ApiResult<Option<User>> {
        let Some(claims) = self.verify(token, "user") else { return Ok(None) };
        let found = store.user_of_session(&claims.sub, claims.sid.as_deref()).await?;
        Ok(found.filter(|(u, signed_out)| !signed_out && u.token_version == claims.ver).map(|(u, _)| u))
    }

    /// True when `token` is a session of `user_id` that a sign-in through Google or GitHub
    /// issued at most `within` ago: the person at the keyboard just proved to the provider
    /// linked to the account that it is theirs.
    pub fn fresh_provider_sign_in(&self, token: &str, user_id: &str, within: chrono::Duration) -> bool {
        let Some(claims) = self.verify(token, "user") else { return false };
        let age = chrono::Utc::now().timestamp().saturating_sub(claims.iat);
        claims.sub == user_id && claims.via.is_some() && (0..=within.num_seconds()).contains(&age)
    }

    /// The claims of a valid, unexpired token of the given kind.
    pub fn verify(&self, token: &str, kind: &str) -> Option<Claims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = LEEWAY_SECS;
        let data = decode::<Claims>(token, &self.decoding, &validation).ok()?;
        (data.claims.kind == kind).then_some(data.claims)
    }
}

/// The signed-in member making the request. Missing, malformed, expired or revoked (the user
/// no longer exists, or changed their password since) tokens are all 401.
pub struct AuthUser(pub User);

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let bearer = super::caller::bearer(req).map(str::to_string);
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::internal("app state missing"))?;
            match Caller::identify(&state, bearer.as_deref(), None).await? {
                Caller::Member(user) => Ok(AuthUser(user)),
                Caller::Visitor(_) => Err(CallerError::Missing.into()),
            }
        })
    }
}
