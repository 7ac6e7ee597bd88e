//! CheckToken: which user a token belongs to. Every API that takes a token
//! asks it (see [`State::check_token`]); called itself, it answers without
//! `api_name` in its result, as the reference does.

use serde_json::{json, Map, Value};

use super::super::catalog::{spec, TOKEN};
use super::super::state::State;
use super::{input_of, same_fields, Api, Reference};
use crate::sim::pyargs::Args;

pub static API: Api = Api {
    spec: spec(
        "CheckToken",
        "Says which user a token belongs to.",
        &[TOKEN],
        false,
    ),
    reference: Reference {
        description: "Check the user token.",
        input_parameters: &[("token", "str", "The token of the user.")],
        output_parameters: &[("username", "str", "The username of the user.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token"]);
    let outcome = match args.value("token").as_str() {
        Some(token) => state.check_token(token),
        None => Err("The token is invalid.".to_string()),
    };
    let (output, exception) = match outcome {
        Ok(username) => (json!({ "username": username }), Value::Null),
        Err(e) => (Value::Null, Value::String(e)),
    };
    let mut object = Map::new();
    object.insert("input".into(), input);
    object.insert("output".into(), output);
    object.insert("exception".into(), exception);
    Value::Object(object)
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
    fn a_token_names_its_user_and_the_result_has_no_api_name() {
        let mut state = state(&[accounts()]);
        let out = call(&API, &mut state, json!({"token": "t-jane"}));
        assert_eq!(
            out,
            json!({"input": {"token": "t-jane"}, "output": {"username": "JaneSmith"}, "exception": null})
        );
        let out = call(&API, &mut state, json!({"token": "bad"}));
        assert_eq!(out["exception"], "The token is invalid.");
    }
}
