//! The per-conversation output file: the conversation as read, with each
//! assistant turn's predictions, the match flag of every gold call, the
//! conversation's metrics and how it was evaluated. The shape follows the
//! reference's output files, so its error-analysis script reads ours.
//!
//! Reading such a file back gives the same [`TurnOutcome`]s a fresh
//! evaluation gives, which is what makes resuming exact.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::outcome::{models_in, CallOutcome, TurnOutcome};
use crate::dialogue::{Conversation, Role};
use crate::errata::Erratum;
use crate::sim::Response;
use crate::suite::predict::PredictedCall;
use crate::suite::protocol::{Metrics, Scoring, Simulation};
use crate::suite::state::StateCheck;

/// How a run was made: stored in every output file (with the hash of the
/// conversation file evaluated), in `summary.json` and in `report.md`. A
/// resumed run re-evaluates any output file whose record differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The predictor's name ("oracle", "openai:gpt-4o", "replay:p.jsonl").
    pub predictor: String,
    #[serde(flatten)]
    pub settings: crate::run::answer::Settings,
    /// "lexical", "exact" or "embeddings:MODEL".
    pub similarity: String,
    pub max_calls_per_turn: usize,
    /// The databases the conversations ran on ([`crate::sim::databases::folder_sha256`]).
    pub databases_sha256: String,
    /// The talkforge that evaluated (its simulators and comparators decide
    /// the scores).
    pub talkforge_version: String,
}

/// The turn outcomes of a fresh evaluation.
pub fn turn_outcomes<'s>(
    conversation: &Conversation,
    simulation: &'s Simulation<'_>,
    scoring: &Scoring,
) -> Vec<TurnOutcome<'s>> {
    let mut flags = scoring.predictions.iter();
    let mut gold = simulation.gold.iter().zip(&scoring.gold_matched).peekable();
    simulation
        .turns
        .iter()
        .map(|run| {
            let turn = &conversation.conversation[run.turn];
            let predictions = run
                .calls
                .iter()
                .zip(flags.by_ref())
                .map(|(call, f)| CallOutcome {
                    api_name: Cow::Borrowed(call.api_name.as_str()),
                    matched: f.matched.is_some(),
                    bad_action: f.bad_action,
                    arguments: call.parsed.then_some(Cow::Borrowed(&call.arguments)),
                    exception: call.exception.as_deref().map(Cow::Borrowed),
                })
                .collect();
            let mut golds = Vec::new();
            while let Some((g, &matched)) = gold.next_if(|(g, _)| g.turn == run.turn) {
                golds.push(CallOutcome {
                    api_name: Cow::Borrowed(g.gold.request.api_name.as_str()),
                    matched,
                    bad_action: false,
                    arguments: Some(Cow::Borrowed(&g.gold.request.parameters)),
                    exception: None,
                });
            }
            TurnOutcome {
                turn: run.turn,
                has_gold_list: turn.apis.is_some(),
                gold: golds,
                predictions,
                stopped_by_bound: run.stopped_by_bound,
            }
        })
        .collect()
}

/// Write the evaluation into `document` (the conversation file as parsed).
pub fn annotate(
    document: &mut Value,
    simulation: &Simulation<'_>,
    scoring: &Scoring,
    state_check: &Option<StateCheck>,
) {
    let mut flags = scoring.predictions.iter();
    let mut gold_flags = simulation.gold.iter().zip(&scoring.gold_matched);
    if let Some(turns) = document
        .get_mut("conversation")
        .and_then(Value::as_array_mut)
    {
        for run in &simulation.turns {
            let Some(Value::Object(turn)) = turns.get_mut(run.turn) else {
                continue;
            };
            let mut predictions: Vec<Value> = run
                .calls
                .iter()
                .zip(flags.by_ref())
                .map(|(call, f)| prediction_json(call, f.matched.is_some(), f.bad_action))
                .collect();
            if let Some(answer) = &run.answer {
                predictions.push(json!({
                    "role": "assistant",
                    "text": answer.text,
                    "metadata": answer.metadata,
                }));
            }
            turn.insert("predictions".into(), Value::Array(predictions));
            if run.stopped_by_bound {
                turn.insert("stopped_by_call_bound".into(), Value::Bool(true));
            }
        }
        for (g, &matched) in gold_flags.by_ref() {
            let call = turns
                .get_mut(g.turn)
                .and_then(|t| t.get_mut("apis"))
                .and_then(|a| a.get_mut(g.call))
                .and_then(Value::as_object_mut);
            if let Some(call) = call {
                call.insert("match".into(), Value::Bool(matched));
            }
        }
    }
    if let Value::Object(root) = document {
        root.insert(
            "metrics".into(),
            serde_json::to_value(scoring.metrics).expect("metrics serialize"),
        );
        if let Some(check) = state_check {
            root.insert(
                "state_check".into(),
                serde_json::to_value(check).expect("a state check serializes"),
            );
        }
    }
}

