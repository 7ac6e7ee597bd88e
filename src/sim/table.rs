//! One database as the simulated tools see it: its top-level records
//! (keyed by username, city, ...) in file order, each shared between worlds
//! until a tool changes it.
//!
//! Every conversation (and, in evaluation, every assistant turn) starts from
//! the same initial databases, and a tool that writes touches one record
//! (one user's alarms, one account). Sharing records rather than whole
//! tables means a write copies that record alone, so resetting and
//! diverging worlds stays cheap however large the databases grow.

use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A field of a record (a JSON object of a handful of fields), found by
/// comparing names in order: cheaper than hashing the name, which is what
/// the object's own lookup does.
pub fn field<'a>(record: &'a Value, name: &str) -> Option<&'a Value> {
    record
        .as_object()?
        .iter()
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// A database's top-level object with copy-on-write records.
#[derive(Debug, Clone, Default)]
pub struct Table {
    records: IndexMap<Arc<str>, Arc<Value>>,
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.records.get(key).map(Arc::as_ref)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.records.contains_key(key)
    }

    /// A record to change, copied first if another world still shares it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.records.get_mut(key).map(Arc::make_mut)
    }

    /// The record under `key`, inserted from `make` (at the end) when missing.
    pub fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> Value) -> &mut Value {
        let index = match self.records.get_index_of(key) {
            Some(index) => index,
            None => self.records.insert_full(Arc::from(key), Arc::new(make())).0,
        };
        Arc::make_mut(&mut self.records[index])
    }

    /// Insert or replace (a replaced record keeps its place, as in Python).
    pub fn insert(&mut self, key: impl Into<Arc<str>>, value: Value) {
        self.records.insert(key.into(), Arc::new(value));
    }

    /// Remove a record, keeping the others in order (Python's `del d[k]`).
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        self.records
            .shift_remove(key)
            .map(|v| Arc::try_unwrap(v).unwrap_or_else(|shared| (*shared).clone()))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> {
        self.records.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> {
        self.records.keys().map(AsRef::as_ref)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> {
        self.records.values().map(Arc::as_ref)
    }

    /// The table as one JSON object (for writing a database file).
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
}

impl From<Map<String, Value>> for Table {
    fn from(map: Map<String, Value>) -> Self {
        Table {
            records: map
                .into_iter()
                .map(|(k, v)| (Arc::from(k), Arc::new(v)))
                .collect(),
        }
    }
}

/// Equal when the same keys hold equal records, whatever the order (as
/// `serde_json::Map` compares).
impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .records
                .iter()
                .all(|(k, v)| other.records.get(k).is_some_and(|o| o == v))
    }
}

impl<'t> IntoIterator for &'t Table {
    type Item = (&'t str, &'t Value);
    type IntoIter = Box<dyn DoubleEndedIterator<Item = (&'t str, &'t Value)> + 't>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// `table["ann"]`: the record, or `null` when missing (as `Value` indexes).
impl<K: AsRef<str>> std::ops::Index<K> for Table {
    type Output = Value;

    fn index(&self, key: K) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key.as_ref()).unwrap_or(&NULL)
    }
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_found_by_name_and_only_in_objects() {
        let record = serde_json::json!({"username": "ann", "session_token": "t", "n": null});
        assert_eq!(field(&record, "session_token"), Some(&Value::from("t")));
        assert_eq!(field(&record, "n"), Some(&Value::Null));
        assert_eq!(field(&record, "email"), None);
        assert_eq!(field(&Value::from("ann"), "username"), None);
    }
    use serde_json::json;

    fn table() -> Table {
        Table::from(
            json!({"ann": {"n": 1}, "bob": {"n": 2}, "cy": {"n": 3}})
                .as_object()
                .unwrap()
                .clone(),
        )
    }

    #[test]
    fn a_write_copies_only_the_record_it_changes() {
        let shared = table();
        let mut world = shared.clone();
        world.get_mut("bob").unwrap()["n"] = json!(20);
        assert_eq!(shared["bob"]["n"], 2);
        assert_eq!(world["bob"]["n"], 20);
        // The untouched records are still the same allocations.
        assert!(Arc::ptr_eq(&shared.records["ann"], &world.records["ann"]));
        assert!(!Arc::ptr_eq(&shared.records["bob"], &world.records["bob"]));
    }

    #[test]
    fn keeps_python_dict_order_through_insert_replace_and_remove() {
        let mut t = table();
        t.insert("ann", json!({"n": 10}));
        t.get_or_insert_with("dee", || json!({}));
        assert_eq!(t.shift_remove("bob"), Some(json!({"n": 2})));
        assert_eq!(t.keys().collect::<Vec<_>>(), ["ann", "cy", "dee"]);
        assert_eq!(t["ann"]["n"], 10);
        assert_eq!(t["nobody"], Value::Null);
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"ann":{"n":10},"cy":{"n":3},"dee":{}}"#
        );
    }

    #[test]
    fn equality_ignores_order_like_a_json_object() {
        let a = table();
        let mut b = Table::new();
        for key in ["cy", "bob", "ann"] {
            b.insert(key, a[key].clone());
        }
        assert_eq!(a, b);
        b.get_mut("cy").unwrap()["n"] = json!(0);
        assert_ne!(a, b);
    }
}
