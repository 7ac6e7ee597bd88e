//! Why a conversation failed, in terms a researcher can act
//! on: each gold call no prediction matched (with the closest prediction of
//! the same tool and the arguments that differ), each bad action, each
//! call that raised, each turn the call bound stopped.
//!
//! The reasons are drawn from the turn outcomes, which a fresh evaluation
//! and a resumed one (reading an earlier output file) give alike, so a
//! resumed run lists the same reasons. A suite evaluated by samples gives
//! each wrong sample its reason and cause instead (API-Bank: `per_sample`'s
//! `reason`, `cause` and `known`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::outcome::{CallOutcome, TurnOutcome};
use crate::errata::{self, Entry, Known};

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A gold call no prediction matched.
    MissedGoldCall,
    /// An action that matched no gold call and ran: it changed the world
    /// in a way the gold conversation does not.
    BadAction,
    /// A predicted call that raised (or whose arguments did not parse).
    Exception,
    /// The turn asked for more calls than the bound allows.
    CallBound,
}

/// One reason a conversation failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureReason {
    /// The turn's position in the dialogue.
    pub turn: usize,
    pub kind: FailureKind,
    /// The tool concerned (empty for a stopped turn).
    pub api_name: String,
    /// The gold call's position in the turn (missed gold call), or the
    /// prediction's among the turn's predictions; absent for a turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    /// The reason in one sentence.
    pub message: String,
    /// For a missed gold call: the turn's prediction of the same tool that
    /// comes closest, and how its arguments differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
    /// The gold call's recorded result is known to be wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

/// The prediction closest to a missed gold call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Closest {
    /// Its position among the turn's predictions.
    pub prediction: usize,
    /// The arguments that differ (none: the arguments agree and the
    /// result or the comparator's finer rule told them apart).
    pub arguments: Vec<ArgumentDiff>,
    /// The exception the prediction raised, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
}

/// One argument on which a prediction and a gold call differ; a side
/// without the argument is null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgumentDiff {
    pub name: String,
    pub gold: Option<Value>,
    pub predicted: Option<Value>,
}

/// What explaining needs besides the turns.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The argument the world supplies (the session token): never a
    /// difference, since a model need not send it.
    pub injected: Option<&'a str>,
    /// The dialogue's errata.
    pub errata: &'a [Entry],
}

