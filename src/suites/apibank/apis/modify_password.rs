//! ModifyPassword: changes the user's password, given the old one. The
//! output is `{"status": "success"}`.

use serde_json::{json, Value};

use super::super::catalog::{spec, text, TOKEN};
use super::super::state::{Key, Source, State, ACCOUNT};
use super::records::owner;
use super::{input_of, result, same_fields, Api, Reference};
use crate::sim::pyargs::{key_error, py_eq, py_item, Args};

pub static API: Api = Api {
    spec: spec(
        "ModifyPassword",
        "Changes the user's password.",
        &[TOKEN, text("old_password"), text("new_password")],
        true,
    ),
    reference: Reference {
        description: "The API for modifying the password of the account.",
        input_parameters: &[
            ("token", "str", "The token of the user."),
            ("old_password", "str", "The old password of the user."),
            ("new_password", "str", "The new password of the user."),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "old_password", "new_password"]);
    let outcome = modify(
        state,
        args.value("token"),
        args.value("old_password"),
        args.value("new_password"),
    )
    .map(|status| json!({ "status": status }));
    result("ModifyPassword", input, outcome)
}

fn modify(
    state: &mut State,
    token: &Value,
    old_password: &Value,
    new_password: &Value,
) -> Result<&'static str, String> {
    let username = owner(state, token)?;
    let account = state
        .dict_mut(Source::Shared(ACCOUNT))
        .get_key_mut(&Key::text(username.as_str()))
        .ok_or_else(|| key_error(&username))?;
    if !py_eq(py_item(account, "password")?, old_password) {
        return Err("The old password is incorrect.".into());
    }
    if let Value::Object(account) = account {
        account.insert("password".into(), new_password.clone());
    }
    Ok("success")
}

/// Same input, exception and output.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "exception", "output"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    #[test]
    fn the_old_password_opens_the_change() {
        let mut state = state(&[accounts()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "old_password": "pass123", "new_password": "s3cret"}),
        );
        assert_eq!(
            out,
            json!({"api_name": "ModifyPassword",
                   "input": {"token": "t-john", "old_password": "pass123", "new_password": "s3cret"},
                   "output": {"status": "success"}, "exception": null})
        );
        assert!(correct(&out, &out));
        assert_eq!(
            state
                .dict_mut(Source::Shared(ACCOUNT))
                .get("JohnDoe")
                .unwrap()["password"],
            "s3cret"
        );
    }

    #[test]
    fn a_wrong_old_password_or_token_changes_nothing() {
        let mut state = state(&[accounts()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "old_password": "nope", "new_password": "s3cret"}),
        );
        assert_eq!(out["exception"], "The old password is incorrect.");
        assert_eq!(out["output"], Value::Null);
        let out = call(
            &API,
            &mut state,
            json!({"token": "bad", "old_password": "pass123", "new_password": "s3cret"}),
        );
        assert_eq!(out["exception"], "The token is invalid.");
        assert_eq!(
            state
                .dict_mut(Source::Shared(ACCOUNT))
                .get("JohnDoe")
                .unwrap()["password"],
            "pass123"
        );
    }
}
