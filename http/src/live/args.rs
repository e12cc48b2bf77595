//! `Args<T>`: a Socket.IO event's arguments as a typed struct. Clients send one object
//! (`{sessionId, message}`); older ones send the same fields by position (`"s1", "hello"`),
//! which fill `T`'s fields in declaration order (so an argument struct declares its fields in
//! the old positional order, and uses no `alias`: an alias would take a position). Strings are
//! moved out of the payload, not copied. Input of the wrong shape is refused with an ack that
//! says what is wrong.

use parley_engine::chat::EngineError;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The event's arguments, deserialized.
#[derive(Debug)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned> Args<T> {
    pub fn parse(mut args: Vec<Value>) -> Result<Args<T>, EngineError> {
        let parsed = match args.first() {
            Some(Value::Object(_)) => T::deserialize(args.swap_remove(0)),
            _ => T::deserialize(Positional(args)),
        };
        parsed.map(Args).map_err(|e| EngineError::Invalid(readable(&e)))
    }
}

/// "missing field `sessionId`" reads "sessionId is required"; anything else says what was
/// expected.
fn readable(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`')) {
        Some(field) => format!("{field} is required"),
        None => format!("Invalid arguments: {text}"),
    }
}

/// Arguments by position. Missing trailing ones are absent fields; extra ones are ignored
/// (as they always were).
struct Positional(Vec<Value>);

impl<'de> de::Deserializer<'de> for Positional {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(Elements(self.0.into_iter()))
    }

    /// A struct reads argument `i` as field `i`, so a missing one is a missing field.
    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Fields { names: fields.iter(), values: self.0.into_iter(), next: None })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

struct Fields {
    names: std::slice::Iter<'static, &'static str>,
    values: std::vec::IntoIter<Value>,
    next: Option<Value>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match (self.names.next(), self.values.next()) {
            (Some(name), Some(value)) => {
                self.next = Some(value);
                seed.deserialize((*name).into_deserializer()).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        seed.deserialize(self.next.take().unwrap_or(Value::Null))
    }
}

struct Elements(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Elements {
    type Error = serde_json::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, Self::Error> {
        self.0.next().map(|value| seed.deserialize(value)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        session_id: String,
        #[serde(default)]
        rating: Option<i32>,
        #[serde(default)]
        is_typing: bool,
    }

    fn parse(args: Value) -> Result<Sample, String> {
        let Value::Array(args) = args else { panic!("an array") };
        Args::<Sample>::parse(args).map(|a| a.0).map_err(|e| e.to_string())
    }

    #[test]
    fn an_object_fills_fields_by_name() {
        let got = parse(json!([{"sessionId": "s1", "rating": 4, "other": "ignored"}])).unwrap();
        assert_eq!(got, Sample { session_id: "s1".into(), rating: Some(4), is_typing: false });
    }

    #[test]
    fn older_clients_fill_fields_by_position() {
        assert_eq!(parse(json!(["s1", 5, true, "extra"])).unwrap(), Sample { session_id: "s1".into(), rating: Some(5), is_typing: true });
        assert_eq!(parse(json!(["s1"])).unwrap(), Sample { session_id: "s1".into(), rating: None, is_typing: false });
    }

    #[test]
    fn bad_input_says_what_is_wrong() {
        assert_eq!(parse(json!([{"rating": 4}])).unwrap_err(), "sessionId is required");
        assert_eq!(parse(json!([])).unwrap_err(), "sessionId is required");
        let wrong = parse(json!([{"sessionId": "s1", "rating": "five"}])).unwrap_err();
        assert!(wrong.starts_with("Invalid arguments: invalid type: string \"five\", expected i32"), "{wrong}");
    }
}
