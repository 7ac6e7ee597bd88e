//! OpenBankAccount: opens a bank account with an account name, password
//! and holder's name.
//!
//! The reference keeps its accounts in a dict of its own (no shared
//! database), which starts with one test account under the integer key 0;
//! a new account goes under the integer `len + 1`. An account name already
//! taken answers "failed" (an output, not an exception).

use serde_json::{json, Value};

use super::super::catalog::{spec, text};
use super::super::state::{Key, Source, State};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_eq, subscript, Args};

const ACCOUNTS: Source = Source::Own("OpenBankAccount");

pub static API: Api = Api {
    spec: spec(
        "OpenBankAccount",
        "Opens a bank account.",
        &[text("account"), text("password"), text("name")],
        true,
    ),
    reference: Reference {
        description: "This is an API for opening a bank account for a user, given the account, password and name.",
        input_parameters: &[
            ("account", "str", "The account for the user."),
            ("password", "str", "The password."),
            ("name", "str", "account holder name."),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["account", "password", "name"]);
    let outcome = open(state, &args).map(Value::from);
    result("OpenBankAccount", input, outcome)
}

fn open(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    let accounts = state.dict_mut(ACCOUNTS);
    if accounts.is_empty() {
        // The instance's starting dict (it never shrinks, so empty means
        // not yet used in this dialogue).
        accounts.insert(
            Key::Int(0),
            json!({"account": "test", "password": "test", "name": "yifei"}),
        );
    }
    for (_, holder) in accounts.iter() {
        if py_eq(subscript(holder, "account")?, args.value("account")) {
            return Ok("failed");
        }
    }
    let id = accounts.len() as i64 + 1;
    accounts.insert(
        Key::Int(id),
        input_of(args, &["account", "password", "name"]),
    );
    Ok("success")
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

    fn open(state: &mut State, account: &str) -> Value {
        call(
            &API,
            state,
            json!({"account": account, "password": "pw", "name": "John"}),
        )
    }

    #[test]
    fn opens_new_accounts_after_the_test_account() {
        let mut state = state(&[]);
        let out = open(&mut state, "john123");
        assert_eq!(
            out,
            json!({"api_name": "OpenBankAccount", "input": {"account": "john123", "password": "pw", "name": "John"}, "output": "success", "exception": null})
        );
        let keys: Vec<Key> = state.dict_mut(ACCOUNTS).keys().cloned().collect();
        assert_eq!(keys, [Key::Int(0), Key::Int(2)]);
        assert!(correct(&out, &out));
    }

    #[test]
    fn a_taken_account_name_fails_without_an_exception() {
        let mut state = state(&[]);
        assert_eq!(open(&mut state, "test")["output"], "failed");
        open(&mut state, "john123");
        let out = open(&mut state, "john123");
        assert_eq!(out["output"], "failed");
        assert_eq!(out["exception"], Value::Null);
        assert_eq!(state.dict_mut(ACCOUNTS).len(), 2);
    }
}
