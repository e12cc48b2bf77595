//! Engine.IO v4 packet codec (text frames, binary frames, and the long-polling payload).

use base64::Engine as _;
use bytes::Bytes;

/// The record separator joining packets in a long-polling payload.
pub const SEPARATOR: char = '\x1e';

/// One Engine.IO packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// `0{json}`: the handshake, sent by the server only.
    Open(String),
    /// `1`
    Close,
    /// `2`
    Ping,
    /// `2probe`
    PingProbe,
    /// `3`
    Pong,
    /// `3probe`
    PongProbe,
    /// `4text`
    Message(String),
    /// A binary message (a binary WebSocket frame, or `b<base64>` in a polling payload).
    Binary(Bytes),
    /// `5`
    Upgrade,
    /// `6`
    Noop,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("empty packet")]
    Empty,
    #[error("unknown packet type")]
    UnknownType,
    #[error("invalid base64 in binary packet")]
    Base64,
    #[error("empty payload")]
    EmptyPayload,
}

impl Packet {
    /// Decodes a text frame (WebSocket) or one element of a polling payload without the `b` prefix.
    pub fn decode_text(s: &str) -> Result<Packet, DecodeError> {
        let mut chars = s.chars();
        let kind = chars.next().ok_or(DecodeError::Empty)?;
        let rest = chars.as_str();
        Ok(match kind {
            '0' => Packet::Open(rest.to_owned()),
            '1' => Packet::Close,
            '2' if rest == "probe" => Packet::PingProbe,
            '2' => Packet::Ping,
            '3' if rest == "probe" => Packet::PongProbe,
            '3' => Packet::Pong,
            '4' => Packet::Message(rest.to_owned()),
            '5' => Packet::Upgrade,
            '6' => Packet::Noop,
            _ => return Err(DecodeError::UnknownType),
        })
    }

    /// Encodes as a WebSocket text frame; `None` for [`Packet::Binary`], which goes as a binary frame.
    pub fn encode_text(&self) -> Option<String> {
        Some(match self {
            Packet::Open(json) => format!("0{json}"),
            Packet::Close => "1".to_owned(),
            Packet::Ping => "2".to_owned(),
            Packet::PingProbe => "2probe".to_owned(),
            Packet::Pong => "3".to_owned(),
            Packet::PongProbe => "3probe".to_owned(),
            Packet::Message(text) => format!("4{text}"),
            Packet::Upgrade => "5".to_owned(),
            Packet::Noop => "6".to_owned(),
            Packet::Binary(_) => return None,
        })
    }

    /// Encodes as one element of a polling payload (binary as `b` + base64).
    pub fn encode_polling(&self) -> String {
        match self {
            Packet::Binary(data) => {
                format!("b{}", base64::engine::general_purpose::STANDARD.encode(data))
            }
            other => other.encode_text().unwrap_or_default(),
        }
    }

    /// Size used against `maxPayload`.
    pub fn len_hint(&self) -> usize {
        match self {
            Packet::Binary(b) => b.len(),
            Packet::Open(s) | Packet::Message(s) => s.len() + 1,
            _ => 6,
        }
    }
}

/// Decodes a long-polling payload: packets joined with `\x1e`.
pub fn decode_payload(body: &str) -> Result<Vec<Packet>, DecodeError> {
    if body.is_empty() {
        return Err(DecodeError::EmptyPayload);
    }
    body.split(SEPARATOR)
        .map(|part| {
            if let Some(b64) = part.strip_prefix('b') {
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .map(|v| Packet::Binary(Bytes::from(v)))
                    .map_err(|_| DecodeError::Base64)
            } else {
                Packet::decode_text(part)
            }
        })
        .collect()
}

/// Encodes a long-polling payload.
pub fn encode_payload(packets: &[Packet]) -> String {
    let mut out = String::new();
    for (i, p) in packets.iter().enumerate() {
        if i > 0 {
            out.push(SEPARATOR);
        }
        out.push_str(&p.encode_polling());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let all = [
            Packet::Open(r#"{"sid":"x"}"#.into()),
            Packet::Close,
            Packet::Ping,
            Packet::PingProbe,
            Packet::Pong,
            Packet::PongProbe,
            Packet::Message("hello".into()),
            Packet::Message(String::new()),
            Packet::Message("é\u{1e}x".into()),
            Packet::Upgrade,
            Packet::Noop,
        ];
        for p in all {
            let text = p.encode_text().unwrap();
            assert_eq!(Packet::decode_text(&text).unwrap(), p, "{text}");
        }
        assert_eq!(Packet::Binary(Bytes::from_static(b"x")).encode_text(), None);
    }

    #[test]
    fn payload_round_trips() {
        let packets = vec![
            Packet::Message("test1".into()),
            Packet::Binary(Bytes::from_static(&[1, 2, 3, 4])),
            Packet::Ping,
            Packet::Message("test3".into()),
        ];
        let enc = encode_payload(&packets);
        assert_eq!(enc, "4test1\x1ebAQIDBA==\x1e2\x1e4test3");
        assert_eq!(decode_payload(&enc).unwrap(), packets);
        assert_eq!(
            decode_payload("4hello\x1ebAQIDBA==").unwrap(),
            vec![Packet::Message("hello".into()), Packet::Binary(Bytes::from_static(&[1, 2, 3, 4]))]
        );
        assert_eq!(decode_payload("b").unwrap(), vec![Packet::Binary(Bytes::new())]);
    }

    #[test]
    fn malformed_inputs_are_errors() {
        assert_eq!(Packet::decode_text(""), Err(DecodeError::Empty));
        assert_eq!(Packet::decode_text("abc"), Err(DecodeError::UnknownType));
        assert_eq!(Packet::decode_text("7"), Err(DecodeError::UnknownType));
        assert_eq!(Packet::decode_text("é"), Err(DecodeError::UnknownType));
        assert_eq!(decode_payload(""), Err(DecodeError::EmptyPayload));
        assert_eq!(decode_payload("abc"), Err(DecodeError::UnknownType));
        assert_eq!(decode_payload("4a\x1e"), Err(DecodeError::Empty));
        assert_eq!(decode_payload("b!!!"), Err(DecodeError::Base64));
        assert_eq!(decode_payload("4a\x1e\x1e4b"), Err(DecodeError::Empty));
    }

    proptest::proptest! {
        #[test]
        fn decoders_never_panic(s in "\\PC*", raw in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = Packet::decode_text(&s);
            let _ = decode_payload(&s);
            let lossy = String::from_utf8_lossy(&raw);
            let _ = Packet::decode_text(&lossy);
            let _ = decode_payload(&lossy);
        }

        #[test]
        fn message_round_trip(s in "\\PC*") {
            let p = Packet::Message(s);
            proptest::prop_assert_eq!(Packet::decode_text(&p.encode_text().unwrap_or_default()).ok(), Some(p));
        }
    }
}
