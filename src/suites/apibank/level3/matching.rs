//! When a call the assistant made counts as a ground-truth call.
//!
//! The two calls are compared as the world ran them (the ground truth in
//! order from fresh databases, the assistant's in its conversation), by
//! either of two rules:
//! - equal arguments: the same API, and the same arguments after the
//!   conversion the reference's `ToolManager` applies (an `int` parameter
//!   written `'1'` or `1` is the same 1), equal as Python's `==` sees them
//!   (keys in any order, `1 == 1.0`); a list or dict argument is written
//!   as the text of a literal and stays text in the world, so two such
//!   texts are also equal when they hold the same literal (`["JohnDoe"]`,
//!   `['JohnDoe']`); other text must be the same text (the paper's
//!   "exactly the same parameters"). Whether either call raised does not
//!   matter: the same call gives the same result.
//! - the reference's check: the API's own `check_api_call_correctness`
//!   (each API's `correct`, as levels 1 and 2 score a call) accepts the
//!   assistant's result object against the ground truth's. It is lenient
//!   where the reference is (a reminder's content by its words) and strict
//!   where it is (the output must be the same).

use serde_json::{Map, Value};

use crate::json::pyliteral;
use crate::sim::pyargs::py_eq;
use crate::suite::interactive::Rule;
use crate::suite::Execution;
use crate::suites::apibank::apis::api;

/// Whether the call `made` is the ground-truth call `gold` (each as the
/// world ran it), and by which rule.
pub fn matches(made: &Execution, gold: &Execution) -> Option<Rule> {
    let (call, want) = (&made.request, &gold.request);
    if call.api_name != want.api_name {
        return None;
    }
    if same_call(
        &call.api_name,
        &call.parameters,
        &want.api_name,
        &want.parameters,
    ) {
        return Some(Rule::EqualArguments);
    }
    let result = |e: &Execution| e.response.clone().into_value();
    let api = api(&call.api_name)?;
    (api.correct)(&result(made), &result(gold)).then_some(Rule::ReferenceCheck)
}

/// Whether a call to `made_api` that ran with `made` arguments is the
/// ground-truth call to `gold_api` that runs with `gold` arguments.
fn same_call(
    made_api: &str,
    made: &Map<String, Value>,
    gold_api: &str,
    gold: &Map<String, Value>,
) -> bool {
    made_api == gold_api
        && made.len() == gold.len()
        && gold
            .iter()
            .all(|(name, want)| made.get(name).is_some_and(|got| same_value(got, want)))
}

fn same_value(got: &Value, want: &Value) -> bool {
    if py_eq(got, want) {
        return true;
    }
    let literal = |v: &Value| {
        v.as_str()
            .filter(|t| t.trim_start().starts_with(['[', '{', '(']))
            .and_then(pyliteral::parse)
            .map(|tree| tree.to_value())
    };
    match (literal(got), literal(want)) {
        (Some(a), Some(b)) => py_eq(&a, &b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_call_matches_by_its_arguments_or_by_the_reference_s_check() {
        let result = |content: &str| {
            json!({"api_name": "AddReminder", "input": {"token": "t", "content": content,
                   "time": "2023-04-01 09:00:00"}, "output": "success", "exception": null})
        };
        let ran = |api_name: &str, content: &str| {
            let request = crate::dialogue::Request {
                api_name: api_name.into(),
                parameters: map(result(content)["input"].clone()),
            };
            Execution::new(request, crate::sim::Reply::Json(result(content)), None)
        };
        let gold = ran("AddReminder", "Pay the credit card bill");
        let made = |content: &str| matches(&ran("AddReminder", content), &gold);
        assert_eq!(made("Pay the credit card bill"), Some(Rule::EqualArguments));
        // The reference takes a content sharing most of its words.
        assert_eq!(
            made("Pay the credit card bill now"),
            Some(Rule::ReferenceCheck)
        );
        assert_eq!(made("Buy milk"), None);
        let other = ran("AddAlarm", "Pay the credit card bill");
        assert_eq!(matches(&other, &gold), None);
    }

    #[test]
    fn arguments_are_equal_as_python_compares_them_and_lists_by_their_literal() {
        let gold = map(json!({"token": "t", "attendees": "[\"JohnDoe\"]", "count": 1}));
        let same = map(json!({"count": 1.0, "attendees": "['JohnDoe']", "token": "t"}));
        assert!(same_call("AddMeeting", &same, "AddMeeting", &gold));
        assert!(!same_call("QueryMeeting", &same, "AddMeeting", &gold));
        let other_list = map(json!({"count": 1, "attendees": "['Ann']", "token": "t"}));
        assert!(!same_call("AddMeeting", &other_list, "AddMeeting", &gold));
        let fewer = map(json!({"count": 1, "token": "t"}));
        assert!(!same_call("AddMeeting", &fewer, "AddMeeting", &gold));
        // Text is compared as written.
        let a = map(json!({"content": "Pay the bill"}));
        let b = map(json!({"content": "pay the bill"}));
        assert!(!same_call("AddReminder", &a, "AddReminder", &b));
    }
}
