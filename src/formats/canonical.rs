//! The canonical layout of a dialogue file, which `talkforge fmt` writes:
//! what a hand edit may have disturbed is put back the way the upstream
//! files and talkforge's own writers lay it out. Only layout changes: no
//! value is added, dropped or altered, except a ToolTalk turn's `index`,
//! which becomes its position. A number keeps the text it was written
//! with (an integer beyond 64 bits is not turned into a float, `1.50`
//! stays `1.50`), and a key written twice is an error at its place, as
//! for every reader, never a value silently dropped.
//!
//! - ToolTalk (.json): `json.dumps(obj, indent=4)` style (4 spaces, `", "`
//!   and `": "`, non-ASCII escaped), no final newline; known keys in the
//!   upstream order (below), any other key after them in its own order;
//!   `index` renumbered from 0.
//! - API-Bank (.jsonl): each line `json.dumps(obj)` style, known keys in
//!   the upstream order, every line ended by a newline; a blank line stays
//!   blank, since reports name calls by their line.

use std::borrow::Cow;
use std::path::Path;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;

use super::read::json_error;
use super::write::{to_python_json, to_python_json_line};
use crate::json::tree::Json;
use crate::{Error, Result};

const CONVERSATION: &[&str] = &[
    "name",
    "conversation_id",
    "suites_used",
    "apis_used",
    "scenario",
    "user",
    "metadata",
    "conversation",
];
const USER: &[&str] = &[
    "username",
    "email",
    "phone",
    "name",
    "password",
    "session_token",
];
const METADATA: &[&str] = &["location", "timestamp", "session_token", "username"];
const TURN: &[&str] = &["index", "role", "text", "apis"];
const CALL: &[&str] = &["request", "response", "exception"];
const REQUEST: &[&str] = &["api_name", "parameters"];
const LINE: &[&str] = &["role", "text", "api_name", "param_dict", "result"];
const RESULT: &[&str] = &["api_name", "input", "output", "exception"];

/// A ToolTalk conversation file's text in the canonical layout.
pub fn tooltalk(path: &Path, text: &str) -> Result<String> {
    let mut tree = Laid::parse(text).map_err(|e| e.at(path, 0))?;
    if let Laid::Object(conversation) = &mut tree {
        reorder(conversation, CONVERSATION);
        for (key, order) in [("user", USER), ("metadata", METADATA)] {
            if let Some(Laid::Object(object)) = get_mut(conversation, key) {
                reorder(object, order);
            }
        }
        if let Some(Laid::Array(turns)) = get_mut(conversation, "conversation") {
            for (position, turn) in turns.iter_mut().enumerate() {
                let Laid::Object(turn) = turn else { continue };
                let index = Laid::Number(Cow::Owned(position.to_string()));
                match get_mut(turn, "index") {
                    Some(slot) => *slot = index,
                    None => turn.push((Cow::Borrowed("index"), index)),
                }
                reorder(turn, TURN);
                let Some(Laid::Array(calls)) = get_mut(turn, "apis") else {
                    continue;
                };
                for call in calls.iter_mut() {
                    let Laid::Object(call) = call else { continue };
                    reorder(call, CALL);
                    if let Some(Laid::Object(request)) = get_mut(call, "request") {
                        reorder(request, REQUEST);
                    }
                }
            }
        }
    }
    Ok(to_python_json(&tree))
}

/// An API-Bank dialogue file's text in the canonical layout.
pub fn apibank(path: &Path, text: &str) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            out.push('\n');
            continue;
        }
        let mut value = Laid::parse(line).map_err(|e| e.at(path, number))?;
        if let Laid::Object(object) = &mut value {
            reorder(object, LINE);
            if let Some(Laid::Object(result)) = get_mut(object, "result") {
                reorder(result, RESULT);
            }
        }
        out.push_str(&to_python_json_line(&value));
        out.push('\n');
    }
    Ok(out)
}