/// The reasons the turns of a failed conversation give, in turn order.
pub fn explain(turns: &[TurnOutcome<'_>], context: &Context<'_>) -> Vec<FailureReason> {
    let mut reasons = Vec::new();
    for turn in turns {
        let t = turn.turn;
        // A reason about one call, or the whole turn, with nothing closer.
        let reason = |kind, api_name: &str, call, message| FailureReason {
            turn: t,
            kind,
            api_name: api_name.to_string(),
            call,
            message,
            closest: None,
            known: None,
        };
        for (g, gold) in turn.gold.iter().enumerate() {
            if !gold.matched {
                reasons.push(missed(turn, g, gold, context));
            }
        }
        for (p, prediction) in turn.predictions.iter().enumerate() {
            let name = prediction.request.api_name.as_ref();
            if prediction.bad_action {
                let message =
                    format!("turn {t}: {name} changed the world, and no gold call does that here");
                reasons.push(reason(FailureKind::BadAction, name, Some(p), message));
            }
            if let Some(exception) = &prediction.exception {
                let message = format!("turn {t}: {name} raised: {}", shorten(exception));
                reasons.push(reason(FailureKind::Exception, name, Some(p), message));
            }
        }
        if turn.stopped_by_bound {
            let calls = crate::words::count(turn.predictions.len(), "call");
            let message = format!("turn {t}: stopped by the call bound after {calls}");
            reasons.push(reason(FailureKind::CallBound, "", None, message));
        }
    }
    reasons
}

fn missed(
    turn: &TurnOutcome<'_>,
    g: usize,
    gold: &CallOutcome<'_>,
    context: &Context<'_>,
) -> FailureReason {
    // Unmatched predictions of the tool first: a matched one answered
    // another gold call.
    let closest = turn
        .predictions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.request.api_name == gold.request.api_name)
        .map(|(i, p)| {
            let diffs = argument_diffs(gold, p, context.injected);
            (p.matched, diffs.len(), i, p, diffs)
        })
        .min_by_key(|(matched, n, i, _, _)| (*matched, *n, *i))
        .map(|(_, _, i, p, arguments)| Closest {
            prediction: i,
            arguments,
            exception: p.exception.as_deref().map(str::to_string),
        });
    // The erratum explains the failure only where a prediction agreed with
    // the gold call in every argument: the comparator then told them apart
    // by the recorded result, which is known to be wrong.
    let agreed = closest
        .as_ref()
        .is_some_and(|c| c.arguments.is_empty() && c.exception.is_none());
    let known = errata::at(context.errata, turn.turn, g)
        .filter(|e| agreed && e.erratum.api_name == gold.request.api_name)
        .map(Entry::known);
    let what = match &closest {
        Some(c) => {
            let differs = c.arguments.iter().map(|a| {
                let (gold, predicted) = (shown(a.gold.as_ref()), shown(a.predicted.as_ref()));
                format!("{} (gold {gold}, predicted {predicted})", a.name)
            });
            let differs = differs.collect::<Vec<_>>().join(", ");
            let mut parts = Vec::new();
            if !differs.is_empty() {
                parts.push(format!("differs in {differs}"));
            }
            if let Some(e) = &c.exception {
                parts.push(format!("raised: {}", shorten(e)));
            }
            match parts.is_empty() {
                true => "the closest prediction has the same arguments, but the tool's comparator told them apart".to_string(),
                false => format!("the closest prediction {}", parts.join(" and ")),
            }
        }
        None if turn.predictions.is_empty() => "the turn made no call".to_string(),
        None => {
            let mut names: Vec<&str> = turn
                .predictions
                .iter()
                .map(|p| &*p.request.api_name)
                .collect();
            names.dedup();
            format!(
                "no prediction calls it (the turn called {})",
                names.join(", ")
            )
        }
    };
    let erratum = known.as_ref().map_or(String::new(), |k| {
        format!(" (its recorded result is a known erratum: {})", k.reason)
    });
    let name = &gold.request.api_name;
    let message = format!(
        "turn {}: gold call {name} not matched; {what}{erratum}",
        turn.turn
    );
    FailureReason {
        turn: turn.turn,
        kind: FailureKind::MissedGoldCall,
        api_name: gold.request.api_name.to_string(),
        call: Some(g),
        message,
        closest,
        known,
    }
}

/// The arguments on which `predicted` differs from `gold`, in the gold
/// call's order then the prediction's extra ones; the world's injected
/// argument is left out.
fn argument_diffs(
    gold: &CallOutcome<'_>,
    predicted: &CallOutcome<'_>,
    injected: Option<&str>,
) -> Vec<ArgumentDiff> {
    let empty = Map::new();
    let gold_args = gold.request.parameters.as_deref().unwrap_or(&empty);
    // Unparsed arguments differ in every gold argument.
    let predicted_args = predicted.request.parameters.as_deref().unwrap_or(&empty);
    let extra = predicted_args
        .keys()
        .filter(|k| !gold_args.contains_key(*k));
    gold_args
        .keys()
        .chain(extra)
        .filter(|name| Some(name.as_str()) != injected)
        .filter_map(|name| {
            let (gold, predicted) = (gold_args.get(name), predicted_args.get(name));
            (gold != predicted).then(|| ArgumentDiff {
                name: name.clone(),
                gold: gold.cloned(),
                predicted: predicted.cloned(),
            })
        })
        .collect()
}

/// A value as a short JSON text ("none" for a missing one).
fn shown(value: Option<&Value>) -> String {
    match value {
        None => "none".to_string(),
        Some(v) => shorten(&v.to_string()),
    }
}

