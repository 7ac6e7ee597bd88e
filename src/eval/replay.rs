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
//!   `response`, `exception`, `match` or `metadata` given is ignored: the
//!   world runs the call again), and `{"role": "assistant", "text"}` for
//!   the answer (a string), at most one and last: a call after the answer,
//!   a second answer or a text that is not a string is an input error.
//!
//! Every line must name a conversation being evaluated and one of its
//! assistant turns: a line for another conversation, a user turn or a turn
//! the conversation does not have is an input error (exit 2) naming the
//! file and line, checked before anything is evaluated. A conversation
//! without any line is an error too; an assistant turn without a line made
//! no calls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::output::PredictorSettings;
use crate::dialogue::Role;
use crate::formats::read::{json_error, read_text};
use crate::suite::predict::{PredictError, Prediction, Predictor, ProposedCall, TurnInput};
use crate::{Error, Result};

/// One turn's recorded steps.
#[derive(Debug, Clone, PartialEq, Default)]
struct RecordedTurn {
    calls: Vec<ProposedCall>,
    text: String,
}

#[derive(Debug, Clone)]
pub struct Replay {
    path: PathBuf,
    sha256: String,
    turns: HashMap<(String, usize), RecordedTurn>,
    /// The line each (conversation, turn) came from.
    lines: Vec<(usize, String, usize)>,
    conversations: std::collections::HashSet<String>,
}

impl Replay {
    pub fn load(path: &Path) -> Result<Self> {
        let text = read_text(path)?;
        let mut turns = HashMap::new();
        let mut lines = Vec::new();
        let mut conversations = std::collections::HashSet::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.trim().is_empty() {
                continue;
            }
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
            let recorded = parse_steps(steps).map_err(bad)?;
            conversations.insert(id.to_string());
            lines.push((line_no, id.to_string(), turn));
            if turns.insert((id.to_string(), turn), recorded).is_some() {
                return Err(bad(format!(
                    "conversation {id:?} turn {turn} appears a second time"
                )));
            }
        }
        Ok(Replay {
            path: path.to_path_buf(),
            sha256: crate::llm::sha256_hex(text.as_bytes()),
            turns,
            lines,
            conversations,
        })
    }

    /// Check every line against the conversations being evaluated: each
    /// must name one of them and one of its assistant turns.
    pub fn check(&self, conversations: &[Shape]) -> Result<()> {
        let by_id: HashMap<&str, &[Role]> = conversations
            .iter()
            .map(|c| (c.conversation_id.as_str(), c.roles.as_slice()))
            .collect();
        for (line, id, turn) in &self.lines {
            let bad = |message: String| Err(Error::syntax(&self.path, *line, 1, message));
            let Some(roles) = by_id.get(id.as_str()) else {
                return bad(format!(
                    "conversation {id:?} is not among the {} conversations evaluated",
                    conversations.len()
                ));
            };
            match roles.get(*turn) {
                None => {
                    return bad(format!(
                        "conversation {id:?} has no turn {turn} (it has {} turns, 0 to {})",
                        roles.len(),
                        roles.len().saturating_sub(1)
                    ))
                }
                Some(Role::User) => {
                    return bad(format!(
                        "turn {turn} of conversation {id:?} is a user turn; predictions belong to assistant turns"
                    ))
                }
                Some(Role::Assistant) => {}
            }
        }
        Ok(())
    }
}

/// What [`Replay::check`] needs to know of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub conversation_id: String,
    pub roles: Vec<Role>,
}

impl Shape {
    /// A conversation's id and turn roles, however its file writes them.
    pub fn of(conversation: &crate::dialogue::Conversation) -> Shape {
        Shape {
            conversation_id: conversation.conversation_id.clone(),
            roles: conversation.conversation.iter().map(|t| t.role).collect(),
        }
    }
}

fn parse_steps(steps: &[Value]) -> std::result::Result<RecordedTurn, String> {
    let mut turn = RecordedTurn::default();
    // The step holding the answer, once there is one.
    let mut answered: Option<usize> = None;
    for (k, step) in steps.iter().enumerate() {
        if let Some(answer) = answered {
            return Err(format!(
                "predictions[{k}] comes after the answer in predictions[{answer}]: the answer is the turn's last step"
            ));
        }
        match step.get("role").and_then(Value::as_str) {
            Some("api") => {
                let api_name = step
                    .pointer("/request/api_name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        format!("predictions[{k}]: request.api_name must be a string")
                    })?;
                let parameters = match step.pointer("/request/parameters") {
                    Some(Value::Object(p)) => Some(p.clone()),
                    Some(Value::Null) => None,
                    None => Some(Map::new()),
                    Some(_) => {
                        return Err(format!(
                            "predictions[{k}]: request.parameters must be an object or null"
                        ))
                    }
                };
                turn.calls.push(ProposedCall {
                    api_name: api_name.to_string(),
                    parameters,
                    metadata: step.get("metadata").filter(|m| !m.is_null()).cloned(),
                });
            }
            Some("assistant") => {
                turn.text = step
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("predictions[{k}]: \"text\" must be a string"))?
                    .to_string();
                answered = Some(k);
            }
            _ => {
                return Err(format!(
                    "predictions[{k}]: \"role\" must be \"api\" or \"assistant\""
                ))
            }
        }
    }
    Ok(turn)
}

impl Predictor for Replay {
    fn name(&self) -> String {
        let file = self.path.file_name().unwrap_or(self.path.as_os_str());
        format!("replay:{}", file.to_string_lossy())
    }

    fn settings(&self) -> PredictorSettings {
        PredictorSettings {
            predictions: Some(self.path.display().to_string()),
            predictions_sha256: Some(self.sha256.clone()),
            ..PredictorSettings::default()
        }
    }

    fn predict(&self, input: &TurnInput<'_>) -> std::result::Result<Prediction, PredictError> {
        let id = &input.conversation.conversation_id;
        if !self.conversations.contains(id) {
            return Err(PredictError(format!(
                "{}: no predictions for conversation {id:?}",
                self.path.display()
            )));
        }
        let empty = RecordedTurn::default();
        let recorded = self.turns.get(&(id.clone(), input.turn)).unwrap_or(&empty);
        let done = input.predicted.len();
        if done < recorded.calls.len() {
            Ok(Prediction::Calls(recorded.calls[done..].to_vec()))
        } else {
            Ok(Prediction::Text {
                text: recorded.text.clone(),
                metadata: None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn steps(value: Value) -> std::result::Result<RecordedTurn, String> {
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
        assert_eq!(steps(json!([])).unwrap(), RecordedTurn::default());
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
        ];
        for (value, want) in cases {
            let err = steps(value.clone()).unwrap_err();
            assert!(err.starts_with(want), "{value}: {err}");
        }
    }
}
