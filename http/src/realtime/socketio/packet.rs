//! Socket.IO v5 packet codec (the text header; binary attachments travel as separate
//! Engine.IO binary messages). Every packet the server sends is written here: the header by
//! `write_header`, and every EVENT and ACK (binary or not) by `data_packet`, which serializes
//! the arguments straight into the frame.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketType {
    Connect = 0,
    Disconnect = 1,
    Event = 2,
    Ack = 3,
    ConnectError = 4,
    BinaryEvent = 5,
    BinaryAck = 6,
}

impl PacketType {
    fn from_char(c: char) -> Option<PacketType> {
        Some(match c {
            '0' => PacketType::Connect,
            '1' => PacketType::Disconnect,
            '2' => PacketType::Event,
            '3' => PacketType::Ack,
            '4' => PacketType::ConnectError,
            '5' => PacketType::BinaryEvent,
            '6' => PacketType::BinaryAck,
            _ => return None,
        })
    }

    pub fn is_binary(self) -> bool {
        matches!(self, PacketType::BinaryEvent | PacketType::BinaryAck)
    }

    /// EVENT and ACK packets (binary or not) carry an array of arguments.
    pub fn has_args(self) -> bool {
        matches!(self, PacketType::Event | PacketType::Ack | PacketType::BinaryEvent | PacketType::BinaryAck)
    }
}

/// Writes a packet's header: its type, the attachment count of binary types, the namespace
/// (unless `/`) and the ack id.
fn write_header(out: &mut Vec<u8>, kind: PacketType, nsp: &str, attachments: usize, id: Option<u64>) {
    out.push(b'0' + kind as u8);
    if kind.is_binary() {
        write_number(out, attachments as u64);
        out.push(b'-');
    }
    if nsp != "/" && !nsp.is_empty() {
        out.extend_from_slice(nsp.as_bytes());
        out.push(b',');
    }
    if let Some(id) = id {
        write_number(out, id);
    }
}

fn write_number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// Serializes `value` onto `out`; `null` if it cannot be (never for plain data).
fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        tracing::error!("encoding a Socket.IO argument: {e}");
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

/// The packet's text. Always UTF-8: an ASCII header, JSON from serde_json and `&str`s.
fn into_text(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The arguments of an EVENT or ACK packet, as `data_packet` writes them.
pub(crate) struct ArgWriter {
    out: Vec<u8>,
    first: bool,
}

impl ArgWriter {
    fn next(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.out.push(b',');
        }
    }

    /// The next argument, serialized into the frame.
    pub fn arg<T: Serialize + ?Sized>(&mut self, value: &T) {
        self.next();
        write_json(&mut self.out, value);
    }

    /// The next argument, given as JSON text already (encoded once for many sockets).
    pub fn json(&mut self, json: &str) {
        self.next();
        self.out.extend_from_slice(json.as_bytes());
    }
}

/// The text of an EVENT or ACK packet (or their binary kinds): the header, then the array of
/// the arguments `write` adds. `size_hint` is about how many bytes the arguments take.
pub(crate) fn data_packet(kind: PacketType, nsp: &str, attachments: usize, id: Option<u64>, size_hint: usize, write: impl FnOnce(&mut ArgWriter)) -> String {
    let mut out = Vec::with_capacity(size_hint + nsp.len() + 24);
    write_header(&mut out, kind, nsp, attachments, id);
    out.push(b'[');
    let mut args = ArgWriter { out, first: true };
    write(&mut args);
    args.out.push(b']');
    into_text(args.out)
}

/// One Socket.IO packet (header and JSON payload; attachments are counted, not held).
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub kind: PacketType,
    /// Always starts with `/`; `/` is the main namespace.
    pub nsp: String,
    pub id: Option<u64>,
    pub data: Option<Value>,
    /// Number of binary attachments (binary types only).
    pub attachments: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("empty packet")]
    Empty,
    #[error("unknown packet type")]
    UnknownType,
    #[error("invalid attachments count")]
    Attachments,
    #[error("invalid ack id")]
    AckId,
    #[error("invalid JSON payload")]
    Json,
    #[error("invalid payload for this packet type")]
    Payload,
}

/// A packet's header: everything before its JSON data. Read first, so an event can be admitted
/// or refused before its arguments are decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub kind: PacketType,
    pub nsp: String,
    pub id: Option<u64>,
    pub attachments: usize,
}

