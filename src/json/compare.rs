//! Comparing JSON text with a value while reading it.
//!
//! Verification reads a recorded result only to compare it with what the
//! simulator returned, and nearly always the two are the same. Building the
//! recorded value first costs an allocation per string, array and object;
//! [`Compare`] instead checks each token against the expected value as the
//! parser meets it and builds nothing while they agree. At the first
//! disagreement it switches to building, reusing the expected value for the
//! part already read (that part was equal to it), so the caller still gets
//! the recorded value to show in a diff.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// What reading a value against an expected one found.
#[derive(Debug, Clone, PartialEq)]
pub enum Compared {
    /// The text holds exactly the expected value, keys in the same order.
    Same,
    /// The value the text holds, built because something differed from the
    /// expected value (it may still be `==` to it: objects compare without
    /// regard to key order).
    Parsed(Value),
}

impl Compared {
    /// Whether the recorded value equals the expected one as `==` says.
    pub fn equals(&self, expected: &Value) -> bool {
        match self {
            Compared::Same => true,
            Compared::Parsed(value) => value == expected,
        }
    }

    /// The recorded value (the expected one when they were the same).
    pub fn into_value(self, expected: &Value) -> Value {
        match self {
            Compared::Same => expected.clone(),
            Compared::Parsed(value) => value,
        }
    }
}

/// Read the JSON text `text` against `expected`.
pub fn compare_text(text: &str, expected: &Value) -> serde_json::Result<Compared> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let compared = Compare(expected).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(compared)
}

/// A seed that reads one JSON value against the expected one.
pub struct Compare<'v>(pub &'v Value);

impl<'de> DeserializeSeed<'de> for Compare<'_> {
    type Value = Compared;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Compared, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Compare<'_> {
    /// A scalar as serde_json's own `Value` visitor builds it.
    fn scalar(self, value: Value) -> Compared {
        if *self.0 == value {
            Compared::Same
        } else {
            Compared::Parsed(value)
        }
    }
}

