//! AddMeeting: books a meeting for the user.
//!
//! Database `Meeting`: `{id: {"meeting_topic", "start_time", "end_time",
//! "location", "attendees", "username"}}`. A new meeting's id is the text
//! `str(max(int(id)) + 1)` (`"0"` in an empty database).

use serde_json::{json, Value};

use super::super::catalog::{spec, MEETING};
use super::super::state::{Source, State};
use super::records::{blank, meeting_agrees, next_text_id, owner};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::Args;
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Meeting");

/// The meeting APIs' parameters, as the reference documents them.
pub(super) const MEETING_PARAMETERS: &[(&str, &str, &str)] = &[
    ("token", "str", "User's token."),
    (
        "meeting_topic",
        "str",
        "The title of the meeting, no more than 50 characters.",
    ),
    (
        "start_time",
        "str",
        "The start time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S",
    ),
    (
        "end_time",
        "str",
        "The end time of the meeting, in the pattern of %Y-%m-%d %H:%M:%S",
    ),
    (
        "location",
        "str",
        "The location where the meeting to be held, no more than 100 characters.",
    ),
    (
        "attendees",
        "list(str)",
        "The attendees of the meeting, including names, positions and other information.",
    ),
];

/// The names of the meeting APIs' arguments, in the order of their inputs.
pub(super) const MEETING_INPUT: &[&str] = &[
    "token",
    "meeting_topic",
    "start_time",
    "end_time",
    "location",
    "attendees",
];

pub static API: Api = Api {
    spec: spec(
        "AddMeeting",
        "Books a meeting with attendees.",
        MEETING,
        true,
    )
    .reading("Meeting"),
    reference: Reference {
        description: "This API allows users to make a reservation for a meeting and store the meeting information (e.g., topic, time, location, attendees) in the database.",
        input_parameters: MEETING_PARAMETERS,
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &["meeting_topic"],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, MEETING_INPUT);
    let outcome = add(state, &args).map(Value::from);
    result("AddMeeting", input, outcome)
}

fn add(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (start_time, end_time) = (args.value("start_time"), args.value("end_time"));
    strptime(start_time, TIMESTAMP)?;
    strptime(end_time, TIMESTAMP)?;
    let meeting_topic = args.value("meeting_topic");
    if blank(meeting_topic)? {
        return Err("Meeting Topic should not be null".into());
    }
    let id = next_text_id(state.dict_mut(DATABASE))?;
    let username = owner(state, args.value("token"))?;
    state.dict_mut(DATABASE).insert(
        id,
        json!({
            "username": username,
            "meeting_topic": meeting_topic,
            "start_time": start_time,
            "end_time": end_time,
            "location": args.value("location"),
            "attendees": args.value("attendees"),
        }),
    );
    Ok("success")
}

/// The meetings' check (see [`meeting_agrees`]).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    meeting_agrees(response, groundtruth)
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Key;
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn meetings() -> (&'static str, Value) {
        (
            "Meeting",
            json!({"1": {"meeting_topic": "Sales Meeting", "start_time": "2023-03-20 14:00:00",
                         "end_time": "2023-03-20 16:00:00", "location": "Room A",
                         "attendees": ["John Smith"], "username": "JohnDoe"}}),
        )
    }

    fn args(topic: &str, start: &str, token: &str) -> Value {
        json!({"token": token, "meeting_topic": topic, "start_time": start,
               "end_time": "2023-03-21 11:00:00", "location": "Room B", "attendees": ["Ann", "Bo"]})
    }

    #[test]
    fn books_under_the_next_text_id() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(
            &API,
            &mut state,
            args("Planning", "2023-03-21 10:00:00", "t-jane"),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(out["input"]["attendees"], json!(["Ann", "Bo"]));
        let added = state
            .dict_mut(DATABASE)
            .get_key(&Key::text("2"))
            .cloned()
            .unwrap();
        assert_eq!(added["username"], "JaneSmith");
        assert_eq!(added["attendees"], json!(["Ann", "Bo"]));
        assert!(correct(&out, &out));
    }

    #[test]
    fn times_then_topic_then_token_are_checked() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args(" ", "later", "x"));
        assert_eq!(
            out["exception"],
            "time data 'later' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        let out = call(&API, &mut state, args(" ", "2023-03-21 10:00:00", "x"));
        assert_eq!(out["exception"], "Meeting Topic should not be null");
        let out = call(
            &API,
            &mut state,
            args("Planning", "2023-03-21 10:00:00", "x"),
        );
        assert_eq!(out["exception"], "The token is invalid.");
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }
}
