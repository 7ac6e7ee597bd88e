//! RegisterUser: creates an account and hands out its new token. Its
//! result has no `api_name`, as the reference's has none.
//!
//! The token is 18 characters drawn from unseeded randomness (letters and
//! digits, lower-cased). Replaying a recording adopts the recorded token,
//! so that later calls that pass it reproduce, and the call is marked as
//! not reproducible (see [`State::unseeded`]).

use serde_json::{json, Map, Value};

use super::super::catalog::{spec, text};
use super::super::state::{Key, Source, State, ACCOUNT};
use super::{input_of, Api, Reference};
use crate::sim::pyargs::{repr, type_name, Args};
use crate::sim::pyrandom::PyRandom;
use crate::suite::{SessionEffect, ToolSpec};

pub static API: Api = Api {
    spec: ToolSpec {
        session: SessionEffect::Opens,
        ..spec(
            "RegisterUser",
            "Creates an account and hands out its token.",
            &[text("username"), text("password"), text("email")],
            true,
        )
    },
    reference: Reference {
        description: "The API for registering a account, given the username, password and email.",
        input_parameters: &[
            ("username", "str", "The username of the user."),
            ("password", "str", "The password of the user."),
            ("email", "str", "The email of the user."),
        ],
        output_parameters: &[("token", "str", "The token of the user.")],
    },
    call,
    correct,
    check_removes: &[],
};

/// A username as a key of Account: text, or an integer (Python keeps
/// `5` apart from `"5"`, and `True` with `1`). `None` for another value
/// that can be a key but is never one here; lists and dicts cannot be.
pub(super) fn account_key(username: &Value) -> Result<Option<Key>, String> {
    match username {
        Value::String(name) => Ok(Some(Key::text(name.as_str()))),
        Value::Number(n) => Ok(n.as_i64().map(Key::Int)),
        Value::Bool(b) => Ok(Some(Key::Int(i64::from(*b)))),
        Value::Array(_) | Value::Object(_) => {
            Err(format!("unhashable type: '{}'", type_name(username)))
        }
        Value::Null => Ok(None),
    }
}

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["username", "password", "email"]);
    let (output, exception) = match register(state, &args) {
        Ok(token) => (json!({ "token": token }), Value::Null),
        Err(e) => (Value::Null, Value::String(e)),
    };
    let mut object = Map::new();
    object.insert("input".into(), input);
    object.insert("output".into(), output);
    object.insert("exception".into(), exception);
    Value::Object(object)
}

fn register(state: &mut State, args: &Args<'_>) -> Result<String, String> {
    let username = args.value("username");
    // A `None` or fractional username (text calls cannot pass one) is kept
    // under its repr: Account's keys are text or integers here.
    let key = account_key(username)?.unwrap_or_else(|| Key::Text(repr(username)));
    if state
        .dict_mut(Source::Shared(ACCOUNT))
        .get_key(&key)
        .is_some()
    {
        return Err("The username already exists.".into());
    }
    let recorded_token = |recorded: &Value| {
        recorded
            .get("output")?
            .get("token")?
            .as_str()
            .map(str::to_string)
    };
    let token = state.unseeded(recorded_token, fresh_token);
    state.dict_mut(Source::Shared(ACCOUNT)).insert(
        key,
        json!({
            "password": args.value("password"),
            "token": token,
            "email": args.value("email"),
        }),
    );
    Ok(token)
}

/// 18 characters, each drawn uniformly from the 62 letters and digits and
/// then lower-cased, as the reference draws its tokens. The randomness is
/// `seeded`'s when given, else the operating system's, through version-4
/// UUIDs.
fn fresh_token(seeded: Option<&mut PyRandom>) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    if let Some(random) = seeded {
        return (0..18)
            .map(|_| ALPHABET[random.randint(0, 61) as usize].to_ascii_lowercase() as char)
            .collect();
    }
    let mut token = String::with_capacity(18);
    while token.len() < 18 {
        let bytes = uuid::Uuid::new_v4().into_bytes();
        // Bytes 6 and 8 carry the UUID's version and variant bits.
        for (i, &byte) in bytes.iter().enumerate() {
            // 248 = 4 * 62: below it every letter and digit is as likely.
            if i == 6 || i == 8 || byte >= 248 || token.len() == 18 {
                continue;
            }
            token.push(ALPHABET[usize::from(byte) % 62].to_ascii_lowercase() as char);
        }
    }
    token
}

/// No output where the gold call had none; then the same input and
/// exception (the token, being random, is not compared).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let (Some(output), Some(gold_output)) = (response.get("output"), groundtruth.get("output"))
    else {
        return false;
    };
    if gold_output.is_null() && !output.is_null() {
        return false;
    }
    let same = |field: &str| match (response.get(field), groundtruth.get(field)) {
        (Some(x), Some(y)) => crate::sim::pyargs::py_eq(x, y),
        _ => false,
    };
    same("input") && same("exception")
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Unreproducible;
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn args(username: &str) -> Value {
        json!({"username": username, "password": "pw", "email": "e@example.com"})
    }

    #[test]
    fn registers_with_a_fresh_token_that_then_works() {
        let mut state = state(&[accounts()]);
        state.replaying(None);
        let out = call(&API, &mut state, args("newbie"));
        let token = out["output"]["token"].as_str().unwrap().to_string();
        assert_eq!(token.len(), 18);
        assert!(token
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        assert_eq!(out["input"], args("newbie"));
        assert_eq!(out.get("api_name"), None);
        assert_eq!(state.unreproducible(), Some(Unreproducible::Random));
        assert_eq!(state.check_token(&token).unwrap(), "newbie");
        assert_ne!(fresh_token(None), fresh_token(None));
        // Seeded, the same seed draws the same token.
        let seeded = |seed| fresh_token(Some(&mut PyRandom::new(seed)));
        assert_eq!(seeded(7), seeded(7));
        assert_ne!(seeded(7), seeded(8));
        assert_eq!(seeded(7).len(), 18);
        let mut other = out.clone();
        other["output"]["token"] = json!("another");
        assert!(correct(&other, &out));
    }

    #[test]
    fn a_replay_adopts_the_recorded_token() {
        let mut state = state(&[accounts()]);
        let recorded =
            json!({"input": args("newbie"), "output": {"token": "abc123"}, "exception": null});
        state.replaying(Some(recorded.clone()));
        let out = call(&API, &mut state, args("newbie"));
        assert_eq!(out, recorded);
        assert_eq!(state.check_token("abc123").unwrap(), "newbie");
    }

    #[test]
    fn a_taken_username_raises_and_draws_nothing() {
        let mut state = state(&[accounts()]);
        state.replaying(None);
        let out = call(&API, &mut state, args("JohnDoe"));
        assert_eq!(
            out,
            json!({"input": args("JohnDoe"), "output": null, "exception": "The username already exists."})
        );
        assert_eq!(state.unreproducible(), None);
        let mut other = out.clone();
        other["output"] = json!({"token": "x"});
        assert!(!correct(&other, &out));
        assert_eq!(account_key(&json!(5)), Ok(Some(Key::Int(5))));
        assert_eq!(
            account_key(&json!(["a"])).unwrap_err(),
            "unhashable type: 'list'"
        );
    }
}
