//! ModifyReminder: rewrites a reminder of the user's.
//!
//! Database `Reminder` (see AddReminder). The first of the user's reminders
//! with that content *or* at that time gets both the given content and
//! time, changed in place.

use serde_json::Value;

use super::super::catalog::{spec, REMINDER};
use super::super::state::{Source, State};
use super::records::{blank, field_is, first_own, owner, words_agree};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::{display, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Reminder");

pub static API: Api = Api {
    spec: spec("ModifyReminder", "Changes a reminder.", REMINDER, true).reading("Reminder"),
    reference: Reference {
        // Verbatim: the reference's class describes itself as deleting.
        description: "The API for deleting a reminder item includes content and time.",
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
    let outcome = modify(state, &args).map(Value::from);
    result("ModifyReminder", input, outcome)
}

fn modify(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    strptime(time, TIMESTAMP)?;
    if blank(content)? {
        return Err("Content should not be null".into());
    }
    let username = owner(state, args.value("token"))?;
    let reminders = state.dict_mut(DATABASE);
    let key = first_own(reminders, &username, |reminder| {
        Ok(field_is(reminder, "content", content)? || field_is(reminder, "time", time)?)
    })?
    .ok_or_else(|| {
        format!(
            "You have no reminder about {} or at time : {}",
            display(content),
            display(time)
        )
    })?;
    if let Some(Value::Object(reminder)) = reminders.get_key_mut(&key) {
        reminder.insert("content".into(), content.clone());
        reminder.insert("time".into(), time.clone());
    }
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
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn reminders() -> (&'static str, Value) {
        (
            "Reminder",
            json!({
                "1": {"content": "Call mom", "time": "2023-03-16 14:30:00", "username": "JohnDoe"},
                "2": {"content": "Pay bills", "time": "2023-03-20 12:00:00", "username": "JohnDoe"}
            }),
        )
    }

    #[test]
    fn changes_content_and_time_in_place() {
        let mut state = state(&[accounts(), reminders()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "content": "Pay bills", "time": "2023-03-21 12:00:00"}),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get("2"),
            Some(
                &json!({"content": "Pay bills", "time": "2023-03-21 12:00:00", "username": "JohnDoe"})
            )
        );
        assert!(correct(&out, &out));
        let mut other = out.clone();
        other["input"]["content"] = json!("Pay the bills today");
        assert!(!correct(&other, &out));
    }

    #[test]
    fn nothing_found_raises() {
        let mut state = state(&[accounts(), reminders()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-jane", "content": "Pay bills", "time": "2023-03-21 12:00:00"}),
        );
        assert_eq!(
            out["exception"],
            "You have no reminder about Pay bills or at time : 2023-03-21 12:00:00"
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("2").unwrap()["time"],
            "2023-03-20 12:00:00"
        );
    }
}
