//! Fuzz targets for the decoders a stranger's bytes reach first: Engine.IO packets and
//! long-polling payloads, Socket.IO packets (with binary placeholders), and multipart forms.
//! Property tests (proptest) with a bounded number of cases, so they run on stable in every
//! `cargo nextest` run; `PARLEY_FUZZ_CASES` raises the count for a longer session.
//! Each asserts no panic, and a round trip (encode then decode gives back the same) where the
//! codec has an encoder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::error::PayloadError;
use actix_web::http::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use bytes::Bytes;
use parley_http::error::ApiError;
use parley_http::realtime::engineio::packet::{decode_payload, encode_payload, Packet as EioPacket};
use parley_http::realtime::socketio::packet::{placeholder, placeholders_valid, Packet as SioPacket, PacketType};
use parley_http::uploads::{read_form, FormRules, Part};
use proptest::prelude::*;
use serde_json::Value;

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PARLEY_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---------- Engine.IO ----------

/// Text that may travel in a packet: anything but the payload separator.
fn frame_text() -> impl Strategy<Value = String> {
    "[^\u{1e}]{0,40}"
}

fn eio_packet() -> impl Strategy<Value = EioPacket> {
    prop_oneof![
        frame_text().prop_map(EioPacket::Open),
        Just(EioPacket::Close),
        Just(EioPacket::Ping),
        Just(EioPacket::PingProbe),
        Just(EioPacket::Pong),
        Just(EioPacket::PongProbe),
        frame_text().prop_map(EioPacket::Message),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| EioPacket::Binary(Bytes::from(b))),
        Just(EioPacket::Upgrade),
        Just(EioPacket::Noop),
    ]
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn engineio_decoders_never_panic(
        text in prop_oneof![
            "\\PC{0,200}",
            prop::collection::vec(prop_oneof![
                "[0-6b]".prop_map(String::from), Just("\u{1e}".to_string()), Just("probe".to_string()),
                "[A-Za-z0-9+/=]{0,12}", "\\PC{0,6}",
            ], 0..30).prop_map(|t| t.concat()),
        ],
        raw in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        let _ = EioPacket::decode_text(&text);
        let _ = decode_payload(&text);
        let lossy = String::from_utf8_lossy(&raw);
        let _ = EioPacket::decode_text(&lossy);
        let _ = decode_payload(&lossy);
    }

    #[test]
    fn engineio_payloads_round_trip(packets in prop::collection::vec(eio_packet(), 1..8)) {
        // An empty element is not a packet: `4` with no text is, so none is empty once encoded.
        let decoded = decode_payload(&encode_payload(&packets)).expect("an encoded payload decodes");
        prop_assert_eq!(decoded, packets);
    }

    #[test]
    fn engineio_text_frames_round_trip(packet in eio_packet()) {
        if let Some(frame) = packet.encode_text() {
            prop_assert_eq!(EioPacket::decode_text(&frame).ok(), Some(packet));
        }
    }
}

// ---------- Socket.IO ----------

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Short dyadic fractions: exact in text both ways (serde_json's parser rounds some longer
        // ones by an ulp, which is its behaviour, not the codec's).
        (any::<i16>(), 0i32..8).prop_map(|(m, e)| Value::from(f64::from(m) / 2f64.powi(e))),
        "\\PC{0,16}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,8}", inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn namespace() -> impl Strategy<Value = String> {
    prop_oneof![Just("/".to_string()), "/[a-zA-Z0-9_-]{1,12}"]
}

fn event_args() -> BoxedStrategy<Value> {
    ("\\PC{0,12}", prop::collection::vec(json_value(), 0..4))
        .prop_map(|(name, mut rest)| {
            rest.insert(0, Value::String(name));
            Value::Array(rest)
        })
        .boxed()
}

fn object() -> BoxedStrategy<Value> {
    prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..4).prop_map(|m| Value::Object(m.into_iter().collect())).boxed()
}

