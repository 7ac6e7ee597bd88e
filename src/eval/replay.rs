//! Predictions made elsewhere, read from a JSONL file.
//!
//! # Line format
//!
//! One JSON object per line, one line per assistant turn (blank lines are
//! ignored):
//!
//! ```json
//! {"conversation_id": "5e9a...", "turn": 1, "predictions": [
//!     {"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}}},
//!     {"role": "assistant", "text": "Your alarm is set."}]}
//! ```
//!
//! - `conversation_id`: the conversation's `conversation_id`;
//! - `turn`: the assistant turn's 0-based position in the `conversation` array;
//! - `predictions`: the turn's steps in order, in the shape of the
//!   `predictions` of talkforge's (and the reference's) output files:
//!   `{"role": "api", "request": {"api_name", "parameters"}}` for a call
//!   (`"parameters": null` for arguments that could not be parsed; any
//!   `response`, `exception` or `match` given is ignored: the world runs
//!   the call again; a `metadata` is kept), and `{"role": "assistant", "text"}` for
//!   the answer (a string), at most one and last: a call after the answer,
//!   a second answer or a text that is not a string is an input error.
//!
//! Every line must name a conversation being evaluated and one of its
//! assistant turns: a line for another conversation, a user turn or a turn
//! the conversation does not have is an input error (exit 2) naming the
//! file and line, checked before anything is evaluated. A conversation
//! without any line is an error too; an assistant turn without a line made
//! no calls.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::outcome::Step;
use crate::dialogue::Role;
use crate::formats::read::json_error;
use crate::run::answer::replay::Lines;
use crate::run::answer::{Answer, Call, Key};
use crate::{Error, Result};

/// The line format of whole conversations' predictions, checked against
/// the conversations evaluated: each line must name one of them and one
/// of its assistant turns.
pub struct ConversationLines {
    /// Each conversation's turn roles, by id.
    roles: HashMap<String, Vec<Role>>,
}

impl ConversationLines {
    pub fn new<'a>(
        conversations: impl IntoIterator<Item = &'a crate::dialogue::Conversation>,
    ) -> Self {
        ConversationLines {
            roles: conversations
                .into_iter()
                .map(|c| {
                    let roles = c.conversation.iter().map(|t| t.role).collect();
                    (c.conversation_id.clone(), roles)
                })
                .collect(),
        }
    }
}

impl Lines for ConversationLines {
    fn name(&self, path: &Path) -> String {
        let file = path.file_name().unwrap_or(path.as_os_str());
        format!("replay:{}", file.to_string_lossy())
    }

    fn parse(&self, path: &Path, line_no: usize, line: &str) -> Result<Vec<(Key, Answer)>> {
        let value: Value = serde_json::from_str(line).map_err(|e| {
            let mut err = json_error(path, &e);
            if let Error::Syntax { line, .. } = &mut err {
                *line = line_no;
            }
            err
        })?;
        let bad = |message: String| Error::syntax(path, line_no, 1, message);
        let id = value
            .get("conversation_id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("\"conversation_id\" must be a string".into()))?;
        let turn = value
            .get("turn")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("\"turn\" must be a non-negative integer".into()))?
            as usize;
        let steps = value
            .get("predictions")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("\"predictions\" must be a list".into()))?;
        let key = crate::run::turn_request::turn_key(id, turn);
        Ok(vec![(key, parse_steps(steps).map_err(bad)?)])
    }

    fn check(&self, key: &Key) -> std::result::Result<(), String> {
        let (id, turn) = (&key.unit, key.position);
        let Some(roles) = self.roles.get(id) else {
            return Err(format!(
                "conversation {id:?} is not among the {} conversations evaluated",
                self.roles.len()
            ));
        };
        match roles.get(turn) {
            None => Err(format!(
                "conversation {id:?} has no turn {turn} (it has {} turns, 0 to {})",
                roles.len(),
                roles.len().saturating_sub(1)
            )),
            Some(Role::User) => Err(format!(
                "turn {turn} of conversation {id:?} is a user turn; predictions belong to assistant turns"
            )),
            Some(Role::Assistant) => Ok(()),
        }
    }

    fn duplicate(&self, key: &Key) -> String {
        format!(
            "conversation {:?} turn {} appears a second time",
            key.unit, key.position
        )
    }

    fn every_unit(&self) -> Option<&'static str> {
        Some("conversation")
    }
}

