//! One database as the simulated tools see it: its top-level records
//! (keyed by username, city, ...) in file order, shared between worlds at
//! two levels until a tool changes them.
//!
//! Every conversation (and, in evaluation, every assistant turn) starts from
//! the same initial databases, and a tool that writes touches one item of
//! one record (adds an alarm to a user's alarms, completes one reminder,
//! sets an account's session token). So a table holds its records behind
//! reference counts, and a record that is a JSON object holds its items
//! behind reference counts too (see [`Record`]): a write copies the
//! record's index of items (pointers) and the one item it changes, however
//! many items the record has and however large the databases grow.

use std::sync::Arc;

use indexmap::IndexSet;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A field of an item (a JSON object of a handful of fields), found by
/// comparing names in order: cheaper than hashing the name, which is what
/// the object's own lookup does.
pub fn field<'a>(item: &'a Value, name: &str) -> Option<&'a Value> {
    item.as_object()?
        .iter()
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// Up to this many keys, a record (or a table) finds a key by comparing
/// names in order rather than by hashing it (SipHash of the key costs more
/// than a few length checks and short compares).
const SCAN_LIMIT: usize = 16;

/// Values under string keys, in the order a Python dict keeps them, with
/// the keys held apart and shared between copies. A world's first write to
/// a table or record copies its values (pointers, each a count) and not its
/// keys; only adding or removing a key copies the keys (and their index).
#[derive(Debug, Clone)]
struct Keyed<V> {
    keys: Arc<IndexSet<Arc<str>>>,
    /// `values[i]` is the value of the `i`-th key.
    values: Vec<V>,
}

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed {
            keys: Arc::default(),
            values: Vec::new(),
        }
    }
}

impl<V> Keyed<V> {
    fn len(&self) -> usize {
        self.values.len()
    }

    fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Where `key` sits.
    fn index_of(&self, key: &str) -> Option<usize> {
        if self.keys.len() <= SCAN_LIMIT {
            self.keys.iter().position(|k| **k == *key)
        } else {
            self.keys.get_index_of(key)
        }
    }

    /// A key known to be missing, with its value, at the end.
    fn push_new(&mut self, key: Arc<str>, value: V) -> usize {
        Arc::make_mut(&mut self.keys).insert(key);
        self.values.push(value);
        self.values.len() - 1
    }

    /// `del d[key]` by position, keeping the others in order.
    fn remove(&mut self, index: usize) -> V {
        Arc::make_mut(&mut self.keys).shift_remove_index(index);
        self.values.remove(index)
    }

    fn iter(&self) -> impl DoubleEndedIterator<Item = (&Arc<str>, &V)> + ExactSizeIterator {
        self.keys.iter().zip(&self.values)
    }
}

/// Later values replace earlier ones under the same key, in its first
/// place, as building a map does.
impl<V> FromIterator<(Arc<str>, V)> for Keyed<V> {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, V)>>(iter: I) -> Self {
        let mut keys = IndexSet::new();
        let mut values = Vec::new();
        for (key, value) in iter {
            let (index, new) = keys.insert_full(key);
            if new {
                values.push(value);
            } else {
                values[index] = value;
            }
        }
        Keyed {
            keys: Arc::new(keys),
            values,
        }
    }
}

/// The items of a record that is a JSON object, as a Python dict holds
/// them: in insertion order, a replaced item keeping its place, a removed
/// one leaving the others in order. Each item is shared until it is
/// written: cloning the items copies pointers, and [`Items::get_mut`]
/// copies the one item it hands out if another world still shares it.
#[derive(Debug, Clone, Default)]
pub struct Items {
    map: Keyed<Arc<Value>>,
}

