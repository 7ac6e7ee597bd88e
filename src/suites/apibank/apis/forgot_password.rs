//! ForgotPassword: resets a forgotten password in two calls. The first
//! (`status="Forgot Password"`, with username and email) answers a
//! verification code; the second (`status="Verification Code"`, with that
//! code and the new password) sets the password of the account the first
//! call named. The code is always 970420: the reference fixed it.
//!
//! What the first call found lives in [`State::password_reset`] for the
//! rest of the dialogue, as it lives in the reference's one ForgotPassword
//! instance per dialogue. The result has no `api_name`, and its input is
//! `status` followed by the other arguments in the order they were passed.

use serde_json::{json, Map, Value};

use super::super::catalog::{optional, p, spec, text};
use super::super::state::{Key, Source, State, ACCOUNT};
use super::register_user::account_key;
use super::{same_fields, Api, Reference};
use crate::sim::pyargs::{key_error, lookup, py_eq, py_item, repr, type_name, Args};
use crate::suite::{ParamSpec, ParamType};

/// The code the first call answers.
const VERIFICATION_CODE: i64 = 970420;

pub static API: Api = Api {
    spec: spec(
        "ForgotPassword",
        "Two steps: asks for a verification code, then sets a new password with it.",
        &[
            ParamSpec {
                enum_values: &["Forgot Password", "Verification Code"],
                ..text("status")
            },
            optional(text("username")),
            optional(text("email")),
            optional(p("verification_code", ParamType::Integer)),
            optional(text("new_password")),
        ],
        true,
    ),
    reference: Reference {
        description: "Sends an email to the user with a link to reset the password. Need call twice, first with 'Forgot Password' status to get the verification code, then call again with 'Verification Code' status to change the password. Must pass the name of the parameters when calling the API, like ForgotPassword(status='Forgot Password', username='username').",
        input_parameters: &[
            (
                "status",
                "str",
                "'Forgot Password' for first call, after get the verification code, call again with 'Verification Code' to change the password.",
            ),
            (
                "username",
                "str",
                "The username of the user. Only needed for the first call.",
            ),
            (
                "email",
                "str",
                "The email of the user. Only needed for the first call.",
            ),
            (
                "verification_code",
                "int",
                "The verification code sent to the user. Only needed for the second call.",
            ),
            (
                "new_password",
                "str",
                "The new password of the user. Only needed for the second call.",
            ),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    // `{"status": status, **kwargs}`: the keyword arguments as passed.
    let mut input = Map::new();
    input.insert("status".into(), args.value("status").clone());
    for (name, value) in args.raw() {
        if name != "status" {
            input.insert(name.clone(), value.clone());
        }
    }
    let (output, exception) = match reset(state, &args) {
        Ok(output) => (output, Value::Null),
        Err(e) => (Value::Null, Value::String(e)),
    };
    let mut object = Map::new();
    object.insert("input".into(), Value::Object(input));
    object.insert("output".into(), output);
    object.insert("exception".into(), exception);
    Value::Object(object)
}

fn reset(state: &mut State, args: &Args<'_>) -> Result<Value, String> {
    // Presence, not value: an argument passed as None counts as given.
    let passed = |name: &str| lookup(args.raw(), name);
    let status = args.value("status");
    if py_eq(status, &Value::from("Forgot Password")) {
        let (Some(username), Some(email)) = (passed("username"), passed("email")) else {
            return Err("The username and email are required for the first call.".into());
        };
        let key = account_key(username)?;
        let accounts = state.dict_mut(Source::Shared(ACCOUNT));
        let account = key
            .as_ref()
            .and_then(|key| accounts.get_key(key))
            .ok_or("The username does not exist.")?;
        if !py_eq(py_item(account, "email")?, email) {
            return Err("The email is incorrect.".into());
        }
        state.password_reset.verification_code = Some(VERIFICATION_CODE);
        state.password_reset.username = key;
        Ok(json!(VERIFICATION_CODE))
    } else if py_eq(status, &Value::from("Verification Code")) {
        let Some(code) = state.password_reset.verification_code.filter(|c| *c != 0) else {
            return Err("You need to call the API with status 'Forgot Password' at first.".into());
        };
        let (Some(new_password), Some(verification_code)) =
            (passed("new_password"), passed("verification_code"))
        else {
            return Err(
                "The new password and verification code are required for the second call.".into(),
            );
        };
        if !py_eq(&json!(code), verification_code) {
            return Err("The verification code is incorrect.".into());
        }
        let username = state.password_reset.username.clone();
        // The account may have been deleted since the first call.
        let account = username
            .as_ref()
            .and_then(|key| state.dict_mut(Source::Shared(ACCOUNT)).get_key_mut(key))
            .ok_or_else(|| match &username {
                Some(Key::Text(name)) => key_error(name),
                Some(Key::Int(id)) => id.to_string(),
                None => repr(&Value::Null),
            })?;
        match account {
            Value::Object(account) => {
                account.insert("password".into(), new_password.clone());
                Ok(Value::from("success"))
            }
            other => Err(format!(
                "'{}' object does not support item assignment",
                type_name(other)
            )),
        }
    } else {
        Err("The status is only 'Forgot Password' or 'Verification Code'.".into())
    }
}

/// Same input, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    same_fields(response, groundtruth, &["input", "output", "exception"])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn first(username: &str, email: &str) -> Value {
        json!({"status": "Forgot Password", "username": username, "email": email})
    }

    fn second(code: Value) -> Value {
        json!({"status": "Verification Code", "verification_code": code, "new_password": "fresh"})
    }

    #[test]
    fn two_steps_set_the_new_password() {
        let mut state = state(&[accounts()]);
        let out = call(&API, &mut state, first("JaneSmith", "jane@example.com"));
        assert_eq!(
            out,
            json!({"input": first("JaneSmith", "jane@example.com"), "output": 970420, "exception": null})
        );
        let out = call(&API, &mut state, second(json!(970420)));
        assert_eq!(
            out,
            json!({"input": second(json!(970420)), "output": "success", "exception": null})
        );
        assert!(correct(&out, &out));
        assert_eq!(
            state
                .dict_mut(Source::Shared(ACCOUNT))
                .get("JaneSmith")
                .unwrap()["password"],
            "fresh"
        );
    }

    #[test]
    fn the_input_keeps_the_order_arguments_came_in() {
        let mut state = state(&[accounts()]);
        let out = call(
            &API,
            &mut state,
            json!({"email": "jane@example.com", "username": "JaneSmith", "status": "Forgot Password"}),
        );
        let keys: Vec<&String> = out["input"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["status", "email", "username"]);
    }

    #[test]
    fn each_wrong_step_raises_its_own_message() {
        let mut state = state(&[accounts()]);
        let out = call(&API, &mut state, second(json!(970420)));
        assert_eq!(
            out["exception"],
            "You need to call the API with status 'Forgot Password' at first."
        );
        let out = call(
            &API,
            &mut state,
            json!({"status": "Forgot Password", "username": "JaneSmith"}),
        );
        assert_eq!(
            out["exception"],
            "The username and email are required for the first call."
        );
        let out = call(&API, &mut state, first("Nobody", "x"));
        assert_eq!(out["exception"], "The username does not exist.");
        let out = call(&API, &mut state, first("JaneSmith", "x"));
        assert_eq!(out["exception"], "The email is incorrect.");
        call(&API, &mut state, first("JaneSmith", "jane@example.com"));
        let out = call(&API, &mut state, second(json!("970420")));
        assert_eq!(out["exception"], "The verification code is incorrect.");
        let out = call(
            &API,
            &mut state,
            json!({"status": "Verification Code", "new_password": "x"}),
        );
        assert_eq!(
            out["exception"],
            "The new password and verification code are required for the second call."
        );
        let out = call(&API, &mut state, json!({"status": "Reset"}));
        assert_eq!(
            out["exception"],
            "The status is only 'Forgot Password' or 'Verification Code'."
        );
        assert_eq!(
            state
                .dict_mut(Source::Shared(ACCOUNT))
                .get("JaneSmith")
                .unwrap()["password"],
            "pass456"
        );
    }
}
