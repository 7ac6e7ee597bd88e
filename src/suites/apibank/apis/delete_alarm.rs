//! DeleteAlarm: removes the user's alarm at a moment.
//!
//! Database `Alarm` (see AddAlarm). The first of the user's alarms at that
//! time goes; when none is, the call raises.

use serde_json::Value;

use super::super::catalog::{spec, ALARM};
use super::super::state::{Source, State};
use super::records::{field_is, first_own, owner};
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Alarm");

pub static API: Api = Api {
    spec: spec("DeleteAlarm", "Removes an alarm.", ALARM, true).reading("Alarm"),
    reference: Reference {
        description: "The API for removing an alarm includes a parameter for the time.",
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
    let outcome = delete(state, args.value("token"), args.value("time")).map(Value::from);
    result("DeleteAlarm", input, outcome)
}

fn delete(state: &mut State, token: &Value, time: &Value) -> Result<&'static str, String> {
    strptime(time, TIMESTAMP)?;
    let username = owner(state, token)?;
    let alarms = state.dict_mut(DATABASE);
    match first_own(alarms, &username, |alarm| field_is(alarm, "time", time))? {
        Some(key) => {
            alarms.remove(&key);
        }
        // `if time:` always holds for a time that parsed; the reference
        // would answer "success" otherwise.
        None if truthy(time) => {
            return Err(format!(
                "You have no alarm clock at time : {}",
                display(time)
            ))
        }
        None => {}
    }
    Ok("success")
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Key;
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn alarms() -> (&'static str, Value) {
        (
            "Alarm",
            json!({
                "1": {"time": "2023-03-16 07:00:00", "username": "JaneSmith"},
                "2": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"},
                "3": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"}
            }),
        )
    }

    #[test]
    fn removes_the_users_first_alarm_at_that_time() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "time": "2023-03-16 07:00:00"}),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(out["exception"], Value::Null);
        let keys: Vec<_> = state.dict_mut(DATABASE).keys().cloned().collect();
        assert_eq!(keys, [Key::text("1"), Key::text("3")]);
        assert!(correct(&out, &out));
    }

    #[test]
    fn no_alarm_then_raises() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "time": "2023-03-17 07:00:00"}),
        );
        assert_eq!(
            out["exception"],
            "You have no alarm clock at time : 2023-03-17 07:00:00"
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 3);
        let out = call(&API, &mut state, json!({"token": "t-john", "time": ""}));
        assert_eq!(
            out["exception"],
            "time data '' does not match format '%Y-%m-%d %H:%M:%S'"
        );
    }
}
