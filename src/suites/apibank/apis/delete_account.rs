//! DeleteAccount: removes the user's account (its token then opens
//! nothing). Its result has no `api_name`, as the reference's has none.

use serde_json::{json, Map, Value};

use super::super::catalog::{spec, TOKEN};
use super::super::state::{Key, Source, State, ACCOUNT};
use super::records::owner;
use super::{input_of, same_fields, Api, Reference};
use crate::sim::pyargs::Args;

pub static API: Api = Api {
    spec: spec(
        "DeleteAccount",
        "Removes the user's account.",
        &[TOKEN],
        true,
    ),
    reference: Reference {
        description: "Delete an account.",
        input_parameters: &[("token", "str", "The token of the user.")],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token"]);
    let (output, exception) = match delete(state, args.value("token")) {
        Ok(status) => (json!({ "status": status }), Value::Null),
        Err(e) => (Value::Null, Value::String(e)),
    };
    let mut object = Map::new();
    object.insert("input".into(), input);
    object.insert("output".into(), output);
    object.insert("exception".into(), exception);
    Value::Object(object)
}

fn delete(state: &mut State, token: &Value) -> Result<&'static str, String> {
    let username = owner(state, token)?;
    // The token's user is always an account: CheckToken reads the same
    // database. The reference still guards against it.
    state
        .dict_mut(Source::Shared(ACCOUNT))
        .remove(&Key::Text(username))
        .map(|_| "success")
        .ok_or_else(|| "No such user.".to_string())
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
    fn removes_the_account_and_its_token() {
        let mut state = state(&[accounts()]);
        let out = call(&API, &mut state, json!({"token": "t-john"}));
        assert_eq!(
            out,
            json!({"input": {"token": "t-john"}, "output": {"status": "success"}, "exception": null})
        );
        assert!(correct(&out, &out));
        assert!(!state.dict_mut(Source::Shared(ACCOUNT)).contains("JohnDoe"));
        let out = call(&API, &mut state, json!({"token": "t-john"}));
        assert_eq!(
            out,
            json!({"input": {"token": "t-john"}, "output": null, "exception": "The token is invalid."})
        );
        assert_eq!(state.dict_mut(Source::Shared(ACCOUNT)).len(), 1);
    }
}
