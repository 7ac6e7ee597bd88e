//! CancelRegistration: cancels a doctor's appointment by its id.
//!
//! Database `Appointments` (see AppointmentRegistration): the appointment
//! is deleted.

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::{Key, State};
use super::appointment_registration::DATABASE;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "CancelRegistration",
        "Cancels a doctor's appointment by its id.",
        &[text("appointment_id")],
        true,
    )
    .reading("Appointments"),
    reference: Reference {
        description: "This API cancels the registration of a patient given appointment ID.",
        input_parameters: &[("appointment_id", "str", "The ID of appointment.")],
        output_parameters: &[("status", "str", "The status of cancellation.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["appointment_id"]);
    let outcome = cancel(state, args.value("appointment_id")).map(Value::from);
    result("CancelRegistration", input, outcome)
}

fn cancel(state: &mut State, id: &Value) -> Result<&'static str, String> {
    let id = py_strip(str_method(id, "strip")?);
    match state.dict_mut(DATABASE).remove(&Key::text(id)) {
        Some(_) => Ok("success"),
        None => Err("The appointment ID is incorrect.".into()),
    }
}

/// Same id (stripped), output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let id = |result: &Value| -> Result<String, String> {
        let id = subscript(subscript(result, "input")?, "appointment_id")?;
        Ok(py_strip(str_method(id, "strip")?).to_string())
    };
    match (id(response), id(groundtruth)) {
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
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn appointments() -> (&'static str, Value) {
        (
            "Appointments",
            json!({"12345678": {"patient_name": "John Doe", "date": "2023-04-12", "doctor_name": "Dr. Smith"},
                   "23456789": {"patient_name": "Jane", "date": "2023-05-20", "doctor_name": "Dr. Kim"}}),
        )
    }

    #[test]
    fn cancels_an_appointment_once() {
        let mut state = state(&[appointments()]);
        let out = call(&API, &mut state, json!({"appointment_id": " 12345678 "}));
        assert_eq!(
            out,
            json!({"api_name": "CancelRegistration", "input": {"appointment_id": " 12345678 "}, "output": "success", "exception": null})
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
        let out = call(&API, &mut state, json!({"appointment_id": "12345678"}));
        assert_eq!(out["exception"], "The appointment ID is incorrect.");
        assert_eq!(out["output"], Value::Null);
    }

    #[test]
    fn ids_compare_stripped() {
        let gold =
            json!({"input": {"appointment_id": "1"}, "output": "success", "exception": null});
        let close =
            json!({"input": {"appointment_id": " 1 "}, "output": "success", "exception": null});
        assert!(correct(&close, &gold));
        let number =
            json!({"input": {"appointment_id": 1}, "output": "success", "exception": null});
        assert!(!correct(&number, &gold));
    }
}
