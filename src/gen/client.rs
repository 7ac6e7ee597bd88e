//! The LLM client: chat completions through async-openai against any
//! OpenAI-compatible server, with an on-disk cache keyed by the request.
//!
//! Retries: async-openai itself retries 429 (except quota exhaustion) and
//! 5xx answers with the exponential backoff we hand it (jitter through its
//! randomization factor) until `retry_for` has elapsed. Around that, each
//! attempt has a timeout; a timed-out attempt is retried here with the same
//! backoff shape, `retries` times at most. A connection failure is not
//! retried: it is reported at once with the endpoint's URL.
//!
//! The API key goes into the Authorization header only; the cache key and
//! cache entries are made from the request body, which never holds it.

use std::path::PathBuf;
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
};
use serde_json::json;

use super::prompts::sha256_hex;
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
    /// How long async-openai keeps retrying 429/5xx answers.
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
    pub cached: bool,
}

pub struct Client {
    inner: async_openai::Client<OpenAIConfig>,
    settings: Settings,
}

impl Client {
    /// `api_key` is used for the Authorization header and nothing else.
    pub fn new(settings: Settings, api_key: &str) -> Client {
        let config = OpenAIConfig::new()
            .with_api_base(settings.base_url.trim_end_matches('/'))
            .with_api_key(api_key);
        let backoff = backoff::ExponentialBackoff {
            initial_interval: settings.retry_base,
            current_interval: settings.retry_base,
            randomization_factor: 0.5,
            multiplier: 2.0,
            max_interval: settings.retry_base * 32,
            max_elapsed_time: Some(settings.retry_for),
            ..Default::default()
        };
        Client {
            inner: async_openai::Client::with_config(config).with_backoff(backoff),
            settings,
        }
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
                if let Some(reply) = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v.get("reply").and_then(|r| r.as_str()).map(str::to_owned))
                {
                    return Ok(Reply {
                        text: reply,
                        cached: true,
                    });
                }
            }
        }
        let request = self.request(prompt);
        let mut delay = self.settings.retry_base;
        let mut attempt = 0;
        let response = loop {
            let chat = self.inner.chat();
            let call = chat.create(request.clone());
            match tokio::time::timeout(self.settings.timeout, call).await {
                Ok(Ok(response)) => break response,
                Ok(Err(err)) => return Err(self.describe(err)),
                Err(_) if attempt < self.settings.retries => {
                    attempt += 1;
                    tokio::time::sleep(jittered(delay)).await;
                    delay *= 2;
                }
                Err(_) => {
                    return Err(Error::Other(format!(
                        "{}: no answer within {:?} after {} attempts",
                        self.settings.base_url,
                        self.settings.timeout,
                        attempt + 1
                    )))
                }
            }
        };
        let text = response
            .choices
            .first()
            .and_then(|c| c.message.content.clone())
            .unwrap_or_default();
        // An empty reply is not worth keeping: a rerun asks again.
        if let Some(path) = cache_path.as_ref().filter(|_| !text.is_empty()) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::input(dir, format!("cannot create the cache: {e}")))?;
            }
            let entry = json!({"request": request, "reply": text});
            let body = serde_json::to_string_pretty(&entry).expect("serializable");
            crate::dataset::atomic_write(path, body.as_bytes())?;
        }
        Ok(Reply {
            text,
            cached: false,
        })
    }

    fn describe(&self, err: OpenAIError) -> Error {
        let url = &self.settings.base_url;
        match err {
            OpenAIError::Reqwest(e) if e.is_connect() => Error::Other(format!(
                "cannot reach the LLM endpoint {url}: {e} (check --base-url / OPENAI_BASE_URL)"
            )),
            other => Error::Other(format!("the LLM endpoint {url} failed: {other}")),
        }
    }
}

/// `delay` scaled by a factor in [0.5, 1.5), from the clock's low bits.
fn jittered(delay: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    delay.mul_f64(0.5 + f64::from(nanos % 1000) / 1000.0)
}
