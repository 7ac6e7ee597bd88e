//! BookHotel: reserves hotel rooms for a stay and answers with the order's
//! id.
//!
//! Database `Hotel`: `{order_id: {"hotel_name", "check_in_time",
//! "check_out_time", "room_count", "adult_count", "child_count"}}`. A new
//! order's id is the text of `len(Hotel) + 1`; a stay that overlaps an
//! order of the same hotel is refused (whatever the room counts).

use serde_json::{json, Value};

use super::super::catalog::{date, p, spec, text};
use super::super::state::{Key, Source, State};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_eq, subscript, type_name, Args};
use crate::sim::pytime::{strptime, DATE};
use crate::suite::ParamType;

const DATABASE: Source = Source::Shared("Hotel");

const FIELDS: [&str; 6] = [
    "hotel_name",
    "check_in_time",
    "check_out_time",
    "room_count",
    "adult_count",
    "child_count",
];

pub static API: Api = Api {
    spec: spec(
        "BookHotel",
        "Reserves hotel rooms for a stay.",
        &[
            text("hotel_name"),
            date("check_in_time"),
            date("check_out_time"),
            p("room_count", ParamType::Integer),
            p("adult_count", ParamType::Integer),
            p("child_count", ParamType::Integer),
        ],
        true,
    )
    .reading("Hotel"),
    reference: Reference {
        description: "This API orders a hotel room. Two rooms are ordered if the number of adults is greater than 2. Only one order can be made at same time.",
        input_parameters: &[
            ("hotel_name", "str", "The name of the hotel."),
            ("check_in_time", "str", "The time to check in. Format: %Y-%m-%d"),
            ("check_out_time", "str", "The time to check out. Format: %Y-%m-%d"),
            ("room_count", "int", "The number of rooms to order."),
            ("adult_count", "int", "The number of adults."),
            ("child_count", "int", "The number of children."),
        ],
        output_parameters: &[("order_id", "str", "The ID of the order.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &FIELDS);
    let outcome = order(state, &args).map(Value::from);
    result("BookHotel", input, outcome)
}

fn order(state: &mut State, args: &Args<'_>) -> Result<String, String> {
    let check_in = strptime(args.value("check_in_time"), DATE)?;
    let check_out = strptime(args.value("check_out_time"), DATE)?;
    if greater_than_two(args.value("adult_count"))? && py_eq(args.value("room_count"), &json!(1)) {
        return Err("The number of adults is greater than 2. Two rooms are ordered.".into());
    }
    let hotel = args.value("hotel_name");
    for (_, booked) in state.dict_mut(DATABASE).iter() {
        if !py_eq(subscript(booked, "hotel_name")?, hotel) {
            continue;
        }
        let from = strptime(subscript(booked, "check_in_time")?, DATE)?;
        let to = strptime(subscript(booked, "check_out_time")?, DATE)?;
        if (check_in >= from && check_in < to) || (check_out > from && check_out <= to) {
            return Err("The room is not available.".into());
        }
    }
    let id = (state.dict_mut(DATABASE).len() + 1).to_string();
    let item = input_of(args, &FIELDS);
    state
        .dict_mut(DATABASE)
        .insert(Key::text(id.as_str()), item);
    Ok(id)
}

/// `adult_count > 2` for an integer (or a float or bool, as Python
/// compares them); Python's `TypeError` for anything else.
fn greater_than_two(count: &Value) -> Result<bool, String> {
    match count {
        Value::Number(n) => Ok(n.as_f64().is_some_and(|x| x > 2.0)),
        Value::Bool(_) => Ok(false),
        other => Err(format!(
            "'>' not supported between instances of '{}' and 'int'",
            type_name(other)
        )),
    }
}

/// Same input, output and exception (Python `==`).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    ["input", "output", "exception"].iter().all(|field| {
        match (response.get(*field), groundtruth.get(*field)) {
            (Some(a), Some(b)) => py_eq(a, b),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;

    fn hotels() -> (&'static str, Value) {
        (
            "Hotel",
            json!({"1": {"hotel_name": "Hilton", "check_in_time": "2023-04-01", "check_out_time": "2023-04-05",
                         "room_count": 2, "adult_count": 4, "child_count": 2}}),
        )
    }

    fn booking(hotel: &str, from: &str, to: &str, rooms: i64, adults: i64) -> Value {
        json!({"hotel_name": hotel, "check_in_time": from, "check_out_time": to,
               "room_count": rooms, "adult_count": adults, "child_count": 0})
    }

    #[test]
    fn books_under_the_next_id() {
        let mut state = state(&[hotels()]);
        let out = call(
            &API,
            &mut state,
            booking("Hilton", "2023-04-05", "2023-04-07", 1, 2),
        );
        assert_eq!(out["output"], "2");
        assert_eq!(out["exception"], Value::Null);
        assert_eq!(
            state.dict_mut(DATABASE).get("2"),
            Some(&booking("Hilton", "2023-04-05", "2023-04-07", 1, 2))
        );
    }

    #[test]
    fn overlaps_too_many_adults_and_bad_dates_raise() {
        let mut state = state(&[hotels()]);
        let mut exception =
            |arguments: Value| call(&API, &mut state, arguments)["exception"].clone();
        assert_eq!(
            exception(booking("Hilton", "2023-03-30", "2023-04-02", 2, 2)),
            "The room is not available."
        );
        assert_eq!(
            exception(booking("Hilton", "2023-05-01", "2023-05-02", 1, 3)),
            "The number of adults is greater than 2. Two rooms are ordered."
        );
        assert_eq!(
            exception(booking("Hilton", "2023-5-1", "May 2", 1, 2)),
            "time data 'May 2' does not match format '%Y-%m-%d'"
        );
        let mut odd = booking("Ritz", "2023-05-01", "2023-05-02", 1, 2);
        odd["adult_count"] = json!("2");
        assert_eq!(
            exception(odd),
            "'>' not supported between instances of 'str' and 'int'"
        );
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }

    #[test]
    fn the_check_compares_everything() {
        let gold = json!({"api_name": "BookHotel", "input": booking("Hilton", "2023-05-01", "2023-05-02", 1, 2), "output": "11", "exception": null});
        assert!(correct(&gold, &gold));
        let mut other = gold.clone();
        other["output"] = json!("12");
        assert!(!correct(&other, &gold));
    }
}
