//! Scoring one call sample as the reference's evaluator does
//! (`Evaluator.evaluate`): read the call out of the model's text, compare
//! its API name with the gold call's, run it through `ToolManager.api_call`
//! in the sample's world, and ask the gold API's own correctness check
//! whether its result object counts as the gold one.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::apis::{api, Api};
use super::super::call_text::{parse_api_request, ParseFailure};
use super::super::world::ApiBankWorld;
use crate::sim::pyargs::py_eq;

/// Why a call sample is wrong: the error causes of the paper's analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The answer holds no API call.
    NoApiCall,
    /// The answer holds something call-shaped that cannot be read.
    ParseFailure,
    /// The call names no API-Bank API.
    UnknownApi,
    /// The call names another API than the gold call.
    WrongApi,
    /// The call raised: before its API ran (a parameter the API does not
    /// take, a value that does not convert, a missing argument) or in it,
    /// where the gold call did not.
    Exception,
    /// The call ran, and its check says it is not the gold call.
    WrongArguments,
}

impl Cause {
    /// Every cause, in the report's order.
    pub const ALL: [Cause; 6] = [
        Cause::NoApiCall,
        Cause::UnknownApi,
        Cause::WrongApi,
        Cause::WrongArguments,
        Cause::Exception,
        Cause::ParseFailure,
    ];

    /// The cause as the report words it.
    pub fn label(self) -> &'static str {
        match self {
            Cause::NoApiCall => "no API call",
            Cause::ParseFailure => "parse failure",
            Cause::UnknownApi => "unknown API",
            Cause::WrongApi => "wrong API",
            Cause::Exception => "exception",
            Cause::WrongArguments => "wrong arguments",
        }
    }
}

/// A call as the model made it: its API and its arguments as `param_dict`
/// holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predicted {
    pub api_name: String,
    pub param_dict: Map<String, Value>,
}

/// The verdict on one call sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub correct: bool,
    pub cause: Option<Cause>,
    /// Why it is wrong, in words.
    pub reason: Option<String>,
    pub predicted: Option<Predicted>,
    /// The result object the call returned, when it ran.
    pub result: Option<Value>,
}

impl Verdict {
    fn wrong(cause: Cause, reason: String, predicted: Option<Predicted>) -> Self {
        Verdict {
            correct: false,
            cause: Some(cause),
            reason: Some(reason),
            predicted,
            result: None,
        }
    }
}

/// Read the call out of `text` (see [`super::super::call_text`]).
pub fn read_call(text: &str) -> Result<Predicted, (Cause, String)> {
    parse_api_request(text)
        .map(|request| Predicted {
            api_name: request.api_name,
            param_dict: request.param_dict,
        })
        .map_err(|failure| match failure {
            ParseFailure::NoCall => (Cause::NoApiCall, failure.to_string()),
            other => (Cause::ParseFailure, other.to_string()),
        })
}

/// Score `predicted` against the gold call named `gold_api` whose recorded
/// result object is `gold_result`, running it in `world`.
///
/// `gold_result` is the gold line's result as the reference's evaluator
/// holds it across the line's samples: a check that deletes fields from
/// its ground truth ([`Api::check_removes`]) deletes them here too, so
/// that the line's second sample is checked against what is left.
pub fn score_call(
    predicted: Predicted,
    gold_api: &str,
    gold_result: &mut Value,
    world: &mut ApiBankWorld,
) -> Verdict {
    if predicted.api_name != gold_api {
        let (cause, reason) = match api(&predicted.api_name) {
            None => (
                Cause::UnknownApi,
                format!("{} is no API-Bank API", predicted.api_name),
            ),
            Some(_) => (
                Cause::WrongApi,
                format!(
                    "called {} where the gold call is {gold_api}",
                    predicted.api_name
                ),
            ),
        };
        return Verdict::wrong(cause, reason, Some(predicted));
    }
    let Some(api) = api(gold_api) else {
        return Verdict::wrong(
            Cause::UnknownApi,
            format!("{gold_api} is no API-Bank API"),
            Some(predicted),
        );
    };
    let raised = |exception: String| format!("the call raised before its API ran: {exception}");
    let arguments = match catalog_names(api, &predicted.param_dict) {
        Ok(arguments) => arguments,
        Err(exception) => {
            return Verdict::wrong(Cause::Exception, raised(exception), Some(predicted))
        }
    };
    let result = match world.call_predicted(gold_api, arguments) {
        Ok(result) => result,
        Err(exception) => {
            return Verdict::wrong(Cause::Exception, raised(exception), Some(predicted))
        }
    };
    let removed: Vec<&str> = api
        .check_removes
        .iter()
        .copied()
        .filter(|field| {
            gold_result
                .get("input")
                .and_then(|i| i.get(field))
                .is_none()
        })
        .collect();
    let correct = (api.correct)(&result, gold_result);
    consume(api, &result, gold_result);
    let mut verdict = Verdict {
        correct,
        cause: None,
        reason: None,
        predicted: Some(predicted),
        result: None,
    };
    if !correct {
        let (cause, reason) = if !removed.is_empty() {
            (
                Cause::WrongArguments,
                format!(
                    "the reference's check of {gold_api} deleted {} from this gold call when it checked the line's first sample, and fails on it now (KeyError)",
                    removed.join(", ")
                ),
            )
        } else {
            explain(&result, gold_result)
        };
        verdict.cause = Some(cause);
        verdict.reason = Some(reason);
    }
    verdict.result = Some(result);
    verdict
}

