//! The assistant under test: it reads the conversation so far and answers
//! with either a call in its suite's text form (read by the suite's
//! [`super::Task::read`]) or words for the user.
//!
//! A model is told about the setting by the suite's system prompt; the
//! user's words reach it as `(User) ...` and tool results as `(API) ...`,
//! both as user messages, its own calls and replies as assistant messages.

use std::collections::VecDeque;

use super::chat::{ChatModel, Reported, Role};
use super::{Message, Speaker};

/// Whoever answers the user in a conversation.
pub trait Assistant: Send {
    /// Its name in reports.
    fn name(&self) -> String;

    /// The next message, given everything said and returned so far.
    fn reply(&mut self, transcript: &[Message]) -> Result<String, String>;

    /// The models the server said answered (none for an assistant that
    /// asks no model).
    fn models(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A model behind an OpenAI-compatible server.
pub struct LlmAssistant {
    model: std::sync::Arc<ChatModel>,
    system: String,
    reported: Reported,
}

impl LlmAssistant {
    /// The model, told the setting by `system`.
    pub fn new(model: std::sync::Arc<ChatModel>, system: String) -> Self {
        LlmAssistant {
            model,
            system,
            reported: Reported::default(),
        }
    }
}

/// The messages the assistant's model is sent for `transcript`.
pub fn messages(system: &str, transcript: &[Message]) -> Vec<(Role, String)> {
    let mut out = vec![(Role::System, system.trim_end().to_string())];
    for message in transcript {
        out.push(match message.from {
            Speaker::User => (Role::User, format!("(User) {}", message.text)),
            Speaker::Api => (Role::User, format!("(API) {}", message.text)),
            Speaker::Assistant | Speaker::Call => (Role::Assistant, message.text.clone()),
        });
    }
    out
}

impl Assistant for LlmAssistant {
    fn name(&self) -> String {
        format!("llm:{}", self.model.model())
    }

    fn reply(&mut self, transcript: &[Message]) -> Result<String, String> {
        let (text, model) = self.model.reply(&messages(&self.system, transcript))?;
        self.reported.add(model);
        Ok(text)
    }

    fn models(&self) -> Vec<String> {
        self.reported.models()
    }
}

/// The scenario's own gold calls, one a message in order, then a closing
/// word: checks that the scenarios can be completed.
pub struct Oracle {
    calls: VecDeque<String>,
}

impl Oracle {
    /// Makes `calls` (each already written as the suite's text form).
    pub fn new(calls: impl IntoIterator<Item = String>) -> Self {
        Oracle {
            calls: calls.into_iter().collect(),
        }
    }
}

impl Assistant for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn reply(&mut self, _: &[Message]) -> Result<String, String> {
        Ok(self
            .calls
            .pop_front()
            .unwrap_or_else(|| "That is everything you asked for.".into()))
    }
}