impl Items {
    pub fn new() -> Self {
        Items::default()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn index_of(&self, key: &str) -> Option<usize> {
        self.map.index_of(key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.index_of(key).map(|i| self.map.values[i].as_ref())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.index_of(key).is_some()
    }

    /// An item to change, copied first if another world still shares it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        let index = self.index_of(key)?;
        Some(Arc::make_mut(&mut self.map.values[index]))
    }

    /// `d[key] = value`: a new key goes at the end, a replaced item keeps
    /// its place.
    pub fn insert(&mut self, key: &str, value: Value) {
        match self.index_of(key) {
            Some(index) => {
                let slot = &mut self.map.values[index];
                // Overwrite in place unless another world shares the item.
                match Arc::get_mut(slot) {
                    Some(item) => *item = value,
                    None => *slot = Arc::new(value),
                }
            }
            None => {
                self.map.push_new(Arc::from(key), Arc::new(value));
            }
        }
    }

    /// `del d[key]`, keeping the other items in order. The removed item is
    /// handed back as it is held: other worlds may still share it.
    pub fn shift_remove(&mut self, key: &str) -> Option<Arc<Value>> {
        let index = self.index_of(key)?;
        Some(self.map.remove(index))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> + ExactSizeIterator {
        self.map.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.map.keys.iter().map(AsRef::as_ref)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.map.values.iter().map(Arc::as_ref)
    }

    /// An item as the record holds it, to be shared (see `shared_values`).
    pub fn get_shared(&self, key: &str) -> Option<&Arc<Value>> {
        self.index_of(key).map(|i| &self.map.values[i])
    }

    /// The items with their keys, as the record holds them.
    pub fn iter_shared(&self) -> impl DoubleEndedIterator<Item = (&str, &Arc<Value>)> {
        self.map.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// The items as the record holds them, to be shared (a listing's
    /// reply holds them without copying them).
    pub fn shared_values(
        &self,
    ) -> impl DoubleEndedIterator<Item = &Arc<Value>> + ExactSizeIterator {
        self.map.values.iter()
    }

    /// The items as one JSON object (a copy of every item).
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }
}

impl From<Map<String, Value>> for Items {
    fn from(map: Map<String, Value>) -> Self {
        Items {
            map: map
                .into_iter()
                .map(|(k, v)| (Arc::from(k), Arc::new(v)))
                .collect(),
        }
    }
}

/// Equal when the same keys hold equal items, whatever the order (as
/// `serde_json::Map` compares).
impl PartialEq for Items {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.map.iter().all(|(k, v)| {
                other.index_of(k).is_some_and(|i| {
                    Arc::ptr_eq(v, &other.map.values[i]) || **v == *other.map.values[i]
                })
            })
    }
}

/// Compared with a JSON object as two objects compare.
impl PartialEq<Map<String, Value>> for Items {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.len() == other.len() && other.iter().all(|(k, v)| self.get(k) == Some(v))
    }
}

impl<'i> IntoIterator for &'i Items {
    type Item = (&'i str, &'i Value);
    type IntoIter = Box<dyn DoubleEndedIterator<Item = (&'i str, &'i Value)> + 'i>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

static NULL: Value = Value::Null;

/// `items["e1"]`: the item, or `null` when missing (as `Value` indexes).
impl<K: AsRef<str>> std::ops::Index<K> for Items {
    type Output = Value;

    fn index(&self, key: K) -> &Value {
        self.get(key.as_ref()).unwrap_or(&NULL)
    }
}

/// Written as the JSON object it stands for (the same text).
impl Serialize for Items {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One record of a database: the value under a top-level key.
///
/// Two levels of sharing keep worlds cheap. A [`Table`] holds each record
/// behind a reference count, so a world that never writes a record shares
/// it whole with the initial databases and every other world. A record that
/// is a JSON object (every record of a well-formed database: a user's
/// events, an account's fields) holds its [`Items`] behind reference counts
/// too, so the first write to a record copies only its index of items
/// (keys and pointers), and changing an item copies that item alone: adding
/// an event or completing a reminder leaves the user's other items shared.
///
/// A record that is not an object (only a malformed database holds one)
/// is kept as the plain value: it has no items, as `Value::get` would say.
#[derive(Debug, Clone, PartialEq)]
pub struct Record(Repr);

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    Object(Items),
    /// Never an object: `Record::from` files those as `Object`.
    Other(Value),
}

/// What a missing record reads as (`table["nobody"]`).
static NULL_RECORD: Record = Record(Repr::Other(Value::Null));

impl Default for Record {
    fn default() -> Self {
        Record::new()
    }
}

impl Record {
    /// An empty object (`{}`).
    pub fn new() -> Self {
        Record(Repr::Object(Items::new()))
    }

    /// The items, when the record is an object.
    pub fn as_object(&self) -> Option<&Items> {
        match &self.0 {
            Repr::Object(items) => Some(items),
            Repr::Other(_) => None,
        }
    }

