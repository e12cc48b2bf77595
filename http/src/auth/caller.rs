//! Who is calling, on REST and on the live channel alike: a signed-in member (a bearer token)
//! or a visitor (the visitor token issued with their chat session, bound to one bot and one
//! session). Built in one place, so both transports trust exactly the same tokens.

use std::future::Future;
use std::pin::Pin;

use actix_web::{web, FromRequest, HttpRequest};
use parley_engine::chat::Who;
use parley_store::models::User;

use crate::error::ApiError;
use crate::state::AppState;

/// A visitor whose token verified: the session and bot it was issued for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visitor {
    pub session_id: String,
    pub bot_id: String,
}

/// The caller of a REST call or the owner of a socket.
#[derive(Debug, Clone)]
pub enum Caller {
    Member(User),
    Visitor(Visitor),
}

/// Why no caller could be made; each transport words it its own way.
#[derive(Debug)]
pub enum CallerError {
    /// No token at all.
    Missing,
    /// A member token that is malformed, expired or revoked.
    MemberExpired,
    /// A visitor token that does not verify (and no member token).
    VisitorExpired,
    /// The user could not be looked up.
    Store(ApiError),
}

impl Caller {
    /// The caller presenting these tokens: a visitor token that verifies, else the member token
    /// (which must then verify).
    pub async fn identify(state: &AppState, bearer: Option<&str>, visitor: Option<&str>) -> Result<Caller, CallerError> {
        if let Some(visitor) = visitor.and_then(|t| Caller::visitor(state, t)) {
            return Ok(Caller::Visitor(visitor));
        }
        match bearer {
            Some(token) => match state.tokens.user_of(&state.store, token).await {
                Ok(Some(user)) => Ok(Caller::Member(user)),
                Ok(None) => Err(CallerError::MemberExpired),
                Err(e) => Err(CallerError::Store(e)),
            },
            None if visitor.is_some() => Err(CallerError::VisitorExpired),
            None => Err(CallerError::Missing),
        }
    }

    /// The visitor a visitor token stands for, if it verifies.
    pub fn visitor(state: &AppState, token: &str) -> Option<Visitor> {
        let claims = state.tokens.verify(token, "visitor")?;
        Some(Visitor { session_id: claims.sub, bot_id: claims.bot? })
    }

    /// The engine's view of the caller.
    pub fn into_who(self) -> Who {
        match self {
            Caller::Member(user) => member(&user),
            Caller::Visitor(Visitor { session_id, bot_id }) => Who::Visitor { session_id, bot_id },
        }
    }
}

/// A member as the engine knows them: their id, and their name (the email when unnamed).
pub fn member(user: &User) -> Who {
    let name = if user.name.is_empty() { user.email.clone() } else { user.name.clone() };
    Who::Member { user_id: user.id.clone(), name }
}

/// The bearer token of a request (`Authorization: Bearer …`), if any.
pub fn bearer(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// The visitor token of a request (`X-Visitor-Token`), if any.
pub fn visitor_token(req: &HttpRequest) -> Option<&str> {
    req.headers().get("x-visitor-token").and_then(|v| v.to_str().ok())
}

impl From<CallerError> for ApiError {
    fn from(e: CallerError) -> ApiError {
        match e {
            CallerError::Missing => ApiError::unauthorized("Sign in to continue"),
            CallerError::MemberExpired => ApiError::unauthorized("Your session has expired, please sign in again"),
            CallerError::VisitorExpired => ApiError::unauthorized("This conversation has expired"),
            CallerError::Store(e) => e,
        }
    }
}

/// REST: `X-Visitor-Token` or `Authorization: Bearer`.
impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let bearer = bearer(req).map(str::to_string);
        let visitor = visitor_token(req).map(str::to_string);
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::internal("app state missing"))?;
            Ok(Caller::identify(&state, bearer.as_deref(), visitor.as_deref()).await?)
        })
    }
}
