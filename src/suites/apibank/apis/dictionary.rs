//! Dictionary: looks an English word up and answers with its meanings.
//!
//! The reference asks a live web dictionary service, which a simulator
//! cannot reach: every call is marked [`Unreproducible::External`]. When a
//! recording is being replayed its recorded answer is given back (so later
//! turns see what the recording saw); otherwise the call fails with
//! [`OFFLINE`]. A keyword that is not text fails as the reference fails,
//! before any request.
//!
//! [`Unreproducible::External`]: super::super::state::Unreproducible::External

use serde_json::Value;

use super::super::catalog::{spec, text};
use super::super::state::{State, Unreproducible};
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{str_method, Args};

/// The exception of a call made offline with nothing recorded (our words).
pub const OFFLINE: &str =
    "Dictionary asks a live web dictionary service, which is not available offline.";

pub static API: Api = Api {
    spec: spec(
        "Dictionary",
        "Looks a word up in a dictionary.",
        &[text("keyword")],
        false,
    ),
    reference: Reference {
        description: "This API searches the dictionary for a given keyword.",
        input_parameters: &[("keyword", "str", "The keyword to search.")],
        output_parameters: &[(
            "results",
            "list",
            "The list of results. Format be like [{\"partOfSpeech\": \"xxx\", \"definitions\": [{\"definition\": \"xxx\", \"example\": \"xxx\", \"synonyms\": [\"xxx\", \"xxx\"]}, ...]",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["keyword"]);
    if let Err(e) = str_method(args.value("keyword"), "replace") {
        return result("Dictionary", input, Err(e));
    }
    result("Dictionary", input, external(state, OFFLINE))
}

/// The answer of a live service: the recorded output or exception when a
/// recording is replayed, else `offline` as the exception. Marks the call
/// as not reproducible.
pub(super) fn external(state: &mut State, offline: &str) -> Result<Value, String> {
    state.mark(Unreproducible::External);
    match state.recorded() {
        Some(recorded) => match recorded.get("exception") {
            Some(Value::String(exception)) => Err(exception.clone()),
            _ => Ok(recorded.get("output").cloned().unwrap_or(Value::Null)),
        },
        None => Err(offline.to_string()),
    }
}

/// Same API, output and exception (the keyword is not compared).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    response.get("api_name").and_then(Value::as_str) == Some("Dictionary")
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn offline_it_fails_and_is_marked_external() {
        let mut state = state(&[]);
        state.replaying(None);
        let out = call(&API, &mut state, json!({"keyword": "perplexed"}));
        assert_eq!(out["exception"], OFFLINE);
        assert_eq!(out["output"], Value::Null);
        assert_eq!(state.unreproducible(), Some(Unreproducible::External));
    }

    #[test]
    fn a_replay_gives_back_the_recorded_answer() {
        let mut state = state(&[]);
        let recorded = json!({"api_name": "Dictionary", "input": {"keyword": "plethora"},
                              "output": [{"partOfSpeech": "noun"}], "exception": null});
        state.replaying(Some(recorded.clone()));
        let out = call(&API, &mut state, json!({"keyword": "plethora"}));
        assert_eq!(out, recorded);
        assert_eq!(state.unreproducible(), Some(Unreproducible::External));
        state.replaying(Some(json!({"output": null, "exception": "Failed."})));
        let out = call(&API, &mut state, json!({"keyword": "zzz"}));
        assert_eq!(out["exception"], "Failed.");
    }

    #[test]
    fn a_keyword_that_is_not_text_fails_before_any_request() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"keyword": 3}));
        assert_eq!(out["exception"], "'int' object has no attribute 'replace'");
        assert_eq!(state.unreproducible(), None);
    }

    #[test]
    fn the_check_compares_outputs() {
        let gold = json!({"api_name": "Dictionary", "input": {"keyword": "a"}, "output": [1], "exception": null});
        let mut other = gold.clone();
        other["input"]["keyword"] = json!("b");
        assert!(correct(&other, &gold));
        other["api_name"] = json!("Wiki");
        assert!(!correct(&other, &gold));
    }
}
