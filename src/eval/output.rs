//! The per-conversation output file: the conversation as read, with each
//! assistant turn's predictions, the match flag of every gold call, the
//! conversation's metrics and how it was evaluated. The shape follows the
//! reference's output files, so its error-analysis script reads ours.
//!
//! Reading such a file back gives the same [`TurnOutcome`]s a fresh
//! evaluation gives, which is what makes resuming exact.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::outcome::{models_in, CallOutcome, CallRequest, Step, TurnOutcome};
use crate::dialogue::Role;
use crate::errata::Erratum;
use crate::suite::catalog::CallRef;
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
    /// The databases the conversations ran on (their
    /// [`DatabasesRecord`](crate::run::provenance::DatabasesRecord)'s `sha256`).
    pub databases_sha256: String,
    /// The talkforge that evaluated (its simulators and comparators decide
    /// the scores).
    pub talkforge_version: String,
}

/// What a fresh evaluation and a resumed one (an output file read back)
/// both give of a conversation.
pub struct Evaluated<'a> {
    pub name: String,
    pub conversation_id: String,
    pub metrics: Metrics,
    pub turns: Vec<TurnOutcome<'a>>,
    /// The state check, when the run made one.
    pub state_check: Option<StateCheck>,
    /// The models the predictions' metadata names.
    pub models_reported: Vec<String>,
    /// The conversation's own errata.
    pub errata: Cow<'a, [Erratum]>,
}

/// The turn outcomes of a fresh evaluation.
pub fn turn_outcomes<'s>(
    simulation: &'s Simulation<'_>,
    scoring: &Scoring,
) -> Vec<TurnOutcome<'s>> {
    let mut flags = scoring.predictions.iter();
    let mut gold = simulation.gold.iter().zip(&scoring.gold_matched).peekable();
    simulation
        .turns
        .iter()
        .map(|run| {
            let predictions = run.calls.iter().zip(flags.by_ref());
            let predictions = predictions
                .map(|(p, f)| borrowed(p.as_call(), p.parsed, f.matched.is_some(), f.bad_action));
            let mut golds = Vec::new();
            while let Some((g, &matched)) = gold.next_if(|(g, _)| g.turn == run.turn) {
                golds.push(borrowed(g.gold.as_ref().into(), true, matched, false));
            }
            TurnOutcome {
                turn: run.turn,
                gold: golds,
                predictions: predictions.collect(),
                stopped_by_bound: run.stopped_by_bound,
            }
        })
        .collect()
}

/// A call's outcome borrowed from the simulation; `parsed`: whether its
/// arguments could be read.
fn borrowed(call: CallRef<'_>, parsed: bool, matched: bool, bad_action: bool) -> CallOutcome<'_> {
    let request = CallRequest {
        api_name: Cow::Borrowed(call.api_name),
        parameters: parsed.then_some(Cow::Borrowed(call.parameters)),
    };
    let exception = call.exception.map(Cow::Borrowed);
    CallOutcome {
        request,
        matched,
        bad_action,
        exception,
    }
}

/// Write the evaluation into `document` (the conversation file as parsed):
/// each assistant turn's predictions in the reference's shape, the match
/// flag of every gold call, the metrics and the state check.
pub fn annotate(document: &mut Value, simulation: &Simulation<'_>, evaluated: &Evaluated<'_>) {
    let mut dialogue = document
        .get_mut("conversation")
        .and_then(Value::as_array_mut);
    for (run, outcome) in simulation.turns.iter().zip(&evaluated.turns) {
        let Some(Value::Object(turn)) = dialogue.as_deref_mut().and_then(|d| d.get_mut(run.turn))
        else {
            continue;
        };
        let calls = run.calls.iter().zip(&outcome.predictions);
        let mut predictions: Vec<Value> = calls
            .map(|(call, p)| {
                json!({
                    // The arguments in the order they were executed in;
                    // null when they could not be parsed.
                    "request": {"api_name": call.api_name, "parameters": p.request.parameters},
                    "response": call.response.as_response(),
                    "exception": call.exception,
                    "metadata": call.metadata,
                    "role": "api",
                    "match": p.matched,
                    "bad_action": p.bad_action,
                })
            })
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
        let apis = turn.get_mut("apis").and_then(Value::as_array_mut);
        for (call, gold) in apis.into_iter().flatten().zip(&outcome.gold) {
            if let Some(call) = call.as_object_mut() {
                call.insert("match".into(), Value::Bool(gold.matched));
            }
        }
    }
    if let Value::Object(root) = document {
        root.insert("metrics".into(), json!(evaluated.metrics));
        if let Some(check) = &evaluated.state_check {
            root.insert("state_check".into(), json!(check));
        }
    }
}

/// What resuming reads back of an output file.
#[derive(Deserialize)]
struct Stored {
    metrics: Metrics,
    #[serde(default)]
    name: String,
    #[serde(default)]
    conversation_id: String,
    conversation: Vec<StoredTurn>,
    #[serde(default)]
    state_check: Option<StateCheck>,
    /// The output file is the conversation as read, errata included.
    #[serde(default)]
    errata: Vec<Erratum>,
}

#[derive(Deserialize)]
struct StoredTurn {
    role: Role,
    /// The gold calls, each with its `match` flag.
    apis: Option<Vec<CallOutcome<'static>>>,
    /// An assistant turn's steps (required there).
    predictions: Option<Vec<Step>>,
    #[serde(default)]
    stopped_by_call_bound: bool,
}

impl Evaluated<'static> {
    /// Read back an output file: the same a fresh evaluation gives, which
    /// is what makes resuming exact. `Err` says what is missing or
    /// malformed.
    pub fn read(document: Value) -> Result<Self, String> {
        let stored: Stored = serde_json::from_value(document).map_err(|e| e.to_string())?;
        let mut models = Vec::new();
        let mut turns = Vec::new();
        for (t, turn) in stored.conversation.into_iter().enumerate() {
            if turn.role != Role::Assistant {
                continue;
            }
            let steps = turn
                .predictions
                .ok_or(format!("turn {t}: no \"predictions\""))?;
            let mut predictions = Vec::new();
            for step in steps {
                match step {
                    Step::Api { call, metadata } => {
                        predictions.push(call);
                        models.push(metadata);
                    }
                    Step::Assistant { metadata, .. } => models.push(metadata),
                }
            }
            turns.push(TurnOutcome {
                turn: t,
                gold: turn.apis.unwrap_or_default(),
                predictions,
                stopped_by_bound: turn.stopped_by_call_bound,
            });
        }
        Ok(Evaluated {
            name: stored.name,
            conversation_id: stored.conversation_id,
            metrics: stored.metrics,
            turns,
            state_check: stored.state_check,
            models_reported: models_in(models.iter().map(Option::as_ref)),
            errata: Cow::Owned(stored.errata),
        })
    }
}
