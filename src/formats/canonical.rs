//! The canonical layout of a dialogue file, which `talkforge fmt` writes:
//! what a hand edit may have disturbed is put back the way the upstream
//! files and talkforge's own writers lay it out. Only layout changes: no
//! value is added, dropped or altered, except a ToolTalk turn's `index`,
//! which becomes its position.
//!
//! - ToolTalk (.json): `json.dumps(obj, indent=4)` style (4 spaces, `", "`
//!   and `": "`, non-ASCII escaped), no final newline; known keys in the
//!   upstream order (below), any other key after them in its own order;
//!   `index` renumbered from 0.
//! - API-Bank (.jsonl): each line `json.dumps(obj)` style, known keys in
//!   the upstream order, every line ended by a newline; a blank line stays
//!   blank, since reports name calls by their line.

use std::path::Path;

use serde_json::{Map, Value};

use super::read::json_error;
use super::write::{to_python_json, to_python_json_line};
use crate::Result;

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
    let mut tree: Value = serde_json::from_str(text).map_err(|e| json_error(path, &e))?;
    if let Value::Object(conversation) = &mut tree {
        reorder(conversation, CONVERSATION);
        for (key, order) in [("user", USER), ("metadata", METADATA)] {
            if let Some(Value::Object(object)) = conversation.get_mut(key) {
                reorder(object, order);
            }
        }
        if let Some(Value::Array(turns)) = conversation.get_mut("conversation") {
            for (position, turn) in turns.iter_mut().enumerate() {
                let Value::Object(turn) = turn else { continue };
                turn.insert("index".into(), position.into());
                reorder(turn, TURN);
                let Some(Value::Array(calls)) = turn.get_mut("apis") else {
                    continue;
                };
                for call in calls.iter_mut().filter_map(Value::as_object_mut) {
                    reorder(call, CALL);
                    if let Some(Value::Object(request)) = call.get_mut("request") {
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
        let mut value: Value =
            serde_json::from_str(line).map_err(|e| match json_error(path, &e) {
                crate::Error::Syntax {
                    column, message, ..
                } => crate::Error::syntax(path, number + 1, column, message),
                other => other,
            })?;
        if let Value::Object(object) = &mut value {
            reorder(object, LINE);
            if let Some(Value::Object(result)) = object.get_mut("result") {
                reorder(result, RESULT);
            }
        }
        out.push_str(&to_python_json_line(&value));
        out.push('\n');
    }
    Ok(out)
}

/// The keys of `order` first, in that order, then the others as they were.
fn reorder(object: &mut Map<String, Value>, order: &[&str]) {
    let mut rest = std::mem::take(object);
    for key in order {
        if let Some(value) = rest.shift_remove(*key) {
            object.insert((*key).to_string(), value);
        }
    }
    object.extend(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

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
