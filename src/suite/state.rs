//! The state check: did the predictions leave the world as the gold calls
//! do? After an assistant turn, three worlds are compared place by place
//! (a database's record, or one item of a record that is an object): the
//! world before the turn, the world after the turn's gold calls, and the
//! world after the predictions. A place the predictions changed and the
//! gold calls left alone is *collateral damage*; a place the gold calls
//! changed and the predictions did not is a *missing* gold write; a place
//! both changed to different values is *different*.
//!
//! It is reported beside the suite's own metrics and changes none of them.
//! Worlds share unchanged databases and records behind reference counts,
//! so a comparison skips every part no one wrote without reading it.
//!
//! Databases come in two shapes: tables of records (ToolTalk, [`compare`])
//! and JSON documents (API-Bank, [`compare_documents`]). Both are compared
//! as documents, where a record is a top-level entry of an object (by key)
//! or of a list (by index), so they give the same places.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::sim::databases::Tables;
use crate::sim::Databases;

/// How a place differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// The predictions wrote where the gold calls did not.
    Collateral,
    /// The gold calls wrote where the predictions did not.
    Missing,
    /// Both wrote, different values.
    Different,
}

/// One place where the predicted world differs from the gold one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateWrite {
    /// The assistant turn after which the worlds were compared.
    pub turn: usize,
    pub kind: WriteKind,
    /// The database (file stem).
    pub database: String,
    /// The record's key (a username, a city), or its index in a database
    /// that is a list; empty when the database itself differs (neither an
    /// object nor a list, or one on one side and the other on the other).
    pub record: String,
    /// The item's key within the record; absent when the record itself
    /// differs (added, removed, or not an object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
}

/// The places where `predicted` differs from `gold`, given the world
/// `before` the turn, for databases held as tables, in database, record
/// and item order.
pub fn compare(turn: usize, before: &Tables, gold: &Tables, predicted: &Tables) -> Vec<StateWrite> {
    let names = union(gold.names(), predicted.names(), |n| gold.get(n).is_some());
    let mut writes = Vec::new();
    for name in names {
        let (g, p) = (gold.get(name), predicted.get(name));
        if !same(g, p) {
            // Only the records that differ are copied out (one no one wrote
            // is shared, and compares without being read).
            let differ: Vec<&str> = union(
                g.into_iter().flat_map(|t| t.keys()),
                p.into_iter().flat_map(|t| t.keys()),
                |k| g.is_some_and(|t| t.contains_key(k)),
            )
            .into_iter()
            .filter(|k| g.and_then(|t| t.get(k)) != p.and_then(|t| t.get(k)))
            .collect();
            let document = |t: &Tables| {
                let table = t.get(name)?;
                let records = differ
                    .iter()
                    .filter_map(|k| Some((k.to_string(), table.get(k)?.to_value())));
                Some(Value::Object(records.collect()))
            };
            let (b, g, p) = (document(before), document(gold), document(predicted));
            compare_database(
                turn,
                name,
                [b.as_ref(), g.as_ref(), p.as_ref()],
                &mut writes,
            );
        }
    }
    writes
}

/// [`compare`] for databases held as JSON documents. A database missing on
/// one side reads as empty.
pub fn compare_documents(
    turn: usize,
    before: &Databases,
    gold: &Databases,
    predicted: &Databases,
) -> Vec<StateWrite> {
    let names = union(gold.names(), predicted.names(), |n| {
        gold.document(n).is_some()
    });
    let mut writes = Vec::new();
    for name in names {
        let (b, g, p) = (
            before.document(name),
            gold.document(name),
            predicted.document(name),
        );
        if !same(g, p) {
            let worlds = [b, g, p].map(|d| d.map(|d| &**d));
            compare_database(turn, name, worlds, &mut writes);
        }
    }
    writes
}

/// Whether both sides hold the same database: one no one wrote is the
/// loaded one, shared, and not read.
fn same<T: PartialEq>(gold: Option<&T>, predicted: Option<&T>) -> bool {
    match (gold, predicted) {
        (Some(g), Some(p)) => std::ptr::eq(g, p) || g == p,
        (g, p) => g.is_none() && p.is_none(),
    }
}

/// The gold side's keys, then the predicted side's that gold lacks.
fn union<'a>(
    gold: impl Iterator<Item = &'a str>,
    predicted: impl Iterator<Item = &'a str>,
    in_gold: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    let mut keys: Vec<&str> = gold.collect();
    keys.extend(predicted.filter(|k| !in_gold(k)));
    keys
}

