//! AddAgenda: puts an item on the user's agenda.
//!
//! Database `Agenda`: `{id: {"content", "time", "location", "username"}}`.
//! A new item's id is the integer `len(Agenda) + 1`, a Python int key
//! beside the file's text keys.

use serde_json::{json, Value};

use super::super::catalog::{spec, AGENDA};
use super::super::state::{Key, Source, State};
use super::{input_of, result, same_inputs, Api, Reference};
use crate::sim::pyargs::{py_strip_value, Args};
use crate::sim::pytime::{strptime, TIMESTAMP};

const DATABASE: Source = Source::Shared("Agenda");

pub static API: Api = Api {
    spec: spec(
        "AddAgenda",
        "Puts an item on the user's agenda.",
        AGENDA,
        true,
    )
    .reading("Agenda"),
    reference: Reference {
        description: "The API for adding a agenda item includes content, time and location.",
        input_parameters: &[
            ("token", "str", "User's token."),
            ("content", "str", "The content of the agenda."),
            (
                "time",
                "str",
                "The time for agenda. Format: %Y-%m-%d %H:%M:%S",
            ),
            ("location", "str", "The location of the agenda."),
        ],
        output_parameters: &[("status", "str", "success or failed")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["token", "content", "time", "location"]);
    let outcome = add(state, &args).map(Value::from);
    result("AddAgenda", input, outcome)
}

fn add(state: &mut State, args: &Args<'_>) -> Result<&'static str, String> {
    strptime(args.value("time"), TIMESTAMP)?;
    let content = args.value("content");
    // `content.strip()`: a content that is not text raises AttributeError.
    if py_strip_value(content)?.is_empty() {
        return Err("Content should not be null".into());
    }
    let id = state.dict_mut(DATABASE).len() as i64 + 1;
    let username = state.check_token(args.value("token").as_str().unwrap_or_default())?;
    state.dict_mut(DATABASE).insert(
        Key::Int(id),
        json!({
            "username": username,
            "content": content,
            "time": args.value("time"),
            "location": args.value("location"),
        }),
    );
    Ok("success")
}

/// Same API, contents whose word sets overlap by more than half (Jaccard
/// over space-separated words), same time, location, output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    if response.get("api_name") != groundtruth.get("api_name") {
        return false;
    }
    let words = |result: &Value| -> Option<std::collections::HashSet<String>> {
        let content = result.get("input")?.get("content")?.as_str()?;
        // `str.split(" ")`: on single spaces, keeping empty words.
        Some(content.split(' ').map(str::to_string).collect())
    };
    let (Some(a), Some(b)) = (words(response), words(groundtruth)) else {
        return false;
    };
    let overlap = a.intersection(&b).count() as f64 / a.union(&b).count() as f64;
    overlap > 0.5
        && same_inputs(response, groundtruth, &["time", "location"])
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{accounts, call, state};
    use super::*;

    fn agenda() -> (&'static str, Value) {
        (
            "Agenda",
            json!({"1": {"content": "Dentist", "time": "2023-03-18", "location": "Main St", "username": "JohnDoe"}}),
        )
    }

    #[test]
    fn adds_an_item_under_an_integer_id() {
        let mut state = state(&[accounts(), agenda()]);
        let out = call(
            &API,
            &mut state,
            json!({"token": "t-john", "content": "Gym", "time": "2023-03-20 08:00:00", "location": "Gym"}),
        );
        assert_eq!(out["output"], "success");
        assert_eq!(out["exception"], Value::Null);
        let added = state.dict_mut(DATABASE).get_key(&Key::Int(2)).cloned();
        assert_eq!(added.unwrap()["username"], "JohnDoe");
    }

    #[test]
    fn a_bad_time_an_empty_content_and_a_bad_token_raise() {
        let mut state = state(&[accounts(), agenda()]);
        let args = |content: &str, time: &str, token: &str| json!({"token": token, "content": content, "time": time, "location": "x"});
        let out = call(&API, &mut state, args("Gym", "2023-03-20", "t-john"));
        assert_eq!(
            out["exception"],
            "time data '2023-03-20' does not match format '%Y-%m-%d %H:%M:%S'"
        );
        let out = call(
            &API,
            &mut state,
            args("  ", "2023-03-20 08:00:00", "t-john"),
        );
        assert_eq!(out["exception"], "Content should not be null");
        let out = call(&API, &mut state, args("Gym", "2023-03-20 08:00:00", "bad"));
        assert_eq!(out["exception"], "The token is invalid.");
        assert_eq!(state.dict_mut(DATABASE).len(), 1);
    }

    #[test]
    fn contents_count_as_equal_when_most_words_are_shared() {
        let gold = json!({"api_name": "AddAgenda", "input": {"token": "t", "content": "meet the client", "time": "t1", "location": "l"}, "output": "success", "exception": null});
        let mut close = gold.clone();
        close["input"]["content"] = json!("meet the client today");
        assert!(correct(&close, &gold));
        let mut far = gold.clone();
        far["input"]["content"] = json!("buy milk");
        assert!(!correct(&far, &gold));
    }
}
