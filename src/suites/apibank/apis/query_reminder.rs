//! QueryReminder: a reminder of the user's.
//!
//! Database `Reminder` (see AddReminder). Answers the first of the user's
//! reminders with that content *or* at that time, the whole record.

use serde_json::Value;

use super::super::catalog::{spec, REMINDER_LOOKUP};
use super::super::state::{Source, State};
use super::records::{blank, field_is, first_own, owner, words_agree};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::{display, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Reminder");

pub static API: Api = Api {
    spec: spec(
        "QueryReminder",
        "Looks up a reminder.",
        REMINDER_LOOKUP,
        false,
    )
    .reading("Reminder"),
    reference: Reference {
        description: "The API for querying a reminder item includes content and time.",
        input_parameters: &[
            ("token", "str", "User's token."),
            ("content", "str", "The content of the reminder."),
            (
                "time",
                "str",
                "The time for the reminder. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[("reminder_info", "json", "remind info")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time"]);
    let outcome = query(state, &args);
    result("QueryReminder", input, outcome)
}

fn query(state: &mut State, args: &Args<'_>) -> Result<Value, String> {
    let (content, time) = (args.value("content"), args.value("time"));
    strptime(time, TIMESTAMP)?;
    if blank(content)? {
        return Err("Content should not be null".into());
    }
    let username = owner(state, args.value("token"))?;
    let reminders = state.dict(DATABASE);
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
    Ok(reminders.get_key(&key).cloned().unwrap_or_default())
}

/// Contents that share more than half their lower-cased words, same time,
/// output and exception (no check of the API name here).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    words_agree(response, groundtruth, "content", true) == Some(true)
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
    fn answers_the_first_reminder_matching_content_or_time() {
        let mut state = state(&[accounts(), reminders()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "content": "Anything", "time": "2023-03-20 12:00:00"}),
        );
        assert_eq!(
            out["output"],
            json!({"content": "Pay bills", "time": "2023-03-20 12:00:00", "username": "JohnDoe"})
        );
        assert_eq!(out["exception"], Value::Null);
        let mut close = out.clone();
        close["input"]["content"] = json!("anything");
        assert!(correct(&close, &out));
    }

    #[test]
    fn nothing_found_raises() {
        let mut state = state(&[accounts(), reminders()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-jane", "content": "Call mom", "time": "2023-03-16 14:30:00"}),
        );
        assert_eq!(
            out["exception"],
            "You have no reminder about Call mom or at time : 2023-03-16 14:30:00"
        );
        assert_eq!(out["output"], Value::Null);
    }
}
