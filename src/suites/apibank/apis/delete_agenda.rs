//! DeleteAgenda: removes an item from the user's agenda.
//!
//! Database `Agenda` (see AddAgenda). The first of the user's items with
//! that content *or* at that time goes. When none does, the messages speak
//! of a meeting, as the reference's do; and when neither content nor time
//! is given (both empty), nothing is removed and the answer is "success".

use serde_json::Value;

use super::super::catalog::{spec, AGENDA_LOOKUP};
use super::super::state::{Source, State};
use super::records::{deletion_agrees, field_is, first_own, owner};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Agenda");

pub static API: Api = Api {
    spec: spec(
        "DeleteAgenda",
        "Removes an agenda item.",
        AGENDA_LOOKUP,
        true,
    )
    .reading("Agenda"),
    reference: Reference {
        description: "The API for deleting a schedule item includes parameters for token, content, time, and location.",
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
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time", "location"]);
    let outcome = delete(state, &args).map(Value::from);
    result("DeleteAgenda", input, outcome)
}

fn delete(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    if truthy(time) {
        strptime(time, TIMESTAMP)?;
    }
    let username = owner(state, args.value("token"))?;
    let agenda = state.dict_mut(DATABASE);
    let found = first_own(agenda, &username, |item| {
        Ok(field_is(item, "content", content)? || field_is(item, "time", time)?)
    })?;
    match found {
        Some(key) => {
            agenda.remove(&key);
        }
        None if truthy(content) => {
            return Err(format!("You have no meeting about {}", display(content)))
        }
        None if truthy(time) => {
            return Err(format!("You have no meeting at time : {}", display(time)))
        }
        None => {}
    }
    Ok("success")
}

/// The reference's check for deletions (see [`deletion_agrees`]).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    deletion_agrees(response, groundtruth)
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Key;
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

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
        json!({"token": "t-john", "content": content, "time": time, "location": "x"})
    }

    #[test]
    fn content_or_time_picks_the_item() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("Other", "2023-03-19 08:00:00"));
        assert_eq!(out["output"], "success");
        let keys: Vec<_> = state.dict_mut(DATABASE).keys().cloned().collect();
        assert_eq!(keys, [Key::text("1")]);
        assert!(correct(&out, &out));
    }

    #[test]
    fn misses_speak_of_meetings_and_an_empty_request_succeeds() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(&API, &mut state, args("Party", "2023-03-20 08:00:00"));
        assert_eq!(out["exception"], "You have no meeting about Party");
        let out = call(&API, &mut state, args("", "2023-03-20 08:00:00"));
        assert_eq!(
            out["exception"],
            "You have no meeting at time : 2023-03-20 08:00:00"
        );
        let out = call(&API, &mut state, args("", ""));
        assert_eq!(out["output"], "success");
        assert_eq!(state.dict_mut(DATABASE).len(), 2);
        let out = call(&API, &mut state, args("Gym", "tomorrow"));
        assert_eq!(
            out["exception"],
            "time data 'tomorrow' does not match format '%Y-%m-%d %H:%M:%S'"
        );
    }
}