/// A prediction as the output file records it (the reference's shape).
#[derive(Serialize)]
struct Recorded<'a> {
    request: Request<'a>,
    response: Response<'a>,
    exception: &'a Option<String>,
    metadata: &'a Option<Value>,
    role: &'static str,
    #[serde(rename = "match")]
    matched: bool,
    bad_action: bool,
}

#[derive(Serialize)]
struct Request<'a> {
    api_name: &'a str,
    /// The arguments in the order they were executed in; null when they
    /// could not be parsed.
    parameters: Option<&'a Map<String, Value>>,
}

fn prediction_json(call: &PredictedCall, matched: bool, bad_action: bool) -> Value {
    let recorded = Recorded {
        request: Request {
            api_name: &call.api_name,
            parameters: call.parsed.then_some(&call.arguments),
        },
        response: call.response.as_response(),
        exception: &call.exception,
        metadata: &call.metadata,
        role: "api",
        matched,
        bad_action,
    };
    serde_json::to_value(recorded).expect("a prediction serializes")
}

/// What resuming reads back of an output file (see [`Stored::turns`]).
#[derive(Deserialize)]
pub struct Stored {
    pub metrics: Metrics,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub conversation_id: String,
    conversation: Vec<StoredTurn>,
    /// The state check, when the run made one.
    #[serde(default)]
    pub state_check: Option<StateCheck>,
    /// The conversation's own errata (the output file is the conversation
    /// as read).
    #[serde(default)]
    pub errata: Vec<Erratum>,
}

#[derive(Deserialize)]
struct StoredTurn {
    role: Role,
    /// The gold calls, each with its `match` flag.
    apis: Option<Vec<StoredCall>>,
    /// An assistant turn's steps (required there).
    predictions: Option<Vec<StoredStep>>,
    #[serde(default)]
    stopped_by_call_bound: bool,
}

#[derive(Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum StoredStep {
    Api(StoredCall),
    Assistant {
        #[serde(default)]
        metadata: Option<Value>,
    },
}

#[derive(Deserialize)]
struct StoredCall {
    request: StoredRequest,
    #[serde(rename = "match")]
    matched: bool,
    #[serde(default)]
    bad_action: bool,
    #[serde(default)]
    exception: Option<String>,
    #[serde(default)]
    metadata: Option<Value>,
}

#[derive(Deserialize)]
struct StoredRequest {
    api_name: String,
    #[serde(default)]
    parameters: Option<Map<String, Value>>,
}

impl Stored {
    /// Read back an output file; `Err` says what is missing or malformed.
    pub fn read(document: Value) -> Result<Self, String> {
        let stored: Stored = serde_json::from_value(document).map_err(|e| e.to_string())?;
        let unanswered = stored
            .conversation
            .iter()
            .position(|t| t.role == Role::Assistant && t.predictions.is_none());
        match unanswered {
            Some(t) => Err(format!("turn {t}: no \"predictions\"")),
            None => Ok(stored),
        }
    }

    /// The turn outcomes the evaluation gave: the same a fresh evaluation
    /// gives, which is what makes resuming exact.
    pub fn turns(&self) -> Vec<TurnOutcome<'_>> {
        let turns = self.conversation.iter().enumerate();
        let assistant = turns.filter(|(_, t)| t.role == Role::Assistant);
        assistant
            .map(|(t, turn)| TurnOutcome {
                turn: t,
                has_gold_list: turn.apis.is_some(),
                gold: turn
                    .apis
                    .iter()
                    .flatten()
                    .map(|g| g.outcome(false))
                    .collect(),
                predictions: turn
                    .steps()
                    .filter_map(|s| match s {
                        StoredStep::Api(p) => Some(p.outcome(true)),
                        StoredStep::Assistant { .. } => None,
                    })
                    .collect(),
                stopped_by_bound: turn.stopped_by_call_bound,
            })
            .collect()
    }

    /// The models the predictions' metadata names.
    pub fn models_reported(&self) -> Vec<String> {
        let steps = self.conversation.iter().flat_map(StoredTurn::steps);
        models_in(steps.map(|s| match s {
            StoredStep::Api(call) => call.metadata.as_ref(),
            StoredStep::Assistant { metadata } => metadata.as_ref(),
        }))
    }
}

impl StoredTurn {
    fn steps(&self) -> impl Iterator<Item = &StoredStep> {
        self.predictions.iter().flatten()
    }
}

impl StoredCall {
    /// The call's outcome; a prediction (`predicted`) keeps its exception.
    fn outcome(&self, predicted: bool) -> CallOutcome<'_> {
        CallOutcome {
            api_name: Cow::Borrowed(&self.request.api_name),
            matched: self.matched,
            bad_action: self.bad_action,
            arguments: self.request.parameters.as_ref().map(Cow::Borrowed),
            exception: self
                .exception
                .as_deref()
                .filter(|_| predicted)
                .map(Cow::Borrowed),
        }
    }
}
