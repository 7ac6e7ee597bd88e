//! AppointmentRegistration: books a doctor's appointment for a patient on
//! a day and answers with the appointment's id.
//!
//! Database `Appointments`: `{id: {"patient_name", "date", "doctor_name"}}`,
//! shared with CancelRegistration, ModifyRegistration and
//! QueryRegistration. The reference draws the id from Python's unseeded
//! `random` (eight digits), so no run reproduces it: when a recording is
//! replayed the recorded id is taken (later calls that name it then
//! reproduce), and the call is marked [`Unreproducible::Random`] either
//! way.
//!
//! [`Unreproducible::Random`]: super::super::state::Unreproducible::Random

use serde_json::{json, Value};

use super::super::catalog::{date, spec, text};
use super::super::state::{Key, Source, State};
use super::format_check::{reformat, same, Checked};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, Args};
use crate::sim::pyrandom::PyRandom;
use crate::sim::pytime::DATE;

pub(super) const DATABASE: Source = Source::Shared("Appointments");

pub static API: Api = Api {
    spec: spec(
        "AppointmentRegistration",
        "Books a doctor's appointment for a patient on a day.",
        &[text("patient_name"), date("date"), text("doctor_name")],
        true,
    )
    .reading("Appointments"),
    reference: Reference {
        description: "This API registers an appointment of hospital.",
        input_parameters: &[
            ("patient_name", "str", "The name of patient."),
            (
                "date",
                "str",
                "The date of appointment. Format be like %Y-%m-%d",
            ),
            ("doctor_name", "str", "The name of appointed doctor."),
        ],
        output_parameters: &[("appointment_id", "str", "The ID of appointment.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["patient_name", "date", "doctor_name"]);
    let outcome = register(state, &args).map(Value::from);
    result("AppointmentRegistration", input, outcome)
}

fn register(state: &mut State, args: &Args<'_>) -> Result<String, String> {
    let patient = py_strip(str_method(args.value("patient_name"), "strip")?);
    let doctor = py_strip(str_method(args.value("doctor_name"), "strip")?);
    if patient.is_empty() || doctor.is_empty() {
        return Err("Patient name or doctor name cannot be empty.".into());
    }
    let date = reformat(args.value("date"), DATE)??;
    for (_, appointment) in state.dict_mut(DATABASE).iter() {
        if subscript(appointment, "patient_name")?.as_str() != Some(patient) {
            continue;
        }
        let booked = reformat(subscript(appointment, "date")?, DATE)?;
        if booked.as_ref().ok() == Some(&date) {
            return Err(
                if subscript(appointment, "doctor_name")?.as_str() == Some(doctor) {
                    "This appointment has already been registered."
                } else {
                    "This patient has already been registered in this day."
                }
                .into(),
            );
        }
    }
    let taken: Vec<Key> = state.dict_mut(DATABASE).keys().cloned().collect();
    let id = state.unseeded(
        |recorded| recorded.get("output")?.as_str().map(str::to_string),
        |seeded| fresh_id(|id| taken.contains(&Key::text(id)), seeded),
    );
    state.dict_mut(DATABASE).insert(
        Key::text(id.as_str()),
        json!({"patient_name": patient, "date": date, "doctor_name": doctor}),
    );
    Ok(id)
}

/// `str(random.randint(10000000, 99999999))`, drawn again while `taken`,
/// from `seeded` when given, else from a generator seeded by the clock.
pub(super) fn fresh_id(taken: impl Fn(&str) -> bool, seeded: Option<&mut PyRandom>) -> String {
    use std::hash::BuildHasher;
    let mut own;
    let random = match seeded {
        Some(random) => random,
        None => {
            let seed = std::collections::hash_map::RandomState::new()
                .hash_one(std::time::SystemTime::now());
            own = PyRandom::new(seed);
            &mut own
        }
    };
    loop {
        let id = random.randint(10_000_000, 99_999_999).to_string();
        if !taken(&id) {
            return id;
        }
    }
}

/// Same patient and doctor (stripped), same date (checked; two bad dates
/// are never the same), the same exception, and no id where the gold call
/// had none. The id itself is random and not compared.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<(String, Checked<String>, String), String> {
        let input = subscript(result, "input")?;
        let name = |key: &str| -> Result<String, String> {
            Ok(py_strip(str_method(subscript(input, key)?, "strip")?).to_string())
        };
        Ok((
            name("patient_name")?,
            reformat(subscript(input, "date")?, DATE)?,
            name("doctor_name")?,
        ))
    };
    let (Ok(a), Ok(b)) = (read(response), read(groundtruth)) else {
        return false;
    };
    let has_id = |r: &Value| r.get("output").is_some_and(|id| !id.is_null());
    // An id where the gold call gave none is wrong; the ids are not compared.
    let id_acceptable = has_id(groundtruth) || !has_id(response);
    a.0 == b.0
        && same(&a.1, &b.1)
        && a.2 == b.2
        && id_acceptable
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Unreproducible;
    use super::super::testing::{call, state};
    use super::*;

    fn appointments() -> (&'static str, Value) {
        (
            "Appointments",
            json!({"12345678": {"patient_name": "John Doe", "date": "2023-04-12", "doctor_name": "Dr. Smith"}}),
        )
    }

    #[test]
    fn registers_under_a_fresh_eight_digit_id() {
        let mut state = state(&[appointments()]);
        let out = call(
            &API,
            &mut state,
            json!({"patient_name": " Jane ", "date": "2023-4-1", "doctor_name": "Dr. Lee"}),
        );
        let id = out["output"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 8);
        assert_eq!(out["exception"], Value::Null);
        assert_eq!(state.unreproducible(), Some(Unreproducible::Random));
        assert_eq!(
            state.dict_mut(DATABASE).get(&id),
            Some(&json!({"patient_name": "Jane", "date": "2023-04-01", "doctor_name": "Dr. Lee"}))
        );
    }

    #[test]
    fn a_replay_takes_the_recorded_id() {
        let mut state = state(&[appointments()]);
        state.replaying(Some(json!({"output": "43744231"})));
        let out = call(
            &API,
            &mut state,
            json!({"patient_name": "Jane", "date": "2023-04-01", "doctor_name": "Dr. Lee"}),
        );
        assert_eq!(out["output"], "43744231");
        assert!(state.dict_mut(DATABASE).contains("43744231"));
    }

    #[test]
    fn duplicates_empty_names_and_bad_dates_raise() {
        let mut state = state(&[appointments()]);
        let mut attempt = |patient: &str, date: &str, doctor: &str| {
            call(
                &API,
                &mut state,
                json!({"patient_name": patient, "date": date, "doctor_name": doctor}),
            )["exception"]
                .clone()
        };
        assert_eq!(
            attempt("John Doe", "2023-04-12", "Dr. Smith"),
            "This appointment has already been registered."
        );
        assert_eq!(
            attempt("John Doe", "2023-4-12", "Dr. Kim"),
            "This patient has already been registered in this day."
        );
        assert_eq!(
            attempt(" ", "2023-04-12", "Dr. Kim"),
            "Patient name or doctor name cannot be empty."
        );
        assert_eq!(
            attempt("Ann", "April 1", "Dr. Kim"),
            "time data 'April 1' does not match format '%Y-%m-%d'"
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
        assert_eq!(state.unreproducible(), None);
    }

    #[test]
    fn the_check_ignores_the_random_id_but_not_a_missing_one() {
        let gold = json!({"api_name": "AppointmentRegistration", "input": {"patient_name": "John", "date": "2023-09-01", "doctor_name": "Dr. Smith"}, "output": "34208986", "exception": null});
        let mut other = gold.clone();
        other["output"] = json!("11111111");
        other["input"]["date"] = json!("2023-9-1");
        assert!(correct(&other, &gold));
        let mut failed = gold.clone();
        failed["output"] = Value::Null;
        failed["exception"] = json!("x");
        assert!(!correct(&failed, &gold));
        assert!(!correct(&gold, &failed));
        let mut bad = gold.clone();
        bad["input"]["date"] = json!("soon");
        assert!(!correct(&bad, &bad));
    }
}
