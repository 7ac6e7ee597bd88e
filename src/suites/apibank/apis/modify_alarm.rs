//! ModifyAlarm: moves the user's alarm from one moment to another.
//!
//! Database `Alarm` (see AddAlarm). The first of the user's alarms at
//! `from_time` is replaced by a new record `{"username", "time": to_time}`;
//! when none is, the call raises a message that speaks of an agenda, as
//! the reference's does.

use serde_json::{json, Value};

use super::super::catalog::{spec, timestamp, TOKEN};
use super::super::state::{Source, State};
use super::records::{field_is, first_own, owner};
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{display, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Alarm");

pub static API: Api = Api {
    spec: spec(
        "ModifyAlarm",
        "Moves an alarm to another moment.",
        &[TOKEN, timestamp("from_time"), timestamp("to_time")],
        true,
    )
    .reading("Alarm"),
    reference: Reference {
        description:
            "The API for modifying an alarm includes a parameter for the from_time to to_time.",
        input_parameters: &[
            ("token", "str", "User's token."),
            (
                "from_time",
                "str",
                "The time for alarm which changed from. Format: %Y-%m-%d %H:%M:%S",
            ),
            (
                "to_time",
                "str",
                "The time for alarm which changed to. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "from_time", "to_time"]);
    let outcome = modify(
        state,
        args.value("token"),
        args.value("from_time"),
        args.value("to_time"),
    )
    .map(Value::from);
    result("ModifyAlarm", input, outcome)
}

fn modify(
    state: &mut State,
    token: &Value,
    from_time: &Value,
    to_time: &Value,
) -> Result<&'static str, String> {
    strptime(from_time, TIMESTAMP)?;
    strptime(to_time, TIMESTAMP)?;
    let username = owner(state, token)?;
    let alarms = state.dict_mut(DATABASE);
    let key = first_own(alarms, &username, |alarm| {
        field_is(alarm, "time", from_time)
    })?
    .ok_or_else(|| format!("You have no agenda at time : {}", display(from_time)))?;
    alarms.insert(key, json!({"username": username, "time": to_time}));
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

    fn alarms() -> (&'static str, Value) {
        (
            "Alarm",
            json!({
                "1": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"},
                "2": {"time": "2023-03-18 07:00:00", "username": "JohnDoe"}
            }),
        )
    }

    #[test]
    fn replaces_the_alarm_in_place() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "from_time": "2023-03-16 07:00:00", "to_time": "2023-03-16 08:00:00"}),
        );
        assert_eq!(out["output"], "success");
        assert!(correct(&out, &out));
        let alarms = state.dict_mut(DATABASE);
        assert_eq!(
            alarms.iter().next(),
            Some((
                &Key::text("1"),
                &json!({"username": "JohnDoe", "time": "2023-03-16 08:00:00"})
            ))
        );
    }

    #[test]
    fn a_missing_alarm_is_called_an_agenda() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-jane", "from_time": "2023-03-16 07:00:00", "to_time": "2023-03-16 08:00:00"}),
        );
        assert_eq!(
            out["exception"],
            "You have no agenda at time : 2023-03-16 07:00:00"
        );
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "from_time": "2023-03-16 07:00:00", "to_time": "soon"}),
        );
        assert_eq!(
            out["exception"],
            "time data 'soon' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("1").unwrap()["time"],
            "2023-03-16 07:00:00"
        );
    }
}
