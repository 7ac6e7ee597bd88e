//! DeleteMeeting: cancels a meeting of the user's.
//!
//! Database `Meeting` (see AddMeeting). The first of the user's meetings
//! with that topic *or* that start time goes; when none does, the call
//! raises, naming the topic if one was given, else the start time.
//!
//! The reference's correctness check compares `input.time` when both calls
//! succeeded, a field meeting inputs lack: two successful deletions are
//! never judged alike (see [`deletion_agrees`]).

use serde_json::Value;

use super::super::catalog::{spec, MEETING_LOOKUP};
use super::super::state::{Source, State};
use super::add_meeting::{MEETING_INPUT, MEETING_PARAMETERS};
use super::records::{
    deletion_agrees, deletion_agrees_on, field_is, first_own, meeting_request, owner,
};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};

const DATABASE: Source = Source::Shared("Meeting");

pub static API: Api = Api {
    spec: spec("DeleteMeeting", "Cancels a meeting.", MEETING_LOOKUP, true)
    .reading("Meeting"),
    reference: Reference {
        description: "This API allows users to delete a reservation for a meeting and remove the meeting information in the database.",
        input_parameters: MEETING_PARAMETERS,
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, MEETING_INPUT);
    let outcome = delete(state, &args).map(Value::from);
    result("DeleteMeeting", input, outcome)
}

fn delete(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (meeting_topic, start_time) = (args.value("meeting_topic"), args.value("start_time"));
    meeting_request(meeting_topic, start_time, args.value("end_time"))?;
    let username = owner(state, args.value("token"))?;
    let meetings = state.dict_mut(DATABASE);
    let found = first_own(meetings, &username, |meeting| {
        Ok(field_is(meeting, "meeting_topic", meeting_topic)?
            || field_is(meeting, "start_time", start_time)?)
    })?;
    match found {
        Some(key) => {
            meetings.remove(&key);
        }
        None if truthy(meeting_topic) => {
            return Err(format!(
                "You have no meeting about {}",
                display(meeting_topic)
            ))
        }
        None if truthy(start_time) => {
            return Err(format!(
                "You have no meeting at time : {}",
                display(start_time)
            ))
        }
        None => {}
    }
    Ok("success")
}

/// The reference's check for deletions (see [`deletion_agrees`]).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    deletion_agrees(response, groundtruth)
}

/// The check as the other deletions' works: two successful deletions
/// agree when they name the same `start_time` (the lenient scoring's
/// correction; the reference's reads a `time` these inputs lack).
pub(super) fn correct_by_start_time(response: &Value, groundtruth: &Value) -> bool {
    deletion_agrees_on("start_time", response, groundtruth)
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Key;
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn meetings() -> (&'static str, Value) {
        (
            "Meeting",
            json!({
                "1": {"meeting_topic": "Sales Meeting", "start_time": "2023-03-20 14:00:00",
                      "end_time": "2023-03-20 16:00:00", "location": "Room A", "attendees": [], "username": "JohnDoe"},
                "2": {"meeting_topic": "Budget", "start_time": "2023-03-22 14:00:00",
                      "end_time": "2023-03-22 16:00:00", "location": "Room A", "attendees": [], "username": "JohnDoe"}
            }),
        )
    }

    fn args(topic: &str, start: &str) -> Value {
        json!({"token": "t-john", "meeting_topic": topic, "start_time": start,
               "end_time": "", "location": "", "attendees": []})
    }

    #[test]
    fn topic_or_start_time_picks_the_meeting() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args("Budget", ""));
        assert_eq!(out["output"], "success");
        let keys: Vec<_> = state.dict_mut(DATABASE).keys().cloned().collect();
        assert_eq!(keys, [Key::text("1")]);
        // The reference's check reads a `time` these inputs lack.
        assert!(!correct(&out, &out));
    }

    #[test]
    fn misses_and_empty_requests_raise() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args("Party", ""));
        assert_eq!(out["exception"], "You have no meeting about Party");
        assert!(correct(&out, &out));
        let out = call(&API, &mut state, args("", "2023-03-25 14:00:00"));
        assert_eq!(
            out["exception"],
            "You have no meeting at time : 2023-03-25 14:00:00"
        );
        let out = call(&API, &mut state, args("", ""));
        assert_eq!(
            out["exception"],
            "Meeting Topic and start_time should not be null both"
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 2);
    }
}
