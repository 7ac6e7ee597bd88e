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
///
/// The keys are known where the macro is written, so each call site keeps
/// an object of those keys (with null values) built once, and a call
/// clones it and fills the values in order. Cloning a map copies its hash
/// index as it is, where inserting hashes every key again (SipHash, about
/// half of what building a small object costs).
macro_rules! object {
    ({ $($key:literal : $value:expr),* $(,)? }) => {{
        static KEYS: ::std::sync::OnceLock<::serde_json::Map<String, ::serde_json::Value>> =
            ::std::sync::OnceLock::new();
        let mut map = KEYS
            .get_or_init(|| $crate::sim::object::keys_object(&[$($key),*]))
            .clone();
        let mut slots = map.values_mut();
        $( *slots.next().expect("one slot per key") =
            $crate::sim::object::IntoValue::into_value($value); )*
        ::serde_json::Value::Object(map)
    }};
}

/// An object of `keys`, in order, every value null: what `object!`
/// clones. The keys must differ (a repeated key would leave the object
/// with fewer slots than values).
pub fn keys_object(keys: &[&str]) -> Map<String, Value> {
    let map: Map<String, Value> = keys.iter().map(|k| (k.to_string(), Value::Null)).collect();
    assert_eq!(map.len(), keys.len(), "object! keys must differ: {keys:?}");
    map
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

    /// Each call clones the site's keys afresh: objects made by one site
    /// are independent, and their hash index finds every key (also after
    /// the object grows or loses keys).
    #[test]
    fn objects_from_one_site_are_independent_and_indexed() {
        let make =
            |id: &str, n: i64| object!({"id": id, "n": n.to_string(), "tags": Vec::<Value>::new()});
        let mut first = make("a", 1);
        let second = make("b", 2);
        assert_eq!(second, json!({"id": "b", "n": "2", "tags": []}));
        let map = first.as_object_mut().unwrap();
        map.insert("extra".to_string(), json!(true));
        map.shift_remove("n");
        for key in ["id", "tags", "extra"] {
            assert!(map.contains_key(key), "{key} is found by its hash");
        }
        assert!(!map.contains_key("n"));
        assert_eq!(first, json!({"id": "a", "tags": [], "extra": true}));
        assert_eq!(make("c", 3)["id"], "c");
    }

    #[test]
    #[should_panic(expected = "object! keys must differ")]
    fn a_repeated_key_is_refused() {
        keys_object(&["id", "name", "id"]);
    }
}
