//! AddReminder: sets a reminder for the user.
//!
//! Database `Reminder`: `{id: {"content", "time", "username"}}`. A new
//! reminder's id is the text `str(max(int(id)) + 1)` (`"0"` in an empty
//! database).

use serde_json::{json, Value};

use super::super::catalog::{spec, REMINDER};
use super::super::state::{Source, State};
use super::records::{blank, next_text_id, owner, words_agree};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::Args;
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Reminder");

pub static API: Api = Api {
    spec: spec(
        "AddReminder",
        "Sets a reminder for the user.",
        REMINDER,
        true,
    )
    .reading("Reminder"),
    reference: Reference {
        description: "The API for adding a reminder item includes content and time.",
        input_parameters: &[
            ("token", "str", "User's token."),
            ("content", "str", "The content of the conference."),
            (
                "time",
                "str",
                "The time for conference. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time"]);
    let outcome = add(state, &args).map(Value::from);
    result("AddReminder", input, outcome)
}

fn add(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    strptime(time, TIMESTAMP)?;
    if blank(content)? {
        return Err("Content should not be null".into());
    }
    let id = next_text_id(state.dict_mut(DATABASE))?;
    let username = owner(state, args.value("token"))?;
    state.dict_mut(DATABASE).insert(
        id,
        json!({"username": username, "content": content, "time": time}),
    );
    Ok("success")
}

/// Same API name (the reference asserts it), contents that share more
/// than half their lower-cased words, same time, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    response.get("api_name") == groundtruth.get("api_name")
        && words_agree(response, groundtruth, "content", true) == Some(true)
        && same_inputs(response, groundtruth, &["time"])
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Key;
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn reminders() -> (&'static str, Value) {
        (
            "Reminder",
            json!({
                "1": {"content": "Call mom", "time": "2023-03-16 14:30:00", "username": "JohnDoe"},
                "7": {"content": "Pay bills", "time": "2023-03-20 12:00:00", "username": "JaneSmith"}
            }),
        )
    }

    #[test]
    fn adds_under_the_next_text_id() {
        let mut state = state(&[accounts(), reminders()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "content": "Water plants", "time": "2023-03-21 09:00:00"}),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get_key(&Key::text("8")),
            Some(
                &json!({"username": "JohnDoe", "content": "Water plants", "time": "2023-03-21 09:00:00"})
            )
        );
        let mut close = out.clone();
        close["input"]["content"] = json!("water PLANTS");
        assert!(correct(&close, &out));
    }

    #[test]
    fn an_empty_database_starts_at_zero_and_checks_come_in_order() {
        let mut state = state(&[accounts()]);
        let args = |content: &str, time: &str, token: &str| json!({"token": token, "content": content, "time": time});
        let out = call(&API, &mut state, args(" ", "bad", "x"));
        assert_eq!(
            out["exception"],
            "time data 'bad' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        let out = call(&API, &mut state, args(" ", "2023-03-21 09:00:00", "x"));
        assert_eq!(out["exception"], "Content should not be null");
        let out = call(&API, &mut state, args("Gym", "2023-03-21 09:00:00", "x"));
        assert_eq!(out["exception"], "The token is invalid.");
        assert!(state.dict_mut(DATABASE).is_empty());
        let out = call(
            &API,
            &mut state,
            args("Gym", "2023-03-21 09:00:00", "t-jane"),
        );
        assert_eq!(out["output"], "success");
        assert!(state.dict_mut(DATABASE).get("0").is_some());
    }
}
