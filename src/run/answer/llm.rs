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
    fn typed(&self, chat: &Chat, max_tokens: u32) -> Result<CreateChatCompletionRequest> {
        let messages = chat
            .messages
            .iter()
            .map(|m| serde_json::from_value::<ChatCompletionRequestMessage>(m.to_json()))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::Other(format!("a message the model cannot be sent: {e}")))?;
        // Offered tools go in too; a request without (every one cached
        // before tools could be offered here) serialises as it did.
        let tools = if chat.tools.is_empty() {
            None
        } else {
            Some(
                chat.tools
                    .iter()
                    .map(|t| serde_json::from_value(t.clone()))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| {
                        Error::Other(format!("a tool the model cannot be offered: {e}"))
                    })?,
            )
        };
        #[allow(deprecated)]
        Ok(CreateChatCompletionRequest {
            model: self.model.clone(),
            messages,
            temperature: self.temperature,
            max_tokens: Some(max_tokens),
            tools,
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use async_openai::types::{
        ChatCompletionRequestAssistantMessage, ChatCompletionRequestSystemMessage,
        ChatCompletionRequestUserMessage,
    };

    use super::*;
    use crate::llm::cache;
    use crate::llm::http::HttpSettings;
    use crate::run::answer::{Asked, Key, Message, Model};

    /// A conversation with a user asked its models with async-openai's
    /// typed request before every kind asked through one answerer: an
    /// entry cached then, under the key it computed, still answers.
    #[test]
    fn a_model_with_a_token_limit_reads_what_conversations_with_a_user_cached() {
        let dir = tempfile::tempdir().unwrap();
        let http = HttpSettings {
            // Nothing listens there: a miss would be a failed request.
            base_url: "http://127.0.0.1:9/v1".into(),
            timeout: Duration::from_secs(1),
            retries: 0,
            retry_base: Duration::from_millis(1),
            retry_for: Duration::from_millis(1),
        };
        let client = Client::new(http, "").unwrap();
        #[allow(deprecated)]
        let earlier = CreateChatCompletionRequest {
            model: "m".into(),
            messages: vec![
                ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
                    content: "Be brief.".to_string().into(),
                    name: None,
                }),
                ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
                    content: "(User) Wake me up.".to_string().into(),
                    name: None,
                }),
                ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                    content: Some("[GetToday()]".to_string().into()),
                    ..Default::default()
                }),
            ],
            temperature: Some(0.7),
            max_tokens: Some(1024),
            ..Default::default()
        };
        let prefix = cache::chat_key_prefix(client.base_url(), Some(2), None);
        let path = cache::entry_path(dir.path(), &prefix, &earlier);
        let entry = json!({"request": earlier, "reply": "Cached.", "model": "m-0613"});
        cache::write(&path, &entry).unwrap();

        let model = Model {
            client: client.cached_in(Some(dir.path().to_path_buf())),
            model: "m".into(),
            temperature: Some(0.7),
            max_tokens: Some(1024),
        };
        let llm = model.llm(Some(2), Settings::default(), BTreeMap::new());
        let chat = || {
            Ok(Chat {
                messages: vec![
                    Message::System("Be brief.".into()),
                    Message::User("(User) Wake me up.".into()),
                    Message::Assistant("[GetToday()]".into()),
                ],
                tools: Vec::new(),
            })
        };
        let request = Request {
            key: Key {
                unit: "scenario".into(),
                position: 1,
                occurrence: 0,
                asked: Asked::Next,
            },
            step: 0,
            gold: None,
            chat: &chat,
        };
        let answer = llm.answer(&request).unwrap();
        assert_eq!(
            (answer.text.as_str(), answer.model()),
            ("Cached.", Some("m-0613".to_string()))
        );
    }
}