    /// The items to change, when the record is an object.
    pub fn as_object_mut(&mut self) -> Option<&mut Items> {
        match &mut self.0 {
            Repr::Object(items) => Some(items),
            Repr::Other(_) => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.0, Repr::Object(_))
    }

    /// [`Record::get`], the item as the record holds it (to be shared).
    pub fn get_shared(&self, key: &str) -> Option<&Arc<Value>> {
        self.as_object()?.get_shared(key)
    }

    /// An item (`record[key]`); `None` when missing or when the record is
    /// not an object, as `Value::get` answers.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.as_object()
            .is_some_and(|items| items.contains_key(key))
    }

    /// An item to change, copied first if another world still shares it;
    /// `None` when missing or when the record is not an object.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut()?.get_mut(key)
    }

    /// The record as the JSON value it stands for (a copy of every item).
    pub fn to_value(&self) -> Value {
        match &self.0 {
            Repr::Object(items) => Value::Object(items.to_map()),
            Repr::Other(value) => value.clone(),
        }
    }
}

impl From<Value> for Record {
    fn from(value: Value) -> Self {
        match value {
            Value::Object(map) => Record(Repr::Object(Items::from(map))),
            other => Record(Repr::Other(other)),
        }
    }
}

impl From<Map<String, Value>> for Record {
    fn from(map: Map<String, Value>) -> Self {
        Record(Repr::Object(Items::from(map)))
    }
}

/// Compared with a JSON value as that value would be.
impl PartialEq<Value> for Record {
    fn eq(&self, other: &Value) -> bool {
        match (&self.0, other) {
            (Repr::Object(items), Value::Object(map)) => items == map,
            (Repr::Other(value), other) => value == other,
            _ => false,
        }
    }
}

/// `record["e1"]`: the item, or `null` when missing or when the record is
/// not an object (as `Value` indexes).
impl<K: AsRef<str>> std::ops::Index<K> for Record {
    type Output = Value;

    fn index(&self, key: K) -> &Value {
        self.get(key.as_ref()).unwrap_or(&NULL)
    }
}

/// Written as the JSON value it stands for (the same text).
impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Object(items) => items.serialize(serializer),
            Repr::Other(value) => value.serialize(serializer),
        }
    }
}

/// A database's top-level object: its records in file order, each shared
/// between worlds until a tool writes it (see [`Record`]).
#[derive(Debug, Clone, Default)]
pub struct Table {
    records: Keyed<Arc<Record>>,
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

    fn index_of(&self, key: &str) -> Option<usize> {
        self.records.index_of(key)
    }

    pub fn get(&self, key: &str) -> Option<&Record> {
        self.index_of(key).map(|i| self.records.values[i].as_ref())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.index_of(key).is_some()
    }

    /// A record to change. If another world still shares it, its index of
    /// items is copied first (the items themselves stay shared until
    /// written through [`Record::get_mut`] or replaced).
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Record> {
        let index = self.index_of(key)?;
        Some(Arc::make_mut(&mut self.records.values[index]))
    }

    /// The record under `key`, inserted from `make` (at the end) when missing.
    pub fn get_or_insert_with(&mut self, key: &str, make: impl FnOnce() -> Record) -> &mut Record {
        let index = match self.index_of(key) {
            Some(index) => index,
            None => self.records.push_new(Arc::from(key), Arc::new(make())),
        };
        Arc::make_mut(&mut self.records.values[index])
    }

    /// Insert or replace (a replaced record keeps its place, as in Python).
    pub fn insert(&mut self, key: impl Into<Arc<str>>, record: impl Into<Record>) {
        let key: Arc<str> = key.into();
        let record = Arc::new(record.into());
        match self.index_of(&key) {
            Some(index) => self.records.values[index] = record,
            None => {
                self.records.push_new(key, record);
            }
        }
    }

    /// Remove a record, keeping the others in order (Python's `del d[k]`).
    /// The record is handed back as it is held: other worlds may still
    /// share it.
    pub fn shift_remove(&mut self, key: &str) -> Option<Arc<Record>> {
        let index = self.index_of(key)?;
        Some(self.records.remove(index))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Record)> + ExactSizeIterator {
        self.records.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.records.keys.iter().map(AsRef::as_ref)
    }

