//! DocumentQA: answers a question about the text document at a URL.
//!
//! Database `QuestionAnswering`: `{url: [{"question", "answer"}, ...]}`.
//! The reference looks the question up with `question in database[url]`,
//! and each URL holds a *list* of question/answer records, so no question
//! text is ever found: a known URL always answers "The question is too
//! difficult to answer." (kept: the recordings hold exactly that).

use serde_json::Value;

use super::super::catalog::{composed, spec, text};
use super::super::state::State;
use super::read_only::database;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{py_in, py_strip, str_method, subscript, Args};

pub static API: Api = Api {
    spec: spec(
        "DocumentQA",
        "Answers a question about a text document at a URL.",
        &[text("url"), composed("question")],
        false,
    )
    .reading("QuestionAnswering"),
    reference: Reference {
        description: "This API answers the question from a given document url.",
        input_parameters: &[
            (
                "url",
                "str",
                "The url to download the document. It should end with .txt.",
            ),
            ("question", "str", "The question to be answered."),
        ],
        output_parameters: &[("answer", "str", "The answer to the question.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["url", "question"]);
    let outcome = answer(database(state, "QuestionAnswering"), &args);
    result("DocumentQA", input, outcome)
}

fn answer(documents: &Value, args: &Args<'_>) -> Result<Value, String> {
    let url = Value::from(py_strip(str_method(args.value("url"), "strip")?));
    let question = Value::from(py_strip(str_method(args.value("question"), "strip")?));
    if question == "" {
        return Err("The question is empty.".into());
    }
    if !py_in(&url, documents)? {
        return Err("The document of this url failed to be processed.".into());
    }
    let document = subscript(documents, url.as_str().unwrap_or_default())?;
    if !py_in(&question, document)? {
        return Ok("The question is too difficult to answer.".into());
    }
    subscript(document, question.as_str().unwrap_or_default()).cloned()
}

/// Same URL and question (stripped), output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let read = |result: &Value| -> Result<(String, String), String> {
        let input = subscript(result, "input")?;
        let field = |key: &str| -> Result<String, String> {
            Ok(py_strip(str_method(subscript(input, key)?, "strip")?).to_string())
        };
        Ok((field("url")?, field("question")?))
    };
    match (read(response), read(groundtruth)) {
        (Ok(a), Ok(b)) => {
            a == b
                && response.get("output") == groundtruth.get("output")
                && response.get("exception") == groundtruth.get("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn documents() -> (&'static str, Value) {
        (
            "QuestionAnswering",
            json!({"https://x.org/a.txt": [{"question": "Who?", "answer": "Me."}],
                   "https://x.org/b.txt": {"Who?": "You."}}),
        )
    }

    #[test]
    fn a_listed_document_never_finds_its_question() {
        let mut state = state(&[documents()]);
        let out = call(
            &API,
            &mut state,
            json!({"url": "https://x.org/a.txt", "question": "Who?"}),
        );
        assert_eq!(out["output"], "The question is too difficult to answer.");
        assert_eq!(out["exception"], Value::Null);
        // A dict of questions (not the shipped shape) is looked up.
        let out = call(
            &API,
            &mut state,
            json!({"url": " https://x.org/b.txt", "question": "Who? "}),
        );
        assert_eq!(out["output"], "You.");
    }

    #[test]
    fn empty_questions_and_unknown_urls_raise() {
        let mut state = state(&[documents()]);
        let out = call(
            &API,
            &mut state,
            json!({"url": "https://x.org/a.txt", "question": " "}),
        );
        assert_eq!(out["exception"], "The question is empty.");
        let out = call(
            &API,
            &mut state,
            json!({"url": "https://x.org/c.txt", "question": "Who?"}),
        );
        assert_eq!(
            out["exception"],
            "The document of this url failed to be processed."
        );
    }

    #[test]
    fn the_check_strips_url_and_question() {
        let gold =
            json!({"input": {"url": "u", "question": "q"}, "output": "a", "exception": null});
        let close =
            json!({"input": {"url": " u", "question": "q "}, "output": "a", "exception": null});
        assert!(correct(&close, &gold));
        let other =
            json!({"input": {"url": "u", "question": "r"}, "output": "a", "exception": null});
        assert!(!correct(&other, &gold));
    }
}
