//! The generation client: chat completions against any OpenAI-compatible
//! server through [`super::http`] (one retry policy for every LLM request
//! talkforge sends: 429 and 5xx retried with backoff, jitter and
//! `Retry-After`; timed-out attempts retried `retries` times), with an
//! on-disk cache keyed by the request.
//!
//! The API key goes into the Authorization header only; the cache key and
//! cache entries are made from the request body, which never holds it.

use std::path::PathBuf;
use std::time::Duration;

use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
    CreateChatCompletionResponse,
};
use serde_json::json;

use super::http::{Http, HttpSettings};
use crate::gen::prompts::sha256_hex;
use crate::{Error, Result};

/// How to reach the model and how patient to be.
#[derive(Debug, Clone)]
pub struct Settings {
    pub base_url: String,
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
    /// Per attempt.
    pub timeout: Duration,
    /// First backoff delay; doubled each retry, with ±50% jitter.
    pub retry_base: Duration,
    /// How long 429/5xx answers are retried.
    pub retry_for: Duration,
    /// How many timed-out attempts are retried.
    pub retries: u32,
    /// The on-disk cache; None disables it.
    pub cache: Option<PathBuf>,
}

/// A reply, and whether it came from the cache.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    /// The model the server says answered (`None` when it did not say).
    pub model: Option<String>,
    pub cached: bool,
}

pub struct Client {
    http: Http,
    settings: Settings,
}

impl Client {
    /// `api_key` is used for the Authorization header and nothing else.
    pub fn new(settings: Settings, api_key: &str) -> Result<Client> {
        let http = Http::new(
            HttpSettings {
                base_url: settings.base_url.clone(),
                timeout: settings.timeout,
                retries: settings.retries,
                retry_base: settings.retry_base,
                retry_for: settings.retry_for,
            },
            api_key,
        )?;
        Ok(Client { http, settings })
    }

    fn request(&self, prompt: &str) -> CreateChatCompletionRequest {
        #[allow(deprecated)]
        CreateChatCompletionRequest {
            model: self.settings.model.clone(),
            messages: vec![ChatCompletionRequestMessage::User(
                ChatCompletionRequestUserMessage {
                    content: prompt.to_owned().into(),
                    name: None,
                },
            )],
            temperature: Some(self.settings.temperature),
            max_tokens: Some(self.settings.max_tokens),
            ..Default::default()
        }
    }

    /// The cache key: a hash of the full request body (model, messages,
    /// sampling settings) and of the endpoint.
    pub fn cache_key(&self, prompt: &str) -> String {
        let body = serde_json::to_string(&self.request(prompt)).expect("serializable");
        sha256_hex(format!("{}\n{body}", self.settings.base_url).as_bytes())
    }

    fn cache_path(&self, key: &str) -> Option<PathBuf> {
        self.settings
            .cache
            .as_ref()
            .map(|d| d.join(format!("{key}.json")))
    }

    /// The model's reply to `prompt`, from the cache when it is there.
    pub async fn complete(&self, prompt: &str) -> Result<Reply> {
        let key = self.cache_key(prompt);
        let cache_path = self.cache_path(&key);
        if let Some(path) = &cache_path {
            if let Ok(text) = std::fs::read_to_string(path) {
                if let Ok(entry) = serde_json::from_str::<serde_json::Value>(&text) {
                    if let Some(reply) = entry.get("reply").and_then(|r| r.as_str()) {
                        return Ok(Reply {
                            text: reply.to_owned(),
                            model: entry
                                .get("model")
                                .and_then(|m| m.as_str())
                                .map(str::to_owned),
                            cached: true,
                        });
                    }
                }
            }
        }
        let request = self.request(prompt);
        let response: CreateChatCompletionResponse = self
            .http
            .post("chat/completions", &request, "a chat completion")
            .await
            .map_err(Error::Other)?;
        let text = response
            .choices
            .first()
            .and_then(|c| c.message.content.clone())
            .unwrap_or_default();
        let model = Some(response.model).filter(|m| !m.is_empty());
        // An empty reply is not worth keeping: a rerun asks again.
        if let Some(path) = cache_path.as_ref().filter(|_| !text.is_empty()) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::input(dir, format!("cannot create the cache: {e}")))?;
            }
            let entry = json!({"request": request, "reply": text, "model": model});
            let body = serde_json::to_string_pretty(&entry).expect("serializable");
            crate::formats::atomic_write(path, body.as_bytes())?;
        }
        Ok(Reply {
            text,
            model,
            cached: false,
        })
    }
}
