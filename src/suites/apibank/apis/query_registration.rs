//! QueryRegistration: lists a patient's appointments on a day.
//!
//! Database `Appointments` (see AppointmentRegistration). The answer maps
//! each matching appointment id to its record, in the database's order;
//! stored dates are normalised before they are compared.

use serde_json::{Map, Value};

use super::super::catalog::{date, spec, text};
use super::super::state::{Key, State};
use super::appointment_registration::DATABASE;
use super::format_check::{reformat, same};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, Args};
use crate::sim::pytime::DATE;

pub static API: Api = Api {
    spec: spec(
        "QueryRegistration",
        "Lists a patient's appointments on a day.",
        &[text("patient_name"), date("date")],
        false,
    )
    .reading("Appointments"),
    reference: Reference {
        description: "This API queries the registration of a patient, given patient ID.",
        input_parameters: &[
            ("patient_name", "str", "The name of patient."),
            (
                "date",
                "str",
                "The date of appointment. Format be like %Y-%m-%d",
            ),
        ],
        output_parameters: &[(
            "appointments",
            "list",
            "The dict where from appointment_id to a list like [\"patient_name\":xxx, \"date\":xxx, \"doctor_name\":xxx]",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["patient_name", "date"]);
    let outcome = query(state, &args).map(Value::Object);
    result("QueryRegistration", input, outcome)
}

fn query(state: &mut State, args: &Args<'_>) -> Result<Map<String, Value>, String> {
    let patient = py_strip(str_method(args.value("patient_name"), "strip")?);
    let date = reformat(args.value("date"), DATE)??;
    let mut found = Map::new();
    for (id, appointment) in state.dict(DATABASE).iter() {
        if subscript(appointment, "patient_name")?.as_str() != Some(patient) {
            continue;
        }
        if reformat(subscript(appointment, "date")?, DATE)?
            .as_ref()
            .ok()
            == Some(&date)
        {
            let id = match id {
                Key::Text(text) => text.clone(),
                // `json.dumps` writes an integer key as its digits.
                Key::Int(number) => number.to_string(),
            };
            found.insert(id, appointment.clone());
        }
    }
    if found.is_empty() {
        return Err("No appointments found.".into());
    }
    Ok(found)
}

/// Same patient (stripped), same date (checked; two bad dates are never
/// the same), output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<_, String> {
        let input = subscript(result, "input")?;
        let patient = py_strip(str_method(subscript(input, "patient_name")?, "strip")?).to_string();
        Ok((patient, reformat(subscript(input, "date")?, DATE)?))
    };
    let (Ok(a), Ok(b)) = (read(response), read(groundtruth)) else {
        return false;
    };
    a.0 == b.0
        && same(&a.1, &b.1)
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn appointments() -> (&'static str, Value) {
        (
            "Appointments",
            json!({"1": {"patient_name": "Ann", "date": "2023-4-12", "doctor_name": "Dr. Smith"},
                   "2": {"patient_name": "Bob", "date": "2023-04-12", "doctor_name": "Dr. Kim"},
                   "3": {"patient_name": "Ann", "date": "2023-04-12", "doctor_name": "Dr. Lee"}}),
        )
    }

    #[test]
    fn lists_the_patients_appointments_of_the_day_in_order() {
        let mut state = state(&[appointments()]);
        let out = call(
            &API,
            &mut state,
            json!({"patient_name": "Ann ", "date": "2023-04-12"}),
        );
        assert_eq!(
            out["output"],
            json!({"1": {"patient_name": "Ann", "date": "2023-4-12", "doctor_name": "Dr. Smith"},
                   "3": {"patient_name": "Ann", "date": "2023-04-12", "doctor_name": "Dr. Lee"}})
        );
        let keys: Vec<&String> = out["output"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["1", "3"]);
    }

    #[test]
    fn nothing_found_and_bad_dates_raise() {
        let mut state = state(&[appointments()]);
        let out = call(
            &API,
            &mut state,
            json!({"patient_name": "Ann", "date": "2023-04-13"}),
        );
        assert_eq!(out["exception"], "No appointments found.");
        let out = call(
            &API,
            &mut state,
            json!({"patient_name": "Ann", "date": "12/04"}),
        );
        assert_eq!(
            out["exception"],
            "time data '12/04' does not match format '%Y-%m-%d'"
        );
    }

    #[test]
    fn dates_compare_normalised() {
        let gold = json!({"input": {"patient_name": "Ann", "date": "2023-04-02"}, "output": null, "exception": "No appointments found."});
        let mut close = gold.clone();
        close["input"]["date"] = json!("2023-4-2");
        assert!(correct(&close, &gold));
        close["input"]["patient_name"] = json!("Bob");
        assert!(!correct(&close, &gold));
    }
}
