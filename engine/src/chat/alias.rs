//! What a visitor is told in place of an agent's account id. The spec's `agent-joined` gives
//! the widget an `agentId`; an account id there would let any visitor collect the team's user
//! ids. The alias is the same for one agent throughout one session (a transfer shows as a
//! different agent) and means nothing outside it.

use sha2::{Digest, Sha256};

/// `agent-<16 hex>`: a hash of the session and the agent, so it names neither.
pub fn visitor_alias(session_id: &str, agent_id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"parley agent alias\0");
    hasher.update(session_id.as_bytes());
    hasher.update(b"\0");
    hasher.update(agent_id.as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("agent-{hex}")
}

#[cfg(test)]
mod tests {
    use super::visitor_alias;

    #[test]
    fn the_alias_is_stable_within_a_session_and_names_nobody() {
        let a = visitor_alias("s1", "0193a1b2-agent-ann");
        assert_eq!(a, visitor_alias("s1", "0193a1b2-agent-ann"), "one agent, one session: one alias");
        assert_ne!(a, visitor_alias("s1", "0193a1b2-agent-bob"), "a transfer shows as another agent");
        assert_ne!(a, visitor_alias("s2", "0193a1b2-agent-ann"), "another session cannot link the agent");
        assert!(!a.contains("0193a1b2") && a.starts_with("agent-") && a.len() == 22, "{a}");
        // The separator keeps ("s1", "2x") and ("s12", "x") apart.
        assert_ne!(visitor_alias("s1", "2x"), visitor_alias("s12", "x"));
    }
}
