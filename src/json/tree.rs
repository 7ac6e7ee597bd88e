//! A JSON tree that borrows its strings from the text it was parsed from.
//!
//! `lint` reads every file whole, and building a `serde_json::Value` was
//! the largest part of its cost: with `preserve_order` every object is an
//! `IndexMap`, so each key is a fresh `String` and a SipHash insert, and
//! each string value another allocation, all freed again a moment later.
//! [`Json`] keeps an object's members in a plain vector, and a string or
//! key that has no escapes in the text is a slice of the text rather than
//! a copy (a [`Cow`]). Building and dropping it costs about two thirds of
//! what a `Value` costs (lint over 780 ToolTalk conversations: 105M
//! instructions down to 67M).
//!
//! The tree is parsed by serde_json's own deserializer ([`Json::parse`] is
//! `serde_json::from_str`), so it accepts and refuses the texts a `Value`
//! does, with the same error at the same line and column, but for one
//! thing: a key written twice in an object is refused (``duplicate key
//! `name` `` at the second one), as the typed readers of the other commands
//! refuse a field written twice. It reads what a `Value` with
//! `preserve_order` reads:
//!
//! - an object's members are in the order their keys appear;
//! - numbers are [`serde_json::Number`]s, read as `Value` reads them
//!   (integers that fit as `u64`/`i64`, others as `f64`);
//! - an object whose first key is serde_json's private raw-value token is
//!   read as the JSON text its value holds, as `Value` does with the
//!   `raw_value` feature this crate turns on.
//!
//! A typed model is read from the tree itself, as strictly as the schemas
//! ([`Strict`]); where something needs a real `Value` (the schema
//! validator, the model's looser reading), [`Json::to_value`] builds one.

use std::borrow::Cow;
use std::collections::hash_map::{Entry, HashMap};
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Number, Value};

/// A JSON value whose strings borrow from the text where they could.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Json<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Object<'a>),
}

/// An object's members, each key once, in the order the keys first appear.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Json<'a>)>,
}

impl<'a> Json<'a> {
    /// Parse a JSON text: serde_json's parser, and its errors.
    pub fn parse(text: &'a str) -> serde_json::Result<Json<'a>> {
        serde_json::from_str(text)
    }

    /// An object's member (None for other values), as `Value::get` with a
    /// key.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.as_object()?.get(key)
    }

    /// The value a JSON pointer (RFC 6901) names, as `Value::pointer`
    /// finds it: "" is the whole value, array indices are plain decimal
    /// numbers (no sign, no leading zero).
    pub fn pointer(&self, pointer: &str) -> Option<&Json<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').try_fold(self, |target, token| {
            let token: Cow<'_, str> = if token.contains('~') {
                Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(token)
            };
            match target {
                Json::Object(object) => object.get(&token),
                Json::Array(items) => array_index(&token).and_then(|i| items.get(i)),
                _ => None,
            }
        })
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Json::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// The same value as a `serde_json::Value` (every string copied).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.as_ref().to_owned()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(object) => {
                let mut map = Map::with_capacity(object.len());
                for (key, value) in object {
                    map.insert(key.to_owned(), value.to_value());
                }
                Value::Object(map)
            }
        }
    }

    /// The same value, owning its strings (free of the text).
    pub fn into_owned(self) -> Json<'static> {
        match self {
            Json::Null => Json::Null,
            Json::Bool(b) => Json::Bool(b),
            Json::Number(n) => Json::Number(n),
            Json::String(s) => Json::String(Cow::Owned(s.into_owned())),
            Json::Array(items) => Json::Array(items.into_iter().map(Json::into_owned).collect()),
            Json::Object(object) => Json::Object(object.into_owned()),
        }
    }
}

/// A `Value` seen as a tree, its strings borrowed from it (for callers
/// that hold a `Value` already, and for tests written with `json!`).
impl<'a> From<&'a Value> for Json<'a> {
    fn from(value: &'a Value) -> Json<'a> {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.clone()),
            Value::String(s) => Json::String(Cow::Borrowed(s)),
            Value::Array(items) => Json::Array(items.iter().map(Json::from).collect()),
            Value::Object(map) => Json::Object(Object::from(map)),
        }
    }
}

