//! Scoring one call sample as the reference's evaluator does
//! (`Evaluator.evaluate`): read the call out of the model's text, compare
//! its API name with the gold call's, run it through `ToolManager.api_call`
//! in the sample's world, and ask the gold API's own correctness check
//! whether its result object counts as the gold one.
//!
//! There are two scorings (`--scoring reference|lenient`). The reference
//! scoring is api-bank's evaluator verdict for verdict: its regular
//! expressions read the text ([`super::reference_parse`]), its
//! `ToolManager` converts the arguments, and each API's
//! `check_api_call_correctness` decides, quirks and all. The lenient
//! scoring is the same but for the [`Correction`]s, each undoing one
//! defect of the reference's scoring. They apply in a chain, in the order
//! of [`Correction::CHAIN`]: every sample is scored after each step, and a
//! sample whose two verdicts differ names the corrections at whose step
//! its verdict changed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::super::apis::{api, corrected_check, Api};
use super::super::world::ApiBankWorld;
use super::predict::CallAnswer;
use super::reference_parse;
use crate::formats::call_text::{parse_api_request, ParseFailure};
use crate::json::pyliteral;
use crate::sim::pyargs::py_eq;
use crate::suite::levels::Scoring;

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
}

/// A call as the model made it: its API and its arguments as `param_dict`
/// holds them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predicted {
    pub api_name: String,
    pub param_dict: Map<String, Value>,
}

impl Predicted {
    pub fn new(api_name: &str, param_dict: Map<String, Value>) -> Self {
        let api_name = api_name.to_string();
        Predicted {
            api_name,
            param_dict,
        }
    }
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
    pub fn wrong(cause: Cause, reason: String, predicted: Option<Predicted>) -> Self {
        Verdict {
            correct: false,
            cause: Some(cause),
            reason: Some(reason),
            predicted,
            result: None,
        }
    }
}

/// One defect of the reference's scoring that the lenient scoring
/// corrects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// The call is found where it stands as written: with spaces inside
    /// the brackets or before the parenthesis, line breaks inside, without
    /// its square brackets, and ending at its own closing parenthesis
    /// rather than at the last `)]` of the line.
    CallLayout,
    /// Arguments are read as written: a quoted value ends at its own
    /// closing quote (so it is not cut at a quote of the other kind inside
    /// it, and mismatched quotes are no value), escapes count, an empty
    /// value is empty, an unquoted value (a number, a date, a list, a dict,
    /// even words) is read whole up to the comma or parenthesis that ends
    /// it; an argument that cannot be read (a positional one, one without
    /// a value) or a name given twice makes the call unreadable instead of
    /// being dropped or overwritten.
    ArgumentValues,
    /// A list argument given as the text of a list (`attendees="['Ann',
    /// 'Bo']"`, or bare) is the list, where the reference's `ToolManager`
    /// hands the API the text.
    ListText,
    /// The timed switches' device is taken as the dialogues (and the
    /// documentation talkforge shows) name it, `device_id`, as well as by
    /// the code's `name`, and checked against the gold call's `device_id`:
    /// the reference refuses `device_id` and then looks for `name` in the
    /// gold call, so no call of these APIs can be right.
    DeviceName,
    /// DeleteMeeting's check compares the meetings' `start_time` where the
    /// reference's reads a `time` its input does not have (a `KeyError`:
    /// no successful deletion can be right).
    DeleteMeetingTime,
    /// Every sample is checked against the gold call as recorded: the
    /// reference's meeting checks delete `meeting_topic` from the gold
    /// result they are handed, and a line's second sample is handed the
    /// same dict, so it always fails.
    GoldKept,
}

impl Correction {
    /// Every correction, in the order the chain applies them.
    pub const CHAIN: [Correction; 6] = [
        Correction::CallLayout,
        Correction::ArgumentValues,
        Correction::ListText,
        Correction::DeviceName,
        Correction::DeleteMeetingTime,
        Correction::GoldKept,
    ];
}

/// The corrections a scoring applies: a first part of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Corrections(&'static [Correction]);

