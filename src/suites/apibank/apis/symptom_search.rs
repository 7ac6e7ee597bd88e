//! SymptomSearch: the illnesses a symptom may point to, each with its
//! name and description.
//!
//! Database `Symptom` (read only, see EmergencyKnowledge).

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::emergency_knowledge::search;
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "SymptomSearch",
        "Lists possible illnesses for a symptom.",
        &[text("symptom")],
        false,
    )
    .reading("Symptom"),
    reference: Reference {
        description: "This API searches for a given symptom.",
        input_parameters: &[("symptom", "str", "The symptom to search.")],
        output_parameters: &[(
            "results",
            "list",
            "The list of results. Format be like [{\"name\":possible disease name, \"description\": disease details},...]",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["symptom"]);
    let outcome = checked(args.value("symptom")).and_then(|symptom| {
        search(
            database(state, "Symptom"),
            &symptom,
            &["name", "description"],
        )
    });
    result("SymptomSearch", input, outcome)
}

/// The reference's `format_check`: stripped and lower-cased; empty raises.
fn checked(symptom: &Value) -> Result<String, String> {
    let symptom = py_strip(str_method(symptom, "strip")?).to_lowercase();
    if symptom.is_empty() {
        return Err("The symptom cannot be empty.".into());
    }
    Ok(symptom)
}

/// Same symptom (checked; an empty one raises, so is not correct), output
/// and exception.
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
mod tests {
    use super::super::emergency_knowledge::tests::symptoms;
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_names_and_descriptions() {
        let mut state = state(&[symptoms()]);
        let out = call(&API, &mut state, json!({"symptom": "HEADACHE"}));
        assert_eq!(
            out["output"],
            json!([{"name": "Migraine", "description": "Recurrent headaches."}, {"name": "Tension headache", "description": "A dull pain."}])
        );
    }

    #[test]
    fn unknown_and_empty_symptoms_raise() {
        let mut state = state(&[symptoms()]);
        let out = call(&API, &mut state, json!({"symptom": "cough"}));
        assert_eq!(out["exception"], "The symptom does not exist.");
        let out = call(&API, &mut state, json!({"symptom": " "}));
        assert_eq!(out["exception"], "The symptom cannot be empty.");
    }

    #[test]
    fn the_check_reads_symptoms_case_blind() {
        let gold = json!({"input": {"symptom": "rash"}, "output": [], "exception": null});
        let close = json!({"input": {"symptom": " Rash"}, "output": [], "exception": null});
        assert!(correct(&close, &gold));
        let empty = json!({"input": {"symptom": ""}, "output": null, "exception": "The symptom cannot be empty."});
        assert!(!correct(&empty, &empty));
    }
}