impl<'a> From<&'a Map<String, Value>> for Object<'a> {
    fn from(map: &'a Map<String, Value>) -> Object<'a> {
        // A map's keys are unique already, in the order to keep.
        Object {
            members: map
                .iter()
                .map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::from(v)))
                .collect(),
        }
    }
}

impl<'a> From<Vec<String>> for Json<'a> {
    fn from(items: Vec<String>) -> Json<'a> {
        Json::Array(
            items
                .into_iter()
                .map(|s| Json::String(Cow::Owned(s)))
                .collect(),
        )
    }
}

/// The array index a pointer token names, read as serde_json reads it.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

impl<'a> Object<'a> {
    /// An object of these members, in order; a key given twice keeps its
    /// first place and takes the last value (as parsing reads it).
    pub fn from_members(members: Vec<(Cow<'a, str>, Json<'a>)>) -> Object<'a> {
        let mut object = ObjectBuilder::default();
        for (key, value) in members {
            object.insert(key, value);
        }
        object.finish()
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The member with this key. A linear search: the objects of the
    /// files linted have a handful of members.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, value)| value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The members, in order.
    pub fn iter(&self) -> Members<'_, 'a> {
        Members {
            inner: self.members.iter(),
        }
    }

    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.members.iter().map(|(k, _)| k.as_ref())
    }

    pub fn values(&self) -> impl ExactSizeIterator<Item = &Json<'a>> + '_ {
        self.members.iter().map(|(_, v)| v)
    }

    /// The same members, owning their strings.
    pub fn into_owned(self) -> Object<'static> {
        Object {
            members: self
                .members
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
        }
    }
}

/// An object's members in order, as (key, value).
pub struct Members<'o, 'a> {
    inner: std::slice::Iter<'o, (Cow<'a, str>, Json<'a>)>,
}

impl<'o, 'a> Iterator for Members<'o, 'a> {
    type Item = (&'o str, &'o Json<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|(k, v)| (k.as_ref(), v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Members<'_, '_> {}

impl<'o, 'a> IntoIterator for &'o Object<'a> {
    type Item = (&'o str, &'o Json<'a>);
    type IntoIter = Members<'o, 'a>;

    fn into_iter(self) -> Members<'o, 'a> {
        self.iter()
    }
}

/// Objects up to this size find a repeated key by looking at each member;
/// a larger one gets an index, so that a huge object is not quadratic.
const SCANNED_UP_TO: usize = 16;

/// An object as it is read: members in first-appearance order, a repeated
/// key's value replaced in place.
#[derive(Default)]
struct ObjectBuilder<'a> {
    members: Vec<(Cow<'a, str>, Json<'a>)>,
    /// Position of each key, once the object outgrows [`SCANNED_UP_TO`].
    index: Option<HashMap<Cow<'a, str>, usize>>,
}

impl<'a> ObjectBuilder<'a> {
    fn contains(&self, key: &str) -> bool {
        match &self.index {
            Some(index) => index.contains_key(key),
            None => self.members.iter().any(|(k, _)| k == key),
        }
    }

    fn insert(&mut self, key: Cow<'a, str>, value: Json<'a>) {
        match &mut self.index {
            Some(index) => match index.entry(key) {
                Entry::Occupied(at) => self.members[*at.get()].1 = value,
                Entry::Vacant(slot) => {
                    self.members.push((slot.key().clone(), value));
                    slot.insert(self.members.len() - 1);
                }
            },
            None => {
                if let Some(member) = self.members.iter_mut().find(|(k, _)| *k == key) {
                    member.1 = value;
                    return;
                }
                self.members.push((key, value));
                if self.members.len() > SCANNED_UP_TO {
                    self.index = Some(
                        self.members
                            .iter()
                            .enumerate()
                            .map(|(i, (k, _))| (k.clone(), i))
                            .collect(),
                    );
                }
            }
        }
    }

    fn finish(self) -> Object<'a> {
        Object {
            members: self.members,
        }
    }
}

/// serde_json's private name for a raw value (`serde_json::raw::TOKEN`):
/// an object whose first key is this is read by `Value` as the JSON text
/// its value holds.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json<'de>, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(n).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json<'de>, D::Error> {
        Json::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let Some(Key(first)) = map.next_key()? else {
            return Ok(Json::Object(Object::default()));
        };
        if first == RAW_VALUE_TOKEN {
            let text = map.next_value_seed(RawText)?;
            return Json::parse(&text)
                .map(Json::into_owned)
                .map_err(de::Error::custom);
        }
        let mut object = ObjectBuilder::default();
        object.insert(first, map.next_value()?);
        while let Some(Key(key)) = map.next_key()? {
            if object.contains(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key `{}`",
                    shorten(&key)
                )));
            }
            let value = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Json::Object(object.finish()))
    }
}