/// A packet the codec can carry: each type with the payload the protocol allows it.
fn sio_packet() -> impl Strategy<Value = SioPacket> {
    prop_oneof![
        (namespace(), prop::option::of(object())).prop_map(|(nsp, data)| SioPacket::new(PacketType::Connect, &nsp, data)),
        namespace().prop_map(|nsp| SioPacket::new(PacketType::Disconnect, &nsp, None)),
        (namespace(), prop_oneof![object(), "\\PC{0,12}".prop_map(Value::String)]).prop_map(|(nsp, data)| SioPacket::new(PacketType::ConnectError, &nsp, Some(data))),
        (namespace(), event_args(), prop::option::of(any::<u64>())).prop_map(|(nsp, args, id)| {
            let mut p = SioPacket::new(PacketType::Event, &nsp, Some(args));
            p.id = id;
            p
        }),
        (namespace(), prop::collection::vec(json_value(), 0..4), any::<u64>()).prop_map(|(nsp, args, id)| {
            let mut p = SioPacket::new(PacketType::Ack, &nsp, Some(Value::Array(args)));
            p.id = Some(id);
            p
        }),
        (namespace(), event_args(), 1usize..4, prop::option::of(any::<u64>())).prop_map(|(nsp, mut args, n, id)| {
            if let Value::Array(a) = &mut args {
                a.extend((0..n).map(placeholder));
            }
            let mut p = SioPacket::new(PacketType::BinaryEvent, &nsp, Some(args));
            p.attachments = n;
            p.id = id;
            p
        }),
    ]
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn socketio_decoder_never_panics(s in prop_oneof![
        "\\PC{0,200}",
        "[0-6][0-9-]{0,4}(/[\\PC]{0,6},?)?[0-9]{0,25}\\PC{0,40}",
        prop::collection::vec(prop_oneof![
            "[0-6]".prop_map(String::from), Just("-".to_string()), Just("/".to_string()), Just(",".to_string()),
            "[0-9]{1,22}", Just("[\"e\"".to_string()), Just("{".to_string()), Just("}".to_string()), Just("]".to_string()),
            Just("{\"_placeholder\":true,\"num\":".to_string()), "\\PC{0,4}",
        ], 0..24).prop_map(|t| t.concat()),
    ]) {
        if let Ok(p) = SioPacket::decode(&s) {
            // Whatever decodes, re-encodes to something that decodes the same.
            prop_assert_eq!(SioPacket::decode(&p.encode()).ok(), Some(p.clone()));
            if let Some(data) = &p.data {
                let _ = placeholders_valid(data, p.attachments);
            }
        }
    }

    #[test]
    fn socketio_packets_round_trip(packet in sio_packet()) {
        let decoded = SioPacket::decode(&packet.encode());
        prop_assert_eq!(decoded.as_ref().ok(), Some(&packet), "{}", packet.encode());
        if packet.kind.is_binary() {
            prop_assert!(placeholders_valid(packet.data.as_ref().unwrap(), packet.attachments));
            prop_assert!(!placeholders_valid(packet.data.as_ref().unwrap(), packet.attachments - 1));
        }
    }
}

// ---------- multipart ----------

const FIELDS: [(&str, usize); 3] = [("name", 64), ("file", 512), ("icon", 256)];
const TOTAL: usize = 700;

/// Reads `body` as a form with `FIELDS` and `TOTAL`, delivered in chunks cut at `cuts`.
fn read(content_type: &str, body: Vec<u8>, cuts: &[usize]) -> Result<Vec<Part>, ApiError> {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        headers.insert(CONTENT_TYPE, v);
    }
    let mut chunks = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        let cut = cut.min(body.len());
        if cut > at {
            chunks.push(Ok::<Bytes, PayloadError>(Bytes::copy_from_slice(&body[at..cut])));
            at = cut;
        }
    }
    chunks.push(Ok(Bytes::copy_from_slice(&body[at..])));
    // Through the same gate as the handlers' `uploads::Form`.
    let form = parley_http::uploads::multipart(&headers, futures_util::stream::iter(chunks))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(read_form(form, &FormRules { fields: &FIELDS, total: TOTAL }, |name| ApiError::too_large(name.to_string())))
}