impl Corrections {
    pub fn has(self, correction: Correction) -> bool {
        self.0.contains(&correction)
    }

    /// The steps of the chain: none, the first, the first two, ..., all.
    pub fn chain() -> impl Iterator<Item = Corrections> {
        (0..=Correction::CHAIN.len()).map(|n| Corrections(&Correction::CHAIN[..n]))
    }
}

/// The chain's ends and steps by name, as the tests speak of them (a run
/// scores every step: see [`judge`]).
#[cfg(test)]
impl Corrections {
    /// The reference's scoring.
    pub const NONE: Corrections = Corrections(&[]);
    /// The lenient scoring.
    pub const ALL: Corrections = Corrections(&Correction::CHAIN);

    /// The correction this step added to the one before it.
    pub fn added(self) -> Option<Correction> {
        self.0.last().copied()
    }
}

/// Why a sample's two verdicts differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoringDifference {
    /// The corrections at whose step of the chain the verdict changed.
    pub corrections: Vec<Correction>,
    /// The reference scoring's reason (null when it finds the call right).
    pub reference: Option<String>,
    /// The lenient scoring's reason (null when it finds the call right).
    pub lenient: Option<String>,
}

/// A sample scored at every step of the chain.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The verdict of the scoring asked for.
    pub chosen: Verdict,
    pub correct_reference: bool,
    pub correct_lenient: bool,
    /// Present when the two verdicts differ.
    pub difference: Option<ScoringDifference>,
}

/// Judge `answer` to a call sample whose gold call is of `gold_api`:
/// read and run in a copy of `world` at each step of
/// [`Corrections::chain`], each step against its own copy of the gold
/// line's result (see [`score_call`]). A call made as a tool call is taken
/// as made.
pub fn judge(
    answer: &CallAnswer,
    gold_api: &str,
    gold_results: &mut [Value],
    world: &ApiBankWorld,
    scoring: Scoring,
) -> Judged {
    let steps = Corrections::chain().zip(gold_results);
    let verdicts = steps.map(|(corrections, gold_result)| {
        let predicted = match &answer.function {
            Some(function) => Ok(function.clone()),
            None => read_call(&answer.raw, corrections),
        };
        match predicted {
            Ok(predicted) => score_call(
                predicted,
                gold_api,
                gold_result,
                &mut world.clone(),
                corrections,
            ),
            Err((cause, reason)) => Verdict::wrong(cause, reason, None),
        }
    });
    judged(verdicts.collect(), scoring)
}

/// Judge a sample from its verdicts at each step of
/// [`Corrections::chain`], in order.
fn judged(mut verdicts: Vec<Verdict>, scoring: Scoring) -> Judged {
    let (reference, lenient) = (&verdicts[0], &verdicts[Correction::CHAIN.len()]);
    let difference = (reference.correct != lenient.correct).then(|| ScoringDifference {
        corrections: (verdicts.windows(2).zip(Correction::CHAIN))
            .filter(|(pair, _)| pair[0].correct != pair[1].correct)
            .map(|(_, correction)| correction)
            .collect(),
        reference: reference.reason.clone(),
        lenient: lenient.reason.clone(),
    });
    let (correct_reference, correct_lenient) = (reference.correct, lenient.correct);
    let chosen = match scoring {
        Scoring::Reference => verdicts.swap_remove(0),
        Scoring::Lenient => verdicts.pop().expect("the chain has steps"),
    };
    Judged {
        chosen,
        correct_reference,
        correct_lenient,
        difference,
    }
}

