//! What the report needs to know about one evaluated conversation, in a
//! form that a fresh run and a resumed run (reading an earlier output file)
//! both produce: per assistant turn, which calls matched, which were bad
//! actions; the conversation's metrics; the error types of Table 2.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::failure::{explain, Context, FailureReason};
use crate::suite::protocol::Metrics;
use crate::suite::state::StateCheck;

/// One call in a turn, gold or predicted, as the output file records it
/// (so resuming reads it back as is); a replay line gives only its
/// request.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CallOutcome<'a> {
    pub request: CallRequest<'a>,
    #[serde(default, rename = "match")]
    pub matched: bool,
    /// Always false for gold calls.
    #[serde(default)]
    pub bad_action: bool,
    /// The exception the call raised.
    #[serde(default)]
    pub exception: Option<Cow<'a, str>>,
}

/// The tool called and its arguments (a gold call's as replayed); `None`
/// (written `null`) when a prediction's could not be parsed, none given
/// when left out. Borrowed from the simulation for a fresh evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CallRequest<'a> {
    pub api_name: Cow<'a, str>,
    #[serde(default = "no_parameters")]
    pub parameters: Option<Cow<'a, Map<String, Value>>>,
}

fn no_parameters<'a>() -> Option<Cow<'a, Map<String, Value>>> {
    Some(Cow::Owned(Map::new()))
}

/// One step of an assistant turn as `predictions` holds it, in output
/// files and in replay lines alike: a call or the closing answer.
#[derive(Debug, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase", expecting = "an object")]
pub enum Step {
    Api {
        #[serde(flatten)]
        call: CallOutcome<'static>,
        #[serde(default)]
        metadata: Option<Value>,
    },
    Assistant {
        text: AnswerText,
        #[serde(default)]
        metadata: Option<Value>,
    },
}

/// An answer's text: a string, anything else (left out, null) refused in
/// the line format's words.
#[derive(Debug)]
pub struct AnswerText(pub String);

impl<'de> Deserialize<'de> for AnswerText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(deserializer) {
            Ok(Some(text)) => Ok(AnswerText(text)),
            _ => Err(serde::de::Error::custom("\"text\" must be a string")),
        }
    }
}

/// One assistant turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnOutcome<'a> {
    /// The turn's position in the dialogue.
    pub turn: usize,
    pub gold: Vec<CallOutcome<'a>>,
    pub predictions: Vec<CallOutcome<'a>>,
    pub stopped_by_bound: bool,
}

/// Table 2 of the paper: why a failed conversation failed, counted as the
/// reference's `calculate_error_types.py` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ErrorTypes {
    /// A bad action in a turn that has no gold calls; one per such call
    /// (the reference counts calls here, not turns).
    pub premature_tool_call: usize,
    /// A turn whose unmatched gold calls and unmatched predictions name
    /// different tools, or that calls a tool more often than needed.
    pub faulty_planning: usize,
    /// A turn that called the right tools the right number of times but
    /// got at least one call wrong.
    pub incorrect_invocation: usize,
}

impl std::ops::AddAssign for ErrorTypes {
    fn add_assign(&mut self, other: Self) {
        self.premature_tool_call += other.premature_tool_call;
        self.faulty_planning += other.faulty_planning;
        self.incorrect_invocation += other.incorrect_invocation;
    }
}

/// Classify the failing turns of a conversation (call only for failed ones).
///
/// A turn without gold calls, whether it has no `apis` key or an empty
/// list, counts its bad actions as premature tool calls. The reference's
/// `calculate_error_types.py` tests for the key only, so an empty list
/// would send such a turn down the planning branch there; no upstream
/// ToolTalk file has an empty list (0 of 230 assistant turns, checked by
/// `tests/eval_oracle.rs`), so on every upstream file both readings count
/// the same, and talkforge's reading keeps `"apis": []` (as hand-written
/// files may have) from turning a premature call into faulty planning.
pub fn classify(turns: &[TurnOutcome<'_>]) -> ErrorTypes {
    let mut types = ErrorTypes::default();
    for turn in turns {
        if turn.gold.is_empty() {
            types.premature_tool_call += turn.predictions.iter().filter(|p| p.bad_action).count();
            continue;
        }
        let unmatched_predictions = tally(turn.predictions.iter().filter(|p| !p.matched));
        let unmatched_gold = tally(turn.gold.iter().filter(|g| !g.matched));
        if unmatched_predictions.is_empty() && unmatched_gold.is_empty() {
            continue;
        }
        let same_tools = unmatched_gold.keys().eq(unmatched_predictions.keys());
        // The reference's test reads "fewer unmatched gold calls than
        // unmatched predictions of a tool": the tool was called too often.
        let called_too_often = unmatched_gold
            .iter()
            .any(|(name, &n)| n < unmatched_predictions.get(name).copied().unwrap_or(0));
        if same_tools && !called_too_often {
            types.incorrect_invocation += 1;
        } else {
            types.faulty_planning += 1;
        }
    }
    types
}

fn tally<'a>(calls: impl Iterator<Item = &'a CallOutcome<'a>>) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for call in calls {
        *counts.entry(call.request.api_name.as_ref()).or_default() += 1;
    }
    counts
}