fn encode_form(boundary: &str, parts: &[(String, Option<String>, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, filename, bytes) in parts {
        out.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"").as_bytes());
        if let Some(f) = filename {
            out.extend_from_slice(format!("; filename=\"{f}\"").as_bytes());
        }
        out.extend_from_slice(b"\r\nContent-Type: application/octet-stream\r\n\r\n");
        out.extend_from_slice(bytes);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    out
}

/// Boundaries as RFC 2046 allows them; `uploads::multipart` refuses one of a single byte.
fn boundary() -> impl Strategy<Value = String> {
    "[A-Za-z0-9'()+_,.-]{1,40}"
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn multipart_reader_never_panics(
        content_type in prop_oneof![
            boundary().prop_map(|b| format!("multipart/form-data; boundary={b}")),
            "\\PC{0,40}",
            Just("multipart/form-data".to_string()),
        ],
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..1024),
            prop::collection::vec(prop_oneof![
                Just(b"--".to_vec()), Just(b"\r\n".to_vec()), Just(b"Content-Disposition: form-data; name=\"file\"".to_vec()),
                Just(b"; filename=\"x.pdf\"".to_vec()), Just(b"name=\"\"".to_vec()), Just(b"\r\n\r\n".to_vec()),
                "[a-zA-Z0-9'()+_,.-]{1,8}".prop_map(String::into_bytes), prop::collection::vec(any::<u8>(), 0..32),
            ], 0..40).prop_map(|t| t.concat()),
        ],
        cuts in prop::collection::vec(0usize..1024, 0..6),
    ) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        let _ = read(&content_type, body, &cuts);
    }

    /// A well-formed form of known fields reads back byte for byte, however it is chunked; one
    /// over a cap, or with an unknown or repeated field, is refused.
    #[test]
    fn multipart_forms_round_trip(
        b in boundary().prop_filter("the gate refuses one-byte boundaries", |b| b.len() >= 2),
        parts in prop::collection::vec(
            (prop::sample::select(vec!["name", "file", "icon", "other"]), prop::option::of("[a-z]{1,8}\\.pdf"), prop::collection::vec(any::<u8>(), 0..600)),
            // An empty form is refused by actix-multipart ("incomplete"), a 400 like any other.
            1..4,
        ),
        cuts in prop::collection::vec(0usize..2048, 0..6),
    ) {
        let parts: Vec<(String, Option<String>, Vec<u8>)> = parts.into_iter().map(|(n, f, v)| (n.to_string(), f, v)).collect();
        let body = encode_form(&b, &parts);
        // The boundary may not occur in the content (a form writer picks one that does not).
        let delimiter = format!("\r\n--{b}");
        prop_assume!(!parts.iter().any(|(_, _, v)| v.windows(delimiter.len()).any(|w| w == delimiter.as_bytes()) || v.starts_with(format!("--{b}").as_bytes())));
        let mut cuts = cuts;
        cuts.sort_unstable();
        let result = read(&format!("multipart/form-data; boundary=\"{b}\""), body, &cuts);
        let unknown = parts.iter().any(|(n, _, _)| !FIELDS.iter().any(|(k, _)| k == n));
        let repeated = parts.iter().enumerate().any(|(i, (n, _, _))| parts.iter().skip(i + 1).any(|(m, _, _)| m == n));
        let over_cap = parts.iter().any(|(n, _, v)| FIELDS.iter().any(|(k, cap)| k == n && v.len() > *cap));
        let over_total = parts.iter().map(|(_, _, v)| v.len()).sum::<usize>() > TOTAL;
        match result {
            Ok(read) => {
                prop_assert!(!unknown && !repeated && !over_cap && !over_total, "accepted a form it should refuse");
                prop_assert_eq!(read.len(), parts.len());
                for (got, (name, filename, bytes)) in read.iter().zip(&parts) {
                    prop_assert_eq!(&got.name, name);
                    prop_assert_eq!(&got.filename, filename);
                    prop_assert_eq!(&got.bytes, bytes);
                }
            }
            Err(e) => prop_assert!(unknown || repeated || over_cap || over_total, "refused a good form: {e}"),
        }
    }
}