/// Read the call out of `text` under `corrections`: the reference's
/// patterns; with [`Correction::CallLayout`], the call where
/// [`call_text`](crate::formats::call_text) finds it (its arguments still
/// read by the reference's pattern); with [`Correction::ArgumentValues`]
/// too, `call_text`'s reading whole.
pub fn read_call(text: &str, corrections: Corrections) -> Result<Predicted, (Cause, String)> {
    let as_written = parse_api_request(text);
    let no_call = || (Cause::NoApiCall, ParseFailure::NoCall.to_string());
    match &as_written {
        Ok(request) if corrections.has(Correction::CallLayout) => {
            let param_dict = if corrections.has(Correction::ArgumentValues) {
                request.param_dict.clone()
            } else {
                // The name holds no parenthesis and nothing follows the
                // closing one but spaces and a bracket.
                let call = &text[request.span.clone()];
                let open = call.find('(').expect("a call has its parenthesis");
                let close = call.rfind(')').expect("a call has its parenthesis");
                reference_parse::read_arguments(&call[open + 1..close])
            };
            return Ok(Predicted::new(&request.api_name, param_dict));
        }
        Err(ParseFailure::NoCall) if corrections.has(Correction::ArgumentValues) => {
            return Err(no_call())
        }
        // Text `call_text` refuses (mismatched quotes, a positional
        // argument, a name given twice) is read as the reference reads
        // it: lenient never reads less than the reference.
        _ => {}
    }
    reference_parse::read(text).ok_or_else(|| match as_written {
        Err(ParseFailure::NoCall) => no_call(),
        _ => (
            Cause::ParseFailure,
            "the reference's pattern finds no call: it reads one only as [ApiName(...)] with nothing between the bracket, the name and the parenthesis, and on one line".into(),
        ),
    })
}

/// Score `predicted` against the gold call named `gold_api` whose recorded
/// result object is `gold_result`, running it in `world`, with
/// `corrections` applied.
///
/// `gold_result` is the gold line's result as the reference's evaluator
/// holds it across the line's samples: a check that deletes fields from
/// its ground truth ([`Api::check_removes`]) deletes them here too, so
/// that the line's second sample is checked against what is left (unless
/// [`Correction::GoldKept`]).
pub fn score_call(
    predicted: Predicted,
    gold_api: &str,
    gold_result: &mut Value,
    world: &mut ApiBankWorld,
    corrections: Corrections,
) -> Verdict {
    let named = api(&predicted.api_name);
    let api = match named {
        Some(api) if predicted.api_name == gold_api => api,
        _ => {
            let name = &predicted.api_name;
            let (cause, reason) = match named {
                None => (Cause::UnknownApi, format!("{name} is no API-Bank API")),
                Some(_) => (
                    Cause::WrongApi,
                    format!("called {name} where the gold call is {gold_api}"),
                ),
            };
            return Verdict::wrong(cause, reason, Some(predicted));
        }
    };
    let called = catalog_names(api, &predicted.param_dict, corrections)
        .and_then(|arguments| world.call_predicted(gold_api, arguments));
    let mut result = match called {
        Ok(result) => result,
        Err(exception) => {
            let reason = format!("the call raised before its API ran: {exception}");
            return Verdict::wrong(Cause::Exception, reason, Some(predicted));
        }
    };
    let given_reference_names = match corrections.has(Correction::DeviceName) {
        true => Vec::new(),
        false => reference_names(api, &mut result),
    };
    let lacks = |gold: &Value, field: &&str| gold.get("input").and_then(|i| i.get(field)).is_none();
    let removed: Vec<&str> = (api.check_removes.iter().copied())
        .filter(|field| lacks(gold_result, field))
        .collect();
    let check = corrected_check(api.spec.name)
        .filter(|_| corrections.has(Correction::DeleteMeetingTime))
        .unwrap_or(api.correct);
    let correct = check(&result, gold_result);
    if !corrections.has(Correction::GoldKept) {
        consume(api, &result, gold_result);
    }
    let wrong = (!correct).then(|| {
        let missing_in_gold: Vec<&str> = (given_reference_names.into_iter())
            .filter(|name| lacks(gold_result, name))
            .collect();
        // Where the reference's check stops on a KeyError, and why.
        let key_error = if !removed.is_empty() {
            Some(format!("deleted {} from this gold call when it checked the line's first sample, and fails on it now", removed.join(", ")))
        } else if corrected_check(api.spec.name).is_some()
            && !corrections.has(Correction::DeleteMeetingTime)
            && [&result, &*gold_result]
                .iter()
                .all(|v| v["output"] == "success")
        {
            // DeleteMeeting's check reads a `time` its inputs lack when
            // both calls succeeded.
            Some("compares an input time that its inputs lack when both calls succeed".into())
        } else if !missing_in_gold.is_empty() {
            Some(format!(
                "reads {} from the gold call, which has none",
                missing_in_gold.join(", ")
            ))
        } else {
            None
        };
        match key_error {
            Some(why) => (
                Cause::WrongArguments,
                format!("the reference's check of {gold_api} {why} (KeyError)"),
            ),
            None => explain(&result, gold_result),
        }
    });
    Verdict {
        correct,
        cause: wrong.as_ref().map(|(cause, _)| *cause),
        reason: wrong.map(|(_, reason)| reason),
        predicted: Some(predicted),
        result: Some(result),
    }
}

