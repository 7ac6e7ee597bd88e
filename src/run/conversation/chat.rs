//! A chat model that a conversation with a user waits on: the shared LLM
//! client (`llm::client`: retries, cache, key hygiene) driven from the
//! conversation's thread. The assistant under test and the simulated user
//! are each one.

use async_openai::types::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
};

use crate::llm::client::{Prompter, Settings};
use crate::llm::usage::{Meter, Role as UsageRole};
use crate::Result;

/// Who a chat message is from, as the model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One model behind an OpenAI-compatible server.
pub struct ChatModel {
    prompter: Prompter,
}

impl ChatModel {
    /// The key is read from OPENAI_API_KEY into the client's
    /// Authorization header and kept nowhere else; every reply is counted
    /// into `meter` for `role`.
    pub fn new(settings: Settings, meter: &Meter, role: UsageRole) -> Result<ChatModel> {
        let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        Ok(ChatModel {
            prompter: Prompter::new(settings, &api_key)?.metered(meter, role),
        })
    }

    pub fn model(&self) -> &str {
        self.prompter.model()
    }

    /// The model's next message after `messages` (from a worker thread,
    /// never from inside an async runtime), and the model the server said
    /// answered (None when it did not say).
    pub fn reply(
        &self,
        messages: &[(Role, String)],
    ) -> std::result::Result<(String, Option<String>), String> {
        let messages = messages
            .iter()
            .map(|(role, text)| message(*role, text))
            .collect();
        self.prompter
            .chat_blocking(messages)
            .map(|reply| (reply.text, reply.model))
            .map_err(|e| e.to_string())
    }
}

/// The models a server said answered, in order of first answer.
#[derive(Debug, Clone, Default)]
pub struct Reported(Vec<String>);

impl Reported {
    pub fn add(&mut self, model: Option<String>) {
        if let Some(model) = model.filter(|m| !self.0.contains(m)) {
            self.0.push(model);
        }
    }

    pub fn models(&self) -> Vec<String> {
        self.0.clone()
    }
}

fn message(role: Role, text: &str) -> ChatCompletionRequestMessage {
    let content = text.to_owned();
    match role {
        Role::System => ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
            content: content.into(),
            name: None,
        }),
        Role::User => ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
            content: content.into(),
            name: None,
        }),
        #[allow(deprecated)]
        Role::Assistant => {
            ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                content: Some(content.into()),
                ..Default::default()
            })
        }
    }
}
