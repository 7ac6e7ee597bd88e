//! Trajectories made by running calls: each call answered by the domain
//! as tau2's environment answers the agent (`get_response`: the output as
//! the agent reads it, or `Error: <text>` for a raise).

use serde_json::{Map, Value};

use super::message::{Message, ToolCall};
use crate::suites::tau2::common::Output;
use crate::suites::tau2::domain::Db;
use crate::suites::tau2::tasks::Task;

/// The tool message that answers `call` on `db` (changing it as the call
/// does). A call a user makes finds no user tools in these domains.
pub fn answer(db: &mut Db, call: &ToolCall) -> Message {
    let outcome = if call.requestor == "user" {
        Err("User tools not available".to_string())
    } else {
        db.call(&call.name, &call.arguments)
    };
    let (content, error) = match outcome {
        Ok(output) => (output.agent_text(), false),
        Err(raised) => (Output::Text(format!("Error: {raised}")).agent_text(), true),
    };
    Message::Tool {
        id: call.id.clone(),
        content: Some(content),
        requestor: call.requestor.clone(),
        error,
    }
}

/// A call as a trajectory writes it, numbered `index` within it.
pub fn call(index: usize, name: &str, arguments: &Map<String, Value>, requestor: &str) -> ToolCall {
    ToolCall {
        id: format!("call_{index}"),
        name: name.to_string(),
        arguments: arguments.clone(),
        requestor: requestor.to_string(),
    }
}

/// The calls, one message each, every one followed by its answer from
/// `db`.
pub fn run_calls(db: &mut Db, calls: Vec<ToolCall>) -> Vec<Message> {
    let mut messages = Vec::with_capacity(calls.len() * 2);
    for call in calls {
        let answer = answer(db, &call);
        let tool_calls = Some(vec![call.clone()]);
        messages.push(if call.requestor == "user" {
            Message::User {
                content: None,
                tool_calls,
            }
        } else {
            Message::Assistant {
                content: None,
                tool_calls,
            }
        });
        messages.push(answer);
    }
    messages
}

/// The oracle's trajectory of `task` on `db`: what the user calls about,
/// the gold actions as the agent's calls, and a closing message that says
/// every item the agent must communicate.
pub fn oracle(db: &mut Db, task: &Task) -> Vec<Message> {
    let mut messages = Vec::new();
    if let Some(reason) = task
        .user_scenario
        .pointer("/instructions/reason_for_call")
        .and_then(Value::as_str)
    {
        messages.push(Message::User {
            content: Some(reason.to_string()),
            tool_calls: None,
        });
    }
    let calls = task
        .actions()
        .iter()
        .enumerate()
        .map(|(i, a)| {
            call(
                i,
                &a.name,
                &a.arguments,
                a.requestor.as_deref().unwrap_or("assistant"),
            )
        })
        .collect();
    messages.extend(run_calls(db, calls));
    let items = task
        .evaluation_criteria
        .as_ref()
        .and_then(|c| c.communicate_info.as_deref())
        .unwrap_or_default();
    messages.push(Message::assistant_text(if items.is_empty() {
        "Everything you asked for is done.".to_string()
    } else {
        format!(
            "Everything you asked for is done. To note: {}.",
            items.join("; ")
        )
    }));
    messages
}
