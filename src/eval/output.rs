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

use super::outcome::{CallOutcome, TurnOutcome};
use crate::dialogue::{Conversation, Role};
use crate::suite::predict::PredictedCall;
use crate::suite::protocol::{Metrics, Scoring, Simulation};
use crate::suite::state::StateCheck;

pub use crate::run::answer::Settings as PredictorSettings;

/// How a run was made: stored in every output file (with the hash of the
/// conversation file evaluated), in `summary.json` and in `report.md`. A
/// resumed run re-evaluates any output file whose record differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The predictor's name ("oracle", "openai:gpt-4o", "replay:p.jsonl").
    pub predictor: String,
    #[serde(flatten)]
    pub settings: PredictorSettings,
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
pub fn annotate(document: &mut Value, simulation: &Simulation<'_>, scoring: &Scoring) {
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
        if let Some(writes) = &simulation.state {
            let check = StateCheck::new(writes.clone());
            root.insert(
                "state_check".into(),
                serde_json::to_value(check).expect("a state check serializes"),
            );
        }
    }
}

fn prediction_json(call: &PredictedCall, matched: bool, bad_action: bool) -> Value {
    // The arguments in the order they were executed in.
    let parameters = if call.parsed {
        Value::Object(call.arguments.clone())
    } else {
        Value::Null
    };
    let mut entry = Map::new();
    entry.insert(
        "request".into(),
        json!({"api_name": call.api_name, "parameters": parameters}),
    );
    entry.insert("response".into(), call.response.as_response().to_value());
    entry.insert("exception".into(), json!(call.exception));
    entry.insert(
        "metadata".into(),
        call.metadata.clone().unwrap_or(Value::Null),
    );
    entry.insert("role".into(), json!("api"));
    entry.insert("match".into(), json!(matched));
    entry.insert("bad_action".into(), json!(bad_action));
    Value::Object(entry)
}

/// What an earlier run stored: its settings, metrics and turn outcomes.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub predictor: String,
    /// The state check, when the run made one.
    pub state_check: Option<StateCheck>,
    /// The stored `evaluation` object, as written.
    pub evaluation: Value,
    pub name: String,
    pub conversation_id: String,
    pub metrics: Metrics,
    pub turns: Vec<TurnOutcome<'static>>,
}

/// Read back an output file; `Err` says what is missing or malformed.
pub fn read_stored(document: &Value) -> Result<Stored, String> {
    let metrics: Metrics = serde_json::from_value(
        document
            .get("metrics")
            .cloned()
            .ok_or("no \"metrics\": the evaluation did not finish")?,
    )
    .map_err(|e| format!("\"metrics\": {e}"))?;
    let predictor = document
        .pointer("/evaluation/predictor")
        .and_then(Value::as_str)
        .ok_or("no \"evaluation.predictor\"")?
        .to_string();
    let text = |key: &str| {
        document
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let turns = document
        .get("conversation")
        .and_then(Value::as_array)
        .ok_or("no \"conversation\" list")?;
    let mut outcomes = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        if turn.get("role").and_then(Value::as_str) != Some(role_name(Role::Assistant)) {
            continue;
        }
        let predictions = turn
            .get("predictions")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("turn {t}: no \"predictions\""))?;
        let mut outcome = TurnOutcome {
            turn: t,
            has_gold_list: turn.get("apis").is_some(),
            stopped_by_bound: turn.get("stopped_by_call_bound") == Some(&Value::Bool(true)),
            ..Default::default()
        };
        for p in predictions {
            if p.get("role").and_then(Value::as_str) != Some("api") {
                continue;
            }
            outcome.predictions.push(call_outcome(p, t, true)?);
        }
        for g in turn
            .get("apis")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            outcome.gold.push(call_outcome(g, t, false)?);
        }
        outcomes.push(outcome);
    }
    let state_check = match document.get("state_check") {
        None => None,
        Some(v) => {
            Some(serde_json::from_value(v.clone()).map_err(|e| format!("\"state_check\": {e}"))?)
        }
    };
    Ok(Stored {
        predictor,
        state_check,
        evaluation: document.get("evaluation").cloned().unwrap_or(Value::Null),
        name: text("name"),
        conversation_id: text("conversation_id"),
        metrics,
        turns: outcomes,
    })
}

/// A stored call; a prediction (`predicted`) keeps its exception.
fn call_outcome(
    call: &Value,
    turn: usize,
    predicted: bool,
) -> Result<CallOutcome<'static>, String> {
    let api_name = call
        .pointer("/request/api_name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("turn {turn}: a call without request.api_name"))?;
    let flag = |key: &str| call.get(key).and_then(Value::as_bool);
    Ok(CallOutcome {
        api_name: Cow::Owned(api_name.to_string()),
        matched: flag("match").ok_or_else(|| format!("turn {turn}: a call without \"match\""))?,
        bad_action: flag("bad_action").unwrap_or(false),
        arguments: call
            .pointer("/request/parameters")
            .and_then(Value::as_object)
            .map(|a| Cow::Owned(a.clone())),
        exception: call
            .get("exception")
            .and_then(Value::as_str)
            .filter(|_| predicted)
            .map(|e| Cow::Owned(e.to_string())),
    })
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}
