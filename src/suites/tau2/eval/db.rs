//! DB: the agent's final state against the gold's. The agent's state is
//! a fresh database on which the trajectory's writes are run again in
//! order, as tau2's `Environment.set_state` does: each call paired with
//! the tool message after it (same id), reads, generic tools and unknown
//! tools passed over, and a write whose output differs from the recorded
//! one noted and kept (tau2's non-strict replay, as `evaluate-trajs`).

use super::message::Message;
use super::py_eq::py_eq;
use super::trajectory::answer;
use crate::suites::tau2::domain::Db;
use crate::suites::tau2::ToolKind;

/// The agent's final state and the writes whose output differed.
#[derive(Debug)]
pub struct Replayed {
    pub db: Db,
    pub differs: Vec<String>,
}

/// Run the writes of `trajectory` on a copy of `initial`; a trajectory
/// whose calls and tool messages do not pair up is refused, as tau2
/// refuses it.
pub fn replay(initial: &Db, trajectory: &[Message]) -> Result<Replayed, String> {
    let mut db = initial.clone();
    let mut differs = Vec::new();
    let mut messages = trajectory.iter().enumerate();
    while let Some((at, message)) = messages.next() {
        if let Message::Tool { .. } = message {
            return Err(format!(
                "message {at} is a tool message that follows no tool call"
            ));
        }
        for call in message.tool_calls().unwrap_or_default() {
            let Some((at, Message::Tool { id, content, .. })) = messages.next() else {
                return Err(format!(
                    "the call {} ({}) of message {at} has no tool message after it",
                    call.id, call.name
                ));
            };
            if *id != call.id {
                return Err(format!(
                    "message {at} answers call {id}, while call {} was made",
                    call.id
                ));
            }
            if db.tool_kind(&call.name) != Some(ToolKind::Write) {
                continue;
            }
            let Message::Tool {
                content: Some(now), ..
            } = answer(&mut db, call)
            else {
                unreachable!("an answer is a tool message with content")
            };
            let recorded = content.as_deref().unwrap_or_default();
            if !same_content(&now, recorded) {
                differs.push(format!(
                    "message {at}: {} answered {} when replayed, the trajectory recorded {}",
                    call.name,
                    shorten(&now),
                    shorten(recorded)
                ));
            }
        }
    }
    Ok(Replayed { db, differs })
}

/// Equal as tau2 compares them: as JSON where both parse, else as text.
fn same_content(a: &str, b: &str) -> bool {
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).ok();
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => py_eq(&x, &y),
        (None, None) => a == b,
        _ => false,
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}...", &text[..cut]),
        None => format!("{text:?}"),
    }
}
