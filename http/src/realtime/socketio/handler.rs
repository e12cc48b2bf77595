//! The handlers an application registers: on a namespace's CONNECT, on a socket's events and
//! on its disconnection. Each runs as a spawned future.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::socket::{AckSender, ConnectError, DisconnectReason, Socket};
use super::Payload;

pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A namespace's CONNECT handler: gets the socket and the `auth` payload, may refuse.
pub(crate) type ConnectHandler = Arc<dyn Fn(Socket, Value) -> BoxFuture<Result<(), ConnectError>> + Send + Sync>;

/// An event handler: the socket, the event's arguments, and the ack to answer when the client
/// asked for one.
pub(crate) type EventHandler = Arc<dyn Fn(Socket, Payload, Option<AckSender>) -> BoxFuture<()> + Send + Sync>;

/// Held while an admitted event's handler runs, dropped when it has finished (a slot of the
/// socket's in-flight allowance, say).
pub type Pass = Box<dyn Send>;

/// What a gate decided about one incoming event.
pub enum Admission {
    /// Handle it: `pass` is held until its handler has finished; `ack` goes to the handler.
    Handle { pass: Pass, ack: Option<AckSender> },
    /// Refused: the gate has answered the sender itself.
    Refused,
}

/// A socket's gate: sees every incoming event before its arguments are decoded (binary events
/// once their attachments are in), so a refused flood costs its header and its answer, no
/// decoding and no task.
pub(crate) type Gate = Arc<dyn Fn(&Socket, Option<AckSender>) -> Admission + Send + Sync>;

pub(crate) type DisconnectHandler = Arc<dyn Fn(Socket, DisconnectReason) -> BoxFuture<()> + Send + Sync>;
