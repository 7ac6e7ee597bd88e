//! EmergencyKnowledge: first-aid advice for a symptom: each possible
//! illness's name and aid.
//!
//! Database `Symptom` (read only, shared with SymptomSearch): `{symptom:
//! [{"name", "description", "aid"}, ...]}` under lower-case symptoms.
//!
//! The reference's check of the symptom returns an exception for an empty
//! symptom and then lower-cases it, so an empty symptom fails with
//! `'Exception' object has no attribute 'lower'` rather than its intended
//! message (kept: it is what the reference answers).

use serde_json::{Map, Value};

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, type_name, Args};

pub static API: Api = Api {
    spec: spec(
        "EmergencyKnowledge",
        "Gives first-aid advice for a symptom.",
        &[text("symptom")],
        false,
    )
    .reading("Symptom"),
    reference: Reference {
        description: "This API searches for a given symptom for emergency knowledge.",
        input_parameters: &[("symptom", "str", "The symptom to search.")],
        output_parameters: &[(
            "results",
            "list",
            "The list of results. Format be like [{\"name\":possible disease name, \"aid\": first-aid method},...]",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["symptom"]);
    let outcome = checked(args.value("symptom"))
        .and_then(|symptom| search(database(state, "Symptom"), &symptom, &["name", "aid"]));
    result("EmergencyKnowledge", input, outcome)
}

/// The reference's `format_check`: stripped and lower-cased; an empty
/// symptom fails as described above.
fn checked(symptom: &Value) -> Result<String, String> {
    let symptom = py_strip(str_method(symptom, "strip")?);
    if symptom.is_empty() {
        return Err("'Exception' object has no attribute 'lower'".into());
    }
    Ok(symptom.to_lowercase())
}

/// The illnesses listed under `symptom`, each reduced to `fields`, or
/// "The symptom does not exist."; shared with SymptomSearch.
pub(super) fn search(symptoms: &Value, symptom: &str, fields: &[&str]) -> Result<Value, String> {
    let key = Value::from(symptom);
    if !py_in(&key, symptoms)? {
        return Err("The symptom does not exist.".into());
    }
    let listed = subscript(symptoms, symptom)?;
    let items = match listed {
        Value::Array(items) => items,
        // Iterating a dict or a string gives texts, which cannot be
        // indexed by a field name.
        Value::Object(map) if map.is_empty() => return Ok(Value::Array(Vec::new())),
        Value::String(text) if text.is_empty() => return Ok(Value::Array(Vec::new())),
        Value::Object(_) | Value::String(_) => {
            return Err("string indices must be integers, not 'str'".into())
        }
        other => return Err(format!("'{}' object is not iterable", type_name(other))),
    };
    items
        .iter()
        .map(|item| {
            fields
                .iter()
                .map(|field| Ok((field.to_string(), subscript(item, field)?.clone())))
                .collect::<Result<Map<String, Value>, String>>()
                .map(Value::Object)
        })
        .collect::<Result<Vec<Value>, String>>()
        .map(Value::Array)
}

/// Same symptom (checked), output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let symptom = |result: &Value| checked(subscript(subscript(result, "input")?, "symptom")?);
    match (symptom(response), symptom(groundtruth)) {
        (Ok(a), Ok(b)) => {
            a == b
                && response.get("output") == groundtruth.get("output")
                && response.get("exception") == groundtruth.get("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    pub fn symptoms() -> (&'static str, Value) {
        (
            "Symptom",
            json!({"headache": [
                {"name": "Migraine", "description": "Recurrent headaches.", "aid": "Rest in the dark."},
                {"name": "Tension headache", "description": "A dull pain.", "aid": "Pain relievers."}
            ]}),
        )
    }

    #[test]
    fn lists_names_and_aid() {
        let mut state = state(&[symptoms()]);
        let out = call(&API, &mut state, json!({"symptom": " Headache "}));
        assert_eq!(
            out["output"],
            json!([{"name": "Migraine", "aid": "Rest in the dark."}, {"name": "Tension headache", "aid": "Pain relievers."}])
        );
        assert_eq!(out["exception"], Value::Null);
    }

    #[test]
    fn unknown_and_empty_symptoms_raise() {
        let mut state = state(&[symptoms()]);
        let out = call(&API, &mut state, json!({"symptom": "cough"}));
        assert_eq!(out["exception"], "The symptom does not exist.");
        let out = call(&API, &mut state, json!({"symptom": "  "}));
        assert_eq!(
            out["exception"],
            "'Exception' object has no attribute 'lower'"
        );
        assert_eq!(out["output"], Value::Null);
    }

    #[test]
    fn the_check_reads_symptoms_case_blind() {
        let gold = json!({"input": {"symptom": "headache"}, "output": [], "exception": null});
        let close = json!({"input": {"symptom": "Headache "}, "output": [], "exception": null});
        assert!(correct(&close, &gold));
        let empty = json!({"input": {"symptom": ""}, "output": [], "exception": null});
        assert!(!correct(&empty, &empty));
    }
}