/// The arguments under the names the catalog's API takes. The reference's
/// `ToolManager` accepts only the names its class declares; where the
/// catalog names a parameter otherwise (TimedSwitch's `device_id` is the
/// reference's `name`), the reference's name is taken and renamed, and
/// the catalog's own name is refused as the reference refuses it.
fn catalog_names(api: &Api, param_dict: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let declared = api.reference.input_parameters;
    param_dict
        .iter()
        .map(|(name, value)| {
            let position = declared
                .iter()
                .position(|(known, _, _)| known == name)
                .ok_or_else(|| format!("invalid parameter name. parameter: {name}"))?;
            let catalog = api
                .spec
                .parameters
                .get(position)
                .filter(|p| api.spec.parameter(name).is_none() && p.name != *name)
                .map_or(name.as_str(), |p| p.name);
            Ok((catalog.to_string(), value.clone()))
        })
        .collect()
}

/// What the reference's check leaves of its ground truth: the fields it
/// deletes are gone once it got as far as deleting them (the response
/// must hold them, or it stops on a KeyError first).
fn consume(api: &Api, result: &Value, gold_result: &mut Value) {
    let in_response = |field: &&str| result.get("input").and_then(|i| i.get(*field)).is_some();
    if api.check_removes.is_empty() || !api.check_removes.iter().all(in_response) {
        return;
    }
    if let Some(Value::Object(input)) = gold_result.get_mut("input") {
        if api
            .check_removes
            .iter()
            .all(|field| input.contains_key(*field))
        {
            for field in api.check_removes {
                input.shift_remove(*field);
            }
        }
    }
}

