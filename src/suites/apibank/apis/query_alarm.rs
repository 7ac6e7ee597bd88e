//! QueryAlarm: the user's alarm at a moment.
//!
//! Database `Alarm` (see AddAlarm). Answers the first of the user's alarms
//! at that time, the whole record (`{"username", "time"}` or however the
//! database holds it).

use serde_json::Value;

use super::super::catalog::{spec, ALARM};
use super::super::state::{Source, State};
use super::records::{field_is, first_own, owner};
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{display, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Alarm");

pub static API: Api = Api {
    spec: spec("QueryAlarm", "Looks up an alarm.", ALARM, false).reading("Alarm"),
    reference: Reference {
        description:
            "The API for querying alarm clock, help user to check the alarm clock they have set.",
        input_parameters: &[
            ("token", "str", "User's token."),
            (
                "time",
                "str",
                "The time for alarm. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[(
            "info",
            "json",
            "alarm info including username, time, content and location",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "time"]);
    let outcome = query(state, args.value("token"), args.value("time"));
    result("QueryAlarm", input, outcome)
}

fn query(state: &mut State, token: &Value, time: &Value) -> Result<Value, String> {
    strptime(time, TIMESTAMP)?;
    let username = owner(state, token)?;
    let alarms = state.dict(DATABASE);
    let key = first_own(alarms, &username, |alarm| field_is(alarm, "time", time))?
        .ok_or_else(|| format!("You have no alarm clock at time : {}", display(time)))?;
    Ok(alarms.get_key(&key).cloned().unwrap_or_default())
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn alarms() -> (&'static str, Value) {
        (
            "Alarm",
            json!({
                "1": {"time": "2023-03-16 07:00:00", "username": "JaneSmith"},
                "2": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"}
            }),
        )
    }

    #[test]
    fn answers_the_users_alarm_record() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "time": "2023-03-16 07:00:00"}),
        );
        assert_eq!(
            out,
            json!({"api_name": "QueryAlarm", "input": {"token": "t-john", "time": "2023-03-16 07:00:00"},
                   "output": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"}, "exception": null})
        );
        assert!(correct(&out, &out));
        assert_eq!(state.dict(DATABASE).len(), 2);
    }

    #[test]
    fn no_alarm_and_a_bad_token_raise() {
        let mut state = state(&[accounts(), alarms()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-jane", "time": "2023-03-17 07:00:00"}),
        );
        assert_eq!(
            out["exception"],
            "You have no alarm clock at time : 2023-03-17 07:00:00"
        );
        let out = call(
            &API,
            &mut state,
            json!({"token": "x", "time": "2023-03-16 07:00:00"}),
        );
        assert_eq!(out["exception"], "The token is invalid.");
    }
}
