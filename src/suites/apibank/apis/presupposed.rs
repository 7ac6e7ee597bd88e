//! What a recorded success presupposes of the databases (`fill --seed`).
//!
//! A maintainer who writes "cancel the switch of device 10000025 at 9:30"
//! and records `"success"` presupposes that the device has a switch at
//! 9:30. When the world raises instead, the record the recording implies is
//! one to add to the initial databases. Only records the recording fully
//! determines are proposed:
//!
//! - CancelTimedSwitch: the device's schedule entry at that time
//!   (`{"time"}`; whether it switches on or off is not recorded, so it is
//!   not invented).
//! - QueryAlarm, QueryReminder, QueryAgenda, QueryMeeting: the record the
//!   query answered, under the next free id.
//! - DeleteAlarm, DeleteReminder: the record the deletion removed (its
//!   inputs and the token's owner), under the next free id.
//! - QueryRegistration: the appointments it listed that are missing, under
//!   their own ids.
//!
//! Other APIs propose nothing: a recording that does not reproduce there is
//! a difference for verify to show, not a record to guess.

use serde_json::{Map, Value};

use super::super::state::State;
use super::home::{format_check, key_name};
use crate::sim::pyargs::py_eq;

/// One record a recording presupposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Addition {
    /// The database (file stem).
    pub database: &'static str,
    pub place: Place,
    pub record: Value,
    /// Whose record it is (a username, a device), for the report.
    pub owner: String,
}

/// Where an addition goes in its database (a JSON object).
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// Appended to the list under this key (created when missing).
    Append(String),
    /// Under this key.
    At(String),
    /// Under the next free numeric id (the highest integer key plus one).
    NextId,
}

/// The records the recorded result `recorded` presupposes, given that the
/// world answered `executed` instead, in `state` as it stood before the
/// call. Empty when the recording is not a success or implies nothing
/// this module can tell.
pub fn presupposed(
    api_name: &str,
    state: &mut State,
    recorded: &Value,
    executed: &Value,
) -> Vec<Addition> {
    let succeeded = recorded.get("exception").is_some_and(Value::is_null);
    let input = recorded.get("input").and_then(Value::as_object);
    let output = recorded.get("output");
    let (true, Some(input), Some(output)) = (succeeded, input, output) else {
        return Vec::new();
    };
    let raised = executed.get("exception").is_some_and(|e| !e.is_null());
    match api_name {
        "CancelTimedSwitch" if raised && output == "success" => timed_switch(input),
        "QueryAlarm" | "QueryReminder" | "QueryAgenda" | "QueryMeeting" if raised => {
            queried(api_name, output)
        }
        "DeleteAlarm" if raised && output == "success" => deleted(state, input, "Alarm", &["time"]),
        "DeleteReminder" if raised && output == "success" => {
            deleted(state, input, "Reminder", &["content", "time"])
        }
        "QueryRegistration" => registrations(output, executed.get("output")),
        _ => Vec::new(),
    }
}

fn timed_switch(input: &Map<String, Value>) -> Vec<Addition> {
    let device = input.get("device_id").and_then(|d| key_name(d).ok());
    let time = input.get("time").and_then(|t| format_check(t).ok());
    let (Some(device), Some(time)) = (device, time) else {
        return Vec::new();
    };
    let mut record = Map::new();
    record.insert("time".into(), time.into());
    vec![Addition {
        database: "TimeSwitch",
        place: Place::Append(device.clone()),
        record: Value::Object(record),
        owner: device,
    }]
}

/// The personal queries answer the whole record, its owner included.
fn queried(api_name: &str, output: &Value) -> Vec<Addition> {
    let database = match api_name {
        "QueryAlarm" => "Alarm",
        "QueryReminder" => "Reminder",
        "QueryAgenda" => "Agenda",
        _ => "Meeting",
    };
    let Some(owner) = output.get("username").and_then(Value::as_str) else {
        return Vec::new();
    };
    vec![Addition {
        database,
        place: Place::NextId,
        record: output.clone(),
        owner: owner.to_string(),
    }]
}

/// A deletion's record: its inputs (`fields`, in the database's order) and
/// the token's owner, who must be known.
fn deleted(
    state: &mut State,
    input: &Map<String, Value>,
    database: &'static str,
    fields: &[&str],
) -> Vec<Addition> {
    let owner = input
        .get("token")
        .and_then(Value::as_str)
        .and_then(|token| state.check_token(token).ok());
    let Some(owner) = owner else {
        return Vec::new();
    };
    let mut record = Map::new();
    for field in fields {
        let Some(value) = input.get(*field) else {
            return Vec::new();
        };
        record.insert(field.to_string(), value.clone());
    }
    record.insert("username".into(), owner.clone().into());
    vec![Addition {
        database,
        place: Place::NextId,
        record: Value::Object(record),
        owner,
    }]
}

