//! Wiki: looks a subject up in an encyclopedia and answers with the
//! article's URL and summary.
//!
//! Database `Wiki` (read only, large): `{keyword: {"url", "summary",
//! "content"}}` under lower-case keywords; underscores in the keyword read
//! as spaces.

use serde_json::{json, Value};

use super::super::catalog::{spec, text};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "Wiki",
        "Looks a subject up in an encyclopedia.",
        &[text("keyword")],
        false,
    )
    .reading("Wiki"),
    reference: Reference {
        description: "This API for searching a keyword in Wikipedia.",
        input_parameters: &[("keyword", "str", "The keyword to search.")],
        output_parameters: &[(
            "results",
            "dict",
            "The list of results. Format be like {\"url\": \"xxx\", \"summary\": \"xxx\", \"content\": \"xxx\"}",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["keyword"]);
    let outcome = search(database(state, "Wiki"), args.value("keyword"));
    result("Wiki", input, outcome)
}

fn search(articles: &Value, keyword: &Value) -> Result<Value, String> {
    let keyword = str_method(keyword, "replace")?.replace('_', " ");
    let keyword = py_strip(&keyword).to_lowercase();
    if !py_in(&Value::from(keyword.as_str()), articles)? {
        return Err("Keyword not found.".into());
    }
    let article = subscript(articles, &keyword)?;
    Ok(json!({
        "url": subscript(article, "url")?,
        "summary": subscript(article, "summary")?,
    }))
}

/// Same API, output and exception (the keyword is not compared).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    response.get("api_name") == groundtruth.get("api_name")
        && response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;

    fn articles() -> (&'static str, Value) {
        (
            "Wiki",
            json!({"artificial intelligence": {"url": "https://w.org/AI", "summary": "Machines that think.", "content": "Long text."}}),
        )
    }

    #[test]
    fn answers_url_and_summary_without_content() {
        let mut state = state(&[articles()]);
        let out = call(
            &API,
            &mut state,
            json!({"keyword": " Artificial_Intelligence"}),
        );
        assert_eq!(
            out["output"],
            json!({"url": "https://w.org/AI", "summary": "Machines that think."})
        );
        let out = call(&API, &mut state, json!({"keyword": "robots"}));
        assert_eq!(out["exception"], "Keyword not found.");
    }

    #[test]
    fn the_check_ignores_the_keyword() {
        let gold = json!({"api_name": "Wiki", "input": {"keyword": "AI"}, "output": {"url": "u"}, "exception": null});
        let mut other = gold.clone();
        other["input"]["keyword"] = json!("artificial intelligence");
        assert!(correct(&other, &gold));
        other["output"] = Value::Null;
        assert!(!correct(&other, &gold));
    }
}
