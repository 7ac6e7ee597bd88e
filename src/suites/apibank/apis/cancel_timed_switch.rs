//! CancelTimedSwitch: cancels a device's scheduled switch at a moment.
//!
//! Database `TimeSwitch` (see TimedSwitch). The first entry at that moment
//! (as [`format_check`] reads it) leaves the device's schedule.
//!
//! The dialogues call the device `device_id`, and so does this API (its
//! input and its check), where the reference's code names the argument
//! `name` and could not be called as the dialogues call it. Its behaviour
//! is otherwise the reference's: a device without a schedule raises (a
//! recorded success presupposes the entry, which `fill --seed` adds). The
//! `Reference` keeps the reference's own parameter names, since that is
//! what ToolSearcher returns.

use serde_json::Value;

use super::super::catalog::{spec, text, timestamp};
use super::super::state::{Source, State};
use super::home::{format_check, key_name};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_eq, py_item, Args};

const DATABASE: Source = Source::Shared("TimeSwitch");

pub static API: Api = Api {
    spec: spec(
        "CancelTimedSwitch",
        "Cancels a scheduled on/off switch of a device.",
        &[text("device_id"), timestamp("time")],
        true,
    )
    .reading("TimeSwitch"),
    reference: Reference {
        description: "Cancels a timed switch for a smart device.",
        input_parameters: &[
            ("name", "str", "The name of the smart device."),
            (
                "time",
                "str",
                "The time to switch the device on or off. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[("status", "str", "Whether the time switch is successful.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["device_id", "time"]);
    let outcome = cancel(state, args.value("device_id"), args.value("time")).map(Value::from);
    result("CancelTimedSwitch", input, outcome)
}

fn cancel(state: &mut State, device: &Value, time: &Value) -> Result<&'static str, String> {
    let device = key_name(device)?;
    if device.is_empty() {
        return Err("name cannot be empty.".into());
    }
    let time = Value::from(format_check(time)?);
    let schedule = state
        .dict_mut(DATABASE)
        .get_mut(&device)
        .ok_or("device name does not exist.")?;
    // Schedules are lists (the file's and every one TimedSwitch makes).
    let Value::Array(entries) = schedule else {
        return Err("time does not exist.".into());
    };
    let mut at = None;
    for (index, entry) in entries.iter().enumerate() {
        if py_eq(py_item(entry, "time")?, &time) {
            at = Some(index);
            break;
        }
    }
    let index = at.ok_or("time does not exist.")?;
    entries.remove(index);
    Ok("success")
}

/// Same device once stripped and lower-cased, same time once both read by
/// [`format_check`] (a time it cannot read never matches), same output and
/// exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Option<(String, String)> {
        let input = result.get("input")?;
        Some((
            key_name(input.get("device_id")?).ok()?,
            format_check(input.get("time")?).ok()?,
        ))
    };
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    };
    match (read(response), read(groundtruth)) {
        (Some(a), Some(b)) => a == b && same("output") && same("exception"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn switches() -> (&'static str, Value) {
        (
            "TimeSwitch",
            json!({"range hood": [{"time": "2023-03-19 09:30:00", "on": true}, {"time": "2023-03-20 09:30:00", "on": false}]}),
        )
    }

    #[test]
    fn removes_the_entry_at_that_moment() {
        let mut state = state(&[switches()]);
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "Range Hood", "time": "2023-3-19 9:30:00"}),
        );
        assert_eq!(
            out,
            json!({"api_name": "CancelTimedSwitch", "input": {"device_id": "Range Hood", "time": "2023-3-19 9:30:00"},
                   "output": "success", "exception": null})
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("range hood"),
            Some(&json!([{"time": "2023-03-20 09:30:00", "on": false}]))
        );
        assert!(correct(&out, &out));
    }

    #[test]
    fn unknown_devices_and_moments_raise() {
        let mut state = state(&[switches()]);
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "10000025", "time": "2023-03-19 09:30:00"}),
        );
        assert_eq!(out["exception"], "device name does not exist.");
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "range hood", "time": "2023-03-21 09:30:00"}),
        );
        assert_eq!(out["exception"], "time does not exist.");
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "", "time": "2023-03-21 09:30:00"}),
        );
        assert_eq!(out["exception"], "name cannot be empty.");
        assert_eq!(
            state
                .dict_mut(DATABASE)
                .get("range hood")
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
}
