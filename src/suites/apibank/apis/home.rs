//! What the smart-home APIs share: scene names and device lists tidied as
//! the reference tidies them (AddScene, ModifyScene), and the timed
//! switches' reading of a time (TimedSwitch, CancelTimedSwitch).

use chrono::{Datelike, NaiveDateTime, Timelike};
use serde_json::Value;

use crate::sim::pyargs::{lower, py_eq, py_item, py_strip_value, py_zfill, type_name};
use crate::sim::pytime::{strptime_str, TIMESTAMP};

/// `name.strip().lower()`: how every scene and device name is keyed.
pub(super) fn key_name(name: &Value) -> Result<String, String> {
    lower(&Value::from(py_strip_value(name)?))
}

/// The items `for device in devices` visits: a list's items, a string's
/// characters, a dict's keys; anything else is not iterable.
fn items(devices: &Value) -> Result<Vec<Value>, String> {
    match devices {
        Value::Array(items) => Ok(items.clone()),
        Value::String(text) => Ok(text.chars().map(|c| Value::from(c.to_string())).collect()),
        Value::Object(map) => Ok(map.keys().map(|k| Value::from(k.as_str())).collect()),
        other => Err(format!("'{}' object is not iterable", type_name(other))),
    }
}

/// `key in device` for the text key `key`.
fn has(device: &Value, key: &str) -> Result<bool, String> {
    match device {
        Value::Object(map) => Ok(map.contains_key(key)),
        Value::String(text) => Ok(text.contains(key)),
        Value::Array(items) => Ok(items.iter().any(|item| py_eq(item, &Value::from(key)))),
        other => Err(format!(
            "argument of type '{}' is not iterable",
            type_name(other)
        )),
    }
}

/// AddScene's and ModifyScene's tidying of the device list, in place: each
/// device must have a name and a description; its name is stripped and
/// lower-cased, its description stripped; names must differ; the list is
/// then sorted by name. The reference changes the very list it reports as
/// the call's input, so a device tidied before a later one fails stays
/// tidied there, and a list that passes is reported sorted.
pub(super) fn tidy_devices(devices: &mut Value) -> Result<(), String> {
    let mut names: Vec<String> = Vec::new();
    for (index, device) in items(devices)?.iter().enumerate() {
        if !has(device, "name")? || !has(device, "description")? {
            return Err("Invalid device format.".into());
        }
        let name = key_name(py_item(device, "name")?)?;
        set(devices, index, "name", Value::from(name.as_str()));
        let description = py_strip_value(py_item(device, "description")?)?.to_string();
        set(devices, index, "description", Value::from(description));
        if names.contains(&name) {
            return Err("Device name cannot be duplicated.".into());
        }
        names.push(name);
    }
    match devices {
        Value::Array(list) => {
            // Every device is now a dict with a text name.
            list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            Ok(())
        }
        other => Err(format!(
            "'{}' object has no attribute 'sort'",
            type_name(other)
        )),
    }
}

/// `devices[index][field] = value` where that device is a dict in a list
/// (the only devices that get this far).
fn set(devices: &mut Value, index: usize, field: &str, value: Value) {
    if let Some(Value::Object(device)) = devices.get_mut(index) {
        device.insert(field.into(), value);
    }
}

/// The scene checks' tidying of a result's `(name, devices)`: as
/// [`tidy_devices`] without the duplicate check; `None` where the
/// reference would raise (something missing, not text, not a list of
/// dicts).
pub(super) fn tidied_scene(result: &Value) -> Option<(String, Vec<Value>)> {
    let input = result.get("input")?;
    let name = key_name(input.get("name")?).ok()?;
    let mut devices = input.get("devices")?.as_array()?.clone();
    for device in &mut devices {
        let device = device.as_object_mut()?;
        let device_name = key_name(device.get("name")?).ok()?;
        let description = device.get("description")?.as_str()?;
        let description = crate::sim::pyargs::py_strip(description).to_string();
        device.insert("name".into(), device_name.into());
        device.insert("description".into(), description.into());
    }
    devices.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Some((name, devices))
}

/// The timed switches' `format_check(time)`: the text stripped, a year of
/// other than four characters zero-filled to four (when the text has
/// exactly two dashes), then read as `%Y-%m-%d %H:%M:%S` and written back
/// as Python 3.11 on Linux writes it (a year below 1000 unpadded).
/// `Err` carries the exception the reference raises: `AttributeError` for
/// a time that is not text, the `strptime` error otherwise.
pub(super) fn format_check(time: &Value) -> Result<String, String> {
    let text = py_strip_value(time)?;
    let parts: Vec<&str> = text.split('-').collect();
    let text = if parts.len() == 3 && parts[0].chars().count() != 4 {
        format!("{}-{}-{}", py_zfill(parts[0], 4), parts[1], parts[2])
    } else {
        text.to_string()
    };
    let t = strptime_str(&text, TIMESTAMP)?;
    Ok(write_timestamp(&t))
}

fn write_timestamp(t: &NaiveDateTime) -> String {
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn devices_are_tidied_in_place_and_sorted() {
        let mut devices = json!([
            {"name": " Oven ", "description": " Smart oven "},
            {"name": "Light", "description": "Smart light"}
        ]);
        tidy_devices(&mut devices).unwrap();
        assert_eq!(
            devices,
            json!([{"name": "light", "description": "Smart light"}, {"name": "oven", "description": "Smart oven"}])
        );
        let mut devices = json!([
            {"name": " Oven ", "description": " a "},
            {"name": "OVEN", "description": "b"},
            {"name": "Light", "description": "c"}
        ]);
        assert_eq!(
            tidy_devices(&mut devices).unwrap_err(),
            "Device name cannot be duplicated."
        );
        // Tidied up to the failure, not sorted.
        assert_eq!(
            devices,
            json!([{"name": "oven", "description": "a"}, {"name": "oven", "description": "b"},
                   {"name": "Light", "description": "c"}])
        );
    }

    #[test]
    fn odd_device_lists_fail_as_python_fails() {
        let fails = |devices: Value| tidy_devices(&mut devices.clone()).unwrap_err();
        assert_eq!(fails(json!([{"name": "x"}])), "Invalid device format.");
        assert_eq!(fails(json!("[{'name': 'x'}]")), "Invalid device format.");
        assert_eq!(fails(json!("")), "'str' object has no attribute 'sort'");
        assert_eq!(fails(json!({})), "'dict' object has no attribute 'sort'");
        assert_eq!(fails(json!(null)), "'NoneType' object is not iterable");
        assert_eq!(fails(json!([3])), "argument of type 'int' is not iterable");
        assert_eq!(
            fails(json!(["name description"])),
            "string indices must be integers, not 'str'"
        );
        assert_eq!(
            fails(json!([{"name": 1, "description": "d"}])),
            "'int' object has no attribute 'strip'"
        );
    }

    #[test]
    fn times_are_normalised_as_the_switches_read_them() {
        assert_eq!(
            format_check(&json!(" 2023-3-9 9:05:00 ")).unwrap(),
            "2023-03-09 09:05:00"
        );
        assert_eq!(
            format_check(&json!("23-03-19 09:30:00")).unwrap(),
            "23-03-19 09:30:00"
        );
        assert_eq!(
            format_check(&json!("2023/03/19 09:30")).unwrap_err(),
            "time data '2023/03/19 09:30' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(
            format_check(&json!(5)).unwrap_err(),
            "'int' object has no attribute 'strip'"
        );
        assert_eq!(key_name(&json!(" Living Room ")).unwrap(), "living room");
    }
}