/// A key for a message: its first 80 characters.
fn shorten(key: &str) -> Cow<'_, str> {
    match key.char_indices().nth(80) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &key[..cut])),
        None => Cow::Borrowed(key),
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

/// The string under the raw-value token, read as serde_json's own
/// `BoxedFromString` reads it (same expectation in its type error).
struct RawText;

impl<'de> DeserializeSeed<'de> for RawText {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for RawText {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("raw value")
    }

    fn visit_str<E>(self, s: &str) -> Result<String, E> {
        Ok(s.to_owned())
    }
}

/// Written as `Value` writes itself (so `to_string` gives the same bytes).
impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => items.serialize(serializer),
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// Compact JSON, or pretty with `{:#}`, as `Value`'s `Display`.
impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            serde_json::to_string_pretty(self)
        } else {
            serde_json::to_string(self)
        }
        .map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// Reads a tree into a serde type as strictly as the project's schemas
/// do: a struct only from an object (serde_json also takes an array of its
/// fields) and an enum only from the string naming a unit variant
/// (serde_json also takes `{"variant": null}`). Anything looser is an
/// error, so a type read this way was written the one way the schema
/// describes (except for what the type itself settles, such as a
/// `deserialize_with` that takes null).
#[derive(Debug, Clone, Copy)]
pub struct Strict<'t, 'a>(pub &'t Json<'a>);

