//! A trajectory in tau2's message format: the role of each message, its
//! text, the tool calls an assistant (or user) makes with their ids, and
//! each tool message with the string the agent was handed. Fields tau2
//! adds (timestamps, costs, usage) are read past and not written.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One call as a message carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default)]
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
    #[serde(default = "assistant")]
    pub requestor: String,
}

fn assistant() -> String {
    "assistant".to_string()
}

/// One message of a trajectory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        #[serde(default)]
        content: Option<String>,
    },
    User {
        #[serde(default)]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
    },
    Assistant {
        #[serde(default)]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
    },
    Tool {
        /// The id of the call it answers (`tool_call_id` as OpenAI names it).
        #[serde(alias = "tool_call_id")]
        id: String,
        #[serde(default)]
        content: Option<String>,
        #[serde(default = "assistant")]
        requestor: String,
        #[serde(default)]
        error: bool,
    },
}

impl Message {
    pub fn assistant_text(text: impl Into<String>) -> Message {
        Message::Assistant {
            content: Some(text.into()),
            tool_calls: None,
        }
    }

    /// The calls a participant's message makes (none for other messages).
    pub fn tool_calls(&self) -> Option<&[ToolCall]> {
        match self {
            Message::User { tool_calls, .. } | Message::Assistant { tool_calls, .. } => {
                tool_calls.as_deref()
            }
            _ => None,
        }
    }

    /// The role as tau2 writes it.
    pub fn role(&self) -> &'static str {
        match self {
            Message::System { .. } => "system",
            Message::User { .. } => "user",
            Message::Assistant { .. } => "assistant",
            Message::Tool { .. } => "tool",
        }
    }

    /// The text, as tau2's judge transcript writes it (`None` for none).
    pub fn content(&self) -> Option<&str> {
        match self {
            Message::System { content }
            | Message::User { content, .. }
            | Message::Assistant { content, .. }
            | Message::Tool { content, .. } => content.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_tau2_writes_them_and_extra_fields_are_passed_over() {
        let text = r#"[
 {"role": "assistant", "content": null, "turn_idx": 1, "timestamp": "t", "cost": 0.1,
  "tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": 1}, "requestor": "assistant"}]},
 {"role": "tool", "id": "c1", "content": "ok", "requestor": "assistant", "error": false, "turn_idx": 2},
 {"role": "tool", "tool_call_id": "c2", "content": "Error: no"},
 {"role": "user", "content": "hi"}
]"#;
        let messages: Vec<Message> = serde_json::from_str(text).unwrap();
        assert_eq!(messages[0].tool_calls().unwrap()[0].name, "f");
        assert_eq!(messages[1].content(), Some("ok"));
        assert!(matches!(&messages[2], Message::Tool { id, .. } if id == "c2"));
        assert_eq!(messages[3].role(), "user");
        let written = serde_json::to_value(&messages[3]).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"role": "user", "content": "hi"})
        );
    }
}
