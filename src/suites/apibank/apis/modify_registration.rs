//! ModifyRegistration: moves a doctor's appointment to another day, another
//! doctor, or both.
//!
//! Database `Appointments` (see AppointmentRegistration). A new date is
//! stored normalised (`2023-4-1` becomes `2023-04-01`) and compared with
//! the stored date as it is.

use serde_json::Value;

use super::super::catalog::{date, optional, spec, text};
use super::super::state::{Key, State};
use super::appointment_registration::DATABASE;
use super::format_check::{reformat, same, Checked};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, py_strip, str_method, subscript, type_name, Args};
use crate::sim::pytime::DATE;

pub static API: Api = Api {
    spec: spec(
        "ModifyRegistration",
        "Moves a doctor's appointment to another day or doctor.",
        &[
            text("appointment_id"),
            optional(date("new_appointment_date")),
            optional(text("new_appointment_doctor")),
        ],
        true,
    )
    .reading("Appointments"),
    reference: Reference {
        description: "This API modifies the registration of a patient given appointment ID.",
        input_parameters: &[
            ("appointment_id", "str", "The ID of appointment."),
            (
                "new_appointment_date",
                "str",
                "The new appointment date. Format: %Y-%m-%d.",
            ),
            (
                "new_appointment_doctor",
                "str",
                "The new appointment doctor.",
            ),
        ],
        output_parameters: &[("status", "str", "The status of modification.")],
    },
    call,
    correct,
    check_removes: &[],
};

const FIELDS: [&str; 3] = [
    "appointment_id",
    "new_appointment_date",
    "new_appointment_doctor",
];

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &FIELDS);
    let outcome = modify(state, &args).map(Value::from);
    result("ModifyRegistration", input, outcome)
}

fn modify(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let id = Key::text(py_strip(str_method(args.value("appointment_id"), "strip")?));
    if state.dict_mut(DATABASE).get_key(&id).is_none() {
        return Err("The appointment ID does not exist.".into());
    }
    let date = match args.get("new_appointment_date") {
        Some(value) => Some(reformat(value, DATE)?),
        None => None,
    };
    let doctor = match args.get("new_appointment_doctor") {
        Some(value) => {
            let doctor = py_strip(str_method(value, "strip")?);
            if doctor.is_empty() {
                return Err("Fail because the doctor name is empty.".into());
            }
            Some(doctor)
        }
        None => None,
    };
    let date = date.transpose()?;
    let appointment = state
        .dict_mut(DATABASE)
        .get_key_mut(&id)
        .expect("looked up above");
    let stored = |appointment: &Value, field: &str| -> Result<Value, String> {
        subscript(appointment, field).cloned()
    };
    let set = |appointment: &mut Value, field: &str, value: &str| match appointment {
        Value::Object(map) => {
            map.insert(field.to_string(), value.into());
            Ok(())
        }
        other => Err(format!(
            "'{}' object does not support item assignment",
            type_name(other)
        )),
    };
    match (date, doctor) {
        (None, None) => Err("Fail because no modification is made.".into()),
        (None, Some(doctor)) => {
            if stored(appointment, "doctor_name")? == doctor {
                return Err("Fail because doctor is not changed.".into());
            }
            set(appointment, "doctor_name", doctor)?;
            Ok("success")
        }
        (Some(date), None) => {
            if stored(appointment, "date")? == date.as_str() {
                return Err("Fail because date is not changed.".into());
            }
            set(appointment, "date", &date)?;
            Ok("success")
        }
        (Some(date), Some(doctor)) => {
            let same_date = stored(appointment, "date")? == date.as_str();
            let same_doctor = stored(appointment, "doctor_name")? == doctor;
            if same_date && same_doctor {
                return Err("Fail because no modification is made.".into());
            }
            if same_date {
                return Err("Fail because date is not changed.".into());
            }
            if same_doctor {
                return Err("Fail because doctor is not changed.".into());
            }
            set(appointment, "date", &date)?;
            set(appointment, "doctor_name", doctor)?;
            Ok("success")
        }
    }
}

