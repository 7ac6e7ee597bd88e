//! What the personal APIs (agenda, alarms, meetings, reminders) share: each
//! keeps records `{..., "username"}` in a shared database, finds the
//! caller's first record that matches (in the database's order), numbers
//! new records, and judges a predicted content by the words it shares with
//! the gold one.

use std::collections::HashSet;

use serde_json::Value;

use super::super::state::{Dict, Key, State};
use crate::sim::pyargs::{lower, py_eq, py_eq_objects, py_int, py_item, py_strip_value, truthy};
use crate::sim::pytime::{strptime, TIMESTAMP};

/// `token_checker.check_token(token)`: the user the token belongs to. A
/// token that is not text matches no account (every token is text).
pub(super) fn owner(state: &mut State, token: &Value) -> Result<String, String> {
    match token.as_str() {
        Some(token) => state.check_token(token),
        None => Err("The token is invalid.".into()),
    }
}

/// `value.strip() == ""` for a value the reference expects to be a `str`
/// (anything else raises `AttributeError`).
pub(super) fn blank(value: &Value) -> Result<bool, String> {
    Ok(py_strip_value(value)?.is_empty())
}

/// `record[field] == value` (a missing field raises `KeyError`).
pub(super) fn field_is(record: &Value, field: &str, value: &Value) -> Result<bool, String> {
    Ok(py_eq(py_item(record, field)?, value))
}

/// The key of the first record (in the database's order) that belongs to
/// `username` and satisfies `matches`: the reference's
/// `for key in database: if database[key]['username'] == username: if ...`.
/// `matches` is asked only of the user's records, as the reference asks.
pub(super) fn first_own(
    dict: &Dict,
    username: &str,
    matches: impl Fn(&Value) -> Result<bool, String>,
) -> Result<Option<Key>, String> {
    for (key, record) in dict.iter() {
        if py_item(record, "username")?.as_str() == Some(username) && matches(record)? {
            return Ok(Some(key.clone()));
        }
    }
    Ok(None)
}

/// The id a new meeting or reminder gets: `str(max(int(k) for k in
/// database) + 1)`, or `"0"` in an empty database.
pub(super) fn next_text_id(dict: &Dict) -> Result<Key, String> {
    let mut highest: Option<i64> = None;
    for key in dict.keys() {
        let id = match key {
            Key::Int(id) => *id,
            Key::Text(text) => py_int(text)?,
        };
        highest = Some(highest.map_or(id, |h| h.max(id)));
    }
    Ok(Key::Text(highest.map_or(0, |h| h + 1).to_string()))
}

/// The reference's content check: the two inputs' `field`, split on single
/// spaces (and lower-cased first where `lowered`), share more than half
/// their distinct words. `None` where the reference would raise (a missing
/// input or field, a value that is not text).
pub(super) fn words_agree(
    response: &Value,
    groundtruth: &Value,
    field: &str,
    lowered: bool,
) -> Option<bool> {
    let words = |result: &Value| -> Option<HashSet<String>> {
        let value = result.get("input")?.get(field)?;
        let text = if lowered {
            lower(value).ok()?
        } else {
            value.as_str()?.to_string()
        };
        Some(text.split(' ').map(str::to_string).collect())
    };
    let (a, b) = (words(response)?, words(groundtruth)?);
    // `str.split(" ")` always yields at least one word: no empty union.
    Some(a.intersection(&b).count() as f64 / a.union(&b).count() as f64 > 0.5)
}

/// The checks DeleteMeeting, ModifyMeeting and QueryMeeting make before
/// they look: times that are given must parse, and a topic or a start
/// time must be given.
pub(super) fn meeting_request(
    meeting_topic: &Value,
    start_time: &Value,
    end_time: &Value,
) -> Result<(), String> {
    if truthy(start_time) {
        strptime(start_time, TIMESTAMP)?;
    }
    if truthy(end_time) {
        strptime(end_time, TIMESTAMP)?;
    }
    if blank(meeting_topic)? && !truthy(start_time) {
        return Err("Meeting Topic and start_time should not be null both".into());
    }
    Ok(())
}

/// The meetings' check (AddMeeting, ModifyMeeting, QueryMeeting): topics
/// that share more than half their words (split on single spaces, case
/// kept), every other input equal, same output and exception. The API name
/// is not compared.
pub(super) fn meeting_agrees(response: &Value, groundtruth: &Value) -> bool {
    if words_agree(response, groundtruth, "meeting_topic", false) != Some(true) {
        return false;
    }
    let rest = |result: &Value| -> Option<serde_json::Map<String, Value>> {
        let mut input = result.get("input")?.as_object()?.clone();
        input.shift_remove("meeting_topic");
        Some(input)
    };
    let (Some(a), Some(b)) = (rest(response), rest(groundtruth)) else {
        return false;
    };
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    };
    py_eq_objects(&a, &b) && same("output") && same("exception")
}

/// The deletions' check: when both calls answered "success", the same
/// `input.time`; otherwise the same output and exception. A missing field
/// (the reference raises `KeyError`) is not correct: DeleteMeeting's inputs
/// have no `time`, so two successful meeting deletions never agree, as in
/// the reference.
pub(super) fn deletion_agrees(response: &Value, groundtruth: &Value) -> bool {
    deletion_agrees_on("time", response, groundtruth)
}

