//! Where two states of a domain differ: not only that their hashes do,
//! but each place (`reservations.ZFA04Y.status`) with its value on either
//! side, found by walking both dumps. Records equal on both sides are
//! skipped before they are dumped.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use super::domain::Db;

/// One place where two states differ; a side without it is None.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Difference {
    /// Keys from the top of the dump, dot-separated; list items by index.
    pub path: String,
    pub left: Option<Value>,
    pub right: Option<Value>,
}

/// The places where `left` and `right` differ, in collection and record
/// order (at most `limit`); empty when the states are equal. States of
/// two domains differ at the top.
pub fn differences(left: &Db, right: &Db, limit: usize) -> Vec<Difference> {
    let mut out = Vec::new();
    match (left, right) {
        (Db::Airline(l), Db::Airline(r)) => {
            collection("flights", &l.flights, &r.flights, &mut out);
            collection("reservations", &l.reservations, &r.reservations, &mut out);
            collection("users", &l.users, &r.users, &mut out);
        }
        (Db::Retail(l), Db::Retail(r)) => {
            collection("orders", &l.orders, &r.orders, &mut out);
            collection("products", &l.products, &r.products, &mut out);
            collection("users", &l.users, &r.users, &mut out);
        }
        _ => out.push(Difference {
            path: String::new(),
            left: Some(Value::String(left.domain().into())),
            right: Some(Value::String(right.domain().into())),
        }),
    }
    out.truncate(limit);
    out
}

fn collection<T: Serialize + PartialEq>(
    name: &str,
    left: &IndexMap<String, T>,
    right: &IndexMap<String, T>,
    out: &mut Vec<Difference>,
) {
    let dump = |record: &T| serde_json::to_value(record).expect("models serialise");
    for (key, l) in left {
        match right.get(key) {
            Some(r) if r == l => {}
            r => walk(
                &format!("{name}.{key}"),
                Some(&dump(l)),
                r.map(dump).as_ref(),
                out,
            ),
        }
    }
    for (key, r) in right.iter().filter(|(k, _)| !left.contains_key(*k)) {
        walk(&format!("{name}.{key}"), None, Some(&dump(r)), out);
    }
}

/// The differing leaves below `path`: objects by key, lists of one length
/// by index, anything else as a whole.
fn walk(path: &str, left: Option<&Value>, right: Option<&Value>, out: &mut Vec<Difference>) {
    match (left, right) {
        (Some(l), Some(r)) if l == r => {}
        (Some(Value::Object(l)), Some(Value::Object(r))) => {
            for (key, lv) in l {
                walk(&format!("{path}.{key}"), Some(lv), r.get(key), out);
            }
            for (key, rv) in r.iter().filter(|(k, _)| !l.contains_key(*k)) {
                walk(&format!("{path}.{key}"), None, Some(rv), out);
            }
        }
        (Some(Value::Array(l)), Some(Value::Array(r))) if l.len() == r.len() => {
            for (i, (lv, rv)) in l.iter().zip(r).enumerate() {
                walk(&format!("{path}.{i}"), Some(lv), Some(rv), out);
            }
        }
        _ => out.push(Difference {
            path: path.to_string(),
            left: left.cloned(),
            right: right.cloned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_changed_leaf_an_added_record_and_a_longer_list_are_each_one_place() {
        let mut out = Vec::new();
        let left = json!({"status": null, "items": [1, 2], "name": {"first": "A"}});
        let right = json!({"status": "cancelled", "items": [1, 2, 3], "name": {"first": "A"}});
        walk("orders.#W1", Some(&left), Some(&right), &mut out);
        walk("orders.#W2", None, Some(&json!({})), &mut out);
        let paths: Vec<&str> = out.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["orders.#W1.status", "orders.#W1.items", "orders.#W2"]
        );
        assert_eq!(out[0].right, Some(json!("cancelled")));
        assert_eq!(out[2].left, None);
    }
}
