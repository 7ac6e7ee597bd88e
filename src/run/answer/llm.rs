//! A model behind an OpenAI-compatible chat completions endpoint, asked
//! through the one LLM client ([`crate::llm::client`]): cached on disk
//! keyed by the request (endpoint, trial, body), so an interrupted run
//! pays once, and counted on the run's meter.
//!
//! The body is the request's chat with the model and the temperature:
//! `{model, messages, tools, temperature}` as built, or, for a model
//! given a token limit (conversations with a user), async-openai's typed
//! request, whose field order keys the cache entries those runs wrote.

use std::collections::BTreeMap;

use async_openai::types::{ChatCompletionRequestMessage, CreateChatCompletionRequest};
use serde_json::{json, Map, Value};

use super::{Answer, Answerer, Call, Chat, Request, Served, Settings};
use crate::llm::client::Client;
use crate::{Error, Result};

pub struct Llm {
    client: Client,
    model: String,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    settings: Settings,
    templates: BTreeMap<String, String>,
}

impl super::Model {
    /// The model asked for `trial` (each trial's replies are cached
    /// apart), recording `settings` with its model, temperature and trial.
    pub fn llm(
        &self,
        trial: Option<usize>,
        settings: Settings,
        templates: BTreeMap<String, String>,
    ) -> Llm {
        Llm {
            client: self.client.for_trial(trial),
            model: self.model.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            settings: Settings {
                model: Some(self.model.clone()),
                temperature: self.temperature,
                trial,
                ..settings
            },
            templates,
        }
    }
}

impl Llm {
    pub fn model(&self) -> &str {
        &self.model
    }

    fn typed(&self, chat: &Chat, max_tokens: u32) -> Result<CreateChatCompletionRequest> {
        let messages = chat
            .messages
            .iter()
            .map(|m| serde_json::from_value::<ChatCompletionRequestMessage>(m.to_json()))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Other(format!("a message the model cannot be sent: {e}")))?;
        #[allow(deprecated)]
        Ok(CreateChatCompletionRequest {
            model: self.model.clone(),
            messages,
            temperature: self.temperature,
            max_tokens: Some(max_tokens),
            ..Default::default()
        })
    }
}

impl Answerer for Llm {
    fn name(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn settings(&self) -> Settings {
        self.settings.clone()
    }

    fn prompt_templates(&self) -> BTreeMap<String, String> {
        self.templates.clone()
    }

    fn answer(&self, request: &Request<'_>) -> Result<Answer> {
        let chat = (request.chat)()?;
        let completion = match self.max_tokens {
            Some(max) => self
                .client
                .chat_blocking(&self.model, &self.typed(&chat, max)?, None)?,
            None => {
                let body = body(&self.model, self.temperature, &chat);
                self.client.chat_blocking(&self.model, &body, None)?
            }
        };
        let response = completion.response;
        let choice = response
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| Error::Other("the model answered without a choice".into()))?;
        let calls = choice.message.tool_calls.unwrap_or_default();
        Ok(Answer {
            text: choice.message.content.unwrap_or_default(),
            calls: calls
                .into_iter()
                .map(|call| Call {
                    arguments: match serde_json::from_str(&call.function.arguments) {
                        Ok(Value::Object(p)) => Some(p),
                        _ => None,
                    },
                    name: call.function.name,
                    raw: Some(call.function.arguments),
                    id: Some(call.id),
                    metadata: None,
                })
                .collect(),
            served: Some(Served {
                model: Some(response.model).filter(|m| !m.is_empty()),
                finish_reason: choice
                    .finish_reason
                    .map(|f| serde_json::to_value(f).unwrap_or(Value::Null)),
            }),
        })
    }
}

/// The request body for `chat`, as sent to a model without a token limit.
pub fn body(model: &str, temperature: Option<f32>, chat: &Chat) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let messages = chat.messages.iter().map(super::Message::to_json).collect();
    body.insert("messages".into(), Value::Array(messages));
    if !chat.tools.is_empty() {
        body.insert("tools".into(), Value::Array(chat.tools.clone()));
    }
    if let Some(t) = temperature {
        body.insert("temperature".into(), json!(t));
    }
    Value::Object(body)
}
