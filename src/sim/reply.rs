//! What a tool returns: a JSON value it built, or, for the queries that
//! answer with database items (events, reminders, emails, messages,
//! alarms, a day's weather), those items themselves, shared with the
//! world's tables instead of copied.
//!
//! A listing is compared with the gold result by its ids and then thrown
//! away; copying every listed item (a dozen strings each) and freeing it
//! again was a large part of what evaluating a query cost. A [`Reply`]
//! reads, compares and serialises as the JSON value it stands for, and
//! becomes that value ([`Reply::into_value`]) where one is kept.

use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::sim::pyargs::{lookup, py_eq};
use crate::sim::table::field;

/// A tool's result.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Any JSON value.
    Json(Value),
    /// `{key: [item, ...]}`, the items shared with the tables they came from.
    Listed {
        key: &'static str,
        items: Vec<Arc<Value>>,
    },
    /// `{key: item}`, the item shared with the table it came from.
    Field { key: &'static str, item: Arc<Value> },
}

impl From<Value> for Reply {
    fn from(value: Value) -> Self {
        Reply::Json(value)
    }
}

impl Default for Reply {
    fn default() -> Self {
        Reply::Json(Value::Null)
    }
}

impl Reply {
    /// The reply as comparators and writers read it.
    pub fn as_response(&self) -> Response<'_> {
        match self {
            Reply::Json(value) => Response::Json(value),
            Reply::Listed { key, items } => Response::Listed { key, items },
            Reply::Field { key, item } => Response::Field { key, item },
        }
    }

    /// The JSON value the reply stands for (the listed items copied).
    pub fn into_value(self) -> Value {
        match self {
            Reply::Json(value) => value,
            listed => listed.as_response().to_value(),
        }
    }
}

/// Equal when they stand for the same JSON value, whatever their forms.
impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Reply::Json(a), Reply::Json(b)) => a == b,
            (Reply::Listed { key: a, items: x }, Reply::Listed { key: b, items: y }) => {
                a == b && x == y
            }
            (Reply::Field { key: a, item: x }, Reply::Field { key: b, item: y }) => {
                a == b && x == y
            }
            (shared, Reply::Json(value)) | (Reply::Json(value), shared) => shared == value,
            (a, b) => a.as_response().to_value() == b.as_response().to_value(),
        }
    }
}

/// Equal when it stands for that JSON value (`serde_json`'s equality),
/// compared where the items lie rather than copied into a value first.
impl PartialEq<Value> for Reply {
    fn eq(&self, other: &Value) -> bool {
        // `{key: x}` is the only shape a listing or a field can equal.
        let only_field = |key: &str| {
            other
                .as_object()
                .filter(|fields| fields.len() == 1)
                .and_then(|fields| fields.get(key))
        };
        match self {
            Reply::Json(value) => value == other,
            Reply::Listed { key, items } => {
                only_field(key)
                    .and_then(Value::as_array)
                    .is_some_and(|list| {
                        list.len() == items.len() && list.iter().zip(items).all(|(a, b)| a == &**b)
                    })
            }
            Reply::Field { key, item } => only_field(key).is_some_and(|value| value == &**item),
        }
    }
}

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_response().serialize(serializer)
    }
}

/// A result, borrowed: a gold call's recorded value or a prediction's reply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Response<'a> {
    Json(&'a Value),
    Listed {
        key: &'a str,
        items: &'a [Arc<Value>],
    },
    Field {
        key: &'a str,
        item: &'a Arc<Value>,
    },
}

impl<'a> From<&'a Value> for Response<'a> {
    fn from(value: &'a Value) -> Self {
        Response::Json(value)
    }
}

impl<'a> Response<'a> {
    /// The JSON value this stands for.
    pub fn to_value(self) -> Value {
        match self {
            Response::Json(value) => value.clone(),
            Response::Listed { key, items } => {
                let list = items.iter().map(|item| Value::clone(item)).collect();
                one_field(key, Value::Array(list))
            }
            Response::Field { key, item } => one_field(key, Value::clone(item)),
        }
    }

