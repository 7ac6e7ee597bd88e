//! QueryAgenda: an item on the user's agenda.
//!
//! Database `Agenda` (see AddAgenda). Answers the first of the user's items
//! with that content *or* at that time, the whole record; raises when none
//! is (with "Error" when neither content nor time was given).

use serde_json::Value;

use super::super::catalog::{spec, AGENDA_LOOKUP};
use super::super::state::{Source, State};
use super::records::{field_is, first_own, owner, words_agree};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Agenda");

pub static API: Api = Api {
    spec: spec(
        "QueryAgenda",
        "Looks up agenda items.",
        AGENDA_LOOKUP,
        false,
    )
    .reading("Agenda"),
    reference: Reference {
        description: "The API for getting a schedule item includes parameters for token, content, time, and location.",
        input_parameters: &[
            ("token", "str", "User's token."),
            ("content", "str", "The content of the agenda."),
            (
                "time",
                "str",
                "The time for agenda. Format: %Y-%m-%d %H:%M:%S",
            ),
            ("location", "str", "The location of the agenda."),
        ],
        output_parameters: &[(
            "info",
            "json",
            "agenda info including username and time",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time", "location"]);
    let outcome = query(state, &args);
    result("QueryAgenda", input, outcome)
}

fn query(state: &mut State, args: &Args<'_>) -> Result<Value, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    if truthy(time) {
        strptime(time, TIMESTAMP)?;
    }
    let username = owner(state, args.value("token"))?;
    let agenda = state.dict(DATABASE);
    let found = first_own(agenda, &username, |item| {
        Ok(field_is(item, "content", content)? || field_is(item, "time", time)?)
    })?;
    if let Some(key) = found {
        return Ok(agenda.get_key(&key).cloned().unwrap_or_default());
    }
    if truthy(content) {
        return Err(format!("You have no agenda about {}", display(content)));
    }
    if truthy(time) {
        return Err(format!("You have no agenda at time : {}", display(time)));
    }
    Err("Error".into())
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
    use serde_json::json;

    fn agenda() -> (&'static str, Value) {
        (
            "Agenda",
            json!({
                "1": {"content": "Dentist", "time": "2023-03-18 10:00:00", "location": "Main St", "username": "JohnDoe"},
                "2": {"content": "Gym", "time": "2023-03-19 08:00:00", "location": "Gym", "username": "JaneSmith"}
            }),
        )
    }

    fn args(token: &str, content: &str, time: &str) -> Value {
        json!({"token": token, "content": content, "time": time, "location": ""})
    }

    #[test]
    fn answers_the_users_item() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("t-jane", "", "2023-03-19 08:00:00"));
        assert_eq!(
            out["output"],
            json!({"content": "Gym", "time": "2023-03-19 08:00:00", "location": "Gym", "username": "JaneSmith"})
        );
        assert!(correct(&out, &out));
    }

    #[test]
    fn misses_raise() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("t-john", "Gym", ""));
        assert_eq!(out["exception"], "You have no agenda about Gym");
        let out = call(&API, &mut state, args("t-john", "", "2023-03-19 08:00:00"));
        assert_eq!(
            out["exception"],
            "You have no agenda at time : 2023-03-19 08:00:00"
        );
        let out = call(&API, &mut state, args("t-john", "", ""));
        assert_eq!(out["exception"], "Error");
        assert_eq!(out["output"], Value::Null);
    }
}
