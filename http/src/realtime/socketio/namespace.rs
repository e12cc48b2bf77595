//! Namespaces: their connect handler, sockets, rooms and broadcasts.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use serde_json::Value;

use super::handler::ConnectHandler;
use super::socket::{event_frames, Socket};
use super::Payload;
use crate::realtime::recovery::{RecoveryConfig, RecoveryStore};

pub(crate) struct NsInner {
    path: String,
    connect: ConnectHandler,
    sockets: RwLock<HashMap<String, Socket>>,
    rooms: RwLock<HashMap<String, HashSet<String>>>,
    recovery: Option<RecoveryStore>,
}

/// A Socket.IO namespace. Cheap to clone.
#[derive(Clone)]
pub struct Namespace {
    inner: Arc<NsInner>,
}

impl std::fmt::Debug for Namespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Namespace").field("path", &self.inner.path).finish()
    }
}

impl Namespace {
    pub(crate) fn new(path: String, connect: ConnectHandler, recovery: Option<RecoveryConfig>) -> Self {
        Namespace {
            inner: Arc::new(NsInner {
                path,
                connect,
                sockets: RwLock::new(HashMap::new()),
                rooms: RwLock::new(HashMap::new()),
                recovery: recovery.map(RecoveryStore::new),
            }),
        }
    }

    pub fn path(&self) -> &str {
        &self.inner.path
    }

    pub fn recovery_enabled(&self) -> bool {
        self.inner.recovery.is_some()
    }

    pub(crate) fn recovery(&self) -> Option<&RecoveryStore> {
        self.inner.recovery.as_ref()
    }

    pub(crate) fn connect_handler(&self) -> ConnectHandler {
        self.inner.connect.clone()
    }

    pub(crate) fn add_socket(&self, socket: Socket) {
        if let Ok(mut map) = self.inner.sockets.write() {
            map.insert(socket.id().to_owned(), socket);
        }
    }

    pub(crate) fn remove_socket(&self, id: &str) {
        if let Ok(mut map) = self.inner.sockets.write() {
            map.remove(id);
        }
    }

    pub(crate) fn add_to_room(&self, room: &str, id: &str) {
        if let Ok(mut rooms) = self.inner.rooms.write() {
            rooms.entry(room.to_owned()).or_default().insert(id.to_owned());
        }
    }

    pub(crate) fn remove_from_room(&self, room: &str, id: &str) {
        if let Ok(mut rooms) = self.inner.rooms.write() {
            if let Some(set) = rooms.get_mut(room) {
                set.remove(id);
                if set.is_empty() {
                    rooms.remove(room);
                }
            }
        }
    }

    /// A socket of this namespace by id.
    pub fn socket(&self, id: &str) -> Option<Socket> {
        self.inner.sockets.read().ok()?.get(id).cloned()
    }

    /// All sockets of this namespace.
    pub fn sockets(&self) -> Vec<Socket> {
        self.inner
            .sockets
            .read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Broadcast to the members of `room`.
    pub fn to(&self, room: impl Into<String>) -> BroadcastOperator {
        self.broadcast().to(room)
    }

    /// Broadcast to every socket of the namespace.
    pub fn broadcast(&self) -> BroadcastOperator {
        BroadcastOperator {
            ns: self.clone(),
            rooms: Vec::new(),
            except: Vec::new(),
        }
    }

    /// Emits to every socket of the namespace.
    pub fn emit(&self, event: &str, args: Vec<Value>) {
        self.broadcast().emit(event, args);
    }
}

/// Selects sockets by room for a broadcast (`ns.to("a").to("b").except("c").emit(...)`).
#[derive(Debug, Clone)]
pub struct BroadcastOperator {
    ns: Namespace,
    rooms: Vec<String>,
    except: Vec<String>,
}

impl BroadcastOperator {
    pub fn to(mut self, room: impl Into<String>) -> Self {
        self.rooms.push(room.into());
        self
    }

    pub fn except(mut self, room: impl Into<String>) -> Self {
        self.except.push(room.into());
        self
    }

    /// The sockets this broadcast reaches.
    pub fn sockets(&self) -> Vec<Socket> {
        let ns = &self.ns.inner;
        let Ok(rooms) = ns.rooms.read() else {
            return Vec::new();
        };
        let excluded: HashSet<String> = self
            .except
            .iter()
            .filter_map(|r| rooms.get(r))
            .flatten()
            .cloned()
            .collect();
        let ids: HashSet<String> = if self.rooms.is_empty() {
            ns.sockets
                .read()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        } else {
            self.rooms
                .iter()
                .filter_map(|r| rooms.get(r))
                .flatten()
                .cloned()
                .collect()
        };
        drop(rooms);
        let Ok(sockets) = ns.sockets.read() else {
            return Vec::new();
        };
        ids.iter()
            .filter(|id| !excluded.contains(*id))
            .filter_map(|id| sockets.get(id).cloned())
            .collect()
    }

    pub fn emit(&self, event: &str, args: Vec<Value>) {
        self.emit_payload(event, Payload::new(args));
    }

    /// Emits with binary attachments. Never blocks: every target gets its own queue.
    pub fn emit_payload(&self, event: &str, payload: Payload) {
        let nsp = self.ns.path();
        let frames = match self.ns.recovery() {
            Some(store) => store.append(&self.rooms, &self.except, |offset| event_frames(nsp, event, payload, None, Some(offset))),
            None => event_frames(nsp, event, payload, None, None),
        };
        for socket in self.sockets() {
            socket.send_frames(frames.clone());
        }
    }

    /// Disconnects every selected socket from the namespace.
    pub fn disconnect(&self) {
        for socket in self.sockets() {
            socket.disconnect();
        }
    }
}