    /// Python's `==` with `other` (see [`py_eq`]).
    pub fn py_eq(self, other: &Value) -> bool {
        match self {
            Response::Json(value) => py_eq(value, other),
            Response::Listed { key, items } => {
                // A one-key dict against `other`: the same single key, and
                // lists of pairwise equal items.
                let Some(other) = other.as_object() else {
                    return false;
                };
                other.len() == 1
                    && lookup(other, key).is_some_and(|list| match list {
                        Value::Array(list) => {
                            list.len() == items.len()
                                && items.iter().zip(list).all(|(a, b)| py_eq(a, b))
                        }
                        _ => false,
                    })
            }
            Response::Field { key, item } => other.as_object().is_some_and(|other| {
                other.len() == 1 && lookup(other, key).is_some_and(|value| py_eq(item, value))
            }),
        }
    }

    /// The items of the list under `key` (none when there is no such
    /// list), as `result[key]` would give them.
    pub fn list(self, key: &'a str) -> impl Iterator<Item = &'a Value> + Clone + 'a {
        let (json, shared): (&'a [Value], &'a [Arc<Value>]) = match self {
            Response::Json(value) => (
                field(value, key)
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice),
                &[],
            ),
            Response::Listed { key: k, items } if k == key => (&[], items),
            Response::Field { key: k, item } if k == key => {
                (item.as_array().map_or(&[][..], Vec::as_slice), &[])
            }
            Response::Listed { .. } | Response::Field { .. } => (&[], &[]),
        };
        json.iter().chain(shared.iter().map(|item| item.as_ref()))
    }
}

impl Serialize for Response<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Response::Json(value) => value.serialize(serializer),
            Response::Listed { key, items } => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(key, &Items(items))?;
                map.end()
            }
            Response::Field { key, item } => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(key, item.as_ref())?;
                map.end()
            }
        }
    }
}

/// `{key: value}`.
fn one_field(key: &str, value: Value) -> Value {
    let mut map = Map::with_capacity(1);
    map.insert(key.to_string(), value);
    Value::Object(map)
}

