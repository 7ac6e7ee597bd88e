//! GetUserToken: logs a user in with username and password and hands out
//! the user's token, which the personal APIs take as an argument.

use serde_json::{json, Value};

use super::super::catalog::{spec, text};
use super::super::state::{Key, Source, State, ACCOUNT};
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::Args;
use crate::suite::{SessionEffect, ToolSpec};

pub static API: Api = Api {
    spec: ToolSpec {
        session: SessionEffect::Opens,
        ..spec(
            "GetUserToken",
            "Logs the user in and hands out their token.",
            &[text("username"), text("password")],
            false,
        )
    },
    reference: Reference {
        description: "Get the user token by username and password.",
        input_parameters: &[
            ("username", "str", "The username of the user."),
            ("password", "str", "The password of the user."),
        ],
        output_parameters: &[("token", "str", "The token of the user.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["username", "password"]);
    let outcome = token(state, args.value("username"), args.value("password"))
        .map(|token| json!({ "token": token }));
    result("GetUserToken", input, outcome)
}

fn token(state: &mut State, username: &Value, password: &Value) -> Result<Value, String> {
    let accounts = state.dict(Source::Shared(ACCOUNT));
    let account = username
        .as_str()
        .and_then(|name| accounts.get_key(&Key::text(name)))
        .ok_or("The username does not exist.")?;
    if account.get("password") != Some(password) {
        return Err("The password is incorrect.".into());
    }
    Ok(account.get("token").cloned().unwrap_or(Value::Null))
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    #[test]
    fn the_right_password_gives_the_token() {
        let mut state = state(&[accounts()]);
        let out = call(
            &API,
            &mut state,
            json!({"username": "JohnDoe", "password": "pass123"}),
        );
        assert_eq!(
            out,
            json!({"api_name": "GetUserToken", "input": {"username": "JohnDoe", "password": "pass123"},
                   "output": {"token": "t-john"}, "exception": null})
        );
        assert!(correct(&out, &out));
    }

    #[test]
    fn an_unknown_user_and_a_wrong_password_raise() {
        let mut state = state(&[accounts()]);
        let out = call(
            &API,
            &mut state,
            json!({"username": "Nobody", "password": "x"}),
        );
        assert_eq!(out["exception"], "The username does not exist.");
        assert_eq!(out["output"], Value::Null);
        let out = call(
            &API,
            &mut state,
            json!({"username": "JohnDoe", "password": "x"}),
        );
        assert_eq!(out["exception"], "The password is incorrect.");
    }
}