/// Same id (the prediction's read as `str()`), same new date (checked:
/// two bad dates are never the same) and doctor (stripped) where given,
/// same output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    type Read = (String, Option<Checked<String>>, Option<String>);
    let read =
        |result: &Value, id: &dyn Fn(&Value) -> Result<String, String>| -> Result<Read, String> {
            let input = subscript(result, "input")?;
            let date = match subscript(input, "new_appointment_date")? {
                Value::Null => None,
                value => Some(reformat(value, DATE)?),
            };
            let doctor = match subscript(input, "new_appointment_doctor")? {
                Value::Null => None,
                value => Some(py_strip(str_method(value, "strip")?).to_string()),
            };
            Ok((id(subscript(input, "appointment_id")?)?, date, doctor))
        };
    // `str(response id).strip()`, but `groundtruth id.strip()`.
    let as_text = |v: &Value| Ok(py_strip(&display(v)).to_string());
    let stripped = |v: &Value| Ok(py_strip(str_method(v, "strip")?).to_string());
    let (Ok(a), Ok(b)) = (read(response, &as_text), read(groundtruth, &stripped)) else {
        return false;
    };
    let dates = match (&a.1, &b.1) {
        (None, None) => true,
        (Some(x), Some(y)) => same(x, y),
        _ => false,
    };
    a.0 == b.0
        && dates
        && a.2 == b.2
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
            json!({"90123456": {"patient_name": "Olivia", "date": "2023-10-10", "doctor_name": "Dr. Smith"}}),
        )
    }

    fn modify(state: &mut State, arguments: Value) -> Value {
        call(&API, state, arguments)
    }

    #[test]
    fn moves_the_date_and_doctor() {
        let mut state = state(&[appointments()]);
        let out = modify(
            &mut state,
            json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-15", "new_appointment_doctor": "Dr. Lee"}),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(
            out["input"],
            json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-15", "new_appointment_doctor": "Dr. Lee"})
        );
        let stored = state.dict_mut(DATABASE).get("90123456").cloned().unwrap();
        assert_eq!(stored["date"], "2023-10-15");
        assert_eq!(stored["doctor_name"], "Dr. Lee");
        let out = modify(
            &mut state,
            json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-9"}),
        );
        assert_eq!(out["input"]["new_appointment_doctor"], Value::Null);
        assert_eq!(
            state.dict_mut(DATABASE).get("90123456").unwrap()["date"],
            "2023-10-09"
        );
    }

    #[test]
    fn unchanged_missing_and_malformed_modifications_raise() {
        let mut state = state(&[appointments()]);
        let mut exception = |arguments: Value| modify(&mut state, arguments)["exception"].clone();
        assert_eq!(
            exception(json!({"appointment_id": "1"})),
            "The appointment ID does not exist."
        );
        assert_eq!(
            exception(json!({"appointment_id": "90123456"})),
            "Fail because no modification is made."
        );
        assert_eq!(
            exception(json!({"appointment_id": "90123456", "new_appointment_doctor": "Dr. Smith"})),
            "Fail because doctor is not changed."
        );
        assert_eq!(
            exception(json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-10"})),
            "Fail because date is not changed."
        );
        assert_eq!(
            exception(
                json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-10", "new_appointment_doctor": "Dr. Smith"})
            ),
            "Fail because no modification is made."
        );
        assert_eq!(
            exception(
                json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-10", "new_appointment_doctor": "Dr. Lee"})
            ),
            "Fail because date is not changed."
        );
        assert_eq!(
            exception(
                json!({"appointment_id": "90123456", "new_appointment_date": "2023-10-11", "new_appointment_doctor": "Dr. Smith"})
            ),
            "Fail because doctor is not changed."
        );
        // An empty doctor is reported before a malformed date.
        assert_eq!(
            exception(
                json!({"appointment_id": "90123456", "new_appointment_date": "soon", "new_appointment_doctor": " "})
            ),
            "Fail because the doctor name is empty."
        );
        assert_eq!(
            exception(json!({"appointment_id": "90123456", "new_appointment_date": "soon"})),
            "time data 'soon' does not match format '%Y-%m-%d'"
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("90123456").unwrap()["doctor_name"],
            "Dr. Smith"
        );
    }

    #[test]
    fn the_check_reads_the_predicted_id_as_text() {
        let gold = json!({"input": {"appointment_id": "1", "new_appointment_date": "2023-10-15", "new_appointment_doctor": null}, "output": "success", "exception": null});
        let mut predicted = gold.clone();
        predicted["input"]["appointment_id"] = json!(1);
        predicted["input"]["new_appointment_date"] = json!("2023-10-15 ");
        assert!(correct(&predicted, &gold));
        assert!(!correct(&gold, &predicted));
    }
}