/// The appointments a recorded listing holds and the world's answer lacks.
fn registrations(recorded: &Value, executed: Option<&Value>) -> Vec<Addition> {
    let Some(listed) = recorded.as_object() else {
        return Vec::new();
    };
    let answered = executed.and_then(Value::as_object);
    listed
        .iter()
        .filter(|(id, appointment)| {
            !answered
                .and_then(|a| a.get(*id))
                .is_some_and(|found| py_eq(found, appointment))
        })
        .filter(|(_, appointment)| appointment.is_object())
        .map(|(id, appointment)| Addition {
            database: "Appointments",
            place: Place::At(id.clone()),
            record: appointment.clone(),
            owner: appointment
                .get("patient_name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, state};
    use super::*;
    use serde_json::json;

    fn raised() -> Value {
        json!({"output": null, "exception": "device name does not exist."})
    }

    #[test]
    fn a_cancelled_switch_presupposes_its_schedule_entry() {
        let recorded = json!({"api_name": "CancelTimedSwitch",
            "input": {"device_id": " Lamp ", "time": "2023-3-19 09:30:00"}, "output": "success", "exception": null});
        let added = presupposed("CancelTimedSwitch", &mut state(&[]), &recorded, &raised());
        assert_eq!(
            added,
            vec![Addition {
                database: "TimeSwitch",
                place: Place::Append("lamp".into()),
                record: json!({"time": "2023-03-19 09:30:00"}),
                owner: "lamp".into(),
            }]
        );
        // A recorded failure presupposes nothing.
        let mut failed = recorded.clone();
        failed["output"] = Value::Null;
        failed["exception"] = json!("time does not exist.");
        assert!(presupposed("CancelTimedSwitch", &mut state(&[]), &failed, &raised()).is_empty());
    }

    #[test]
    fn a_query_presupposes_the_record_it_answered_and_a_deletion_what_it_removed() {
        let record = json!({"time": "2023-03-20 06:30:00", "username": "JohnDoe"});
        let recorded = json!({"input": {"token": "x", "time": "2023-03-20 06:30:00"}, "output": record, "exception": null});
        let added = presupposed("QueryAlarm", &mut state(&[]), &recorded, &raised());
        assert_eq!(added.len(), 1);
        assert_eq!(
            (added[0].database, &added[0].place),
            ("Alarm", &Place::NextId)
        );
        assert_eq!(added[0].record, record);

        let mut state = state(&[accounts()]);
        let recorded = json!({"input": {"token": "t-john", "content": "Call mom", "time": "2023-03-16 14:30:00"},
            "output": "success", "exception": null});
        let added = presupposed("DeleteReminder", &mut state, &recorded, &raised());
        assert_eq!(
            added[0].record,
            json!({"content": "Call mom", "time": "2023-03-16 14:30:00", "username": "JohnDoe"})
        );
        // An unknown token leaves the owner unknown: nothing is guessed.
        let mut unknown = recorded.clone();
        unknown["input"]["token"] = json!("nobody");
        assert!(presupposed("DeleteReminder", &mut state, &unknown, &raised()).is_empty());
    }

    #[test]
    fn a_listing_presupposes_only_the_appointments_missing_from_the_answer() {
        let recorded = json!({"input": {"patient_name": "Ann", "date": "2023-05-20"},
            "output": {"1": {"patient_name": "Ann", "date": "2023-05-20", "doctor_name": "Dr. A"},
                       "2": {"patient_name": "Ann", "date": "2023-05-20", "doctor_name": "Dr. B"}},
            "exception": null});
        let executed = json!({"output": {"1": {"patient_name": "Ann", "date": "2023-05-20", "doctor_name": "Dr. A"}}, "exception": null});
        let added = presupposed("QueryRegistration", &mut state(&[]), &recorded, &executed);
        assert_eq!(added.len(), 1);
        assert_eq!(added[0].place, Place::At("2".into()));
        assert_eq!(added[0].owner, "Ann");
    }

    #[test]
    fn other_apis_presuppose_nothing() {
        let recorded =
            json!({"input": {"appointment_id": "1"}, "output": "success", "exception": null});
        assert!(
            presupposed("CancelRegistration", &mut state(&[]), &recorded, &raised()).is_empty()
        );
    }
}