/// At most 80 characters, an ellipsis marking a cut.
fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::*;
    use crate::eval::outcome::CallRequest;

    fn call(
        name: &str,
        matched: bool,
        bad_action: bool,
        arguments: Option<Value>,
        exception: Option<&str>,
    ) -> CallOutcome<'static> {
        CallOutcome {
            request: CallRequest {
                api_name: name.to_string().into(),
                parameters: arguments.map(|a| Cow::Owned(a.as_object().unwrap().clone())),
            },
            matched,
            bad_action,
            exception: exception.map(|e| Cow::Owned(e.to_string())),
        }
    }

    #[test]
    fn a_missed_gold_call_names_the_closest_prediction_and_the_argument_that_differs() {
        let turn = TurnOutcome {
            turn: 3,
            gold: vec![call(
                "AddAlarm",
                false,
                false,
                Some(json!({"session_token": "t", "time": "07:00:00"})),
                None,
            )],
            predictions: vec![
                call(
                    "AddAlarm",
                    false,
                    true,
                    Some(json!({"time": "08:00:00", "x": 1})),
                    None,
                ),
                call(
                    "AddAlarm",
                    false,
                    true,
                    Some(json!({"time": "09:00:00", "session_token": "t"})),
                    None,
                ),
                call(
                    "DeleteAlarm",
                    false,
                    false,
                    None,
                    Some("Failed to parse API call"),
                ),
            ],
            stopped_by_bound: false,
        };
        let reasons = explain(
            &[turn],
            &Context {
                injected: Some("session_token"),
                errata: &[],
            },
        );
        let kinds: Vec<FailureKind> = reasons.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                FailureKind::MissedGoldCall,
                FailureKind::BadAction,
                FailureKind::BadAction,
                FailureKind::Exception
            ]
        );
        let closest = reasons[0].closest.as_ref().unwrap();
        // The second prediction differs in one argument, the first in two.
        assert_eq!(closest.prediction, 1);
        assert_eq!(
            closest.arguments,
            [ArgumentDiff {
                name: "time".into(),
                gold: Some(json!("07:00:00")),
                predicted: Some(json!("09:00:00")),
            }]
        );
        assert_eq!(
            reasons[0].message,
            "turn 3: gold call AddAlarm not matched; the closest prediction differs in time (gold \"07:00:00\", predicted \"09:00:00\")"
        );
        assert_eq!(
            reasons[3].message,
            "turn 3: DeleteAlarm raised: Failed to parse API call"
        );
    }

    #[test]
    fn a_missed_gold_call_whose_prediction_agreed_is_marked_known_by_its_erratum() {
        let turn = TurnOutcome {
            turn: 1,
            gold: vec![call("GetReminders", false, false, Some(json!({})), None)],
            predictions: vec![call("GetReminders", false, false, Some(json!({})), None)],
            stopped_by_bound: true,
        };
        let entry = Entry {
            index: None,
            erratum: crate::errata::Erratum {
                file: None,
                turn: 1,
                call: 0,
                api_name: "GetReminders".into(),
                reason: "trimmed".into(),
                since: "v1".into(),
            },
            source: crate::errata::IN_FILE.into(),
        };
        let reasons = explain(
            &[turn],
            &Context {
                injected: None,
                errata: std::slice::from_ref(&entry),
            },
        );
        assert_eq!(reasons.len(), 2);
        assert_eq!(reasons[0].known.as_ref().unwrap().reason, "trimmed");
        assert!(reasons[0].message.contains("the same arguments"));
        assert!(reasons[0].message.contains("known erratum: trimmed"));
        assert_eq!(reasons[1].kind, FailureKind::CallBound);
        // A turn that never made the call fails whatever the recording says.
        let missed = TurnOutcome {
            turn: 1,
            gold: vec![call("GetReminders", false, false, Some(json!({})), None)],
            predictions: vec![],
            stopped_by_bound: false,
        };
        let reasons = explain(
            &[missed],
            &Context {
                injected: None,
                errata: std::slice::from_ref(&entry),
            },
        );
        assert_eq!(reasons[0].known, None);
        assert!(reasons[0].message.contains("the turn made no call"));
    }
}