/// The places where one database differs, given it `[before, gold,
/// predicted]`: a record is a top-level entry of an object database (by
/// key) or of a list database (by index), and where a record is an object
/// on both sides each of its fields is an item.
fn compare_database(
    turn: usize,
    name: &str,
    [b, g, p]: [Option<&Value>; 3],
    writes: &mut Vec<StateWrite>,
) {
    let mut place = |record: &str, item: Option<&str>, kind| {
        writes.push(StateWrite {
            turn,
            kind,
            database: name.to_string(),
            record: record.to_string(),
            item: item.map(str::to_string),
        })
    };
    let same_kind = match (g, p) {
        (Some(g), Some(p)) => g.is_object() == p.is_object(),
        _ => true,
    };
    let (Some(gold_keys), Some(predicted_keys), true) = (record_keys(g), record_keys(p), same_kind)
    else {
        // Not records of one kind on both sides: the database is one place.
        return place("", None, classify(b == g, b == p));
    };
    let gold_keys = gold_keys.iter().map(String::as_str);
    let predicted_keys = predicted_keys.iter().map(String::as_str);
    for key in union(gold_keys, predicted_keys, |k| record(g, k).is_some()) {
        let (rb, rg, rp) = (record(b, key), record(g, key), record(p, key));
        if rg == rp {
            continue;
        }
        let Some((ig, ip)) = rg
            .and_then(Value::as_object)
            .zip(rp.and_then(Value::as_object))
        else {
            place(key, None, classify(rb == rg, rb == rp));
            continue;
        };
        let ib = rb.and_then(Value::as_object);
        for item in union(
            ig.keys().map(String::as_str),
            ip.keys().map(String::as_str),
            |k| ig.contains_key(k),
        ) {
            let vb = ib.and_then(|i| i.get(item));
            let (vg, vp) = (ig.get(item), ip.get(item));
            if vg != vp {
                place(key, Some(item), classify(vb == vg, vb == vp));
            }
        }
    }
}

/// The record keys of a database document: an object's keys, a list's
/// indices, none for a missing one; `None` for any other JSON.
fn record_keys(document: Option<&Value>) -> Option<Vec<String>> {
    match document {
        None => Some(Vec::new()),
        Some(Value::Object(records)) => Some(records.keys().cloned().collect()),
        Some(Value::Array(records)) => Some((0..records.len()).map(|i| i.to_string()).collect()),
        Some(_) => None,
    }
}

/// A database document's record by key (an index, for a list).
fn record<'a>(document: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    match document? {
        Value::Object(records) => records.get(key),
        Value::Array(records) => records.get(key.parse::<usize>().ok()?),
        _ => None,
    }
}

/// Which side wrote, for a place where gold and prediction differ.
fn classify(gold_kept: bool, predicted_kept: bool) -> WriteKind {
    match (gold_kept, predicted_kept) {
        (true, _) => WriteKind::Collateral,
        (false, true) => WriteKind::Missing,
        (false, false) => WriteKind::Different,
    }
}

/// One conversation's state check: the differing places of every turn,
/// and their counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StateCheck {
    pub collateral: usize,
    pub missing: usize,
    pub different: usize,
    pub writes: Vec<StateWrite>,
}

impl StateCheck {
    pub fn new(writes: Vec<StateWrite>) -> Self {
        let count = |kind| writes.iter().filter(|w| w.kind == kind).count();
        StateCheck {
            collateral: count(WriteKind::Collateral),
            missing: count(WriteKind::Missing),
            different: count(WriteKind::Different),
            writes,
        }
    }