/// Why a call that ran is not the gold call: an exception the gold call
/// did not raise, else the fields of the result that differ.
fn explain(result: &Value, gold: &Value) -> (Cause, String) {
    let exception = result.get("exception").filter(|e| !e.is_null());
    if let Some(exception) = exception {
        if !gold.get("exception").is_some_and(|g| py_eq(g, exception)) {
            let text = exception
                .as_str()
                .map_or_else(|| exception.to_string(), str::to_string);
            return (Cause::Exception, format!("the call raised: {text}"));
        }
    }
    let empty = Map::new();
    let inputs = |v: &Value| {
        v.get("input")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let (ours, theirs) = (inputs(result), inputs(gold));
    let mut differing: Vec<String> = Vec::new();
    for key in theirs
        .keys()
        .chain(ours.keys().filter(|k| !theirs.contains_key(*k)))
    {
        let same = match (ours.get(key), theirs.get(key)) {
            (Some(a), Some(b)) => py_eq(a, b),
            _ => false,
        };
        if !same {
            differing.push(key.clone());
        }
    }
    let output_differs = !match (result.get("output"), gold.get("output")) {
        (Some(a), Some(b)) => py_eq(a, b),
        (a, b) => a.is_none() && b.is_none(),
    };
    let mut parts: Vec<String> = differing
        .iter()
        .map(|k| match (ours.get(k), theirs.get(k)) {
            (Some(Value::String(_)), Some(Value::Array(_))) => {
                format!("input {k} (a list given as text stays text, as the reference's ToolManager leaves it)")
            }
            _ => format!("input {k}"),
        })
        .collect();
    if output_differs {
        parts.push("output".into());
    }
    let reason = if parts.is_empty() {
        "the gold API's check rejects it".to_string()
    } else {
        format!(
            "the gold API's check rejects it; it differs from the gold call in {}",
            parts.join(", ")
        )
    };
    (Cause::WrongArguments, reason)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::sim::Databases;
    use crate::suite::WorldOptions;

    fn world() -> ApiBankWorld {
        let dir = tempfile::tempdir().unwrap();
        let (name, accounts) = super::super::super::apis::testing::accounts();
        std::fs::write(
            dir.path().join(format!("{name}.json")),
            accounts.to_string(),
        )
        .unwrap();
        for database in ["Meeting", "TimeSwitch"] {
            std::fs::write(dir.path().join(format!("{database}.json")), "{}").unwrap();
        }
        ApiBankWorld::new(
            &Databases::load_documents(dir.path()).unwrap(),
            &WorldOptions::default(),
        )
        .unwrap()
    }

    fn call(text: &str) -> Predicted {
        read_call(text).unwrap()
    }

    #[test]
    fn a_meeting_lines_second_check_fails_as_in_the_reference() {
        let text = "[AddMeeting(token='t-john', meeting_topic='Budget review', start_time='2023-03-20 14:00:00', end_time='2023-03-20 15:00:00', location='Room A', attendees='Ann')]";
        let mut gold = world()
            .call_predicted("AddMeeting", call(text).param_dict)
            .unwrap();
        let first = score_call(call(text), "AddMeeting", &mut gold, &mut world());
        assert!(first.correct, "{first:?}");
        assert!(gold["input"].get("meeting_topic").is_none());
        let second = score_call(call(text), "AddMeeting", &mut gold, &mut world());
        assert!(!second.correct);
        assert!(second.reason.unwrap().contains("deleted meeting_topic"));
    }

    #[test]
    fn argument_names_are_the_references() {
        // The reference's TimedSwitch takes `name`; the dialogues' (and the
        // catalog's) `device_id` is refused as the reference refuses it.
        let mut gold = json!({"api_name": "TimedSwitch", "input": {"device_id": "lamp", "time": "2023-03-20 07:00:00", "on": true}, "output": "success", "exception": null});
        let refused = score_call(
            call("[TimedSwitch(device_id='lamp', time='2023-03-20 07:00:00', on='True')]"),
            "TimedSwitch",
            &mut gold,
            &mut world(),
        );
        assert_eq!(refused.cause, Some(Cause::Exception));
        assert_eq!(
            refused.reason.as_deref(),
            Some(
                "the call raised before its API ran: invalid parameter name. parameter: device_id"
            )
        );
        let renamed = score_call(
            call("[TimedSwitch(name='lamp', time='2023-03-20 07:00:00', on='True')]"),
            "TimedSwitch",
            &mut gold,
            &mut world(),
        );
        assert!(renamed.correct, "{renamed:?}");
    }

    #[test]
    fn the_call_is_read_and_named_before_it_runs() {
        let mut gold = json!({});
        assert_eq!(read_call("no call here").unwrap_err().0, Cause::NoApiCall);
        assert_eq!(
            read_call("[GetToday(x=)]").unwrap_err().0,
            Cause::ParseFailure
        );
        let wrong = score_call(call("[GetToday()]"), "AddAlarm", &mut gold, &mut world());
        assert_eq!(wrong.cause, Some(Cause::WrongApi));
        let unknown = score_call(call("[SetAlarm()]"), "AddAlarm", &mut gold, &mut world());
        assert_eq!(unknown.cause, Some(Cause::UnknownApi));
    }

    /// What models write in practice around and inside the call, and how
    /// each is read (the parser is `call_text`'s; these are the answers
    /// the evaluation sees).
    #[test]
    fn answers_as_models_write_them() {
        let read = |text: &str| read_call(text).map(|p| (p.api_name, p.param_dict));
        let args = |pairs: &[(&str, &str)]| -> Map<String, Value> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect()
        };
        let alarm = || {
            Ok((
                "AddAlarm".to_string(),
                args(&[("token", "t-john"), ("time", "2023-03-20 07:00:00")]),
            ))
        };
        // Prose and a label around it, a code fence, a full stop after it.
        assert_eq!(
            read("Sure! First I set the alarm.\nAPI-Request: [AddAlarm(token='t-john', time='2023-03-20 07:00:00')]"),
            alarm()
        );
        assert_eq!(
            read("```\n[AddAlarm(token=\"t-john\", time=\"2023-03-20 07:00:00\")]\n```"),
            alarm()
        );
        assert_eq!(
            read("[AddAlarm(token='t-john', time='2023-03-20 07:00:00')]."),
            alarm()
        );
        // Spaces around the equals signs and a line break inside.
        assert_eq!(
            read("[AddAlarm( token = 't-john',\n  time = '2023-03-20 07:00:00' )]"),
            alarm()
        );
        // No brackets at all.
        assert_eq!(
            read("AddAlarm(token='t-john', time='2023-03-20 07:00:00')"),
            alarm()
        );
        // Numbers, lists and an apostrophe inside double quotes.
        assert_eq!(
            read("[AddMeeting(attendees=['Ann', 'Bo'], n=3, meeting_topic=\"Bob's review\")]"),
            Ok((
                "AddMeeting".to_string(),
                args(&[
                    ("attendees", "['Ann', 'Bo']"),
                    ("n", "3"),
                    ("meeting_topic", "Bob's review")
                ])
            ))
        );
        // What cannot be read says why.
        assert_eq!(
            read("[AddAlarm(token='t-john, time='2023-03-20 07:00:00')]")
                .unwrap_err()
                .0,
            Cause::ParseFailure
        );
        assert_eq!(
            read("[AddAlarm('t-john')]").unwrap_err().0,
            Cause::ParseFailure
        );
        // A JSON function call or plain prose holds no call of the form.
        assert_eq!(
            read("{\"name\": \"AddAlarm\", \"arguments\": {\"time\": \"7am\"}}")
                .unwrap_err()
                .0,
            Cause::NoApiCall
        );
        assert_eq!(
            read("I have set your alarm.").unwrap_err().0,
            Cause::NoApiCall
        );
    }
}
