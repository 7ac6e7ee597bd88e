//! ModifyAgenda: rewrites an item on the user's agenda.
//!
//! Database `Agenda` (see AddAgenda). The first of the user's items with
//! that content *or* at that time is replaced by a new record
//! `{"username", "content", "time", "location"}` from the arguments.
//!
//! Where neither content nor time is given (both empty), the reference
//! *returns* (does not raise) `Exception('Error')`, so the result has that
//! object as its output and no exception; its text, "Error", stands for it
//! here.

use serde_json::{json, Value};

use super::super::catalog::{spec, AGENDA};
use super::super::state::{Source, State};
use super::records::{field_is, first_own, owner, words_agree};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Agenda");

pub static API: Api = Api {
    spec: spec("ModifyAgenda", "Changes an agenda item.", AGENDA, true)
    .reading("Agenda"),
    reference: Reference {
        description: "The API for modifying a schedule item includes parameters for content, time, and location.",
        input_parameters: &[
            ("token", "str", "User's token."),
            ("content", "str", "The content of the agenda."),
            (
                "time",
                "str",
                "The new time for agenda. Format: %Y-%m-%d %H:%M:%S",
            ),
            ("location", "str", "The new location of the agenda."),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time", "location"]);
    let outcome = modify(state, &args).map(Value::from);
    result("ModifyAgenda", input, outcome)
}

fn modify(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    if truthy(time) {
        strptime(time, TIMESTAMP)?;
    }
    let username = owner(state, args.value("token"))?;
    let agenda = state.dict_mut(DATABASE);
    let found = first_own(agenda, &username, |item| {
        Ok(field_is(item, "content", content)? || field_is(item, "time", time)?)
    })?;
    if let Some(key) = found {
        agenda.insert(
            key,
            json!({
                "username": username,
                "content": content,
                "time": time,
                "location": args.value("location"),
            }),
        );
        return Ok("success");
    }
    if truthy(content) {
        return Err(format!("You have no agenda about {}", display(content)));
    }
    if truthy(time) {
        return Err(format!("You have no agenda at time : {}", display(time)));
    }
    Ok("Error")
}

/// Contents that share more than half their words, same time, location,
/// output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    words_agree(response, groundtruth, "content", false) == Some(true)
        && same_inputs(response, groundtruth, &["time", "location"])
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn agenda() -> (&'static str, Value) {
        (
            "Agenda",
            json!({
                "1": {"content": "Dentist", "time": "2023-03-18 10:00:00", "location": "Main St", "username": "JohnDoe"},
                "2": {"content": "Gym", "time": "2023-03-19 08:00:00", "location": "Gym", "username": "JohnDoe"}
            }),
        )
    }

    fn args(content: &str, time: &str) -> Value {
        json!({"token": "t-john", "content": content, "time": time, "location": "Park"})
    }

    #[test]
    fn replaces_the_item_with_a_new_record() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("Gym", "2023-03-19 09:00:00"));
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get("2"),
            Some(
                &json!({"username": "JohnDoe", "content": "Gym", "time": "2023-03-19 09:00:00", "location": "Park"})
            )
        );
        assert!(correct(&out, &out));
    }

    #[test]
    fn misses_raise_and_an_empty_request_answers_error() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("Party", ""));
        assert_eq!(out["exception"], "You have no agenda about Party");
        let out = call(&API, &mut state, args("", "2023-03-20 08:00:00"));
        assert_eq!(
            out["exception"],
            "You have no agenda at time : 2023-03-20 08:00:00"
        );
        let out = call(&API, &mut state, args("", ""));
        assert_eq!(out["output"], "Error");
        assert_eq!(out["exception"], Value::Null);
        assert_eq!(
            state.dict_mut(DATABASE).get("1").unwrap()["location"],
            "Main St"
        );
    }
}