/// The arguments under the names the catalog's API takes. The reference's
/// `ToolManager` accepts only the names its class declares; where the
/// catalog names a parameter otherwise (TimedSwitch's `device_id` is the
/// reference's `name`), the reference's name is taken and renamed, and
/// the catalog's own name is refused as the reference refuses it, unless
/// [`Correction::DeviceName`]. With [`Correction::ListText`], the text of
/// a list given for a list parameter becomes the list.
fn catalog_names(
    api: &Api,
    param_dict: &Map<String, Value>,
    corrections: Corrections,
) -> Result<Map<String, Value>, String> {
    let declared = api.reference.input_parameters;
    param_dict
        .iter()
        .map(|(name, value)| {
            let position = declared
                .iter()
                .position(|(known, _, _)| known == name)
                .or_else(|| {
                    let catalog = api.spec.parameters.iter().position(|p| p.name == *name);
                    catalog.filter(|_| corrections.has(Correction::DeviceName))
                })
                .ok_or_else(|| format!("invalid parameter name. parameter: {name}"))?;
            let catalog = (renamed(api).find(|(_, reference)| reference == name))
                .map_or(name.as_str(), |(catalog, _)| catalog);
            let is_list = declared
                .get(position)
                .is_some_and(|(_, ty, _)| ty.starts_with("list"));
            let value = match value {
                // The list a text holds as a Python (or JSON) literal.
                Value::String(text) if is_list && corrections.has(Correction::ListText) => {
                    let list = pyliteral::parse(text).map(|tree| tree.to_value());
                    list.filter(Value::is_array)
                        .unwrap_or_else(|| value.clone())
                }
                _ => value.clone(),
            };
            Ok((catalog.to_string(), value))
        })
        .collect()
}

/// The parameters the catalog names otherwise than the reference's code
/// (TimedSwitch's `device_id` is its `name`): the catalog's name and the
/// reference's.
fn renamed(api: &Api) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    let declared = api
        .spec
        .parameters
        .iter()
        .zip(api.reference.input_parameters);
    declared
        .filter(|(p, (reference, _, _))| {
            p.name != *reference && api.spec.parameter(reference).is_none()
        })
        .map(|(p, (reference, _, _))| (p.name, *reference))
}

/// Give the result's inputs the names the reference's code gives them, so
/// that its check looks for them where the reference's looks; the names
/// given back.
fn reference_names(api: &Api, result: &mut Value) -> Vec<&'static str> {
    let Some(Value::Object(input)) = result.get_mut("input") else {
        return Vec::new();
    };
    let present = renamed(api).filter(|(catalog, _)| input.contains_key(*catalog));
    let present: Vec<(&str, &str)> = present.collect();
    for (catalog, reference) in &present {
        let rename = |(k, v): (String, Value)| match k == *catalog {
            true => (reference.to_string(), v),
            false => (k, v),
        };
        *input = std::mem::take(input).into_iter().map(rename).collect();
    }
    present
        .into_iter()
        .map(|(_, reference)| reference)
        .collect()
}

/// What the reference's check leaves of its ground truth: the fields it
/// deletes are gone once it got as far as deleting them (the response
/// must hold them, or it stops on a KeyError first).
fn consume(api: &Api, result: &Value, gold_result: &mut Value) {
    let holds = |v: &Value| (api.check_removes.iter()).all(|f| v["input"].get(f).is_some());
    if api.check_removes.is_empty() || !holds(result) || !holds(gold_result) {
        return;
    }
    if let Some(Value::Object(input)) = gold_result.get_mut("input") {
        for field in api.check_removes {
            input.shift_remove(*field);
        }
    }
}

