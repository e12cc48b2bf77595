//! Connection state recovery (socket.io 4.6 semantics): every stored event carries an offset as
//! its last argument; a socket that drops for a recoverable reason can come back within
//! `max_disconnection` with the same sid, its rooms and data, and get the events it missed.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::engineio::Message;
use super::lock;
use super::socketio::Extensions;

/// Recovery settings for a namespace.
#[derive(Debug, Clone, Copy)]
pub struct RecoveryConfig {
    /// How long a disconnected session (and the events it may need) are kept. Default 2 minutes.
    pub max_disconnection: Duration,
    /// At most this many events are kept per namespace.
    pub max_packets: usize,
    /// At most this many bytes of events are kept per namespace (oldest go first).
    pub max_bytes: usize,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        RecoveryConfig {
            max_disconnection: Duration::from_secs(120),
            max_packets: 10_000,
            max_bytes: 32 * 1024 * 1024,
        }
    }
}

/// An event's frames as they were sent (the packet already carries its offset).
pub(crate) type Frames = Vec<Message>;

/// The text block is given back (in part) only past this capacity: below it, keeping the memory
/// costs less than moving the text.
const SHRINK_ABOVE: usize = 1 << 20;

struct Stored {
    offset: u64,
    at: Instant,
    to: Audience,
    frames: Kept,
    bytes: usize,
}

/// How a stored event's frames are kept.
enum Kept {
    /// One text frame (nearly every event): its `len` bytes are in `Inner::texts`, right after
    /// those of the text events stored before it.
    Text(usize),
    /// Anything else (a packet with binary attachments), as sent.
    Frames(Frames),
}

/// Whom a stored event went to.
enum Audience {
    /// One socket, by its id (every socket is in the room of its id). Most events are these,
    /// and the id is shared with the socket rather than copied per event.
    Socket(Arc<str>),
    /// The sockets in `rooms` (all of them when empty) but not in `except`.
    Rooms { rooms: Vec<String>, except: Vec<String> },
}

impl Audience {
    fn includes(&self, rooms_of_session: &HashSet<String>) -> bool {
        match self {
            Audience::Socket(id) => rooms_of_session.contains(&**id),
            Audience::Rooms { rooms, except } => {
                (rooms.is_empty() || rooms.iter().any(|r| rooms_of_session.contains(r)))
                    && !except.iter().any(|r| rooms_of_session.contains(r))
            }
        }
    }
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
    /// The current offset as text, rewritten for each event instead of allocated.
    offset_text: String,
    bytes: usize,
    packets: VecDeque<Stored>,
    /// The text of the stored text events, oldest first, end to end. One block that grows at
    /// its end and is consumed at its front, instead of a copy allocated per event: under load
    /// the buffer holds thousands of events, and freeing each one's blocks in turn kept the
    /// allocator working on memory that had left the cache (perf, relay at 16,000 msg/s).
    texts: VecDeque<u8>,
    sessions: HashMap<String, SavedSession>,
}

pub(crate) struct RecoveryStore {
    cfg: RecoveryConfig,
    prefix: String,
    inner: Mutex<Inner>,
}

fn size_of(frames: &Frames) -> usize {
    frames
        .iter()
        .map(|m| match m {
            Message::Text(t) => t.len(),
            Message::Binary(b) => b.len(),
        })
        .sum::<usize>()
        + 64
}

impl RecoveryStore {
    pub fn new(cfg: RecoveryConfig) -> Self {
        let prefix: u32 = rand::random();
        RecoveryStore {
            cfg,
            prefix: format!("{prefix:08x}"),
            inner: Mutex::new(Inner {
                counter: 0,
                offset_text: String::new(),
                bytes: 0,
                packets: VecDeque::new(),
                texts: VecDeque::new(),
                sessions: HashMap::new(),
            }),
        }
    }

    /// Drops expired sessions and packets. Sessions are only added by `persist`, so walking
    /// them there and in `restore` keeps the map bounded without a walk per message.
    fn prune(&self, inner: &mut Inner) {
        self.prune_packets(inner);
        let now = Instant::now();
        let max = self.cfg.max_disconnection;
        inner.sessions.retain(|_, s| now.duration_since(s.at) <= max);
    }

    /// Drops packets from the front that are too old or over the count or byte budget: what
    /// `append` needs, at the cost of the packets it drops.
    fn prune_packets(&self, inner: &mut Inner) {
        self.prune_packets_at(inner, Instant::now());
    }

    fn prune_packets_at(&self, inner: &mut Inner, now: Instant) {
        let max = self.cfg.max_disconnection;
        while let Some(front) = inner.packets.front() {
            let over = now.duration_since(front.at) > max
                || inner.packets.len() > self.cfg.max_packets
                || inner.bytes > self.cfg.max_bytes;
            if !over {
                break;
            }
            inner.bytes = inner.bytes.saturating_sub(front.bytes);
            if let Some(Stored { frames: Kept::Text(len), .. }) = inner.packets.pop_front() {
                inner.texts.drain(..len.min(inner.texts.len()));
            }
        }
        // After a burst, give back most of a text block far larger than what it now holds.
        let (held, capacity) = (inner.texts.len(), inner.texts.capacity());
        if capacity > SHRINK_ABOVE && capacity > 4 * held {
            inner.texts.shrink_to(2 * held);
        }
    }

