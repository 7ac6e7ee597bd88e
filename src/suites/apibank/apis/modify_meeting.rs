//! ModifyMeeting: changes a meeting of the user's.
//!
//! Database `Meeting` (see AddMeeting). The first of the user's meetings
//! with that topic *or* that start time is changed in place: its topic
//! when one is given, its start and end times when a start time is given.
//! Location and attendees are never changed.

use serde_json::Value;

use super::super::catalog::{spec, MEETING};
use super::super::state::{Source, State};
use super::add_meeting::{MEETING_INPUT, MEETING_PARAMETERS};
use super::records::{field_is, first_own, meeting_agrees, meeting_request, owner};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};

const DATABASE: Source = Source::Shared("Meeting");

pub static API: Api = Api {
    spec: spec("ModifyMeeting", "Changes a meeting.", MEETING, true).reading("Meeting"),
    reference: Reference {
        description: "This API allows users to modify a reservation for a meeting",
        input_parameters: MEETING_PARAMETERS,
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &["meeting_topic"],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, MEETING_INPUT);
    let outcome = modify(state, &args).map(Value::from);
    result("ModifyMeeting", input, outcome)
}

fn modify(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let (meeting_topic, start_time) = (args.value("meeting_topic"), args.value("start_time"));
    let end_time = args.value("end_time");
    meeting_request(meeting_topic, start_time, end_time)?;
    let username = owner(state, args.value("token"))?;
    let meetings = state.dict_mut(DATABASE);
    let found = first_own(meetings, &username, |meeting| {
        Ok(field_is(meeting, "meeting_topic", meeting_topic)?
            || field_is(meeting, "start_time", start_time)?)
    })?;
    match found.and_then(|key| meetings.get_key_mut(&key)) {
        Some(Value::Object(meeting)) => {
            if truthy(meeting_topic) {
                meeting.insert("meeting_topic".into(), meeting_topic.clone());
            }
            if truthy(start_time) {
                meeting.insert("start_time".into(), start_time.clone());
                meeting.insert("end_time".into(), end_time.clone());
            }
        }
        // A match is a dict: `field_is` read it.
        Some(_) => {}
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

/// The meetings' check (see [`meeting_agrees`]).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    meeting_agrees(response, groundtruth)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn meetings() -> (&'static str, Value) {
        (
            "Meeting",
            json!({
                "1": {"meeting_topic": "Sales Meeting", "start_time": "2023-03-20 14:00:00",
                      "end_time": "2023-03-20 16:00:00", "location": "Room A", "attendees": ["Ann"], "username": "JohnDoe"}
            }),
        )
    }

    fn args(topic: &str, start: &str, end: &str) -> Value {
        json!({"token": "t-john", "meeting_topic": topic, "start_time": start,
               "end_time": end, "location": "Room Z", "attendees": ["Zed"]})
    }

    #[test]
    fn changes_topic_and_times_in_place_but_not_place_or_people() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(
            &API,
            &mut state,
            args(
                "Sales Meeting",
                "2023-03-21 14:00:00",
                "2023-03-21 15:00:00",
            ),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get("1"),
            Some(
                &json!({"meeting_topic": "Sales Meeting", "start_time": "2023-03-21 14:00:00",
                         "end_time": "2023-03-21 15:00:00", "location": "Room A", "attendees": ["Ann"], "username": "JohnDoe"})
            )
        );
        // Found by start time, renamed, times kept when none is given.
        let out = call(&API, &mut state, args("Sales sync", "", ""));
        assert_eq!(out["exception"], "You have no meeting about Sales sync");
        let out = call(&API, &mut state, args("", "2023-03-21 14:00:00", ""));
        assert_eq!(out["output"], "success");
        assert_eq!(state.dict_mut(DATABASE).get("1").unwrap()["end_time"], "");
        assert!(correct(&out, &out));
    }

    #[test]
    fn misses_raise() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args("", "2023-03-25 14:00:00", ""));
        assert_eq!(
            out["exception"],
            "You have no meeting at time : 2023-03-25 14:00:00"
        );
        assert_eq!(out["output"], Value::Null);
    }
}