/// A turn's steps ([`Step`]s, as output files write them): calls, then at
/// most one answer, last.
fn parse_steps(steps: &[Value]) -> std::result::Result<Answer, String> {
    let mut turn = Answer::default();
    // The step holding the answer, once there is one.
    let mut answered: Option<usize> = None;
    for (k, step) in steps.iter().enumerate() {
        if let Some(answer) = answered {
            return Err(format!(
                "predictions[{k}] comes after the answer in predictions[{answer}]: the answer is the turn's last step"
            ));
        }
        // serde names the type it wanted, the shape reminds which field.
        let shape = r#"{"role": "api", "request": {"api_name", "parameters"}} or {"role": "assistant", "text"}"#;
        match Step::deserialize(step)
            .map_err(|e| format!("predictions[{k}]: {e}; a step is {shape}"))?
        {
            Step::Api { call, metadata } => turn.calls.push(Call {
                name: call.request.api_name.into_owned(),
                arguments: call.request.parameters.map(Cow::into_owned),
                metadata,
                ..Call::default()
            }),
            Step::Assistant { text, .. } => {
                turn.text = text.0;
                answered = Some(k);
            }
        }
    }
    Ok(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    fn steps(value: Value) -> std::result::Result<Answer, String> {
        parse_steps(value.as_array().unwrap())
    }

    #[test]
    fn calls_then_one_answer_are_read() {
        let turn = steps(json!([
            {"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}}},
            {"role": "assistant", "text": "Set."}
        ]))
        .unwrap();
        assert_eq!(turn.calls.len(), 1);
        assert_eq!(turn.text, "Set.");
        assert_eq!(steps(json!([])).unwrap(), Answer::default());
        // Arguments left out are none given; null ones could not be parsed;
        // a metadata is kept.
        let turn = steps(json!([
            {"role": "api", "request": {"api_name": "FindAlarms"}, "metadata": {"model": "m"}},
            {"role": "api", "request": {"api_name": "AddAlarm", "parameters": null}}
        ]))
        .unwrap();
        assert_eq!(turn.calls[0].arguments, Some(Map::new()));
        assert_eq!(turn.calls[0].metadata, Some(json!({"model": "m"})));
        assert_eq!(turn.calls[1].arguments, None);
        assert_eq!(turn.text, "");
    }

    #[test]
    fn malformed_turns_are_refused() {
        let call = json!({"role": "api", "request": {"api_name": "AddAlarm", "parameters": {}}});
        let cases = [
            (
                json!([{"role": "assistant", "text": 5}]),
                "predictions[0]: \"text\" must be a string",
            ),
            (
                json!([{"role": "assistant"}]),
                "predictions[0]: \"text\" must be a string",
            ),
            (
                json!([{"role": "assistant", "text": "Done."}, call]),
                "predictions[1] comes after the answer in predictions[0]",
            ),
            (
                json!([{"role": "assistant", "text": "a"}, {"role": "assistant", "text": "b"}]),
                "predictions[1] comes after the answer in predictions[0]",
            ),
            (
                json!([{"role": "user", "text": "a"}]),
                "predictions[0]: unknown variant `user`, expected `api` or `assistant`; a step is",
            ),
            (
                json!([{"role": "api", "request": {"api_name": "A", "parameters": 5}}]),
                "predictions[0]: invalid type: integer `5`, expected a map; a step is",
            ),
            (
                json!([5]),
                "predictions[0]: invalid type: integer `5`, expected an object; a step is",
            ),
        ];
        for (value, want) in cases {
            let err = steps(value.clone()).unwrap_err();
            assert!(err.starts_with(want), "{value}: {err}");
        }
    }
}