/// Why a call that ran is not the gold call: an exception the gold call
/// did not raise, else the fields of the result that differ.
fn explain(result: &Value, gold: &Value) -> (Cause, String) {
    if let Some(exception) = result.get("exception").filter(|e| !e.is_null()) {
        if !gold.get("exception").is_some_and(|g| py_eq(g, exception)) {
            let text = exception
                .as_str()
                .map_or_else(|| exception.to_string(), str::to_string);
            return (Cause::Exception, format!("the call raised: {text}"));
        }
    }
    let input = |v: &Value| v.get("input").and_then(Value::as_object).cloned();
    let (ours, theirs) = (
        input(result).unwrap_or_default(),
        input(gold).unwrap_or_default(),
    );
    let extra = ours.keys().filter(|k| !theirs.contains_key(*k));
    let mut parts: Vec<String> = (theirs.keys().chain(extra))
        .filter_map(|k| match (ours.get(k), theirs.get(k)) {
            (Some(a), Some(b)) if py_eq(a, b) => None,
            (Some(Value::String(_)), Some(Value::Array(_))) => Some(format!("input {k} (a list given as text stays text, as the reference's ToolManager leaves it)")),
            _ => Some(format!("input {k}")),
        })
        .collect();
    let same_output = match (result.get("output"), gold.get("output")) {
        (Some(a), Some(b)) => py_eq(a, b),
        (a, b) => a.is_none() && b.is_none(),
    };
    if !same_output {
        parts.push("output".into());
    }
    let mut reason = "the gold API's check rejects it".to_string();
    if !parts.is_empty() {
        reason += &format!("; it differs from the gold call in {}", parts.join(", "));
    }
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
        read_call(text, Corrections::NONE).unwrap()
    }

    /// The chain's step that adds `correction`, and the one before it.
    fn around(correction: Correction) -> (Corrections, Corrections) {
        let steps: Vec<Corrections> = Corrections::chain().collect();
        let at = steps
            .iter()
            .position(|c| c.added() == Some(correction))
            .unwrap();
        (steps[at - 1], steps[at])
    }

    fn score(text: &str, gold: &mut Value, corrections: Corrections) -> Verdict {
        let api = gold["api_name"].as_str().unwrap().to_string();
        score_call(call(text), &api, gold, &mut world(), corrections)
    }

    const MEETING: &str = "[AddMeeting(token='t-john', meeting_topic='Budget review', start_time='2023-03-20 14:00:00', end_time='2023-03-20 15:00:00', location='Room A', attendees='Ann')]";

    #[test]
    fn a_meeting_lines_second_check_fails_as_in_the_reference() {
        let mut gold = world()
            .call_predicted("AddMeeting", call(MEETING).param_dict)
            .unwrap();
        let first = score(MEETING, &mut gold, Corrections::NONE);
        assert!(first.correct, "{first:?}");
        assert!(gold["input"].get("meeting_topic").is_none());
        let second = score(MEETING, &mut gold, Corrections::NONE);
        assert!(!second.correct);
        assert!(second.reason.unwrap().contains("deleted meeting_topic"));
    }

    #[test]
    fn the_gold_kept_correction_checks_every_sample_against_the_recorded_gold() {
        let (before, with) = around(Correction::GoldKept);
        let recorded = world()
            .call_predicted("AddMeeting", call(MEETING).param_dict)
            .unwrap();
        let mut gold = recorded.clone();
        for _ in 0..2 {
            assert!(score(MEETING, &mut gold, with).correct);
        }
        assert_eq!(gold, recorded);
        assert!(score(MEETING, &mut gold, before).correct);
        assert!(!score(MEETING, &mut gold, before).correct);
    }

    #[test]
    fn argument_names_are_the_references() {
        // The reference's TimedSwitch takes `name`; the dialogues' (and the
        // catalog's) `device_id` is refused as the reference refuses it, and
        // a call with `name` fails its check, which looks for `name` in a
        // gold call that records `device_id`.
        let mut gold = json!({"api_name": "TimedSwitch", "input": {"device_id": "lamp", "time": "2023-03-20 07:00:00", "on": true}, "output": "success", "exception": null});
        let by_id = "[TimedSwitch(device_id='lamp', time='2023-03-20 07:00:00', on='True')]";
        let by_name = "[TimedSwitch(name='lamp', time='2023-03-20 07:00:00', on='True')]";
        let refused = score(by_id, &mut gold, Corrections::NONE);
        assert_eq!(refused.cause, Some(Cause::Exception));
        assert_eq!(
            refused.reason.as_deref(),
            Some(
                "the call raised before its API ran: invalid parameter name. parameter: device_id"
            )
        );
        let named = score(by_name, &mut gold, Corrections::NONE);
        assert!(!named.correct);
        assert_eq!(
            named.reason.as_deref(),
            Some("the reference's check of TimedSwitch reads name from the gold call, which has none (KeyError)")
        );
        assert_eq!(named.result.unwrap()["input"]["name"], "lamp");
        // The correction takes either name and checks the dialogues'.
        let (before, with) = around(Correction::DeviceName);
        for text in [by_id, by_name] {
            assert!(!score(text, &mut gold, before).correct);
            let corrected = score(text, &mut gold, with);
            assert!(corrected.correct, "{text}: {corrected:?}");
            assert_eq!(corrected.result.unwrap()["input"]["device_id"], "lamp");
        }
        let other = "[TimedSwitch(device_id='fan', time='2023-03-20 07:00:00', on='True')]";
        assert!(!score(other, &mut gold, Corrections::ALL).correct);
    }

    #[test]
    fn the_list_text_correction_hands_the_api_the_list() {
        let text = |attendees: &str| MEETING.replace("attendees='Ann'", attendees);
        let gold = world()
            .call_predicted(
                "AddMeeting",
                serde_json::from_value(json!({"token": "t-john", "meeting_topic": "Budget review",
                    "start_time": "2023-03-20 14:00:00", "end_time": "2023-03-20 15:00:00",
                    "location": "Room A", "attendees": ["Ann", "Bo"]}))
                .unwrap(),
            )
            .unwrap();
        let (before, with) = around(Correction::ListText);
        // Bare, and in double quotes (which the reference's pattern would cut
        // at the inner quote; the values correction comes first).
        for attendees in ["attendees=['Ann', 'Bo']", "attendees=\"['Ann', 'Bo']\""] {
            let predicted = read_call(&text(attendees), with).unwrap();
            let run = |corrections| {
                score_call(
                    predicted.clone(),
                    "AddMeeting",
                    &mut gold.clone(),
                    &mut world(),
                    corrections,
                )
            };
            let as_text = run(before);
            assert!(!as_text.correct);
            assert_eq!(
                as_text.result.unwrap()["input"]["attendees"],
                "['Ann', 'Bo']"
            );
            let corrected = run(with);
            assert!(corrected.correct, "{attendees}: {corrected:?}");
        }
        // Text that holds no list stays text; other lists stay unequal.
        for attendees in ["attendees='Ann, Bo'", "attendees=['Bo', 'Ann']"] {
            assert!(!score(&text(attendees), &mut gold.clone(), with).correct);
        }
    }

    #[test]
    fn the_delete_meeting_correction_compares_the_start_time() {
        let gold = |start: &str| {
            json!({"api_name": "DeleteMeeting", "input": {"token": "t", "meeting_topic": "Sync",
            "start_time": start, "end_time": "2023-03-20 15:00:00", "location": "A", "attendees": ["Ann"]},
            "output": "success", "exception": null})
        };
        let check = corrected_check("DeleteMeeting").unwrap();
        let reference = api("DeleteMeeting").unwrap().correct;
        let same = gold("2023-03-20 14:00:00");
        assert!(!reference(&same, &same));
        assert!(check(&same, &same));
        assert!(!check(&gold("2023-03-21 14:00:00"), &same));
        // Outcomes other than two successes are compared as before.
        let failed =
            json!({"api_name": "DeleteMeeting", "input": {}, "output": null, "exception": "no"});
        assert!(check(&failed, &failed) && reference(&failed, &failed));
        assert!(!check(&failed, &same));
        assert!(corrected_check("DeleteAgenda").is_none());
        // Scored: a meeting the world holds, deleted as the gold deleted it.
        let mut meetings = world();
        meetings
            .call_predicted("AddMeeting", call(MEETING).param_dict)
            .unwrap();
        let text = "[DeleteMeeting(token='t-john', meeting_topic='Budget review', start_time='2023-03-20 14:00:00', end_time='2023-03-20 15:00:00', location='Room A', attendees='Ann')]";
        let mut gold = meetings
            .clone()
            .call_predicted("DeleteMeeting", call(text).param_dict)
            .unwrap();
        assert_eq!(gold["output"], "success");
        let (before, with) = around(Correction::DeleteMeetingTime);
        let mut run = |corrections| {
            score_call(
                call(text),
                "DeleteMeeting",
                &mut gold,
                &mut meetings.clone(),
                corrections,
            )
        };
        let reference = run(before);
        assert!(!reference.correct);
        assert_eq!(
            reference.reason.as_deref(),
            Some("the reference's check of DeleteMeeting compares an input time that its inputs lack when both calls succeed (KeyError)")
        );
        assert!(run(with).correct);
    }

    #[test]
    fn the_call_is_read_and_named_before_it_runs() {
        let mut gold = json!({});
        for corrections in [Corrections::NONE, Corrections::ALL] {
            assert_eq!(
                read_call("no call here", corrections).unwrap_err().0,
                Cause::NoApiCall
            );
        }
        // The reference's pattern drops what it cannot read, and the
        // lenient reading, which refuses it, falls back on it.
        assert_eq!(call("[GetToday(x=)]").param_dict, Map::new());
        assert_eq!(
            read_call("[GetToday(x=)]", Corrections::ALL)
                .unwrap()
                .param_dict,
            Map::new()
        );
        let wrong = score_call(
            call("[GetToday()]"),
            "AddAlarm",
            &mut gold,
            &mut world(),
            Corrections::NONE,
        );
        assert_eq!(wrong.cause, Some(Cause::WrongApi));
        let unknown = score_call(
            call("[SetAlarm()]"),
            "AddAlarm",
            &mut gold,
            &mut world(),
            Corrections::NONE,
        );
        assert_eq!(unknown.cause, Some(Cause::UnknownApi));
    }

    /// What models write in practice around and inside the call, and how
    /// the lenient scoring reads each (the parser is `call_text`'s).
    #[test]
    fn answers_as_models_write_them() {
        let read =
            |text: &str| read_call(text, Corrections::ALL).map(|p| (p.api_name, p.param_dict));
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
        // What this reading refuses (mismatched quotes, a positional
        // argument) is read as the reference reads it: never less.
        let reference =
            |text: &str| read_call(text, Corrections::NONE).map(|p| (p.api_name, p.param_dict));
        for refused in [
            "[AddAlarm(token='t-john, time='2023-03-20 07:00:00')]",
            "[AddAlarm('t-john')]",
        ] {
            assert!(
                crate::formats::call_text::parse_api_request(refused).is_err(),
                "{refused}"
            );
            assert_eq!(read(refused), reference(refused), "{refused}");
        }
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

    fn read(text: &str, corrections: Corrections) -> Result<(String, Value), Cause> {
        read_call(text, corrections)
            .map(|p| (p.api_name, Value::Object(p.param_dict)))
            .map_err(|(cause, _)| cause)
    }

    fn step(correction: Correction) -> Corrections {
        Corrections::chain()
            .find(|c| c.added() == Some(correction))
            .unwrap()
    }

    #[test]
    fn the_chain_runs_from_the_reference_to_the_lenient_scoring() {
        let steps: Vec<Corrections> = Corrections::chain().collect();
        assert_eq!(steps.first(), Some(&Corrections::NONE));
        assert_eq!(steps.last(), Some(&Corrections::ALL));
        assert_eq!(steps.len(), Correction::CHAIN.len() + 1);
        for (i, correction) in Correction::CHAIN.iter().enumerate() {
            assert_eq!(steps[i + 1].added(), Some(*correction));
            assert!(!steps[i].has(*correction) && steps[i + 1].has(*correction));
        }
        assert_eq!(Corrections::NONE.added(), None);
    }

    #[test]
    fn the_layout_correction_finds_the_call_and_the_references_pattern_reads_its_values() {
        let text = "[ AddReminder(content=\"I'm off\",\n time='2023-03-20 09:00:00') ]";
        assert_eq!(read(text, Corrections::NONE), Err(Cause::ParseFailure));
        let layout = step(Correction::CallLayout);
        assert_eq!(
            read(text, layout),
            Ok((
                "AddReminder".into(),
                json!({"content": "I", "time": "2023-03-20 09:00:00"})
            ))
        );
        assert_eq!(
            read(text, step(Correction::ArgumentValues)),
            Ok((
                "AddReminder".into(),
                json!({"content": "I'm off", "time": "2023-03-20 09:00:00"})
            ))
        );
        // A call without brackets, and the call ending at its own
        // parenthesis where the reference runs on to the line's last `)]`.
        assert_eq!(
            read("QueryAlarm(token='t')", layout).unwrap().0,
            "QueryAlarm"
        );
        let two = "[QueryAlarm(token='a')] [DeleteAlarm(time='b')]";
        assert_eq!(
            read(two, Corrections::NONE).unwrap().1,
            json!({"token": "a", "time": "b"})
        );
        assert_eq!(read(two, layout).unwrap().1, json!({"token": "a"}));
        // Text that call_text cannot read keeps the reference's reading.
        let mismatched = "[GetUserToken(username='JohnDoe\", password='pass123')]";
        assert_eq!(
            read(mismatched, layout).unwrap().1,
            json!({"username": "JohnDoe", "password": "pass123"})
        );
        // ... and so does the lenient reading: it never reads less.
        assert_eq!(
            read(mismatched, step(Correction::ArgumentValues)),
            read(mismatched, layout)
        );
    }

    fn verdict(correct: bool, reason: &str) -> Verdict {
        Verdict {
            correct,
            cause: (!correct).then_some(Cause::WrongArguments),
            reason: (!correct).then(|| reason.to_string()),
            predicted: None,
            result: None,
        }
    }

    #[test]
    fn a_sample_names_the_corrections_at_whose_step_its_verdict_changed() {
        // Wrong, wrong after the layout step, right after the values step,
        // wrong after the list step, right again after the device step.
        let chain = |values: [bool; 7]| -> Vec<Verdict> {
            values
                .iter()
                .enumerate()
                .map(|(i, &c)| verdict(c, &format!("step {i}")))
                .collect()
        };
        let steps = [false, false, true, false, true, true, true];
        let reference = judged(chain(steps), Scoring::Reference);
        assert!(!reference.chosen.correct);
        assert_eq!(reference.chosen.reason.as_deref(), Some("step 0"));
        assert!(!reference.correct_reference && reference.correct_lenient);
        assert_eq!(
            reference.difference,
            Some(ScoringDifference {
                corrections: vec![
                    Correction::ArgumentValues,
                    Correction::ListText,
                    Correction::DeviceName
                ],
                reference: Some("step 0".into()),
                lenient: None,
            })
        );
        let lenient = judged(chain(steps), Scoring::Lenient);
        assert!(lenient.chosen.correct);
        // Verdicts that end where they began differ in nothing.
        let back = judged(
            chain([true, false, true, true, true, true, true]),
            Scoring::Lenient,
        );
        assert_eq!(back.difference, None);
        assert!(back.correct_reference && back.correct_lenient);
    }

    #[test]
    fn text_without_anything_call_shaped_is_no_call_in_both() {
        for corrections in [Corrections::NONE, Corrections::ALL] {
            assert_eq!(
                read("I have set your alarm.", corrections),
                Err(Cause::NoApiCall)
            );
        }
    }
}