/// [`deletion_agrees`] comparing the input `field` of two successes.
pub(super) fn deletion_agrees_on(field: &str, response: &Value, groundtruth: &Value) -> bool {
    let (Some(output), Some(gold_output)) = (response.get("output"), groundtruth.get("output"))
    else {
        return false;
    };
    let success = Value::from("success");
    if py_eq(gold_output, &success) && py_eq(output, &success) {
        let time = |result: &Value| result.get("input")?.get(field).cloned();
        return match (time(response), time(groundtruth)) {
            (Some(a), Some(b)) => py_eq(&a, &b),
            _ => false,
        };
    }
    match (response.get("exception"), groundtruth.get("exception")) {
        (Some(a), Some(b)) => py_eq(output, gold_output) && py_eq(a, b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_follow_the_highest_key_and_text_keys_must_read_as_integers() {
        let mut dict = Dict::new();
        assert_eq!(next_text_id(&dict), Ok(Key::text("0")));
        dict.insert(Key::text("3"), json!({}));
        dict.insert(Key::text("10"), json!({}));
        dict.insert(Key::Int(12), json!({}));
        assert_eq!(next_text_id(&dict), Ok(Key::text("13")));
        dict.insert(Key::text("x"), json!({}));
        assert_eq!(
            next_text_id(&dict).unwrap_err(),
            "invalid literal for int() with base 10: 'x'"
        );
    }

    #[test]
    fn the_first_matching_record_of_the_user_is_found() {
        let mut dict = Dict::new();
        dict.insert(Key::text("1"), json!({"username": "a", "time": "t1"}));
        dict.insert(Key::text("2"), json!({"username": "b", "time": "t2"}));
        dict.insert(Key::Int(3), json!({"username": "b", "time": "t3"}));
        let at = |t: &'static str| move |r: &Value| field_is(r, "time", &json!(t));
        assert_eq!(first_own(&dict, "b", at("t3")), Ok(Some(Key::Int(3))));
        assert_eq!(first_own(&dict, "a", at("t3")), Ok(None));
        // Another user's records are not asked about a missing field.
        let content = |r: &Value| field_is(r, "content", &json!("x"));
        assert_eq!(first_own(&dict, "c", content), Ok(None));
        assert_eq!(first_own(&dict, "a", content).unwrap_err(), "'content'");
    }

    #[test]
    fn meetings_agree_on_topic_words_and_every_other_input() {
        let gold = json!({"api_name": "AddMeeting", "input": {"token": "t", "meeting_topic": "Sales review meeting",
            "start_time": "s", "end_time": "e", "location": "l", "attendees": ["a", "b"]}, "output": "success", "exception": null});
        let mut close = gold.clone();
        close["input"]["meeting_topic"] = json!("Sales review");
        assert!(meeting_agrees(&close, &gold));
        close["input"]["attendees"] = json!(["b", "a"]);
        assert!(!meeting_agrees(&close, &gold));
        let mut far = gold.clone();
        far["input"]["meeting_topic"] = json!("Sales");
        assert!(!meeting_agrees(&far, &gold));
        assert!(meeting_request(&json!(" "), &json!("2023-03-20 14:00:00"), &json!("")).is_ok());
        assert_eq!(
            meeting_request(&json!(" "), &json!(""), &json!("")).unwrap_err(),
            "Meeting Topic and start_time should not be null both"
        );
        assert_eq!(
            meeting_request(&json!("x"), &json!(""), &json!("noon")).unwrap_err(),
            "time data 'noon' does not match format '%Y-%m-%d %H:%M:%S'"
        );
    }

    #[test]
    fn deletions_agree_on_time_when_both_succeed() {
        let gold = json!({"input": {"time": "t1", "content": "a"}, "output": "success", "exception": null});
        let mut other = gold.clone();
        other["input"]["content"] = json!("b");
        assert!(deletion_agrees(&other, &gold));
        other["input"]["time"] = json!("t2");
        assert!(!deletion_agrees(&other, &gold));
        let meeting =
            json!({"input": {"start_time": "t1"}, "output": "success", "exception": null});
        assert!(!deletion_agrees(&meeting, &meeting));
        assert!(deletion_agrees_on("start_time", &meeting, &meeting));
        let failed = json!({"input": {}, "output": null, "exception": "no"});
        assert!(deletion_agrees(&failed, &failed));
        assert!(!deletion_agrees(&failed, &gold));
    }

    #[test]
    fn contents_agree_when_most_words_are_shared() {
        let result = |content: &str| json!({"input": {"content": content}});
        let agree =
            |a: &str, b: &str, lowered| words_agree(&result(a), &result(b), "content", lowered);
        assert_eq!(agree("Call mom now", "Call mom", false), Some(true));
        assert_eq!(agree("Call Mom", "call mom", false), Some(false));
        assert_eq!(agree("Call Mom", "call mom", true), Some(true));
        assert_eq!(agree("a b", "a c", false), Some(false));
        assert_eq!(
            words_agree(&json!({"input": {}}), &result("a"), "content", false),
            None
        );
        assert!(blank(&json!("  ")).unwrap());
        assert!(!blank(&json!(" a ")).unwrap());
        assert!(blank(&json!(null)).is_err());
    }
}