/// How one tool fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolTally {
    pub gold_calls: usize,
    /// Gold calls no prediction matched.
    pub missed: usize,
    pub predicted: usize,
    /// Predictions that matched no gold call.
    pub unmatched_predictions: usize,
    pub bad_actions: usize,
}

impl std::ops::AddAssign for ToolTally {
    fn add_assign(&mut self, o: Self) {
        self.gold_calls += o.gold_calls;
        self.missed += o.missed;
        self.predicted += o.predicted;
        self.unmatched_predictions += o.unmatched_predictions;
        self.bad_actions += o.bad_actions;
    }
}

/// One evaluated conversation, as the summary and the report see it: the
/// metrics' fields inline, under the summary's names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationResult {
    pub file: String,
    /// The folder the file sits in (easy, hard, tooltalk, ...).
    pub subset: String,
    pub name: String,
    pub conversation_id: String,
    /// The SHA-256 of the dialogue file evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_sha256: Option<String>,
    #[serde(flatten, with = "SummaryMetrics")]
    pub metrics: Metrics,
    pub assistant_turns: usize,
    pub turns_stopped_by_bound: usize,
    pub error_types: ErrorTypes,
    /// Taken from an earlier run's output rather than evaluated now.
    pub resumed: bool,
    /// Why it failed, turn by turn (empty when it succeeded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why_failed: Vec<FailureReason>,
    /// Where the predicted worlds differ from the gold ones; `None` when
    /// the suite cannot compare worlds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_check: Option<StateCheck>,
    /// The models the server said answered (provenance), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models_reported: Vec<String>,
    /// How each tool it used fared, in name order. Not kept: the summary's
    /// per-tool table gathers these.
    #[serde(skip)]
    pub tools: Vec<(String, ToolTally)>,
}

/// [`Metrics`] under the summary's names: one name per metric
/// (`incorrect_action_rate`), where the output files keep the reference's
/// (`bad_action_rate`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Metrics")]
struct SummaryMetrics {
    predictions: usize,
    ground_truths: usize,
    matches: usize,
    actions: usize,
    valid_actions: usize,
    bad_actions: usize,
    precision: f64,
    recall: f64,
    action_precision: f64,
    #[serde(rename = "incorrect_action_rate")]
    bad_action_rate: f64,
    success: bool,
    soft_success: f64,
}