/// A JSON value as `fmt` writes it back: numbers as the text they were
/// written with, members in order.
#[derive(Debug, Clone, PartialEq)]
enum Laid<'t> {
    Null,
    Bool(bool),
    Number(Cow<'t, str>),
    String(Cow<'t, str>),
    Array(Vec<Laid<'t>>),
    Object(Members<'t>),
}

type Members<'t> = Vec<(Cow<'t, str>, Laid<'t>)>;

/// Why a text could not be read, before the file is known.
enum Unreadable {
    /// serde_json's error (its line and column are the text's).
    Json(serde_json::Error),
    /// The numbers found in the text are not those of the tree.
    Numbers,
}

impl Unreadable {
    /// The error in `path`, whose line `line` (0-based) the text starts.
    fn at(self, path: &Path, line: usize) -> Error {
        match self {
            Unreadable::Json(e) => match json_error(path, &e) {
                Error::Syntax {
                    line: at,
                    column,
                    message,
                    ..
                } => Error::syntax(path, line + at, column, message),
                other => other,
            },
            Unreadable::Numbers => Error::input(path, "cannot keep its numbers as written"),
        }
    }
}

impl<'t> Laid<'t> {
    /// Read a JSON text as the readers do (a key written twice is an
    /// error), keeping each number's text.
    fn parse(text: &'t str) -> std::result::Result<Laid<'t>, Unreadable> {
        let tree = Json::parse(text).map_err(Unreadable::Json)?;
        let mut numbers = number_texts(text).into_iter();
        let laid = Laid::of(&tree, &mut numbers).ok_or(Unreadable::Numbers)?;
        match numbers.next() {
            None => Ok(laid),
            Some(_) => Err(Unreadable::Numbers),
        }
    }

    /// The tree with its numbers' texts, taken in document order.
    fn of(tree: &Json<'t>, numbers: &mut impl Iterator<Item = &'t str>) -> Option<Laid<'t>> {
        Some(match tree {
            Json::Null => Laid::Null,
            Json::Bool(b) => Laid::Bool(*b),
            Json::Number(_) => Laid::Number(Cow::Borrowed(numbers.next()?)),
            Json::String(s) => Laid::String(s.clone()),
            Json::Array(items) => Laid::Array(
                items
                    .iter()
                    .map(|item| Laid::of(item, numbers))
                    .collect::<Option<_>>()?,
            ),
            Json::Object(object) => Laid::Object(
                object
                    .iter()
                    .map(|(key, value)| {
                        Some((Cow::Owned(key.to_owned()), Laid::of(value, numbers)?))
                    })
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

/// The text of every number in a JSON text, in order: the tokens outside
/// strings that start with a digit or a minus sign.
fn number_texts(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut numbers = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                // To the closing quote, over escapes.
                at += 1;
                while let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[at..]) {
                    at += found;
                    if bytes[at] == b'\\' {
                        at += 2;
                        continue;
                    }
                    break;
                }
                at += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                while at < bytes.len()
                    && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    at += 1;
                }
                numbers.push(&text[start..at]);
            }
            _ => at += 1,
        }
    }
    numbers
}

impl Serialize for Laid<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Laid::Null => serializer.serialize_unit(),
            Laid::Bool(b) => serializer.serialize_bool(*b),
            Laid::Number(text) => {
                let raw: &RawValue =
                    serde_json::from_str(text).map_err(serde::ser::Error::custom)?;
                raw.serialize(serializer)
            }
            Laid::String(s) => serializer.serialize_str(s),
            Laid::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Laid::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (key, value) in members {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

fn get_mut<'m, 't>(members: &'m mut Members<'t>, key: &str) -> Option<&'m mut Laid<'t>> {
    members
        .iter_mut()
        .find(|(k, _)| k == key)
        .map(|(_, value)| value)
}

/// The keys of `order` first, in that order, then the others as they were.
fn reorder(members: &mut Members<'_>, order: &[&str]) {
    // A stable sort by place in `order`, the others after.
    members.sort_by_key(|(key, _)| order.iter().position(|o| o == key).unwrap_or(order.len()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_hand_edited_conversation_is_laid_out_and_renumbered() {
        let edited = r#"{"conversation": [
  {"text": "Hi", "role": "user", "index": 3},
  {"role": "assistant", "apis": [{"exception": null, "response": {"ok": true},
     "request": {"parameters": {"b": 1, "a": "é"}, "api_name": "X"}}], "text": "Done", "index": 3}],
 "note": "kept", "name": "n", "conversation_id": "c", "suites_used": [], "apis_used": ["X"],
 "metadata": {"timestamp": "2023-01-01 09:00:00", "location": "Here"},
 "user": {"password": "p", "username": "u"}}"#;
        let laid_out = tooltalk(Path::new("c.json"), edited).unwrap();
        insta::assert_snapshot!(laid_out);
        // Canonical text stays as it is.
        assert_eq!(tooltalk(Path::new("c.json"), &laid_out).unwrap(), laid_out);
        // Nothing but the layout and the indices changed.
        let before: Value = serde_json::from_str(edited).unwrap();
        let mut after: Value = serde_json::from_str(&laid_out).unwrap();
        after["conversation"][0]["index"] = 3.into();
        after["conversation"][1]["index"] = 3.into();
        assert_eq!(before, after);
    }

    #[test]
    fn numbers_keep_their_text() {
        let written = r#"{"name": "n", "big": 123456789012345678901234567890, "neg": -98765432109876543210,
 "f": 1.50, "e": 1E+2, "z": -0.0, "small": 7, "list": [2.000, 1e-7],
 "conversation": [{"role": "user", "text": "1.0", "index": 9}]}"#;
        let laid_out = tooltalk(Path::new("c.json"), written).unwrap();
        for number in [
            "123456789012345678901234567890",
            "-98765432109876543210",
            ": 1.50",
            "1E+2",
            "-0.0",
            "2.000",
            "1e-7",
            "\"index\": 0",
        ] {
            assert!(laid_out.contains(number), "{number} in {laid_out}");
        }
        assert_eq!(tooltalk(Path::new("c.json"), &laid_out).unwrap(), laid_out);
        let line = r#"{"role": "API", "api_name": "A", "param_dict": {"n": 18446744073709551616}, "result": {"output": 0.10}}"#;
        let laid_out = apibank(Path::new("d.jsonl"), line).unwrap();
        assert!(laid_out.contains("18446744073709551616") && laid_out.contains("0.10"));
    }

    #[test]
    fn a_key_written_twice_is_an_error_at_its_place() {
        let twice = "{\"name\": \"n\",\n \"conversation\": [{\"role\": \"user\", \"role\": \"assistant\"}]}";
        let error = tooltalk(Path::new("c.json"), twice).unwrap_err();
        assert!(error.to_string().starts_with("c.json:2:"), "{error}");
        assert!(error.to_string().contains("duplicate key"), "{error}");
        let twice = "{\"role\": \"User\", \"text\": \"hi\"}\n\n{\"role\": \"API\", \"param_dict\": {\"a\": 1, \"a\": 2}}\n";
        let error = apibank(Path::new("d.jsonl"), twice).unwrap_err();
        assert!(error.to_string().starts_with("d.jsonl:3:"), "{error}");
    }

    #[test]
    fn api_bank_lines_are_dumped_one_by_one_and_blank_lines_kept() {
        let edited = "{\"text\": \"hi\",   \"role\": \"User\"}\n\n{\"result\": {\"output\": 1, \"api_name\": \"A\", \"exception\": null, \"input\": {}}, \"param_dict\": {}, \"api_name\": \"A\", \"role\": \"API\"}";
        let laid_out = apibank(Path::new("d.jsonl"), edited).unwrap();
        assert_eq!(
            laid_out,
            "{\"role\": \"User\", \"text\": \"hi\"}\n\n{\"role\": \"API\", \"api_name\": \"A\", \"param_dict\": {}, \"result\": {\"api_name\": \"A\", \"input\": {}, \"output\": 1, \"exception\": null}}\n"
        );
        assert_eq!(apibank(Path::new("d.jsonl"), &laid_out).unwrap(), laid_out);
        let error = apibank(Path::new("d.jsonl"), "{}\n{\"role\": }\n").unwrap_err();
        assert!(error.to_string().starts_with("d.jsonl:2:"), "{error}");
    }
}
