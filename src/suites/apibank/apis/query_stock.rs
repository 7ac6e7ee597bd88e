//! QueryStock: a stock's price on a day.
//!
//! Database `Stock` (read only): `{code: {"%Y-%m-%d": price}}` under
//! upper-case stock codes; the date is normalised before the lookup.

use serde_json::Value;

use super::super::catalog::{composed, date, spec};
use super::super::state::State;
use super::format_check::{reformat, same, Checked};
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, Args};
use crate::sim::pytime::DATE;

pub static API: Api = Api {
    spec: spec(
        "QueryStock",
        "Tells a stock's price on a day.",
        // A ticker is the model's translation of a company name it was told.
        &[composed("stock_code"), date("date")],
        false,
    )
    .reading("Stock"),
    reference: Reference {
        description: "This API queries the stock price of a given stock code and date.",
        input_parameters: &[
            ("stock_code", "str", "The stock code of the given stock."),
            (
                "date",
                "str",
                "The date of the stock price. Format: %Y-%m-%d",
            ),
        ],
        output_parameters: &[(
            "stock_price",
            "float",
            "The stock price of the given stock.",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["stock_code", "date"]);
    let outcome = query(database(state, "Stock"), &args);
    result("QueryStock", input, outcome)
}

/// The reference's `format_check`: the code upper-cased and stripped
/// (`None` when empty), the date normalised or the error it gave.
fn checked(code: &Value, date: &Value) -> Result<(Option<String>, Checked<String>), String> {
    let code = py_strip(&str_method(code, "upper")?.to_uppercase()).to_string();
    let date = reformat(date, DATE)?;
    Ok(((!code.is_empty()).then_some(code), date))
}

fn query(prices: &Value, args: &Args<'_>) -> Result<Value, String> {
    let (code, date) = checked(args.value("stock_code"), args.value("date"))?;
    let code = code.ok_or("The stock code cannot be empty.")?;
    let date = date?;
    if !py_in(&Value::from(code.as_str()), prices)? {
        return Err("The stock code does not exist.".into());
    }
    let stock = subscript(prices, &code)?;
    if !py_in(&Value::from(date.as_str()), stock)? {
        return Err("The stock price of this date is not maintained.".into());
    }
    subscript(stock, &date).cloned()
}

/// Same code and date (checked; two bad dates are never the same), output
/// and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<_, String> {
        let input = subscript(result, "input")?;
        checked(subscript(input, "stock_code")?, subscript(input, "date")?)
    };
    let (Ok(a), Ok(b)) = (read(response), read(groundtruth)) else {
        return false;
    };
    a.0 == b.0
        && same(&a.1, &b.1)
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn stocks() -> (&'static str, Value) {
        ("Stock", json!({"AAPL": {"2022-01-03": 184.5}}))
    }

    #[test]
    fn answers_the_price_for_a_normalised_code_and_date() {
        let mut state = state(&[stocks()]);
        let out = call(
            &API,
            &mut state,
            json!({"stock_code": " aapl", "date": "2022-1-3"}),
        );
        assert_eq!(out["output"], json!(184.5));
        assert_eq!(out["exception"], Value::Null);
    }

    #[test]
    fn empty_codes_bad_dates_and_unknown_entries_raise() {
        let mut state = state(&[stocks()]);
        let mut exception = |code: &str, date: &str| {
            call(&API, &mut state, json!({"stock_code": code, "date": date}))["exception"].clone()
        };
        assert_eq!(
            exception(" ", "nonsense"),
            "The stock code cannot be empty."
        );
        assert_eq!(
            exception("AAPL", "3 Jan"),
            "time data '3 Jan' does not match format '%Y-%m-%d'"
        );
        assert_eq!(
            exception("MSFT", "2022-01-03"),
            "The stock code does not exist."
        );
        assert_eq!(
            exception("AAPL", "2022-01-04"),
            "The stock price of this date is not maintained."
        );
    }

    #[test]
    fn the_check_normalises_code_and_date() {
        let gold = json!({"input": {"stock_code": "AAPL", "date": "2022-01-03"}, "output": 184.5, "exception": null});
        let close = json!({"input": {"stock_code": "aapl ", "date": "2022-1-03"}, "output": 184.5, "exception": null});
        assert!(correct(&close, &gold));
        let bad =
            json!({"input": {"stock_code": "AAPL", "date": "x"}, "output": null, "exception": "e"});
        assert!(!correct(&bad, &bad));
    }
}
