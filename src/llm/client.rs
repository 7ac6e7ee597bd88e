//! The generation client: chat completions against any OpenAI-compatible
//! server through [`super::http`] (one retry policy for every LLM request
//! talkforge sends: 429 and 5xx retried with backoff, jitter and
//! `Retry-After`; timed-out attempts retried `retries` times), with an
//! on-disk cache keyed by the request.
//!
//! The API key goes into the Authorization header only; the cache key and
//! cache entries are made from the request body, which never holds it.

use std::path::PathBuf;

use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
    CreateChatCompletionResponse,
};
use serde::{Deserialize, Serialize};

use super::cache;
use super::http::{Http, HttpSettings};
use crate::{Error, Result};

/// How to reach the model and what to ask of it.
#[derive(Debug, Clone)]
pub struct Settings {
    pub http: HttpSettings,
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
    /// The on-disk cache; None disables it.
    pub cache: Option<PathBuf>,
    /// The trial of a run of several: each trial's replies are cached
    /// apart (the trial enters the cache key), so a rerun answers each
    /// trial as it answered and trials never share a reply.
    pub trial: Option<usize>,
}

/// A reply, and whether it came from the cache.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    /// The model the server says answered (`None` when it did not say).
    pub model: Option<String>,
    pub cached: bool,
}

/// What the cache keeps of one completion.
#[derive(Serialize, Deserialize)]
struct Entry<R> {
    request: R,
    reply: String,
    model: Option<String>,
}

pub struct Client {
    http: Http,
    settings: Settings,
}

impl Client {
    /// `api_key` is used for the Authorization header and nothing else.
    pub fn new(settings: Settings, api_key: &str) -> Result<Client> {
        let http = Http::new(settings.http.clone(), api_key)?;
        Ok(Client { http, settings })
    }

    fn request(&self, messages: Vec<ChatCompletionRequestMessage>) -> CreateChatCompletionRequest {
        #[allow(deprecated)]
        CreateChatCompletionRequest {
            model: self.settings.model.clone(),
            messages,
            temperature: Some(self.settings.temperature),
            max_tokens: Some(self.settings.max_tokens),
            ..Default::default()
        }
    }

    /// The model's reply to `prompt`, from the cache when it is there.
    pub async fn complete(&self, prompt: &str) -> Result<Reply> {
        self.complete_tagged(prompt, None).await
    }

    /// Like [`Client::complete`], with `tag` in the cache key: two
    /// requests of the same text with different tags (a prompt's second
    /// draft) are cached apart and never answer for each other.
    pub async fn complete_tagged(&self, prompt: &str, tag: Option<&str>) -> Result<Reply> {
        let message = ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
            content: prompt.to_owned().into(),
            name: None,
        });
        self.chat_tagged(vec![message], tag).await
    }

    /// The model's next message after `messages` (a whole conversation:
    /// system, user and assistant messages), from the cache when it is
    /// there.
    pub async fn chat(&self, messages: Vec<ChatCompletionRequestMessage>) -> Result<Reply> {
        self.chat_tagged(messages, None).await
    }

    async fn chat_tagged(
        &self,
        messages: Vec<ChatCompletionRequestMessage>,
        tag: Option<&str>,
    ) -> Result<Reply> {
        let request = self.request(messages);
        // What the key holds besides the request: the endpoint, then the
        // trial and the tag when there are.
        let mut endpoint = self.http.base_url().to_string();
        if let Some(trial) = self.settings.trial {
            endpoint += &format!("\ntrial {trial}");
        }
        if let Some(tag) = tag {
            endpoint += &format!("\n{tag}");
        }
        let cache_path = self
            .settings
            .cache
            .as_deref()
            .map(|dir| cache::entry_path(dir, &endpoint, &request));
        if let Some(entry) = cache_path
            .as_deref()
            .and_then(cache::read::<Entry<serde::de::IgnoredAny>>)
        {
            return Ok(Reply {
                text: entry.reply,
                model: entry.model,
                cached: true,
            });
        }
        // No choice, or a message with nothing in it, is a failed request:
        // retried, never cached, and an error when it persists.
        let response: CreateChatCompletionResponse = self
            .http
            .post_checked(
                "chat/completions",
                &request,
                "a chat completion",
                nothing_in,
            )
            .await
            .map_err(Error::Other)?;
        let Some(choice) = response.choices.first() else {
            return Err(Error::Other(format!(
                "{} answered a chat completion with no choices",
                self.http.base_url()
            )));
        };
        let text = choice.message.content.clone().unwrap_or_default();
        let model = Some(response.model).filter(|m| !m.is_empty());
        // An empty reply is not worth keeping: a rerun asks again.
        if let Some(path) = cache_path.as_ref().filter(|_| !text.is_empty()) {
            let entry = Entry {
                request,
                reply: text.clone(),
                model: model.clone(),
            };
            cache::write(path, &entry)?;
        }
        Ok(Reply {
            text,
            model,
            cached: false,
        })
    }
}

/// What a chat completion lacks to be an answer: a choice, and in it a
/// message with text (`null` is none; `""` is an empty reply) or a tool
/// call. None when it is one.
pub fn nothing_in(response: &CreateChatCompletionResponse) -> Option<String> {
    let Some(choice) = response.choices.first() else {
        return Some("no choices".into());
    };
    let message = &choice.message;
    let calls = message.tool_calls.as_ref().is_some_and(|c| !c.is_empty());
    #[allow(deprecated)]
    let function = message.function_call.is_some();
    (message.content.is_none() && !calls && !function)
        .then(|| "a message holding neither text nor a tool call".into())
}
