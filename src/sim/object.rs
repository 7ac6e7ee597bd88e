//! Building the JSON objects tools return and store, moving the values in.
//!
//! `serde_json::json!` serialises every interpolated value afresh (a deep
//! copy, every key hashed again), which for a list of found events or a
//! user's whole record is most of what a query costs.

use serde_json::{Map, Value};

/// A value a tool puts into an object: owned values move in, borrowed
/// ones are cloned once.
pub trait IntoValue {
    fn into_value(self) -> Value;
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl IntoValue for &Value {
    fn into_value(self) -> Value {
        self.clone()
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::String(self)
    }
}

impl IntoValue for &String {
    fn into_value(self) -> Value {
        Value::String(self.clone())
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::String(self.to_string())
    }
}

impl IntoValue for Vec<Value> {
    fn into_value(self) -> Value {
        Value::Array(self)
    }
}

impl IntoValue for Vec<&Value> {
    fn into_value(self) -> Value {
        Value::Array(self.into_iter().cloned().collect())
    }
}

impl IntoValue for Map<String, Value> {
    fn into_value(self) -> Value {
        Value::Object(self)
    }
}

/// `object!({"key": value, ...})`: a JSON object with its keys in the
/// order written, as `json!` would make it.
macro_rules! object {
    ({ $($key:literal : $value:expr),* $(,)? }) => {{
        // Sized once: the keys are known, so the map never regrows.
        let mut map = ::serde_json::Map::with_capacity([$($key),*].len());
        $( map.insert($key.to_string(), $crate::sim::object::IntoValue::into_value($value)); )*
        ::serde_json::Value::Object(map)
    }};
}

pub(crate) use object;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_object_is_what_json_makes_of_the_same_values() {
        let found = vec![json!({"id": "e1", "attendees": ["ann", "bob"]})];
        let name = json!("Standup");
        let id = "e1".to_string();
        let made = object!({"id": &id, "name": &name, "events": found.clone(), "kind": "meeting", "null": Value::Null});
        let want =
            json!({"id": id, "name": name, "events": found, "kind": "meeting", "null": null});
        assert_eq!(made, want);
        let keys: Vec<&String> = made.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "name", "events", "kind", "null"]);
    }
}