    /// Stores an event for `rooms` (all sockets when empty) but not `except`: `build` makes its
    /// frames given the offset to carry as the last argument. Returns the frames to send.
    pub fn append(&self, rooms: &[String], except: &[String], build: impl FnOnce(&str) -> Frames) -> Frames {
        self.store(Audience::Rooms { rooms: rooms.to_vec(), except: except.to_vec() }, build)
    }

    /// `append` for an event to the one socket `id`.
    pub fn append_for(&self, id: &Arc<str>, build: impl FnOnce(&str) -> Frames) -> Frames {
        self.store(Audience::Socket(Arc::clone(id)), build)
    }

    fn store(&self, to: Audience, build: impl FnOnce(&str) -> Frames) -> Frames {
        let mut guard = lock(&self.inner);
        let inner = &mut *guard;
        inner.counter += 1;
        let counter = inner.counter;
        inner.offset_text.clear();
        let _ = write!(inner.offset_text, "{}-{counter}", self.prefix);
        let frames = build(&inner.offset_text);
        let bytes = size_of(&frames);
        inner.bytes += bytes;
        let kept = match frames.as_slice() {
            [Message::Text(text)] => {
                inner.texts.extend(text.as_bytes());
                Kept::Text(text.len())
            }
            _ => Kept::Frames(frames.clone()),
        };
        let at = Instant::now();
        inner.packets.push_back(Stored { offset: counter, at, to, frames: kept, bytes });
        self.prune_packets_at(inner, at);
        frames
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
    pub fn restore(&self, pid: &str, offset: &str) -> Option<(SavedSession, Vec<Frames>)> {
        let mut inner = lock(&self.inner);
        self.prune(&mut inner);
        let session = inner.sessions.remove(pid)?;
        let counter: u64 = offset.strip_prefix(&self.prefix)?.strip_prefix('-')?.parse().ok()?;
        let index = inner.packets.iter().position(|p| p.offset == counter)?;
        let mut missed = Vec::new();
        // Where each text event's bytes start: after those of the text events before it.
        let mut start = 0;
        for (i, packet) in inner.packets.iter().enumerate() {
            let wanted = i > index && packet.to.includes(&session.rooms);
            match &packet.frames {
                Kept::Text(len) => {
                    if wanted && start + len <= inner.texts.len() {
                        let bytes: Vec<u8> = inner.texts.range(start..start + len).copied().collect();
                        // Always valid: the bytes were a `str`'s.
                        missed.push(vec![Message::Text(String::from_utf8_lossy(&bytes).into_owned())]);
                    }
                    start += len;
                }
                Kept::Frames(frames) if wanted => missed.push(frames.clone()),
                Kept::Frames(_) => {}
            }
        }
        Some((session, missed))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn frame(name: &str) -> impl FnOnce(&str) -> Frames + '_ {
        move |offset| vec![Message::Text(format!("2[\"{name}\",\"{offset}\"]"))]
    }

    fn names(missed: &[Frames]) -> Vec<String> {
        missed
            .iter()
            .map(|f| match &f[0] {
                Message::Text(t) => t.split('"').nth(1).unwrap_or_default().to_string(),
                Message::Binary(_) => String::new(),
            })
            .collect()
    }

    #[test]
    fn an_event_for_one_socket_is_replayed_to_that_socket_only() {
        let store = RecoveryStore::new(RecoveryConfig::default());
        let first = store.append(&[], &[], frame("start"));
        let Message::Text(text) = &first[0] else { panic!() };
        let off = text.split('"').nth(3).unwrap().to_string();
        let (s1, s2): (Arc<str>, Arc<str>) = ("s1".into(), "s2".into());
        store.append_for(&s1, frame("to-s1"));
        store.append_for(&s2, frame("to-s2"));
        let second = store.append_for(&s1, frame("again-s1"));
        // Each event carries its own offset.
        let Message::Text(text) = &second[0] else { panic!() };
        assert_ne!(text.split('"').nth(3).unwrap(), off);

        store.persist("s1".into(), "p1".into(), ["s1".to_string()].into(), Extensions::default());
        let (_, missed) = store.restore("p1", &off).unwrap();
        assert_eq!(names(&missed), vec!["to-s1", "again-s1"]);
        store.persist("s2".into(), "p2".into(), ["s2".to_string(), "room".to_string()].into(), Extensions::default());
        let (_, missed) = store.restore("p2", &off).unwrap();
        assert_eq!(names(&missed), vec!["to-s2"]);
    }

    #[test]
    fn stores_and_replays_missed_events() {
        let store = RecoveryStore::new(RecoveryConfig::default());
        let first = store.append(&["s1".into()], &[], frame("a"));
        let Message::Text(text) = &first[0] else { panic!() };
        let off = text.split('"').nth(3).unwrap().to_string();
        store.append(&["room".into()], &[], frame("b"));
        store.append(&["elsewhere".into()], &[], frame("c"));
        store.append(&[], &["s1".into()], frame("d"));
        store.append(&[], &[], frame("e"));

        let rooms: HashSet<String> = ["s1".to_string(), "room".to_string()].into();
        store.persist("s1".into(), "p1".into(), rooms, Extensions::default());
        assert!(store.restore("p1", "nope").is_none());
        // A failed restore consumes the session, like the reference implementation.
        store.persist("s1".into(), "p1".into(), ["s1".to_string(), "room".to_string()].into(), Extensions::default());
        let (session, missed) = store.restore("p1", &off).unwrap();
        assert_eq!(session.sid, "s1");
        assert_eq!(names(&missed), vec!["b", "e"]);
        assert!(store.restore("p1", &off).is_none());
    }

    #[test]
    fn expired_sessions_are_not_restored() {
        let store = RecoveryStore::new(RecoveryConfig { max_disconnection: Duration::from_millis(0), max_packets: 10, ..RecoveryConfig::default() });
        let sent = store.append(&[], &[], frame("a"));
        let Message::Text(text) = &sent[0] else { panic!() };
        let off = text.split('"').nth(3).unwrap().to_string();
        store.persist("s".into(), "p".into(), HashSet::new(), Extensions::default());
        std::thread::sleep(Duration::from_millis(5));
        assert!(store.restore("p", &off).is_none());
    }

    #[test]
    fn events_with_attachments_replay_in_order_among_text_events() {
        let store = RecoveryStore::new(RecoveryConfig { max_packets: 4, ..RecoveryConfig::default() });
        let first = store.append(&[], &[], frame("dropped-later"));
        let Message::Text(text) = &first[0] else { panic!() };
        let off = text.split('"').nth(3).unwrap().to_string();
        store.append(&[], &[], frame("a"));
        store.append(&[], &[], |offset| {
            vec![Message::Text(format!("51-[\"file\",\"{offset}\"]")), Message::Binary(bytes::Bytes::from_static(b"\x01\x02"))]
        });
        store.append(&[], &[], frame("b"));
        store.persist("s".into(), "p".into(), HashSet::new(), Extensions::default());
        let (_, missed) = store.restore("p", &off).unwrap();
        assert_eq!(missed.len(), 3);
        assert_eq!(names(&missed), vec!["a", "file", "b"]);
        assert!(matches!(&missed[1][1], Message::Binary(b) if b.as_ref() == b"\x01\x02"));

        // One more event pushes the oldest out: its text goes, the others' stay whole.
        let gone = store.append(&[], &[], frame("c"));
        let Message::Text(text) = &gone[0] else { panic!() };
        assert!(text.contains("\"c\""));
        store.persist("s".into(), "p".into(), HashSet::new(), Extensions::default());
        assert!(store.restore("p", &off).is_none(), "the offset's own event has left the buffer");
        store.append(&[], &[], frame("d"));
        let inner = lock(&store.inner);
        let kept_text: usize = inner.packets.iter().map(|p| if let Kept::Text(len) = p.frames { len } else { 0 }).sum();
        assert_eq!(kept_text, inner.texts.len());
    }

    #[test]
    fn the_text_block_is_given_back_after_a_burst() {
        let store = RecoveryStore::new(RecoveryConfig { max_packets: 100_000, ..RecoveryConfig::default() });
        for _ in 0..20_000 {
            store.append(&[], &[], |offset| vec![Message::Text(format!("{offset}{}", "x".repeat(200)))]);
        }
        let grown = lock(&store.inner).texts.capacity();
        assert!(grown > 4 * SHRINK_ABOVE, "{grown}");
        // The burst's events leave (here: by count), and the block shrinks with them.
        let small = RecoveryConfig { max_packets: 10, ..RecoveryConfig::default() };
        let store = RecoveryStore { cfg: small, ..store };
        store.append(&[], &[], frame("after"));
        let inner = lock(&store.inner);
        assert_eq!(inner.packets.len(), 10);
        assert!(inner.texts.capacity() < SHRINK_ABOVE, "{} bytes kept for {} held", inner.texts.capacity(), inner.texts.len());
    }

    #[test]
    fn the_buffer_keeps_within_its_byte_budget() {
        let store = RecoveryStore::new(RecoveryConfig { max_bytes: 10_000, ..RecoveryConfig::default() });
        for _ in 0..1000 {
            store.append(&[], &[], |offset| vec![Message::Text(format!("{offset}{}", "x".repeat(500)))]);
        }
        let inner = lock(&store.inner);
        assert!(inner.bytes <= 10_000, "{} bytes kept", inner.bytes);
        assert!(inner.packets.len() < 20);
    }
}