    /// The predicted worlds ended as the gold ones.
    pub fn clean(&self) -> bool {
        self.writes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::sim::Databases;

    fn tables(value: Value) -> Tables {
        let Value::Object(map) = value else {
            unreachable!()
        };
        Databases::from_tables(
            map.into_iter()
                .map(|(k, v)| (k, v.as_object().unwrap().clone())),
        )
        .tables()
    }

    #[test]
    fn collateral_missing_and_different_writes_are_told_apart() {
        let before = tables(json!({
            "Alarm": {"ann": {"a1": "07:00", "a2": "08:00"}, "bob": {"b1": "09:00"}},
            "Reminder": {"ann": {}}
        }));
        // Gold: ann's a1 moves to 06:00, and a reminder is added.
        let gold = tables(json!({
            "Alarm": {"ann": {"a1": "06:00", "a2": "08:00"}, "bob": {"b1": "09:00"}},
            "Reminder": {"ann": {"r1": "call"}}
        }));
        // Predicted: a1 moved to 05:00, bob's alarm deleted, an alarm
        // for cid no one asked for, no reminder.
        let predicted = tables(json!({
            "Alarm": {"ann": {"a1": "05:00", "a2": "08:00"}, "bob": {}, "cid": {"c1": "10:00"}},
            "Reminder": {"ann": {}}
        }));
        let writes = compare(3, &before, &gold, &predicted);
        let got: Vec<(WriteKind, &str, &str, Option<&str>)> = writes
            .iter()
            .map(|w| {
                (
                    w.kind,
                    w.database.as_str(),
                    w.record.as_str(),
                    w.item.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (WriteKind::Different, "Alarm", "ann", Some("a1")),
                (WriteKind::Collateral, "Alarm", "bob", Some("b1")),
                (WriteKind::Collateral, "Alarm", "cid", None),
                (WriteKind::Missing, "Reminder", "ann", Some("r1")),
            ]
        );
        let check = StateCheck::new(writes);
        assert_eq!(
            (check.collateral, check.missing, check.different),
            (2, 1, 1)
        );
        assert!(compare(3, &before, &gold, &gold).is_empty());
        assert!(compare(3, &before, &before, &before.clone()).is_empty());
    }

    fn documents(value: Value) -> Databases {
        let mut databases = Databases::default();
        for (name, document) in value.as_object().unwrap() {
            *databases.document_mut(name) = document.clone();
        }
        databases
    }

    #[test]
    fn documents_are_compared_by_record_and_field_lists_by_index() {
        let before = documents(json!({
            "Alarm": {"1": {"username": "ann", "time": "07:00"}, "2": {"username": "bob", "time": "09:00"}},
            "Balance": {"ann": 100},
            "Images": [{"url": "a", "caption": "cat"}, {"url": "b", "caption": "dog"}],
            "Reminder": {}
        }));
        // Gold: ann's alarm moves to 06:00, a reminder is added.
        let gold = documents(json!({
            "Alarm": {"1": {"username": "ann", "time": "06:00"}, "2": {"username": "bob", "time": "09:00"}},
            "Balance": {"ann": 100},
            "Images": [{"url": "a", "caption": "cat"}, {"url": "b", "caption": "dog"}],
            "Reminder": {"0": {"username": "ann", "content": "call"}}
        }));
        // Predicted: bob's alarm removed and another added, the balance
        // changed, the second image recaptioned, the reminder added with
        // other words; ann's alarm left alone.
        let predicted = documents(json!({
            "Alarm": {"1": {"username": "ann", "time": "07:00"}, "3": {"username": "ann", "time": "05:00"}},
            "Balance": {"ann": 50},
            "Images": [{"url": "a", "caption": "cat"}, {"url": "b", "caption": "wolf"}],
            "Reminder": {"0": {"username": "ann", "content": "phone"}}
        }));
        let writes = compare_documents(4, &before, &gold, &predicted);
        let got: Vec<(WriteKind, &str, &str, Option<&str>)> = writes
            .iter()
            .map(|w| {
                (
                    w.kind,
                    w.database.as_str(),
                    w.record.as_str(),
                    w.item.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (WriteKind::Missing, "Alarm", "1", Some("time")),
                (WriteKind::Collateral, "Alarm", "2", None),
                (WriteKind::Collateral, "Alarm", "3", None),
                (WriteKind::Collateral, "Balance", "ann", None),
                (WriteKind::Collateral, "Images", "1", Some("caption")),
                (WriteKind::Different, "Reminder", "0", Some("content")),
            ]
        );
        assert!(writes.iter().all(|w| w.turn == 4));
        let check = StateCheck::new(writes);
        assert_eq!(
            (check.collateral, check.missing, check.different),
            (4, 1, 1)
        );
        // A record the gold calls added and the predictions did not.
        let nothing_done = compare_documents(4, &before, &gold, &before);
        assert_eq!(
            nothing_done
                .iter()
                .map(|w| (w.kind, w.record.as_str(), w.item.as_deref()))
                .collect::<Vec<_>>(),
            [
                (WriteKind::Missing, "1", Some("time")),
                (WriteKind::Missing, "0", None)
            ]
        );
        // A database only one side has reads as empty on the other; one
        // that changes kind is one place.
        let mut extra = gold.clone();
        *extra.document_mut("Notes") = json!({"n1": "hi"});
        *extra.document_mut("Images") = json!({"0": {}});
        let odd = compare_documents(4, &before, &gold, &extra);
        assert_eq!(
            odd.iter()
                .map(|w| (w.kind, w.database.as_str(), w.record.as_str()))
                .collect::<Vec<_>>(),
            [
                (WriteKind::Collateral, "Images", ""),
                (WriteKind::Collateral, "Notes", "n1")
            ]
        );
        assert!(compare_documents(4, &before, &gold, &gold.clone()).is_empty());
        assert!(compare_documents(4, &before, &before, &before.clone()).is_empty());
    }
}
