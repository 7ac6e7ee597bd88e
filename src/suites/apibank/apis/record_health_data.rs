//! RecordHealthData: stores a user's health readings taken at a moment.
//!
//! Database `HealthData` (see QueryHealthData). Readings are a list of
//! `{"name", "value"}`; they are stored as one record `{"time", name:
//! value, ...}` under the upper-case user id, or merged into the record
//! already stored for that time (the last one, if several).

use serde_json::{Map, Value};

use super::super::catalog::{optional, p, spec, text, timestamp};
use super::super::state::{Key, State};
use super::format_check::reformat;
use super::query_health_data::DATABASE;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{display, py_eq, py_in, py_strip, str_method, subscript, type_name, Args};
use crate::sim::pytime::TIMESTAMP;
use crate::suite::{ParamSpec, ParamType};

pub static API: Api = Api {
    spec: spec(
        "RecordHealthData",
        "Stores health readings for a user at a moment.",
        &[
            text("user_id"),
            timestamp("time"),
            optional(ParamSpec {
                fields: &[text("name"), text("value")],
                ..p("health_data", ParamType::Array(&ParamType::Object))
            }),
        ],
        true,
    )
    .reading("HealthData"),
    reference: Reference {
        description: "This API records the health data of a user.",
        input_parameters: &[
            ("user_id", "str", "The ID of user."),
            (
                "time",
                "str",
                "The time of health data. Format: %Y-%m-%d %H:%M:%S",
            ),
            (
                "health_data",
                "list",
                "The health data, with the format like [{'name': 'blood_pressure', 'value': '120/80'}, {'name': 'heart_rate', 'value': '80'}]",
            ),
        ],
        output_parameters: &[("status", "str", "The status of recording.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["user_id", "time", "health_data"]);
    let outcome = record(state, &args).map(Value::from);
    result("RecordHealthData", input, outcome)
}

/// The items Python's `for data in health_data` walks: a list's items, a
/// string's characters, a dict's keys.
fn items(readings: &Value) -> Result<Vec<Value>, String> {
    match readings {
        Value::Array(items) => Ok(items.clone()),
        Value::String(text) => Ok(text.chars().map(|c| Value::String(c.into())).collect()),
        Value::Object(map) => Ok(map.keys().map(|k| Value::from(k.as_str())).collect()),
        other => Err(format!(
            "object of type '{}' has no len()",
            type_name(other)
        )),
    }
}

/// A reading's name as the key of a JSON object (`json.dumps` writes a
/// non-text key in its JSON spelling).
fn key(name: &Value) -> String {
    match name {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn record(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let user = py_strip(&str_method(args.value("user_id"), "upper")?.to_uppercase()).to_string();
    if user.is_empty() {
        return Err("The user id cannot be empty.".into());
    }
    let time = reformat(args.value("time"), TIMESTAMP)??;
    let readings = match args.get("health_data") {
        None => return Err("The health data cannot be empty.".into()),
        Some(readings) => items(readings)?,
    };
    if readings.is_empty() {
        return Err("The health data cannot be empty.".into());
    }
    let mut names: Vec<&Value> = Vec::new();
    for reading in &readings {
        if !py_in(&Value::from("name"), reading)? {
            return Err("The health data has invalid format.".into());
        }
        let name = subscript(reading, "name")?;
        if matches!(name, Value::Array(_) | Value::Object(_)) {
            return Err(format!("unhashable type: '{}'", type_name(name)));
        }
        if names.iter().any(|seen| py_eq(seen, name)) {
            return Err("The health data cannot contain duplicate items.".into());
        }
        names.push(name);
    }
    let database = state.dict_mut(DATABASE);
    let user = Key::text(user);
    if database.get_key(&user).is_none() {
        database.insert(user.clone(), Value::Array(Vec::new()));
    }
    let Some(Value::Array(records)) = database.get_key_mut(&user) else {
        return Err("the stored health data of this user is not a list".into());
    };
    let mut stored = None;
    for (index, record) in records.iter().enumerate() {
        if subscript(record, "time")? == time.as_str() {
            stored = Some(index);
        }
    }
    match stored {
        Some(index) => {
            let Value::Object(record) = &mut records[index] else {
                unreachable!("a record with a time is a dict")
            };
            for reading in &readings {
                let value = subscript(reading, "value")?.clone();
                record.insert(key(subscript(reading, "name")?), value);
            }
        }
        None => {
            let mut record = Map::new();
            record.insert("time".into(), Value::from(time.as_str()));
            for reading in &readings {
                let value = subscript(reading, "value")?.clone();
                record.insert(key(subscript(reading, "name")?), value);
            }
            records.push(Value::Object(record));
        }
    }
    Ok("success")
}

/// Same user (the prediction's read as `str()`) and time (checked; two
/// bad times are never the same), output and exception; the readings
/// themselves are not compared.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read =
        |result: &Value, user: &dyn Fn(&Value) -> Result<String, String>| -> Result<_, String> {
            let input = subscript(result, "input")?;
            let _ = subscript(input, "health_data")?;
            let user = py_strip(&user(subscript(input, "user_id")?)?.to_uppercase()).to_string();
            Ok((user, reformat(subscript(input, "time")?, TIMESTAMP)?))
        };
    let as_text = |v: &Value| Ok(display(v));
    let text_only = |v: &Value| str_method(v, "upper").map(str::to_string);
    let (Ok(a), Ok(b)) = (read(response, &as_text), read(groundtruth, &text_only)) else {
        return false;
    };
    a.0 == b.0
        && matches!((&a.1, &b.1), (Ok(x), Ok(y)) if x == y)
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::query_health_data::tests::health;
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn record(state: &mut State, user: &str, time: &str, readings: Value) -> Value {
        call(
            &API,
            state,
            json!({"user_id": user, "time": time, "health_data": readings}),
        )
    }

    #[test]
    fn stores_a_new_record_and_merges_into_one_of_the_same_time() {
        let mut state = state(&[health()]);
        let readings = json!([{"name": "blood_pressure", "value": "120/80"}, {"name": "heart_rate", "value": "80"}]);
        let out = record(&mut state, "b1 ", "2023-8-6 9:00:00", readings);
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get("B1"),
            Some(
                &json!([{"time": "2023-08-06 09:00:00", "blood_pressure": "120/80", "heart_rate": "80"}])
            )
        );
        let out = record(
            &mut state,
            "A12345",
            "2023-03-20 08:00:00",
            json!([{"name": "heart_rate", "value": 70}, {"name": "weight", "value": 60}]),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(
            state.dict_mut(DATABASE).get("A12345").unwrap()[1],
            json!({"time": "2023-03-20 08:00:00", "heart_rate": 70, "weight": 60})
        );
    }

    #[test]
    fn malformed_readings_raise() {
        let mut state = state(&[health()]);
        let mut exception = |user: &str, time: &str, readings: Value| {
            record(&mut state, user, time, readings)["exception"].clone()
        };
        let at = "2023-08-06 09:00:00";
        assert_eq!(
            exception(" ", at, json!([])),
            "The user id cannot be empty."
        );
        assert_eq!(
            exception("B1", "noon", json!([])),
            "time data 'noon' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(
            exception("B1", at, json!(null)),
            "The health data cannot be empty."
        );
        assert_eq!(
            exception("B1", at, json!([])),
            "The health data cannot be empty."
        );
        assert_eq!(
            exception("B1", at, json!([{"value": 1}])),
            "The health data has invalid format."
        );
        // A list left as text (as the reference's ToolManager leaves it)
        // is walked character by character.
        assert_eq!(
            exception("B1", at, json!("[{'name': 'x'}]")),
            "The health data has invalid format."
        );
        assert_eq!(
            exception(
                "B1",
                at,
                json!([{"name": "a", "value": 1}, {"name": "a", "value": 2}])
            ),
            "The health data cannot contain duplicate items."
        );
        // A reading without a value fails after the user's list is made.
        assert_eq!(exception("B1", at, json!([{"name": "a"}])), "'value'");
        assert_eq!(state.dict_mut(DATABASE).get("B1"), Some(&json!([])));
    }

    #[test]
    fn the_check_ignores_the_readings() {
        let gold = json!({"input": {"user_id": "12345", "time": "2023-08-06 09:00:00", "health_data": [{"name": "a", "value": 1}]}, "output": "success", "exception": null});
        let mut other = gold.clone();
        other["input"]["health_data"] = json!([]);
        other["input"]["user_id"] = json!(12345);
        assert!(correct(&other, &gold));
        assert!(!correct(&gold, &other));
    }
}
