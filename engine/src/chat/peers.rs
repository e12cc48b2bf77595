//! What an actor needs of the other actors, without naming them: the registry implements it,
//! and is the only module that knows both actor types.

use super::events::ServerEvent;
use super::messages::AgentAssigned;
use super::types::ConnId;

pub trait Peers: Send + Sync {
    /// Tells the bot's online agents (starting the bot's actor if it is not running).
    fn tell_bot_agents(&self, bot_id: &str, event: ServerEvent);
    /// Tells the bot's online agents but the connections in `told` (already told by the session).
    fn tell_other_bot_agents(&self, bot_id: &str, event: ServerEvent, told: Vec<ConnId>);
    /// Hands the winner of a take to the session (starting its actor from the store if needed).
    fn assign_agent(&self, session_id: String, assigned: AgentAssigned);
    /// Forgets a session actor if `instance` is still the registered one; true if it was.
    fn retire_session(&self, id: &str, instance: u64) -> bool;
    /// Forgets a bot actor if `instance` is still the registered one; true if it was.
    fn retire_bot(&self, id: &str, instance: u64) -> bool;
}