impl Head {
    /// Reads the header of a text packet; the second value is the JSON data that follows.
    pub fn decode(s: &str) -> Result<(Head, &str), DecodeError> {
        let mut chars = s.chars();
        let kind = PacketType::from_char(chars.next().ok_or(DecodeError::Empty)?)
            .ok_or(DecodeError::UnknownType)?;
        let mut rest = chars.as_str();

        let mut attachments = 0;
        if kind.is_binary() {
            let dash = rest.find('-').ok_or(DecodeError::Attachments)?;
            let count = &rest[..dash];
            if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
                return Err(DecodeError::Attachments);
            }
            attachments = count.parse().map_err(|_| DecodeError::Attachments)?;
            rest = &rest[dash + 1..];
        }

        let mut nsp = "/".to_owned();
        if rest.starts_with('/') {
            match rest.find(',') {
                Some(comma) => {
                    nsp = rest[..comma].to_owned();
                    rest = &rest[comma + 1..];
                }
                None => {
                    nsp = rest.to_owned();
                    rest = "";
                }
            }
        }

        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut id = None;
        if digits > 0 {
            id = Some(rest[..digits].parse::<u64>().map_err(|_| DecodeError::AckId)?);
            rest = &rest[digits..];
        }
        Ok((Head { kind, nsp, id, attachments }, rest))
    }
}

impl Packet {
    pub fn new(kind: PacketType, nsp: &str, data: Option<Value>) -> Packet {
        Packet {
            kind,
            nsp: nsp.to_owned(),
            id: None,
            data,
            attachments: 0,
        }
    }

    pub fn encode(&self) -> String {
        if let Some(Value::Array(args)) = &self.data {
            if self.kind.has_args() {
                return data_packet(self.kind, &self.nsp, self.attachments, self.id, 64, |w| args.iter().for_each(|a| w.arg(a)));
            }
        }
        let mut out = Vec::with_capacity(16);
        write_header(&mut out, self.kind, &self.nsp, self.attachments, self.id);
        if let Some(data) = &self.data {
            write_json(&mut out, data);
        }
        into_text(out)
    }

    /// Decodes and validates a text packet.
    pub fn decode(s: &str) -> Result<Packet, DecodeError> {
        let (head, body) = Head::decode(s)?;
        Packet::decode_body(head, body)
    }

    /// The rest of a packet whose header was read by [`Head::decode`]: its JSON data, checked
    /// against the packet's type.
    pub fn decode_body(head: Head, rest: &str) -> Result<Packet, DecodeError> {
        let Head { kind, nsp, id, attachments } = head;
        let data = if rest.is_empty() {
            None
        } else {
            Some(serde_json::from_str::<Value>(rest).map_err(|_| DecodeError::Json)?)
        };

        let valid = match kind {
            PacketType::Connect => id.is_none() && matches!(data, None | Some(Value::Object(_))),
            PacketType::Disconnect => id.is_none() && data.is_none(),
            PacketType::ConnectError => {
                id.is_none() && matches!(data, Some(Value::Object(_)) | Some(Value::String(_)))
            }
            PacketType::Event | PacketType::BinaryEvent => matches!(
                &data,
                Some(Value::Array(a)) if matches!(a.first(), Some(Value::String(_)))
            ),
            PacketType::Ack | PacketType::BinaryAck => {
                id.is_some() && matches!(data, Some(Value::Array(_)))
            }
        };
        if !valid {
            return Err(if matches!(kind, PacketType::Ack | PacketType::BinaryAck) && id.is_none() {
                DecodeError::AckId
            } else {
                DecodeError::Payload
            });
        }
        Ok(Packet {
            kind,
            nsp,
            id,
            data,
            attachments,
        })
    }
}

/// `{"_placeholder":true,"num":n}`: stands for binary attachment `n` inside the JSON args.
pub fn placeholder(num: usize) -> Value {
    serde_json::json!({ "_placeholder": true, "num": num })
}

