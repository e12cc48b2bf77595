//! Real time: Engine.IO v4 + Socket.IO v5 on actix-web, with no actor or task per Engine.IO session.
//!
//! ```no_run
//! use parley_http::realtime::{self, SocketIo, ConnectError};
//! # fn app(cfg: &mut actix_web::web::ServiceConfig, io: SocketIo) {
//! io.ns("/", |socket, auth| async move {
//!     if auth.get("token").is_none() {
//!         return Err(ConnectError::new("unauthorized"));
//!     }
//!     socket.on("ping", |socket, payload, ack| async move {
//!         if let Some(ack) = ack { ack.send(payload.args) } else { socket.emit("pong", vec![]) }
//!     });
//!     Ok(())
//! });
//! realtime::configure(cfg, io);
//! # }
//! ```

pub mod engineio;
pub mod recovery;
pub mod server;
pub mod socketio;

use std::sync::{Mutex, MutexGuard};

pub use engineio::{CloseReason, EngineConfig, EngineConn, EngineServer};
pub use recovery::RecoveryConfig;
pub use socketio::{
    AckError, AckSender, Admission, BroadcastOperator, ConnectError, DisconnectReason, Extensions, Namespace,
    Payload, Socket, SocketIo,
};

pub use server::{http_server, LiveMounts};

/// Mounts the Socket.IO server at `/socket.io/` (long-polling; its WebSockets come through
/// [`http_server`] with [`LiveMounts::socket_io`]).
pub fn configure(cfg: &mut actix_web::web::ServiceConfig, io: SocketIo) {
    io.engine().clone().mount(cfg, "/socket.io/");
}

/// Locks a mutex, recovering from poisoning (a panicked holder leaves consistent-enough state).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
