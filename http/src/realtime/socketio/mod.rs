//! Socket.IO v5 on top of the Engine.IO server.

pub mod client;
mod deadlines;
pub mod handler;
pub mod io;
pub mod namespace;
pub mod packet;
pub mod socket;

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use namespace::{BroadcastOperator, Namespace};
pub use io::SocketIo;
pub use handler::{Admission, Pass};
pub use socket::{AckError, AckSender, ConnectError, DisconnectReason, Socket};

/// Event arguments: JSON values plus binary attachments. Inside `args`, a binary value is the
/// placeholder `{"_placeholder":true,"num":i}` (see [`Payload::bin`]) standing for `binary[i]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload {
    pub args: Vec<Value>,
    pub binary: Vec<Bytes>,
}

impl Payload {
    pub fn new(args: Vec<Value>) -> Self {
        Payload {
            args,
            binary: Vec::new(),
        }
    }

    pub fn with_binary(args: Vec<Value>, binary: Vec<Bytes>) -> Self {
        Payload { args, binary }
    }

    /// Appends `data` as an attachment and returns its placeholder, to put anywhere in `args`.
    pub fn bin(&mut self, data: impl Into<Bytes>) -> Value {
        self.binary.push(data.into());
        packet::placeholder(self.binary.len() - 1)
    }

    /// Deserializes argument `i`.
    pub fn arg<T: DeserializeOwned>(&self, i: usize) -> Option<T> {
        self.args
            .get(i)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The attachment a placeholder value refers to.
    pub fn binary_of(&self, placeholder: &Value) -> Option<&Bytes> {
        if placeholder.get("_placeholder") != Some(&Value::Bool(true)) {
            return None;
        }
        let n = placeholder.get("num")?.as_u64()?;
        self.binary.get(usize::try_from(n).ok()?)
    }
}

impl From<Vec<Value>> for Payload {
    fn from(args: Vec<Value>) -> Self {
        Payload::new(args)
    }
}

/// Typed data attached to a socket (e.g. the authenticated user); survives state recovery.
#[derive(Clone, Default)]
pub struct Extensions(Arc<RwLock<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>);

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Extensions")
    }
}

impl Extensions {
    pub fn insert<T: Any + Send + Sync>(&self, value: T) {
        if let Ok(mut map) = self.0.write() {
            map.insert(TypeId::of::<T>(), Arc::new(value));
        }
    }

    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let map = self.0.read().ok()?;
        map.get(&TypeId::of::<T>())
            .cloned()
            .and_then(|v| v.downcast::<T>().ok())
    }

    pub fn remove<T: Any + Send + Sync>(&self) {
        if let Ok(mut map) = self.0.write() {
            map.remove(&TypeId::of::<T>());
        }
    }
}
