//! QueryHistoryToday: historical events that happened on a day of the
//! year.
//!
//! Database `History` (read only): `{"%m-%d": [{"Title", "Date",
//! "Description"}, ...]}`. The date may be given as `%m-%d` or
//! `%Y-%m-%d`; a `%m-%d` date is read in the year 1900, so `02-29` is
//! "day is out of range for month", as in the reference.

use chrono::NaiveDateTime;
use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::format_check::{pad_year, same, Checked};
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, type_name, Args};
use crate::sim::pytime::{strftime, strptime_str, DATE};
use crate::suite::{ParamSpec, ValueFormat};

const MONTH_DAY: &str = "%m-%d";

pub static API: Api = Api {
    spec: spec(
        "QueryHistoryToday",
        "Lists historical events that happened on a day of the year.",
        &[ParamSpec {
            format: ValueFormat::MonthDay,
            ..text("date")
        }],
        false,
    )
    .reading("History"),
    reference: Reference {
        description: "This API queries the history of the given date.",
        input_parameters: &[("date", "str", "The date of the history. Format: %m-%d")],
        output_parameters: &[("history", "list", "The history of the user today.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["date"]);
    let outcome = history(database(state, "History"), args.value("date"));
    result("QueryHistoryToday", input, outcome)
}

/// The reference's `filter_date_format`: a full date or a month and day,
/// written as `%m-%d`; when neither parses, the month-and-day error.
fn checked(date: &Value) -> Result<Checked<String>, String> {
    let date = pad_year(str_method(date, "strip")?);
    let parsed: Checked<NaiveDateTime> =
        strptime_str(&date, DATE).or_else(|_| strptime_str(&date, MONTH_DAY));
    Ok(parsed.map(|t| strftime(&t, MONTH_DAY)))
}

fn history(events: &Value, date: &Value) -> Result<Value, String> {
    let day = checked(date)??;
    if !py_in(&Value::from(day.as_str()), events)? {
        return Err("The date is not in the database.".into());
    }
    let items = match subscript(events, &day)? {
        Value::Array(items) => items,
        // `history[i]` for i in range(len(history)), on other shapes.
        Value::Object(map) if map.is_empty() => return Ok(Value::Array(Vec::new())),
        Value::String(text) if text.is_empty() => return Ok(Value::Array(Vec::new())),
        Value::Object(_) => return Err("0".into()),
        Value::String(_) => return Err("string indices must be integers, not 'str'".into()),
        other => {
            return Err(format!(
                "object of type '{}' has no len()",
                type_name(other)
            ))
        }
    };
    items
        .iter()
        .map(|event| {
            let field = |name: &str| -> Result<String, String> {
                Ok(py_strip(str_method(subscript(event, name)?, "strip")?).to_string())
            };
            Ok(Value::String(format!(
                "Title: {}, Date: {}, Description: {}",
                field("Title")?,
                field("Date")?,
                field("Description")?
            )))
        })
        .collect::<Result<Vec<Value>, String>>()
        .map(Value::Array)
}

/// Same day (checked; two bad dates are never the same), output and
/// exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let day = |result: &Value| checked(subscript(subscript(result, "input")?, "date")?);
    let (Ok(a), Ok(b)) = (day(response), day(groundtruth)) else {
        return false;
    };
    same(&a, &b)
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn events() -> (&'static str, Value) {
        (
            "History",
            json!({"04-21": [{"Title": " First Game ", "Date": "1903-04-21", "Description": "Played. "}]}),
        )
    }

    #[test]
    fn lists_the_days_events_for_either_date_form() {
        let mut state = state(&[events()]);
        for date in ["04-21", "4-21", "2023-04-21", " 23-4-21 "] {
            let out = call(&API, &mut state, json!({ "date": date }));
            assert_eq!(
                out["output"],
                json!(["Title: First Game, Date: 1903-04-21, Description: Played."]),
                "{date}"
            );
        }
    }

    #[test]
    fn bad_and_unknown_days_raise() {
        let mut state = state(&[events()]);
        let mut exception =
            |date: &str| call(&API, &mut state, json!({ "date": date }))["exception"].clone();
        assert_eq!(exception("02-29"), "day is out of range for month");
        assert_eq!(
            exception("April 21"),
            "time data 'April 21' does not match format '%m-%d'"
        );
        assert_eq!(exception("05-01"), "The date is not in the database.");
    }

    #[test]
    fn the_check_compares_days() {
        let gold = json!({"input": {"date": "04-21"}, "output": [], "exception": null});
        let close = json!({"input": {"date": "2020-04-21"}, "output": [], "exception": null});
        assert!(correct(&close, &gold));
        let bad = json!({"input": {"date": "x"}, "output": null, "exception": "e"});
        assert!(!correct(&bad, &bad));
    }
}
