//! ACTION: every gold action must be matched by some tool call of the
//! trajectory (an assistant's or a user's) with the same name and equal
//! arguments over the compared keys. With no `compare_args` the keys
//! compared are the call's own, so a call with fewer arguments than the
//! gold can still match (tau2's `compare_with_tool_call`).

use super::message::{Message, ToolCall};
use super::py_eq::py_eq;
use crate::suites::tau2::tasks::Action;

/// Whether `call` matches the gold `action`.
pub fn matches(action: &Action, call: &ToolCall) -> bool {
    if action.name != call.name {
        return false;
    }
    let compared: Vec<&str> = match &action.compare_args {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => call.arguments.keys().map(String::as_str).collect(),
    };
    compared.iter().all(
        |key| match (call.arguments.get(*key), action.arguments.get(*key)) {
            (Some(a), Some(b)) => py_eq(a, b),
            (None, None) => true,
            _ => false,
        },
    )
}

/// Per gold action, whether some call of `trajectory` matches it.
pub fn checks(actions: &[Action], trajectory: &[Message]) -> Vec<bool> {
    let calls: Vec<&ToolCall> = trajectory
        .iter()
        .filter_map(Message::tool_calls)
        .flatten()
        .collect();
    actions
        .iter()
        .map(|action| calls.iter().any(|call| matches(action, call)))
        .collect()
}

/// 1 when every gold action is matched (1 for none), else 0.
pub fn reward(actions: &[Action], trajectory: &[Message]) -> f64 {
    if checks(actions, trajectory).iter().all(|m| *m) {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn action(value: serde_json::Value) -> Action {
        serde_json::from_value(value).unwrap()
    }

    fn call(name: &str, arguments: serde_json::Value) -> Message {
        Message::Assistant {
            content: None,
            tool_calls: Some(vec![ToolCall {
                id: "1".into(),
                name: name.into(),
                arguments: arguments.as_object().unwrap().clone(),
                requestor: "assistant".into(),
            }]),
        }
    }

    #[test]
    fn the_keys_compared_are_the_calls_own_unless_the_gold_names_them() {
        let gold = action(json!({"name": "book", "arguments": {"seat": "3A", "price": 10}}));
        assert_eq!(
            reward(
                std::slice::from_ref(&gold),
                &[call("book", json!({"seat": "3A", "price": 10.0}))]
            ),
            1.0
        );
        // fewer arguments than the gold still match: only the call's keys count
        assert_eq!(
            reward(
                std::slice::from_ref(&gold),
                &[call("book", json!({"seat": "3A"}))]
            ),
            1.0
        );
        assert_eq!(
            reward(std::slice::from_ref(&gold), &[call("book", json!({}))]),
            1.0
        );
        // an argument the gold lacks, or another value, does not
        assert_eq!(
            reward(
                std::slice::from_ref(&gold),
                &[call("book", json!({"seat": "3A", "x": 1}))]
            ),
            0.0
        );
        assert_eq!(
            reward(
                std::slice::from_ref(&gold),
                &[call("book", json!({"seat": "4B"}))]
            ),
            0.0
        );
        assert_eq!(reward(&[gold], &[call("cancel", json!({}))]), 0.0);
        let named = action(
            json!({"name": "book", "arguments": {"seat": "3A", "price": 10}, "compare_args": ["seat"]}),
        );
        assert_eq!(
            reward(
                std::slice::from_ref(&named),
                &[call("book", json!({"seat": "3A", "price": 99}))]
            ),
            1.0
        );
        assert_eq!(reward(&[named], &[call("book", json!({"price": 10}))]), 0.0);
    }

    #[test]
    fn every_gold_action_needs_a_match_and_none_needs_nothing() {
        let a = action(json!({"name": "a", "arguments": {}}));
        let b = action(json!({"name": "b", "arguments": {}}));
        assert_eq!(
            checks(&[a.clone(), b.clone()], &[call("a", json!({}))]),
            [true, false]
        );
        assert_eq!(reward(&[], &[]), 1.0);
        let user = Message::User {
            content: None,
            tool_calls: Some(vec![ToolCall {
                id: "u".into(),
                name: "b".into(),
                arguments: Default::default(),
                requestor: "user".into(),
            }]),
        };
        assert_eq!(reward(&[a, b], &[call("a", json!({})), user]), 1.0);
    }
}
