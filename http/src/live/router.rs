//! The live channel's events as (name, typed handler) pairs. A handler is an async function
//! of the event's context and its `Args<T>`; the router parses the arguments (refusing bad
//! input before the handler runs) and type-erases the rest.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::web;
use parley_engine::chat::EngineError;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::args::Args;
use super::conn::Live;
use crate::state::AppState;
use crate::views::acks::Reply;

/// What every handler gets besides its arguments: the app and the socket's live state.
pub(crate) struct Cx {
    pub state: web::Data<AppState>,
    pub live: Arc<Live>,
}

type Answer = Pin<Box<dyn Future<Output = Result<Reply, EngineError>> + Send>>;
pub(crate) type Handler = Box<dyn Fn(Cx, Vec<Value>) -> Answer + Send + Sync>;

/// The events a socket may send, each with its handler.
#[derive(Default)]
pub(crate) struct Router {
    events: Vec<(&'static str, Handler)>,
}

impl Router {
    /// Registers `handler` for `event`.
    pub fn on<T, F, Fut>(mut self, event: &'static str, handler: F) -> Router
    where
        T: DeserializeOwned + 'static,
        F: Fn(Cx, Args<T>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, EngineError>> + Send + 'static,
    {
        let erased: Handler = Box::new(move |cx, args| match Args::<T>::parse(args) {
            Ok(args) => Box::pin(handler(cx, args)),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        });
        self.events.push((event, erased));
        self
    }

    /// The handler of `event`, if it is one of ours.
    pub fn handler(&self, event: &str) -> Option<&Handler> {
        self.events.iter().find(|(name, _)| *name == event).map(|(_, handler)| handler)
    }
}
