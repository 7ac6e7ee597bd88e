//! QueryMeeting: a meeting of the user's.
//!
//! Database `Meeting` (see AddMeeting). Answers the first of the user's
//! meetings with that topic *or* that start time, the whole record.
//!
//! After a miss with neither topic nor start time the reference *returns*
//! `Exception('Error')`; its text "Error" stands for it here. The checks
//! before the search refuse such a request, so it never happens.

use serde_json::Value;

use super::super::catalog::{spec, MEETING_LOOKUP};
use super::super::state::{Source, State};
use super::add_meeting::{MEETING_INPUT, MEETING_PARAMETERS};
use super::records::{field_is, first_own, meeting_agrees, meeting_request, owner};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, truthy, Args};

const DATABASE: Source = Source::Shared("Meeting");

pub static API: Api = Api {
    spec: spec("QueryMeeting", "Looks up a meeting.", MEETING_LOOKUP, false).reading("Meeting"),
    reference: Reference {
        description: "This API allows users to query the information of a meeting.",
        input_parameters: MEETING_PARAMETERS,
        output_parameters: &[("meeting_info", "json", "meeting info")],
    },
    call,
    correct,
    check_removes: &["meeting_topic"],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, MEETING_INPUT);
    let outcome = query(state, &args);
    result("QueryMeeting", input, outcome)
}

fn query(state: &mut State, args: &Args<'_>) -> Result<Value, String> {
    let (meeting_topic, start_time) = (args.value("meeting_topic"), args.value("start_time"));
    meeting_request(meeting_topic, start_time, args.value("end_time"))?;
    let username = owner(state, args.value("token"))?;
    let meetings = state.dict(DATABASE);
    let found = first_own(meetings, &username, |meeting| {
        Ok(field_is(meeting, "meeting_topic", meeting_topic)?
            || field_is(meeting, "start_time", start_time)?)
    })?;
    if let Some(key) = found {
        return Ok(meetings.get_key(&key).cloned().unwrap_or_default());
    }
    if truthy(meeting_topic) {
        return Err(format!(
            "You have no meeting about {}",
            display(meeting_topic)
        ));
    }
    if truthy(start_time) {
        return Err(format!(
            "You have no meeting at time : {}",
            display(start_time)
        ));
    }
    Ok(Value::from("Error"))
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

    fn args(token: &str, topic: &str, start: &str) -> Value {
        json!({"token": token, "meeting_topic": topic, "start_time": start,
               "end_time": "", "location": "", "attendees": []})
    }

    #[test]
    fn answers_the_whole_record() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args("t-john", "", "2023-03-20 14:00:00"));
        assert_eq!(out["output"]["location"], "Room A");
        assert_eq!(out["output"]["attendees"], json!(["Ann"]));
        assert!(correct(&out, &out));
    }

    #[test]
    fn misses_raise() {
        let mut state = state(&[accounts(), meetings()]);
        let out = call(&API, &mut state, args("t-jane", "Sales Meeting", ""));
        assert_eq!(out["exception"], "You have no meeting about Sales Meeting");
        let out = call(&API, &mut state, args("t-jane", " ", "2023-03-20 14:00:00"));
        assert_eq!(out["exception"], "You have no meeting about  ");
        let out = call(&API, &mut state, args("t-jane", "", "2023-03-20 14:00:00"));
        assert_eq!(
            out["exception"],
            "You have no meeting at time : 2023-03-20 14:00:00"
        );
    }
}
