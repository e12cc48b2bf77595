//! Connection state recovery (socket.io 4.6 semantics): every stored event carries an offset as
//! its last argument; a socket that drops for a recoverable reason can come back within
//! `max_disconnection` with the same sid, its rooms and data, and get the events it missed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::socketio::{Extensions, Payload};
use super::lock;

/// Recovery settings for a namespace.
#[derive(Debug, Clone, Copy)]
pub struct RecoveryConfig {
    /// How long a disconnected session (and the events it may need) are kept. Default 2 minutes.
    pub max_disconnection: Duration,
    /// At most this many events are kept per namespace.
    pub max_packets: usize,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        RecoveryConfig {
            max_disconnection: Duration::from_secs(120),
            max_packets: 10_000,
        }
    }
}

struct Stored {
    offset: String,
    at: Instant,
    rooms: Vec<String>,
    except: Vec<String>,
    /// `[event, ...args, offset]` with attachments.
    data: Payload,
}

/// A session kept after a recoverable disconnect.
#[derive(Clone)]
pub(crate) struct SavedSession {
    pub sid: String,
    pub pid: String,
    pub rooms: HashSet<String>,
    pub ext: Extensions,
    at: Instant,
}

struct Inner {
    counter: u64,
    packets: VecDeque<Stored>,
    sessions: HashMap<String, SavedSession>,
}

pub(crate) struct RecoveryStore {
    cfg: RecoveryConfig,
    prefix: String,
    inner: Mutex<Inner>,
}

impl RecoveryStore {
    pub fn new(cfg: RecoveryConfig) -> Self {
        let prefix: u32 = rand::random();
        RecoveryStore {
            cfg,
            prefix: format!("{prefix:08x}"),
            inner: Mutex::new(Inner {
                counter: 0,
                packets: VecDeque::new(),
                sessions: HashMap::new(),
            }),
        }
    }

    fn prune(&self, inner: &mut Inner) {
        let now = Instant::now();
        let max = self.cfg.max_disconnection;
        while inner
            .packets
            .front()
            .is_some_and(|p| now.duration_since(p.at) > max || inner.packets.len() > self.cfg.max_packets)
        {
            inner.packets.pop_front();
        }
        inner.sessions.retain(|_, s| now.duration_since(s.at) <= max);
    }

    /// Stores an event `[event, ...args]`, appends its offset to it and returns the offset.
    pub fn append(&self, rooms: &[String], except: &[String], data: &mut Payload) -> String {
        let mut inner = lock(&self.inner);
        inner.counter += 1;
        let offset = format!("{}-{}", self.prefix, inner.counter);
        data.args.push(serde_json::Value::String(offset.clone()));
        inner.packets.push_back(Stored {
            offset: offset.clone(),
            at: Instant::now(),
            rooms: rooms.to_vec(),
            except: except.to_vec(),
            data: data.clone(),
        });
        self.prune(&mut inner);
        offset
    }

    pub fn persist(&self, sid: String, pid: String, rooms: HashSet<String>, ext: Extensions) {
        let mut inner = lock(&self.inner);
        inner.sessions.insert(
            pid.clone(),
            SavedSession {
                sid,
                pid,
                rooms,
                ext,
                at: Instant::now(),
            },
        );
        self.prune(&mut inner);
    }

    /// The session for `pid` and the events after `offset` it should get, if both are known.
    pub fn restore(&self, pid: &str, offset: &str) -> Option<(SavedSession, Vec<Payload>)> {
        let mut inner = lock(&self.inner);
        self.prune(&mut inner);
        let session = inner.sessions.remove(pid)?;
        let index = inner.packets.iter().position(|p| p.offset == offset)?;
        let missed = inner
            .packets
            .iter()
            .skip(index + 1)
            .filter(|p| {
                (p.rooms.is_empty() || p.rooms.iter().any(|r| session.rooms.contains(r)))
                    && !p.except.iter().any(|r| session.rooms.contains(r))
            })
            .map(|p| p.data.clone())
            .collect();
        Some((session, missed))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stores_and_replays_missed_events() {
        let store = RecoveryStore::new(RecoveryConfig::default());
        let mut first = Payload::new(vec![json!("a")]);
        let off = store.append(&["s1".into()], &[], &mut first);
        assert_eq!(first.args.last(), Some(&json!(off.clone())));
        let mut to_room = Payload::new(vec![json!("b")]);
        store.append(&["room".into()], &[], &mut to_room);
        let mut other = Payload::new(vec![json!("c")]);
        store.append(&["elsewhere".into()], &[], &mut other);
        let mut all = Payload::new(vec![json!("d")]);
        store.append(&[], &["s1".into()], &mut all);
        let mut all2 = Payload::new(vec![json!("e")]);
        store.append(&[], &[], &mut all2);

        let rooms: HashSet<String> = ["s1".to_string(), "room".to_string()].into();
        store.persist("s1".into(), "p1".into(), rooms, Extensions::default());
        assert!(store.restore("p1", "nope").is_none());
        // A failed restore consumes the session, like the reference implementation.
        store.persist("s1".into(), "p1".into(), ["s1".to_string(), "room".to_string()].into(), Extensions::default());
        let (session, missed) = store.restore("p1", &off).unwrap();
        assert_eq!(session.sid, "s1");
        let names: Vec<_> = missed.iter().map(|p| p.args[0].clone()).collect();
        assert_eq!(names, vec![json!("b"), json!("e")]);
        assert!(store.restore("p1", &off).is_none());
    }

    #[test]
    fn expired_sessions_are_not_restored() {
        let store = RecoveryStore::new(RecoveryConfig {
            max_disconnection: Duration::from_millis(0),
            max_packets: 10,
        });
        let mut p = Payload::new(vec![json!("a")]);
        let off = store.append(&[], &[], &mut p);
        store.persist("s".into(), "p".into(), HashSet::new(), Extensions::default());
        std::thread::sleep(Duration::from_millis(5));
        assert!(store.restore("p", &off).is_none());
    }
}