/// The listed items as a JSON array.
struct Items<'a>(&'a [Arc<Value>]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(item.as_ref())?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed() -> Reply {
        Reply::Listed {
            key: "events",
            items: vec![
                Arc::new(json!({"event_id": "e1", "n": 1})),
                Arc::new(json!({"event_id": "e2", "n": 2.0})),
            ],
        }
    }

    fn as_json() -> Value {
        json!({"events": [{"event_id": "e1", "n": 1}, {"event_id": "e2", "n": 2.0}]})
    }

    #[test]
    fn a_listing_is_the_object_it_stands_for() {
        assert_eq!(listed().into_value(), as_json());
        assert_eq!(listed(), as_json());
        assert_eq!(listed(), Reply::Json(as_json()));
        assert_eq!(Reply::Json(as_json()), listed());
        assert_ne!(listed(), Reply::Json(json!({"events": []})));
        let other = Reply::Listed {
            key: "emails",
            items: vec![],
        };
        assert_ne!(listed(), other);
        assert_eq!(
            serde_json::to_string(&listed()).unwrap(),
            serde_json::to_string(&as_json()).unwrap()
        );
        assert_eq!(
            serde_json::to_string_pretty(&listed()).unwrap(),
            serde_json::to_string_pretty(&as_json()).unwrap()
        );
    }

    /// A shared reply equals a value exactly when the value it stands for
    /// does.
    #[test]
    fn comparing_with_a_value_agrees_with_comparing_the_value() {
        let field = Reply::Field {
            key: "weather",
            item: Arc::new(json!({"high": 20})),
        };
        let values = [
            as_json(),
            json!({"events": [{"event_id": "e1", "n": 1}]}),
            json!({"events": [{"event_id": "e1", "n": 1}, {"event_id": "e2", "n": 2}]}),
            json!({"events": [{"event_id": "e1", "n": 1}, {"event_id": "e2", "n": 2.0}], "x": 1}),
            json!({"events": {}}),
            json!({"weather": {"high": 20}}),
            json!({"weather": {"high": 21}}),
            json!({"weather": {"high": 20}, "x": null}),
            json!([]),
            Value::Null,
        ];
        for reply in [listed(), field] {
            for value in &values {
                let copied = reply.clone().into_value() == *value;
                assert_eq!(reply == *value, copied, "{reply:?} {value}");
            }
        }
    }

    #[test]
    fn a_listing_compares_as_python_compares_its_object() {
        let reply = listed();
        let listing = reply.as_response();
        // Python: 2 == 2.0, and key order does not matter.
        let equal = [
            as_json(),
            json!({"events": [{"n": 1.0, "event_id": "e1"}, {"event_id": "e2", "n": 2}]}),
        ];
        let different = [
            json!({"events": [{"event_id": "e1", "n": 1}]}),
            json!({"events": [{"event_id": "e2", "n": 2}, {"event_id": "e1", "n": 1}]}),
            json!({"events": [{"event_id": "e1", "n": 1}, {"event_id": "e2", "n": 2}], "x": 1}),
            json!({"emails": [{"event_id": "e1", "n": 1}, {"event_id": "e2", "n": 2}]}),
            json!({"events": "e1 e2"}),
            json!([1, 2]),
            Value::Null,
        ];
        for other in &equal {
            assert!(listing.py_eq(other), "{other}");
            assert_eq!(listing.py_eq(other), py_eq(&as_json(), other));
        }
        for other in &different {
            assert!(!listing.py_eq(other), "{other}");
            assert_eq!(listing.py_eq(other), py_eq(&as_json(), other));
        }
    }

    #[test]
    fn a_shared_field_is_the_object_it_stands_for() {
        let day = json!({"date": "2023-09-01", "high": 21, "list": [1, 2]});
        let field = Reply::Field {
            key: "weather",
            item: Arc::new(day.clone()),
        };
        let json = json!({"weather": day});
        assert_eq!(field.clone().into_value(), json);
        assert_eq!(field, Reply::Json(json.clone()));
        assert_eq!(
            serde_json::to_string(&field).unwrap(),
            serde_json::to_string(&json).unwrap()
        );
        let response = field.as_response();
        for other in [
            json.clone(),
            json!({"weather": {"high": 21.0, "list": [1, 2], "date": "2023-09-01"}}),
            json!({"weather": {"date": "2023-09-01", "high": 22, "list": [1, 2]}}),
            json!({"weather": {"date": "2023-09-01", "high": 21, "list": [1, 2]}, "x": 1}),
            json!({"forecast": {"date": "2023-09-01", "high": 21, "list": [1, 2]}}),
            json!([]),
        ] {
            assert_eq!(response.py_eq(&other), py_eq(&json, &other), "{other}");
        }
        // A field's list reads as the JSON's does.
        let listed = |r: Response<'_>, key| r.list(key).cloned().collect::<Vec<_>>();
        let list = Reply::Field {
            key: "list",
            item: Arc::new(json!([1, 2])),
        };
        assert_eq!(listed(list.as_response(), "list"), [json!(1), json!(2)]);
        assert!(listed(response, "weather").is_empty());
        assert!(listed(Response::Json(&json), "weather").is_empty());
        assert_ne!(field, list);
    }

    #[test]
    fn the_list_under_a_key_reads_alike_in_both_forms() {
        let json = as_json();
        let reply = listed();
        let ids = |r: Response<'_>, key| -> Vec<Value> { r.list(key).cloned().collect() };
        assert_eq!(
            ids(reply.as_response(), "events"),
            ids(Response::Json(&json), "events")
        );
        assert_eq!(ids(reply.as_response(), "events").len(), 2);
        assert!(ids(reply.as_response(), "emails").is_empty());
        assert!(ids(Response::Json(&json), "emails").is_empty());
        assert!(ids(Response::Json(&json!({"events": 3})), "events").is_empty());
    }
}