impl<'de> Visitor<'de> for Compare<'_> {
    type Value = Compared;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Compared, E> {
        Ok(self.scalar(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Compared, E> {
        Ok(self.scalar(Value::Number(Number::from(v))))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Compared, E> {
        Ok(self.scalar(Value::Number(Number::from(v))))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Compared, E> {
        Ok(self.scalar(Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Compared, E> {
        Ok(if self.0.as_str() == Some(v) {
            Compared::Same
        } else {
            Compared::Parsed(Value::String(v.to_string()))
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Compared, E> {
        Ok(self.scalar(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Compared, E> {
        Ok(self.scalar(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Compared, A::Error> {
        let expected: &[Value] = match self.0 {
            Value::Array(items) => items,
            _ => &[],
        };
        let mut read = 0;
        // While the items agree nothing is built.
        let mut built = loop {
            match expected.get(read) {
                Some(item) => match seq.next_element_seed(Compare(item))? {
                    None => break expected[..read].to_vec(),
                    Some(Compared::Same) => read += 1,
                    Some(Compared::Parsed(value)) => {
                        let mut built = expected[..read].to_vec();
                        built.push(value);
                        break built;
                    }
                },
                None => match seq.next_element::<Value>()? {
                    None if self.0.is_array() => return Ok(Compared::Same),
                    None => break Vec::new(),
                    Some(value) => {
                        let mut built = expected.to_vec();
                        built.push(value);
                        break built;
                    }
                },
            }
        };
        while let Some(value) = seq.next_element::<Value>()? {
            built.push(value);
        }
        Ok(Compared::Parsed(Value::Array(built)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Compared, A::Error> {
        let empty = Map::new();
        let expected = match self.0 {
            Value::Object(fields) => fields,
            _ => &empty,
        };
        // Keys are matched in order; the first key or value that differs
        // (another order, a repeated key, a new field) switches to building.
        let mut fields = expected.iter();
        let mut read = 0;
        let mut built = loop {
            let next = fields.next();
            match map.next_key_seed(NextKey(next))? {
                None if next.is_none() && self.0.is_object() => return Ok(Compared::Same),
                None => break prefix(expected, read),
                Some(Key::Expected) => {
                    let (key, value) = next.expect("matched the expected key");
                    match map.next_value_seed(Compare(value))? {
                        Compared::Same => read += 1,
                        Compared::Parsed(value) => {
                            let mut built = prefix(expected, read);
                            built.insert(key.clone(), value);
                            break built;
                        }
                    }
                }
                Some(Key::Other(key)) => {
                    let mut built = prefix(expected, read);
                    built.insert(key, map.next_value()?);
                    break built;
                }
            }
        };
        // As serde_json's visitor does: a repeated key keeps its first
        // place and takes the last value.
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            built.insert(key, value);
        }
        Ok(Compared::Parsed(Value::Object(built)))
    }
}

/// The first `n` fields of `map`, copied.
fn prefix(map: &Map<String, Value>, n: usize) -> Map<String, Value> {
    map.iter()
        .take(n)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// An object key read against the key expected next.
enum Key {
    Expected,
    Other(String),
}

struct NextKey<'v>(Option<(&'v String, &'v Value)>);

impl<'de> DeserializeSeed<'de> for NextKey<'_> {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for NextKey<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match self.0 {
            Some((expected, _)) if expected == key => Key::Expected,
            _ => Key::Other(key.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every way of reading must agree with parsing and then comparing:
    /// the same equality, and the same value (key order included).
    fn agrees(text: &str, expected: &Value) {
        let parsed: Value = serde_json::from_str(text).unwrap();
        let compared = compare_text(text, expected).unwrap();
        assert_eq!(
            compared.equals(expected),
            parsed == *expected,
            "{text} vs {expected}"
        );
        let value = compared.into_value(expected);
        assert_eq!(value, parsed, "{text} vs {expected}");
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string(&parsed).unwrap(),
            "key order of {text} vs {expected}"
        );
    }

    #[test]
    fn agrees_with_parsing_then_comparing() {
        let texts = [
            r#"{"a": 1, "b": [true, null, "x"], "c": {"d": 2.5}}"#,
            r#"{"b": [true, null, "x"], "a": 1, "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, null, "x"], "c": {"d": 2.5}, "e": 0}"#,
            r#"{"a": 1, "b": [true, null], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, null, "x", 1], "c": {"d": 2.5}}"#,
            r#"{"a": 1.0, "b": [true, null, "x"], "c": {"d": 2.5}}"#,
            r#"{"a": -1, "b": [true, null, "x"], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [false, null, "x"], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, 0, "x"], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, null, "y"], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, null, "\u0078"], "c": {"d": 2.5}}"#,
            r#"{"a": 1, "b": [true, null, "x"], "c": {"d": 2.50}}"#,
            r#"{"a": 1, "b": [true, null, "x"], "c": {"e": 2.5}}"#,
            r#"{"a": 1, "b": {}, "c": {"d": 2.5}}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 2, "a": 2}"#,
            r#"{"a": 1, "b": 2, "a": 1}"#,
            r#"{"b": 2}"#,
            r#"{"a": 1}"#,
            r#"[{"a": 1}]"#,
            r#"[{"a": 1}, 2]"#,
            "[[]]",
            r#""a""#,
            "-7",
            "7",
            "18446744073709551615",
            "null",
            "{}",
            "[]",
        ];
        let expected = [
            json!({"a": 1, "b": [true, null, "x"], "c": {"d": 2.5}}),
            json!({"a": 1, "b": 2}),
            json!({"a": 2}),
            json!({"a": -1}),
            json!([{"a": 1}]),
            json!([[]]),
            json!("a"),
            json!(-7),
            json!(7.0),
            json!(u64::MAX),
            json!(null),
            json!({}),
            json!([]),
        ];
        for text in texts {
            for value in &expected {
                agrees(text, value);
            }
        }
    }

    #[test]
    fn an_identical_text_builds_nothing() {
        let expected = json!({"events": [{"id": "1", "at": "2023-01-01 10:00:00"}]});
        let text = serde_json::to_string_pretty(&expected).unwrap();
        assert_eq!(compare_text(&text, &expected).unwrap(), Compared::Same);
    }

    #[test]
    fn bad_text_is_an_error() {
        assert!(compare_text(r#"{"a": }"#, &json!({"a": 1})).is_err());
        assert!(compare_text(r#"{"a": 1} x"#, &json!({"a": 1})).is_err());
    }
}
