//! The scenarios. Each sets up what it needs through the product's own API, drives the server
//! with real Socket.IO clients and returns its figures.

pub mod ai;
pub mod find_max;
pub mod handoff;
pub mod idle;
pub mod overload;
pub mod relay;

use std::time::Duration;

use crate::report::Run;

/// How long one request may wait for its ack before it counts as failed.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(30);

/// Clean = nothing lost, nothing duplicated, nothing failed.
pub fn is_clean(run: &Run) -> bool {
    ["lost", "duplicated", "failures", "double_takes"].iter().all(|k| run.get(k).unwrap_or(0.0) == 0.0)
}
