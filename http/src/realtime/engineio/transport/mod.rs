//! The two ways a client reaches its session: HTTP long-polling and a WebSocket.

pub mod polling;
pub mod ws;
