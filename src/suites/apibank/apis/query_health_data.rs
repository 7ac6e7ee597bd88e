//! QueryHealthData: a user's health readings over a time span.
//!
//! Database `HealthData` (shared with RecordHealthData): `{USER_ID:
//! [{"time", readings...}, ...]}` under upper-case ids. Readings whose
//! time falls within the span (both ends included) are listed in order.

use chrono::NaiveDateTime;
use serde_json::Value;

use super::super::catalog::{bound, spec, text, timestamp};
use super::super::state::{Key, Source, State};
use super::format_check::{parse, same, Checked};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_strip, str_method, subscript, type_name, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

pub(super) const DATABASE: Source = Source::Shared("HealthData");

pub static API: Api = Api {
    spec: spec(
        "QueryHealthData",
        "Lists a user's health readings over a time span.",
        &[
            text("user_id"),
            bound(timestamp("start_time")),
            bound(timestamp("end_time")),
        ],
        false,
    )
    .reading("HealthData"),
    reference: Reference {
        description:
            "This API queries the recorded health data in database of a given user and time span.",
        input_parameters: &[
            (
                "user_id",
                "str",
                "The user id of the given user. Cases are ignored.",
            ),
            (
                "start_time",
                "str",
                "The start time of the time span. Format: %Y-%m-%d %H:%M:%S",
            ),
            (
                "end_time",
                "str",
                "The end time of the time span. Format: %Y-%m-%d %H:%M:%S",
            ),
        ],
        output_parameters: &[(
            "health_data",
            "list",
            "The health data of the given user and time span.",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

const FIELDS: [&str; 3] = ["user_id", "start_time", "end_time"];

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &FIELDS);
    let outcome = query(state, &args).map(Value::Array);
    result("QueryHealthData", input, outcome)
}

type Span = (
    Option<String>,
    Checked<NaiveDateTime>,
    Checked<NaiveDateTime>,
);

/// The user id upper-cased and stripped (`None` when empty), and both
/// times parsed after padding a short year, or the errors they gave.
fn checked(user: &Value, start: &Value, end: &Value) -> Result<Span, String> {
    let user = py_strip(&str_method(user, "upper")?.to_uppercase()).to_string();
    let start = parse(start, TIMESTAMP)?;
    let end = parse(end, TIMESTAMP)?;
    Ok(((!user.is_empty()).then_some(user), start, end))
}

fn query(state: &mut State, args: &Args<'_>) -> Result<Vec<Value>, String> {
    let (user, start, end) = checked(
        args.value("user_id"),
        args.value("start_time"),
        args.value("end_time"),
    )?;
    let user = user.ok_or("The user id cannot be empty.")?;
    let (start, end) = match (start, end) {
        (Err(a), Err(b)) => return Err(format!("{a}; {b}")),
        (start, end) => (start?, end?),
    };
    if start > end {
        return Err("The start time cannot be later than the end time.".into());
    }
    let records = state
        .dict(DATABASE)
        .get_key(&Key::text(user))
        .ok_or("The user id does not exist.")?;
    let Value::Array(records) = records else {
        return Err(format!("'{}' object is not iterable", type_name(records)));
    };
    let mut found = Vec::new();
    for record in records {
        let time = strptime(subscript(record, "time")?, TIMESTAMP)?;
        if time >= start && time <= end {
            found.push(record.clone());
        }
    }
    if found.is_empty() {
        return Err("There is no health data in the given time span.".into());
    }
    Ok(found)
}

/// Same user and times (checked; two bad times are never the same),
/// output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<Span, String> {
        let input = subscript(result, "input")?;
        checked(
            subscript(input, "user_id")?,
            subscript(input, "start_time")?,
            subscript(input, "end_time")?,
        )
    };
    let (Ok(a), Ok(b)) = (read(response), read(groundtruth)) else {
        return false;
    };
    a.0 == b.0
        && same(&a.1, &b.1)
        && same(&a.2, &b.2)
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    pub fn health() -> (&'static str, Value) {
        (
            "HealthData",
            json!({"A12345": [
                {"time": "2023-03-15 10:30:00", "blood_pressure": [120, 80], "heart_rate": 80},
                {"time": "2023-03-20 08:00:00", "heart_rate": 75}
            ]}),
        )
    }

    fn query(state: &mut State, user: &str, start: &str, end: &str) -> Value {
        call(
            &API,
            state,
            json!({"user_id": user, "start_time": start, "end_time": end}),
        )
    }

    #[test]
    fn lists_readings_within_the_span() {
        let mut state = state(&[health()]);
        let out = query(
            &mut state,
            " a12345",
            "2023-03-01 00:00:00",
            "2023-03-15 10:30:00",
        );
        assert_eq!(
            out["output"],
            json!([{"time": "2023-03-15 10:30:00", "blood_pressure": [120, 80], "heart_rate": 80}])
        );
        assert_eq!(out["input"]["user_id"], " a12345");
    }

    #[test]
    fn bad_spans_and_unknown_users_raise() {
        let mut state = state(&[health()]);
        let mut exception = |user: &str, start: &str, end: &str| {
            query(&mut state, user, start, end)["exception"].clone()
        };
        assert_eq!(exception(" ", "x", "y"), "The user id cannot be empty.");
        assert_eq!(
            exception("A12345", "x", "y"),
            "time data 'x' does not match format '%Y-%m-%d %H:%M:%S'; time data 'y' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(
            exception("A12345", "2023-03-01 00:00:00", "2023-03-02"),
            "time data '2023-03-02' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        assert_eq!(
            exception("A12345", "2023-03-02 00:00:00", "2023-03-01 00:00:00"),
            "The start time cannot be later than the end time."
        );
        assert_eq!(
            exception("B1", "2023-03-01 00:00:00", "2023-03-02 00:00:00"),
            "The user id does not exist."
        );
        assert_eq!(
            exception("A12345", "2023-04-01 00:00:00", "2023-04-02 00:00:00"),
            "There is no health data in the given time span."
        );
    }

    #[test]
    fn the_check_compares_normalised_fields() {
        let gold = json!({"input": {"user_id": "A1", "start_time": "2023-03-01 00:00:00", "end_time": "2023-03-02 00:00:00"}, "output": [], "exception": null});
        let close = json!({"input": {"user_id": "a1 ", "start_time": "2023-3-1 0:00:00", "end_time": "2023-03-02 00:00:00"}, "output": [], "exception": null});
        assert!(correct(&close, &gold));
        let mut bad = gold.clone();
        bad["input"]["end_time"] = json!("later");
        assert!(!correct(&bad, &bad));
    }
}