impl ConversationResult {
    /// The result of a conversation's `turns`, with the figures they give;
    /// which conversation it is, the caller fills in.
    pub fn new(metrics: Metrics, turns: &[TurnOutcome<'_>], context: &Context<'_>) -> Self {
        // Tallied under borrowed names; only the list outlives this call
        // (it is handed to the summary on another thread).
        let mut tools = BTreeMap::<&str, ToolTally>::new();
        for turn in turns {
            for g in &turn.gold {
                let t = tools.entry(&g.request.api_name).or_default();
                t.gold_calls += 1;
                t.missed += usize::from(!g.matched);
            }
            for p in &turn.predictions {
                let t = tools.entry(&p.request.api_name).or_default();
                t.predicted += 1;
                t.unmatched_predictions += usize::from(!p.matched);
                t.bad_actions += usize::from(p.bad_action);
            }
        }
        let (error_types, why_failed) = if metrics.success {
            (ErrorTypes::default(), Vec::new())
        } else {
            (classify(turns), explain(turns, context))
        };
        ConversationResult {
            file: String::new(),
            subset: String::new(),
            name: String::new(),
            conversation_id: String::new(),
            conversation_sha256: None,
            models_reported: Vec::new(),
            metrics,
            assistant_turns: turns.len(),
            turns_stopped_by_bound: turns.iter().filter(|t| t.stopped_by_bound).count(),
            error_types,
            resumed: false,
            why_failed,
            state_check: None,
            tools: tools.into_iter().map(|(n, t)| (n.to_string(), t)).collect(),
        }
    }
}

/// The distinct `model` values of prediction metadata, in order.
pub fn models_in<'a>(metadata: impl IntoIterator<Item = Option<&'a Value>>) -> Vec<String> {
    let models = metadata.into_iter().flatten();
    let models = models.filter_map(|m| m.get("model")?.as_str().map(str::to_string));
    models
        .collect::<indexmap::IndexSet<_>>()
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, matched: bool, bad_action: bool) -> CallOutcome<'static> {
        CallOutcome {
            request: CallRequest {
                api_name: name.to_string().into(),
                parameters: None,
            },
            matched,
            bad_action,
            exception: None,
        }
    }

    #[test]
    fn a_result_serialises_with_the_metrics_inline_in_field_order() {
        let metrics = Metrics::from_counts(3, 2, 2, 1, 1, 0);
        let result = ConversationResult {
            file: "d/easy/a.json".into(),
            subset: "easy".into(),
            name: "A".into(),
            conversation_id: "id-a".into(),
            conversation_sha256: None,
            models_reported: Vec::new(),
            metrics,
            assistant_turns: 2,
            turns_stopped_by_bound: 0,
            error_types: ErrorTypes::default(),
            resumed: false,
            why_failed: Vec::new(),
            state_check: None,
            tools: Vec::new(),
        };
        let mut want = serde_json::json!({
            "file": "d/easy/a.json", "subset": "easy", "name": "A", "conversation_id": "id-a"
        });
        let serde_json::Value::Object(mut fields) = serde_json::to_value(metrics).unwrap() else {
            unreachable!()
        };
        // One name per metric in the summary.
        let rate = fields.shift_remove("bad_action_rate").unwrap();
        let at = fields.keys().position(|k| k == "success").unwrap();
        fields.shift_insert(at, "incorrect_action_rate".into(), rate);
        want.as_object_mut().unwrap().extend(fields);
        let rest = serde_json::json!({
            "assistant_turns": 2, "turns_stopped_by_bound": 0,
            "error_types": ErrorTypes::default(), "resumed": false
        });
        want.as_object_mut()
            .unwrap()
            .extend(rest.as_object().unwrap().clone());
        assert_eq!(
            serde_json::to_string_pretty(&result).unwrap(),
            serde_json::to_string_pretty(&want).unwrap()
        );
    }

    #[test]
    fn tools_are_tallied_by_name_in_name_order() {
        let turns = [
            TurnOutcome {
                turn: 1,
                gold: vec![
                    call("FindAlarms", true, false),
                    call("AddAlarm", false, false),
                ],
                predictions: vec![
                    call("FindAlarms", true, false),
                    call("DeleteAlarm", false, true),
                    call("AddAlarm", false, false),
                ],
                stopped_by_bound: false,
            },
            TurnOutcome {
                turn: 1,
                gold: vec![call("AddAlarm", true, false)],
                predictions: vec![call("AddAlarm", true, false), call("Nope", false, false)],
                stopped_by_bound: true,
            },
        ];
        let metrics = Metrics::from_counts(5, 3, 2, 3, 1, 1);
        let result = ConversationResult::new(metrics, &turns, &Context::default());
        let tally = |gold_calls, missed, predicted, unmatched_predictions, bad_actions| ToolTally {
            gold_calls,
            missed,
            predicted,
            unmatched_predictions,
            bad_actions,
        };
        let want = [
            ("AddAlarm", tally(2, 1, 2, 1, 0)),
            ("DeleteAlarm", tally(0, 0, 1, 1, 1)),
            ("FindAlarms", tally(1, 0, 1, 0, 0)),
            ("Nope", tally(0, 0, 1, 1, 0)),
        ];
        let got: Vec<(&str, ToolTally)> =
            result.tools.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        assert_eq!(got, want);
        assert_eq!(result.turns_stopped_by_bound, 1);
    }

    #[test]
    fn an_empty_gold_list_is_a_turn_without_gold_calls() {
        let premature = TurnOutcome {
            turn: 1,
            gold: Vec::new(),
            predictions: vec![
                call("AddAlarm", false, true),
                call("FindAlarms", false, false),
            ],
            stopped_by_bound: false,
        };
        let want = ErrorTypes {
            premature_tool_call: 1,
            faulty_planning: 0,
            incorrect_invocation: 0,
        };
        assert_eq!(classify(&[premature]), want);
    }
}
