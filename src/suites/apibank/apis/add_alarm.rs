//! AddAlarm: sets an alarm for the user.
//!
//! Database `Alarm`: `{id: {"username", "time"}}`. A new alarm's id is the
//! integer `len(Alarm) + 1`, a Python int key beside the file's text keys
//! (after a deletion it can land on an existing int key and replace that
//! alarm, as in the reference).

use serde_json::{json, Value};

use super::super::catalog::{spec, ALARM};
use super::super::state::{Key, Source, State};
use super::records::owner;
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::Args;
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Alarm");

pub static API: Api = Api {
    spec: spec(
        "AddAlarm",
        "Sets an alarm for the user at a moment.",
        ALARM,
        true,
    )
    .reading("Alarm"),
    reference: Reference {
        description: "The API for setting an alarm includes a parameter for the alarm time.",
        input_parameters: &[
            ("token", "str", "User's token."),
            (
                "time",
                "str",
                "The time for alarm. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "time"]);
    let outcome = add(state, args.value("token"), args.value("time")).map(Value::from);
    result("AddAlarm", input, outcome)
}

fn add(state: &mut State, token: &Value, time: &Value) -> Result<&'static str, String> {
    strptime(time, TIMESTAMP)?;
    let id = state.dict_mut(DATABASE).len() as i64 + 1;
    let username = owner(state, token)?;
    state
        .dict_mut(DATABASE)
        .insert(Key::Int(id), json!({"username": username, "time": time}));
    Ok("success")
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn alarms() -> (&'static str, Value) {
        (
            "Alarm",
            json!({"1": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"}}),
        )
    }

    #[test]
    fn adds_an_alarm_under_an_integer_id() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "time": "2023-03-20 06:30:00"}),
        );
        assert_eq!(
            out,
            json!({"api_name": "AddAlarm", "input": {"token": "t-john", "time": "2023-03-20 06:30:00"},
                   "output": "success", "exception": null})
        );
        assert_eq!(
            state.dict_mut(DATABASE).get_key(&Key::Int(2)),
            Some(&json!({"username": "JohnDoe", "time": "2023-03-20 06:30:00"}))
        );
        assert!(state.dict_mut(DATABASE).get("2").is_none());
        assert!(correct(&out, &out));
    }

    #[test]
    fn a_bad_time_and_a_bad_token_raise_and_add_nothing() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(&API, &mut state, json!({"token": "t-john", "time": "7am"}));
        assert_eq!(
            out["exception"],
            "time data '7am' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(out["output"], Value::Null);
        let out = call(
            &API,
            &mut state,
            json!({"token": "nope", "time": "2023-03-20 06:30:00"}),
        );
        assert_eq!(out["exception"], "The token is invalid.");
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
        let mut other = out.clone();
        other["input"]["token"] = json!("t-john");
        assert!(!correct(&other, &out));
    }
}