    /// The records with their keys as the table holds them (shared).
    pub fn entries(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&Arc<str>, &Record)> + ExactSizeIterator {
        self.records.iter().map(|(k, v)| (k, v.as_ref()))
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Record> + ExactSizeIterator {
        self.records.values.iter().map(Arc::as_ref)
    }

    /// The table as one JSON object (a copy of every record).
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.to_value()))
            .collect()
    }
}

impl From<Map<String, Value>> for Table {
    fn from(map: Map<String, Value>) -> Self {
        Table {
            records: map
                .into_iter()
                .map(|(k, v)| (Arc::from(k), Arc::new(Record::from(v))))
                .collect(),
        }
    }
}

/// Equal when the same keys hold equal records, whatever the order (as
/// `serde_json::Map` compares).
impl PartialEq for Table {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.records.iter().all(|(k, v)| {
                other.records.index_of(k).is_some_and(|i| {
                    let o = &other.records.values[i];
                    Arc::ptr_eq(o, v) || o == v
                })
            })
    }
}

impl<'t> IntoIterator for &'t Table {
    type Item = (&'t str, &'t Record);
    type IntoIter = Box<dyn DoubleEndedIterator<Item = (&'t str, &'t Record)> + 't>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// `table["ann"]`: the record, or one that reads as `null` when missing
/// (as `Value` indexes).
impl<K: AsRef<str>> std::ops::Index<K> for Table {
    type Output = Record;

    fn index(&self, key: K) -> &Record {
        self.get(key.as_ref()).unwrap_or(&NULL_RECORD)
    }
}

/// Written as the JSON object it stands for (the same text).
impl Serialize for Table {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_is_found_by_name_and_only_in_objects() {
        let record = json!({"username": "ann", "session_token": "t", "n": null});
        assert_eq!(field(&record, "session_token"), Some(&Value::from("t")));
        assert_eq!(field(&record, "n"), Some(&Value::Null));
        assert_eq!(field(&record, "email"), None);
        assert_eq!(field(&Value::from("ann"), "username"), None);
    }

    fn table_of(value: Value) -> Table {
        Table::from(value.as_object().unwrap().clone())
    }

    fn table() -> Table {
        table_of(json!({
            "ann": {"a1": {"n": 1}, "a2": {"n": 2}},
            "bob": {"b1": {"n": 1}, "b2": {"n": 2}, "b3": {"n": 3}},
            "cy": {"c1": {"n": 1}},
        }))
    }

    /// Whether two worlds' tables hold the very same record (not a copy).
    fn same_record(a: &Table, b: &Table, key: &str) -> bool {
        std::ptr::eq(a.get(key).unwrap(), b.get(key).unwrap())
    }

    /// Whether two records hold the very same item (not a copy).
    fn same_item(a: &Record, b: &Record, key: &str) -> bool {
        std::ptr::eq(a.get(key).unwrap(), b.get(key).unwrap())
    }

