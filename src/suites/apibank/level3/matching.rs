//! When a call the assistant made counts as a ground-truth call: "made
//! with equal arguments".
//!
//! Both calls are compared as the world ran them: the same API, and the
//! same arguments after the conversion the reference's `ToolManager`
//! applies (an `int` parameter written `'1'` or `1` is the same 1), equal
//! as Python's `==` sees them (keys in any order, `1 == 1.0`). A list or
//! dict argument is written as the text of a literal and stays text in the
//! world, so two such texts are also equal when they hold the same literal
//! (`["JohnDoe"]` and `['JohnDoe']`). Every other text must be the same
//! text: the paper's completion is "exactly the same parameters". Whether
//! either call raised does not matter: the same call gives the same result.

use serde_json::{Map, Value};

use crate::json::pyliteral;
use crate::sim::pyargs::py_eq;

/// Whether a call to `made_api` that ran with `made` arguments is the
/// ground-truth call to `gold_api` that runs with `gold` arguments.
pub fn same_call(
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
