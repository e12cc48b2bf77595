//! Live chat: an actor per session (its state machine and turn queue), an actor per bot (its
//! online agents and the take decisions), a registry that starts and forgets them, and the
//! `Engine` handle the transports call (`service.rs`). The actors know each other only through
//! `messages.rs` and the `Peers` trait, which the registry implements.

pub mod alias;
pub mod bot;
pub mod brain;
pub mod directory;
pub mod events;
pub mod messages;
pub mod peers;
pub mod registry;
pub mod resends;
pub mod service;
pub mod session;
pub mod types;

pub use brain::{BotReply, Brain, BrainError, ReplyRequest};
pub use directory::BotInfo;
pub use service::Engine;
pub use types::{ConnId, Connection, EngineError, EngineSettings, SupportAsked, TurnOutcome, VisitorMessage, Who, AGENT_TEXT_CHARS, BUSY};
pub use events::{Outgoing, ServerEvent, Sink};

/// The bubble a visitor sees when a reply could not be made (spec 2 §8).
pub const ERROR_REPLY: &str = "Sorry, I encountered an error processing your request.";