impl<'de> Deserializer<'de> for Strict<'_, '_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Null => visitor.visit_unit(),
            Json::Bool(b) => visitor.visit_bool(*b),
            Json::Number(n) => n.deserialize_any(visitor).map_err(de::Error::custom),
            Json::String(s) => visitor.visit_str(s),
            Json::Array(items) => {
                visitor.visit_seq(de::value::SeqDeserializer::new(items.iter().map(Strict)))
            }
            Json::Object(object) => visitor.visit_map(de::value::MapDeserializer::new(
                object.iter().map(|(key, value)| (key, Strict(value))),
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::Object(_) => self.deserialize_any(visitor),
            _ => Err(de::Error::custom(format!("{name} must be an object"))),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Json::String(s) => visitor.visit_enum(
                de::IntoDeserializer::<Self::Error>::into_deserializer(s.as_ref()),
            ),
            _ => Err(de::Error::custom(format!("{name} must be a string"))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct
        map identifier ignored_any
    }
}

impl<'de> de::IntoDeserializer<'de, de::value::Error> for Strict<'_, '_> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;

    /// The tree and `Value` read `text` alike: the same members in the same
    /// order (compared as written out, which `==` on `Value` is not: it
    /// ignores key order), the same conversion back, or the same error.
    fn same_as_value(text: &str) {
        let value = serde_json::from_str::<Value>(text);
        let tree = Json::parse(text);
        match (&value, &tree) {
            (Ok(value), Ok(tree)) => {
                let written = serde_json::to_string(value).unwrap();
                assert_eq!(tree.to_string(), written, "{text}");
                assert_eq!(format!("{tree:#}"), format!("{value:#}"), "{text}");
                let back = tree.to_value();
                assert_eq!(serde_json::to_string(&back).unwrap(), written, "{text}");
                assert_eq!(back, *value);
                assert_eq!(Json::from(value), *tree, "{text}");
                assert_eq!(tree.clone().into_owned(), *tree, "{text}");
                same_views(value, tree);
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{text}");
                assert_eq!((a.line(), a.column()), (b.line(), b.column()), "{text}");
                assert_eq!(a.classify(), b.classify(), "{text}");
            }
            _ => panic!("{text}: Value {value:?}, tree {tree:?}"),
        }
    }

    /// Every accessor agrees with `Value`'s, all the way down.
    fn same_views(value: &Value, tree: &Json<'_>) {
        assert_eq!(value.as_str(), tree.as_str());
        assert_eq!(value.as_bool(), tree.as_bool());
        assert_eq!(value.as_u64(), tree.as_u64());
        assert_eq!(value.as_i64(), tree.as_i64());
        assert_eq!(
            value.as_f64().map(f64::to_bits),
            tree.as_f64().map(f64::to_bits)
        );
        assert_eq!(value.is_null(), tree.is_null());
        assert_eq!(value.is_boolean(), tree.is_boolean());
        assert_eq!(value.is_number(), tree.is_number());
        assert_eq!(value.is_u64(), tree.is_u64());
        assert_eq!(value.is_i64(), tree.is_i64());
        assert_eq!(value.is_string(), tree.is_string());
        assert_eq!(value.is_array(), tree.is_array());
        assert_eq!(value.is_object(), tree.is_object());
        match (value, tree) {
            (Value::Array(items), Json::Array(trees)) => {
                assert_eq!(items.len(), trees.len());
                for (item, tree) in items.iter().zip(trees) {
                    same_views(item, tree);
                }
            }
            (Value::Object(map), Json::Object(object)) => {
                assert_eq!(map.len(), object.len());
                let keys: Vec<&str> = map.keys().map(String::as_str).collect();
                assert_eq!(object.keys().collect::<Vec<_>>(), keys);
                for ((key, item), (name, member)) in map.iter().zip(object) {
                    assert_eq!(key, name);
                    assert!(object.contains_key(key));
                    assert_eq!(object.get(key), Some(member));
                    assert_eq!(tree.get(key), Some(member));
                    let pointer = format!("/{}", key.replace('~', "~0").replace('/', "~1"));
                    let found = tree.pointer(&pointer).expect("the member's pointer");
                    assert_eq!(found.to_value(), *value.pointer(&pointer).unwrap());
                    same_views(item, member);
                }
                assert!(object.get("no such key, surely").is_none());
            }
            (Value::Array(_) | Value::Object(_), _) => panic!("{value} read as {tree}"),
            _ => {}
        }
    }

    #[test]
    fn a_key_written_twice_is_refused_at_its_second_place() {
        let many: Vec<String> = (0..100).map(|i| format!("\"k{i}\": {i}")).collect();
        let late = format!("{{{}, \"k3\": 0}}", many.join(", "));
        let cases = [
            (r#"{"a": 1, "b": 2, "a": 3}"#, "a", 1, 20),
            ("{\"b\": [{\"k\": 1,\n \"k\": 2}]}", "k", 2, 4),
            (r#"{"a": 1, "\u0061": 2}"#, "a", 1, 17),
            // Past the scanned size, where keys are found by a map.
            (late.as_str(), "k3", 1, late.len() - 4),
        ];
        for (text, key, line, column) in cases {
            let err = Json::parse(text).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("duplicate key `{key}` at line {line} column {column}"),
                "{text}"
            );
        }
        let long = format!("{{\"{0}\": 1, \"{0}\": 2}}", "x".repeat(10_000));
        let err = Json::parse(&long).unwrap_err().to_string();
        assert!(err.len() < 200, "{err}");
    }

    #[test]
    fn awkward_texts_read_as_value_reads_them() {
        let deep_ok = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        let too_deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        // Past the scanned size.
        let big_object: String = {
            let members: Vec<String> = (0..100).map(|i| format!("\"k{i}\": {i}")).collect();
            format!("{{{}}}", members.join(", "))
        };
        let texts = [
            big_object.as_str(),
            // Escapes, which make the strings owned copies.
            r#"{"quote \" key": "line\nbreak", "tab": "\t\u00e9\ud83d\ude00", "slash": "\/"}"#,
            r#"["\\", "\"", "plain", "", "\u0000"]"#,
            r#"{"~a/b": {"c~1": [0, 1, {"": "empty key"}]}}"#,
            // Numbers of every kind.
            "[0, -0, 1, -1, 18446744073709551615, 18446744073709551616, -9223372036854775808, -9223372036854775809]",
            "[1.5, -2.25e-3, 1e300, 1E2, 0.1, 12345678901234567890.5, 5e-324]",
            // Empty and nested containers.
            "{}",
            "[]",
            r#"{"a": {}, "b": [], "c": [[]], "d": [{}], "e": {"f": {"g": {}}}}"#,
            deep_ok.as_str(),
            // Scalars at the top.
            "null",
            "true",
            " \"text\" ",
            "42",
            // serde_json's raw-value token as a first key.
            r#"{"$serde_json::private::RawValue": "[1, {\"a\": 2}]"}"#,
            r#"{"a": 1, "$serde_json::private::RawValue": "[1]"}"#,
            // Refused texts, with their errors.
            too_deep.as_str(),
            r#"{"$serde_json::private::RawValue": 5}"#,
            r#"{"$serde_json::private::RawValue": "[1"}"#,
            r#"{"$serde_json::private::RawValue": "1", "b": 2}"#,
            "",
            "   ",
            "{",
            "{\"a\" 1}",
            "{\"a\": 1,}",
            "[1, 2,]",
            "{\"a\": 1}\n{\"b\": 2}",
            "{\"a\": tru}",
            "[1e400]",
            "[-]",
            "{1: 2}",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"unterminated",
            "\"control \u{1} char\"",
            "[01]",
            "{\"a\": 1}}",
        ];
        for text in texts {
            same_as_value(text);
        }
    }

    #[test]
    fn strings_without_escapes_are_borrowed_from_the_text() {
        let text = r#"{"plain": "text", "esc\"aped": "line\nbreak"}"#;
        let tree = Json::parse(text).unwrap();
        let Json::Object(object) = &tree else {
            panic!("{tree}")
        };
        let borrowed = |s: &Cow<'_, str>| matches!(s, Cow::Borrowed(_));
        let kinds: Vec<(bool, bool)> = object
            .members
            .iter()
            .map(|(k, v)| match v {
                Json::String(s) => (borrowed(k), borrowed(s)),
                other => panic!("{other}"),
            })
            .collect();
        assert_eq!(kinds, [(true, true), (false, false)]);
    }

    #[test]
    fn pointers_find_what_value_pointers_find() {
        let text = r#"{"a": [10, {"b/c": {"d~e": true}}], "": {"": 5}, "01": 1}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        let tree = Json::parse(text).unwrap();
        for pointer in [
            "",
            "/",
            "//",
            "/a",
            "/a/0",
            "/a/1",
            "/a/01",
            "/a/+1",
            "/a/2",
            "/a/-1",
            "/a/1/b~1c",
            "/a/1/b~1c/d~0e",
            "/a/1/b/c",
            "/01",
            "/a/0/x",
            "a",
            "/missing",
        ] {
            assert_eq!(
                tree.pointer(pointer).map(Json::to_value),
                value.pointer(pointer).cloned(),
                "{pointer}"
            );
        }
        assert_eq!(tree.get("01").and_then(Json::as_u64), Some(1));
        assert!(
            tree.get("a").unwrap().get("0").is_none(),
            "arrays have no keys"
        );
    }

    #[test]
    fn a_value_seen_as_a_tree_is_the_parsed_tree() {
        let value = json!({"b": [1, 2.5, -3], "a": {"s": "t", "n": null, "f": false}});
        let text = value.to_string();
        assert_eq!(Json::from(&value), Json::parse(&text).unwrap());
        let list = Json::from(vec!["x".to_owned(), "y".to_owned()]);
        assert_eq!(list.to_value(), json!(["x", "y"]));
    }

    /// Every file of the upstream datasets (../shared/upstream), whole or
    /// a line at a time (JSON Lines), reads the same as a `Value`.
    #[test]
    fn upstream_files_read_as_value_reads_them() {
        let Some(dir) = crate::test_support::upstream("") else {
            return;
        };
        let mut read = 0;
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.unwrap();
            let path = entry.path();
            let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            match ext {
                "json" => same_as_value(&text),
                "jsonl" => text.lines().for_each(same_as_value),
                _ => continue,
            }
            read += 1;
        }
        assert!(read > 100, "{read} files");
    }
}
