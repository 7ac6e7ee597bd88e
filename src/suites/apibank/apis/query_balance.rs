//! QueryBalance: the balance of the user a token belongs to.
//!
//! Database `Bank` (read only): `{username: {"balance", ...}}`. Any
//! trouble with the token (not text, unknown) is "The token is incorrect."

use serde_json::Value;

use super::super::catalog::{spec, TOKEN};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "QueryBalance",
        "Tells the user's bank balance.",
        &[TOKEN],
        false,
    )
    .reading("Bank"),
    reference: Reference {
        description: "This API queries the balance of a given user.",
        input_parameters: &[("token", "str", "The token of the user.")],
        output_parameters: &[("balance", "float", "The balance of the user.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token"]);
    let outcome = balance(state, args.value("token"));
    result("QueryBalance", input, outcome)
}

fn balance(state: &mut State, token: &Value) -> Result<Value, String> {
    const INCORRECT: &str = "The token is incorrect.";
    let token = token.as_str().ok_or(INCORRECT)?;
    let user = state.check_token(token).map_err(|_| INCORRECT)?;
    let accounts = database(state, "Bank");
    if !py_in(&Value::from(user.as_str()), accounts)? {
        return Err("The user does not have an account.".into());
    }
    subscript(subscript(accounts, &user)?, "balance").cloned()
}

/// Same token (stripped), output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let token = |result: &Value| -> Result<String, String> {
        let token = subscript(subscript(result, "input")?, "token")?;
        Ok(py_strip(str_method(token, "strip")?).to_string())
    };
    match (token(response), token(groundtruth)) {
        (Ok(a), Ok(b)) => {
            a == b
                && response.get("output") == groundtruth.get("output")
                && response.get("exception") == groundtruth.get("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;
    use serde_json::json;

    fn bank() -> (&'static str, Value) {
        ("Bank", json!({"JohnDoe": {"balance": 2739.25, "age": 29}}))
    }

    #[test]
    fn answers_the_token_holders_balance() {
        let mut state = state(&[accounts(), bank()]);
        let out = call(&API, &mut state, json!({"token": "t-john"}));
        assert_eq!(
            out,
            json!({"api_name": "QueryBalance", "input": {"token": "t-john"}, "output": 2739.25, "exception": null})
        );
    }

    #[test]
    fn bad_tokens_and_users_without_an_account_raise() {
        let mut state = state(&[accounts(), bank()]);
        let out = call(&API, &mut state, json!({"token": "nope"}));
        assert_eq!(out["exception"], "The token is incorrect.");
        let out = call(&API, &mut state, json!({"token": 5}));
        assert_eq!(out["exception"], "The token is incorrect.");
        let out = call(&API, &mut state, json!({"token": "t-jane"}));
        assert_eq!(out["exception"], "The user does not have an account.");
    }

    #[test]
    fn the_check_strips_tokens() {
        let gold = json!({"input": {"token": "t"}, "output": 1.5, "exception": null});
        let close = json!({"input": {"token": " t "}, "output": 1.5, "exception": null});
        assert!(correct(&close, &gold));
        let other = json!({"input": {"token": "t"}, "output": 2.5, "exception": null});
        assert!(!correct(&other, &gold));
    }
}
