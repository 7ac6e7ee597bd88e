//! TimedSwitch: schedules a device to switch on or off at a moment.
//!
//! Database `TimeSwitch`: `{device: [{"time", "on"}, ...]}`, keyed by the
//! device stripped and lower-cased, times as [`format_check`] writes them.
//! A device without a schedule gets one; a moment already scheduled gets
//! the new `on` in place; another moment is appended.
//!
//! The dialogues call the device `device_id`, and so does this API (its
//! input and its check), where the reference's code names the argument
//! `name` and could not be called as the dialogues call it. Its behaviour
//! is otherwise the reference's. The `Reference` keeps the reference's own
//! parameter names, since that is what ToolSearcher returns.

use serde_json::{json, Value};

use super::super::catalog::{p, spec, text, timestamp};
use super::super::state::{Key, Source, State};
use super::home::{format_check, key_name};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{no_attribute, py_eq, py_item, Args};
use crate::suite::ParamType;

const DATABASE: Source = Source::Shared("TimeSwitch");

pub static API: Api = Api {
    spec: spec(
        "TimedSwitch",
        "Schedules a device to switch on or off at a moment.",
        &[
            text("device_id"),
            timestamp("time"),
            p("on", ParamType::Boolean),
        ],
        true,
    )
    .reading("TimeSwitch"),
    reference: Reference {
        description: "This API for setting a timed switch for a smart device.",
        input_parameters: &[
            ("name", "str", "The name of the smart device."),
            (
                "time",
                "str",
                "The time to switch the device on or off. Format: %Y-%m-%d %H:%M:%S",
            ),
            ("on", "bool", "Whether to switch the device on or off."),
        ],
        output_parameters: &[("status", "str", "Whether the time switch is successful.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["device_id", "time", "on"]);
    let outcome = switch(
        state,
        args.value("device_id"),
        args.value("time"),
        args.value("on"),
    )
    .map(Value::from);
    result("TimedSwitch", input, outcome)
}

fn switch(
    state: &mut State,
    device: &Value,
    time: &Value,
    on: &Value,
) -> Result<&'static str, String> {
    let device = key_name(device)?;
    if device.is_empty() {
        return Err("Name cannot be empty.".into());
    }
    let time = format_check(time)?;
    let switches = state.dict_mut(DATABASE);
    let Some(schedule) = switches.get_mut(&device) else {
        switches.insert(Key::Text(device), json!([{"time": time, "on": on}]));
        return Ok("success");
    };
    // Schedules are lists (the file's and every one this API makes).
    let Value::Array(entries) = schedule else {
        return Err(no_attribute(schedule, "append"));
    };
    for entry in entries.iter_mut() {
        if py_eq(py_item(entry, "time")?, &Value::from(time.as_str())) {
            if let Value::Object(entry) = entry {
                entry.insert("on".into(), on.clone());
            }
            return Ok("success");
        }
    }
    entries.push(json!({"time": time, "on": on}));
    Ok("success")
}

/// Same device once stripped and lower-cased, same time once both read by
/// [`format_check`] (a time it cannot read never matches: the reference
/// compares exception objects, which are never equal), same `on`, output
/// and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Option<(String, String, Value)> {
        let input = result.get("input")?;
        Some((
            key_name(input.get("device_id")?).ok()?,
            format_check(input.get("time")?).ok()?,
            input.get("on")?.clone(),
        ))
    };
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => py_eq(x, y),
        _ => false,
    };
    match (read(response), read(groundtruth)) {
        (Some(a), Some(b)) => {
            a.0 == b.0 && a.1 == b.1 && py_eq(&a.2, &b.2) && same("output") && same("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;

    fn switches() -> (&'static str, Value) {
        (
            "TimeSwitch",
            json!({"light": [{"time": "2023-03-15 18:30:00", "on": true}]}),
        )
    }

    #[test]
    fn schedules_new_devices_and_moments_and_updates_known_ones() {
        let mut state = state(&[switches()]);
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "12345", "time": "2021-08-05 19:00:00", "on": true}),
        );
        assert_eq!(
            out,
            json!({"api_name": "TimedSwitch", "input": {"device_id": "12345", "time": "2021-08-05 19:00:00", "on": true},
                   "output": "success", "exception": null})
        );
        assert!(correct(&out, &out));
        call(
            &API,
            &mut state,
            json!({"device_id": " Light", "time": "2023-3-15 18:30:00", "on": false}),
        );
        call(
            &API,
            &mut state,
            json!({"device_id": "light", "time": "2023-03-16 18:30:00", "on": true}),
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("light"),
            Some(
                &json!([{"time": "2023-03-15 18:30:00", "on": false}, {"time": "2023-03-16 18:30:00", "on": true}])
            )
        );
        assert_eq!(
            state.dict_mut(DATABASE).get("12345"),
            Some(&json!([{"time": "2021-08-05 19:00:00", "on": true}]))
        );
    }

    #[test]
    fn empty_devices_and_bad_times_raise() {
        let mut state = state(&[switches()]);
        let out = call(
            &API,
            &mut state,
            json!({"device_id": " ", "time": "2021-08-05 19:00:00", "on": true}),
        );
        assert_eq!(out["exception"], "Name cannot be empty.");
        let out = call(
            &API,
            &mut state,
            json!({"device_id": "tv", "time": "tonight", "on": true}),
        );
        assert_eq!(
            out["exception"],
            "time data 'tonight' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert!(!correct(&out, &out));
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }

    #[test]
    fn the_check_reads_device_and_time_loosely() {
        let gold = json!({"api_name": "TimedSwitch", "input": {"device_id": "TV", "time": "2023-03-15 18:30:00", "on": true},
                          "output": "success", "exception": null});
        let mut other = gold.clone();
        other["input"] = json!({"device_id": "tv ", "time": "2023-3-15 18:30:00", "on": true});
        assert!(correct(&other, &gold));
        other["input"]["on"] = json!(false);
        assert!(!correct(&other, &gold));
    }
}
