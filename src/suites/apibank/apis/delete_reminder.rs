//! DeleteReminder: removes a reminder of the user's.
//!
//! Database `Reminder` (see AddReminder). The first of the user's reminders
//! with that content *or* at that time goes.

use serde_json::Value;

use super::super::catalog::{spec, REMINDER_LOOKUP};
use super::super::state::{Source, State};
use super::records::{blank, deletion_agrees, field_is, first_own, owner};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Reminder");

pub static API: Api = Api {
    spec: spec(
        "DeleteReminder",
        "Removes a reminder.",
        REMINDER_LOOKUP,
        true,
    )
    .reading("Reminder"),
    reference: Reference {
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
    let outcome = delete(state, &args).map(Value::from);
    result("DeleteReminder", input, outcome)
}

fn delete(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
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
    reminders.remove(&key);
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
    fn content_or_time_picks_the_reminder() {
        let mut state = state(&[accounts(), reminders()]);
        // The content names reminder 2, but reminder 1 is at that time and
        // comes first.
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "content": "Pay bills", "time": "2023-03-16 14:30:00"}),
        );
        assert_eq!(out["output"], "success");
        let keys: Vec<_> = state.dict_mut(DATABASE).keys().cloned().collect();
        assert_eq!(keys, [Key::text("2")]);
        let mut other_time = out.clone();
        other_time["input"]["time"] = json!("2023-03-20 12:00:00");
        assert!(correct(&out, &out));
        assert!(!correct(&other_time, &out));
    }

    #[test]
    fn nothing_found_raises_naming_both() {
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
        assert_eq!(state.dict_mut(DATABASE).len(), 2);
        assert!(correct(&out, &out));
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-jane", "content": "", "time": "2023-03-16 14:30:00"}),
        );
        assert_eq!(out["exception"], "Content should not be null");
    }
}