    /// A write to a record copies the table's values, not its keys; adding
    /// or removing a record copies the keys of that world's table alone.
    #[test]
    fn keys_are_shared_until_a_key_is_added_or_removed() {
        let shared = table();
        let mut world = shared.clone();
        world.get_mut("bob").unwrap().get_mut("b1").unwrap()["n"] = json!(10);
        assert!(Arc::ptr_eq(&shared.records.keys, &world.records.keys));
        let bob = (
            &shared["bob"].as_object().unwrap().map.keys,
            &world["bob"].as_object().unwrap().map.keys,
        );
        assert!(
            Arc::ptr_eq(bob.0, bob.1),
            "changing an item keeps the record's keys"
        );
        world.get_or_insert_with("dee", Record::new);
        assert!(!Arc::ptr_eq(&shared.records.keys, &world.records.keys));
        assert_eq!(shared.keys().collect::<Vec<_>>(), ["ann", "bob", "cy"]);
        assert_eq!(
            world.keys().collect::<Vec<_>>(),
            ["ann", "bob", "cy", "dee"]
        );
        let mut other = shared.clone();
        assert!(other.shift_remove("ann").is_some());
        assert_eq!(other.keys().collect::<Vec<_>>(), ["bob", "cy"]);
        assert_eq!(other["cy"], json!({"c1": {"n": 1}}));
        assert_eq!(shared.keys().collect::<Vec<_>>(), ["ann", "bob", "cy"]);
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value() {
        let keyed: Keyed<i32> = [("a", 1), ("b", 2), ("a", 3)]
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect();
        let got: Vec<(&str, i32)> = keyed.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
        assert_eq!(got, [("a", 3), ("b", 2)]);
    }

    #[test]
    fn changing_an_item_copies_that_item_alone() {
        let shared = table();
        let before = shared.to_map();
        let mut world = shared.clone();
        world.get_mut("bob").unwrap().get_mut("b2").unwrap()["n"] = json!(20);
        assert_eq!(world["bob"]["b2"]["n"], 20);
        assert_eq!(shared["bob"]["b2"]["n"], 2);
        assert_eq!(shared.to_map(), before);
        // Untouched records are the same allocations; the written record
        // is a new index whose untouched items are still shared.
        assert!(same_record(&shared, &world, "ann"));
        assert!(same_record(&shared, &world, "cy"));
        assert!(!same_record(&shared, &world, "bob"));
        assert!(same_item(&shared["bob"], &world["bob"], "b1"));
        assert!(same_item(&shared["bob"], &world["bob"], "b3"));
        assert!(!same_item(&shared["bob"], &world["bob"], "b2"));
        // A second write to the world's own item copies nothing more.
        let item: *const Value = world["bob"].get("b2").unwrap();
        world.get_mut("bob").unwrap().get_mut("b2").unwrap()["n"] = json!(21);
        assert!(std::ptr::eq(item, world["bob"].get("b2").unwrap()));
    }

    #[test]
    fn adding_and_removing_items_leave_the_others_shared() {
        let shared = table();
        let before = shared.to_map();
        let mut world = shared.clone();
        let bob = world.get_mut("bob").unwrap().as_object_mut().unwrap();
        bob.insert("b4", json!({"n": 4}));
        assert!(bob.shift_remove("b1").is_some());
        assert!(bob.shift_remove("b1").is_none());
        let dee = world.get_or_insert_with("dee", Record::new);
        dee.as_object_mut().unwrap().insert("d1", json!({"n": 1}));
        assert_eq!(
            world["bob"].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["b2", "b3", "b4"]
        );
        for key in ["b2", "b3"] {
            assert!(same_item(&shared["bob"], &world["bob"], key));
        }
        assert_eq!(shared.to_map(), before);
        assert!(!shared.contains_key("dee"));
        assert_eq!(world["dee"], json!({"d1": {"n": 1}}));
    }

    #[test]
    fn items_keep_python_dict_order_through_insert_replace_and_remove() {
        // Small enough to be scanned, and large enough to be hashed.
        for n in [3, SCAN_LIMIT + 5] {
            let mut items = Items::new();
            let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
            for (i, key) in keys.iter().enumerate() {
                items.insert(key, json!(i));
            }
            items.insert("k1", json!("replaced"));
            assert!(items.shift_remove("k0").is_some());
            items.insert("k0", json!("back at the end"));
            let mut want: Vec<&str> = keys[1..].iter().map(String::as_str).collect();
            want.push("k0");
            assert_eq!(items.keys().collect::<Vec<_>>(), want);
            assert_eq!(items.len(), n);
            assert_eq!(items["k1"], "replaced");
            assert_eq!(items.get("k2"), Some(&json!(2)));
            assert!(items.contains_key("k0"));
            assert!(!items.contains_key("k"));
            assert_eq!(items["nothing"], Value::Null);
            assert_eq!(items.get_mut("nothing"), None);
            assert_eq!(items.values().next_back(), Some(&json!("back at the end")));
            let text = serde_json::to_string(&items).unwrap();
            assert_eq!(text, serde_json::to_string(&items.to_map()).unwrap());
            assert!(text.starts_with(r#"{"k1":"replaced","k2":2"#));
        }
    }

    #[test]
    fn replacing_a_shared_item_leaves_the_other_world_alone() {
        let shared = table();
        let mut world = shared.clone();
        world
            .get_mut("ann")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("a1", json!("new"));
        assert_eq!(world["ann"]["a1"], "new");
        assert_eq!(shared["ann"]["a1"], json!({"n": 1}));
        assert_eq!(
            world["ann"].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["a1", "a2"]
        );
    }

    #[test]
    fn tables_keep_python_dict_order_through_insert_replace_and_remove() {
        let mut t = table_of(json!({"ann": {"n": 1}, "bob": {"n": 2}, "cy": {"n": 3}}));
        t.insert("ann", json!({"n": 10}));
        t.get_or_insert_with("dee", Record::new);
        assert_eq!(t.shift_remove("bob").unwrap().to_value(), json!({"n": 2}));
        assert_eq!(t.keys().collect::<Vec<_>>(), ["ann", "cy", "dee"]);
        assert_eq!(t["ann"]["n"], 10);
        assert_eq!(t["nobody"], Value::Null);
        assert_eq!(t["nobody"]["n"], Value::Null);
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"ann":{"n":10},"cy":{"n":3},"dee":{}}"#
        );
    }

    #[test]
    fn large_tables_find_and_keep_order_as_small_ones_do() {
        // Beyond the scan limit a table finds its records by hashing.
        let n = SCAN_LIMIT + 5;
        let mut t = Table::new();
        for i in 0..n {
            t.insert(format!("u{i}"), json!({ "n": i }));
        }
        t.insert("u1", json!({"n": "replaced"}));
        assert_eq!(t.shift_remove("u0").unwrap().to_value(), json!({"n": 0}));
        assert!(t.shift_remove("u0").is_none());
        t.get_or_insert_with("u0", Record::new);
        t.get_mut(&format!("u{}", n - 1))
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("n", json!(-1));
        let mut want: Vec<String> = (1..n).map(|i| format!("u{i}")).collect();
        want.push("u0".into());
        assert_eq!(t.keys().collect::<Vec<_>>(), want);
        assert_eq!(t["u1"]["n"], "replaced");
        assert_eq!(t[format!("u{}", n - 1).as_str()]["n"], -1);
        assert!(t.contains_key("u2") && !t.contains_key("u"));
        assert!(t.get("nobody").is_none() && t.get_mut("nobody").is_none());
    }

    #[test]
    fn equality_ignores_order_like_a_json_object() {
        let a = table();
        let mut b = Table::new();
        for key in ["cy", "bob", "ann"] {
            let reversed: Map<String, Value> = a[key]
                .as_object()
                .unwrap()
                .iter()
                .rev()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            b.insert(key, reversed);
        }
        assert_eq!(a, b);
        assert_eq!(a["bob"], b["bob"]);
        assert_eq!(a["bob"], a["bob"].to_value());
        b.get_mut("cy").unwrap().get_mut("c1").unwrap()["n"] = json!(0);
        assert_ne!(a, b);
        assert_ne!(a["cy"], b["cy"]);
        assert_ne!(a["cy"], json!({"c1": {"n": 1}, "c2": null}));
        assert_ne!(a["cy"], json!([]));
    }

    #[test]
    fn a_record_that_is_not_an_object_is_kept_as_it_is() {
        let mut t = table_of(json!({"list": [1, 2], "text": "x", "none": null, "ann": {}}));
        for key in ["list", "text", "none"] {
            let record = &t[key];
            assert!(!record.is_object());
            assert!(record.as_object().is_none());
            assert_eq!(record.get("0"), None);
            assert!(!record.contains_key("0"));
            assert_eq!(record["0"], Value::Null);
        }
        assert_eq!(t["list"], json!([1, 2]));
        assert_ne!(t["list"], json!({}));
        assert_eq!(t["text"].to_value(), json!("x"));
        assert!(t["ann"].is_object());
        assert!(t.get_mut("list").unwrap().get_mut("0").is_none());
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"list":[1,2],"text":"x","none":null,"ann":{}}"#
        );
    }

    #[test]
    fn written_as_the_json_it_was_read_from() {
        let value = json!({
            "ann": {"e1": {"id": "e1", "tags": ["a", {"b": null}], "n": 1.5}, "e2": {}},
            "bob": {},
            "cy": [{"x": 1}],
            "dee": "text",
        });
        let t = table_of(value.clone());
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
        assert_eq!(
            serde_json::to_string_pretty(&t).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(
            crate::formats::to_python_json(&t),
            crate::formats::to_python_json(&value)
        );
        assert_eq!(Value::Object(t.to_map()), value);
        for (key, record) in &t {
            assert_eq!(
                serde_json::to_string(record).unwrap(),
                serde_json::to_string(&value[key]).unwrap()
            );
            assert_eq!(record.to_value(), value[key]);
        }
    }
}
