//! Translate: translates a text into another language (English unless
//! told), from a given language or one detected.
//!
//! The reference asks a live web translation service, which a simulator
//! cannot reach: every call is marked [`Unreproducible::External`]; a
//! replayed recording's answer is given back, and otherwise the call fails
//! with [`OFFLINE`] (see Dictionary). A language given as something other
//! than text fails as the reference fails, before any request. Its input
//! echoes `src` and then the optional languages in the order the call gave
//! them (the reference takes them as `**kwargs`).
//!
//! [`Unreproducible::External`]: super::super::state::Unreproducible::External

use serde_json::{Map, Value};

use super::super::catalog::{composed, optional, spec};
use super::super::state::State;
use super::dictionary::external;
use super::{result, Api, Reference};
use crate::sim::pyargs::{str_method, subscript, Args};

/// The exception of a call made offline with nothing recorded (our words).
pub const OFFLINE: &str =
    "Translate asks a live web translation service, which is not available offline.";

pub static API: Api = Api {
    spec: spec(
        "Translate",
        "Translates a text into another language.",
        &[
            composed("src"),
            optional(composed("src_lang")),
            optional(composed("tgt_lang")),
        ],
        false,
    ),
    reference: Reference {
        description: "Translate the text to the target language.",
        input_parameters: &[
            ("src", "str", "The text to be translated."),
            (
                "src_lang",
                "str",
                "[Optional] The source language to translate from. Default is auto.",
            ),
            (
                "tgt_lang",
                "str",
                "[Optional] The target language to translate to. Default is english/en.",
            ),
        ],
        output_parameters: &[("translated_text", "str", "The translated text.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let mut input = Map::new();
    input.insert("src".into(), args.value("src").clone());
    for (name, value) in args.raw() {
        if name != "src" {
            input.insert(name.clone(), value.clone());
        }
    }
    // `src_lang.lower()`, then `tgt_lang.lower()`, for those given.
    for name in ["src_lang", "tgt_lang"] {
        if let Some(value) = args.raw().get(name) {
            if let Err(e) = str_method(value, "lower") {
                return result("Translate", Value::Object(input), Err(e));
            }
        }
    }
    let outcome = external(state, OFFLINE);
    result("Translate", Value::Object(input), outcome)
}

/// Same API, same text to translate, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let src = |result: &Value| -> Result<Value, String> {
        Ok(subscript(subscript(result, "input")?, "src")?.clone())
    };
    let (Ok(a), Ok(b)) = (src(response), src(groundtruth)) else {
        return false;
    };
    response.get("api_name") == groundtruth.get("api_name")
        && a == b
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::super::state::Unreproducible;
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn offline_it_fails_and_a_replay_gives_back_the_recording() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"src": "Hello", "tgt_lang": "es"}));
        assert_eq!(out["exception"], OFFLINE);
        assert_eq!(out["input"], json!({"src": "Hello", "tgt_lang": "es"}));
        assert_eq!(state.unreproducible(), Some(Unreproducible::External));
        let recorded = json!({"api_name": "Translate", "input": {"src": "Hello", "tgt_lang": "es"}, "output": "Hola", "exception": null});
        state.replaying(Some(recorded.clone()));
        assert_eq!(
            call(&API, &mut state, json!({"src": "Hello", "tgt_lang": "es"})),
            recorded
        );
    }

    #[test]
    fn the_input_keeps_the_order_the_languages_came_in() {
        let mut state = state(&[]);
        let out = call(
            &API,
            &mut state,
            json!({"tgt_lang": "fr", "src": "Hi", "src_lang": "en"}),
        );
        let keys: Vec<&String> = out["input"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["src", "tgt_lang", "src_lang"]);
    }

    #[test]
    fn a_language_that_is_not_text_fails_before_any_request() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"src": "Hi", "tgt_lang": null}));
        assert_eq!(
            out["exception"],
            "'NoneType' object has no attribute 'lower'"
        );
        assert_eq!(state.unreproducible(), None);
    }

    #[test]
    fn the_check_compares_the_text_not_the_languages() {
        let gold = json!({"api_name": "Translate", "input": {"src": "Hi", "tgt_lang": "fr"}, "output": "Salut", "exception": null});
        let other = json!({"api_name": "Translate", "input": {"src": "Hi", "tgt_lang": "french"}, "output": "Salut", "exception": null});
        assert!(correct(&other, &gold));
        let changed = json!({"api_name": "Translate", "input": {"src": "Hello"}, "output": "Salut", "exception": null});
        assert!(!correct(&changed, &gold));
    }
}