/// Checks every placeholder in `value` refers to an attachment below `count`.
pub fn placeholders_valid(value: &Value, count: usize) -> bool {
    match value {
        Value::Object(map) => {
            if map.get("_placeholder") == Some(&Value::Bool(true)) {
                return map
                    .get("num")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| (n as usize) < count);
            }
            map.values().all(|v| placeholders_valid(v, count))
        }
        Value::Array(items) => items.iter().all(|v| placeholders_valid(v, count)),
        _ => true,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rt(s: &str) -> Packet {
        let p = Packet::decode(s).unwrap();
        assert_eq!(p.encode(), s);
        p
    }

    #[test]
    fn round_trips() {
        assert_eq!(rt("0").kind, PacketType::Connect);
        assert_eq!(rt(r#"0{"token":"123"}"#).data, Some(json!({"token":"123"})));
        assert_eq!(rt("0/admin,").nsp, "/admin");
        assert_eq!(rt(r#"0/admin,{"sid":"x"}"#).nsp, "/admin");
        assert_eq!(rt("1").kind, PacketType::Disconnect);
        assert_eq!(rt("1/admin,").nsp, "/admin");
        let e = rt(r#"2["hello",1]"#);
        assert_eq!(e.data, Some(json!(["hello", 1])));
        let e = rt(r#"2/admin,456["project:delete",123]"#);
        assert_eq!((e.nsp.as_str(), e.id), ("/admin", Some(456)));
        assert_eq!(rt(r#"3/admin,456[]"#).id, Some(456));
        assert_eq!(rt(r#"4{"message":"Not authorized"}"#).kind, PacketType::ConnectError);
        assert_eq!(rt(r#"44/random,{"message":"Invalid namespace"}"#.strip_prefix('4').unwrap()).nsp, "/random");
        let b = rt(r#"51-["hello",{"_placeholder":true,"num":0}]"#);
        assert_eq!((b.kind, b.attachments), (PacketType::BinaryEvent, 1));
        let b = rt(r#"61-/admin,456[{"_placeholder":true,"num":0}]"#);
        assert_eq!((b.kind, b.attachments, b.id), (PacketType::BinaryAck, 1, Some(456)));
        let b = rt(r#"52-789["message-with-ack",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#);
        assert_eq!(b.id, Some(789));
    }

    #[test]
    fn namespace_without_trailing_comma() {
        let p = Packet::decode("0/custom").unwrap();
        assert_eq!(p.nsp, "/custom");
        assert_eq!(p.encode(), "0/custom,");
        assert_eq!(Packet::decode("1/custom").unwrap().nsp, "/custom");
    }

    #[test]
    fn malformed_packets_are_errors() {
        for bad in [
            "", "abc", "4abc", "7", "9[]", "42{}", "2{}", "2", "2[]", "2[1]", "2\"x\"",
            r#"2abc["message-with-ack",1]"#, "3[]", "3/ns,[]", "31{}", "1[]", "112",
            r#"0["x"]"#, "0abc", "5[\"x\"]", "5x-[\"x\"]", "5-[\"x\"]", "2[\"a\"", "4",
            r#"299999999999999999999999["a"]"#, "0/ns,xyz", "2/ns[\"a\"]",
        ] {
            assert!(Packet::decode(bad).is_err(), "{bad:?} should fail");
        }
        assert_eq!(Packet::decode("42{}").unwrap_err(), DecodeError::Payload);
        assert_eq!(Packet::decode("2{}").unwrap_err(), DecodeError::Payload);
        assert_eq!(Packet::decode(r#"2abc["m"]"#).unwrap_err(), DecodeError::Json);
        assert_eq!(Packet::decode("3[]").unwrap_err(), DecodeError::AckId);
        assert_eq!(
            Packet::decode(r#"299999999999999999999999["a"]"#).unwrap_err(),
            DecodeError::AckId
        );
    }

    #[test]
    fn placeholders() {
        let args = json!(["m", placeholder(0), {"a": [placeholder(1)]}]);
        assert!(placeholders_valid(&args, 2));
        assert!(!placeholders_valid(&args, 1));
        assert!(!placeholders_valid(&json!([{"_placeholder": true, "num": "x"}]), 3));
        assert!(placeholders_valid(&json!([{"_placeholder": false}]), 0));
    }

    proptest::proptest! {
        #[test]
        fn decoder_never_panics(s in "\\PC*") {
            let _ = Packet::decode(&s);
        }

        #[test]
        fn decoder_never_panics_on_packet_like(s in "[0-6][0-9-]{0,3}(/[a-z]{0,3},?)?[0-9]{0,25}[\\[\\]{}\",a-z0-9]{0,12}") {
            if let Ok(p) = Packet::decode(&s) {
                // Whatever decodes re-encodes to something that decodes the same.
                proptest::prop_assert_eq!(Packet::decode(&p.encode()).ok(), Some(p));
            }
        }

        #[test]
        fn event_round_trip(name in "\\PC*", n in proptest::num::i64::ANY, id in proptest::option::of(0u64..u64::MAX), nsp in "(/[a-z]{1,8})?") {
            let mut p = Packet::new(PacketType::Event, if nsp.is_empty() { "/" } else { &nsp }, Some(serde_json::json!([name, n])));
            p.id = id;
            proptest::prop_assert_eq!(Packet::decode(&p.encode()).ok(), Some(p));
        }
    }
}
