//! The assistant under test: it reads the conversation so far and answers
//! with either a call in the paper's text form (`[ApiName(key='value')]`,
//! sent to the APIs) or words for the user.
//!
//! The model is told about the setting in our own prompt
//! (`prompts/apibank-level3-assistant.j2`); the user's words reach it as
//! `(User) ...` and API results as `(API) ...`, both as user messages, its
//! own calls and replies as assistant messages.

use super::chat::{ChatModel, Reported, Role};
use super::run::{Message, Speaker};
use super::Scenario;
use crate::suites::apibank::call_text::render_api_request;

const SYSTEM_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-assistant.j2");

/// Whoever answers the user in a level-3 conversation.
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
    reported: Reported,
}

impl LlmAssistant {
    pub fn new(model: std::sync::Arc<ChatModel>) -> Self {
        LlmAssistant {
            model,
            reported: Reported::default(),
        }
    }
}

/// The name of the prompt the assistant's model is told the setting in,
/// and its text (provenance records its hash).
pub const PROMPT: (&str, &str) = ("prompts/apibank-level3-assistant.j2", SYSTEM_PROMPT);

/// The messages the assistant's model is sent for `transcript`.
pub fn messages(transcript: &[Message]) -> Vec<(Role, String)> {
    let mut out = vec![(Role::System, SYSTEM_PROMPT.trim_end().to_string())];
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
        let (text, model) = self.model.reply(&messages(transcript))?;
        self.reported.add(model);
        Ok(text)
    }

    fn models(&self) -> Vec<String> {
        self.reported.models()
    }
}

/// The ground truth itself: the scenario's calls as written, one a
/// message in the paper's form, then a closing word to the user. It
/// checks the scenarios and the loop, not a model: every scenario whose
/// calls read back as written completes in one turn.
pub struct Oracle {
    calls: std::collections::VecDeque<String>,
}

impl Oracle {
    pub fn new(scenario: &Scenario) -> Self {
        Oracle {
            calls: scenario
                .ground_truth
                .iter()
                .map(|call| render_api_request(&call.api_name, &call.param_dict))
                .collect(),
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
