//! The one LLM client: chat completions (a text prompt, a whole message
//! list, or any request body the caller builds, tools included) and
//! embeddings against any OpenAI-compatible server, through
//! [`super::http`] (one retry policy for every request talkforge sends:
//! 429 and 5xx retried with backoff, jitter and `Retry-After`; timed-out
//! attempts retried `retries` times), with one on-disk cache
//! ([`super::cache`]) and a run-wide [`Meter`] it feeds with each reply's
//! `usage`. Async callers await it; worker threads (rayon, std) call the
//! `_blocking` forms.
//!
//! The API key goes into the Authorization header only; the cache key and
//! cache entries are made from the request body, which never holds it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
    CreateChatCompletionResponse, EmbeddingUsage,
};
use serde::{Deserialize, Serialize};

use super::cache;
use super::http::{Http, HttpSettings};
use super::usage::{Meter, Role, Tokens};
use crate::{Error, Result};

/// A client for one server: where its replies are cached, which trial it
/// answers for, and the meter it counts into. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    http: Arc<Http>,
    cache: Option<PathBuf>,
    trial: Option<usize>,
    meter: Option<(Meter, Role)>,
}

/// A chat completion, and whether it came from the cache.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The server's answer (for an old cache entry, its text and model).
    pub response: CreateChatCompletionResponse,
    pub cached: bool,
}

impl Completion {
    /// The first choice's text ("" when it has none).
    pub fn text(&self) -> String {
        self.response
            .choices
            .first()
            .and_then(|c| c.message.content.clone())
            .unwrap_or_default()
    }

    /// The model the server says answered (None when it did not say).
    pub fn model(&self) -> Option<String> {
        Some(self.response.model.clone()).filter(|m| !m.is_empty())
    }

    /// The tokens the server says the answer took (None when it did not
    /// say, or the cache entry is older than talkforge keeping it).
    pub fn usage(&self) -> Option<Tokens> {
        self.response.usage.as_ref().map(Tokens::from)
    }
}

/// An embeddings answer, leniently read: a server that sends no `usage`
/// still answers.
#[derive(Deserialize)]
struct EmbeddingAnswer {
    data: Vec<EmbeddingItem>,
    usage: Option<EmbeddingUsage>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    index: u32,
    embedding: Vec<f32>,
}

#[derive(Serialize)]
struct EmbeddingRequest<'a> {
    model: &'a str,
    input: &'a [String],
}

impl Client {
    /// `api_key` is used for the Authorization header and nothing else.
    pub fn new(http: HttpSettings, api_key: &str) -> Result<Client> {
        Ok(Client {
            http: Arc::new(Http::new(http, api_key)?),
            cache: None,
            trial: None,
            meter: None,
        })
    }

    /// A client whose key is read from OPENAI_API_KEY (a local server may
    /// need none).
    pub fn from_env(http: HttpSettings) -> Result<Client> {
        Client::new(http, &std::env::var("OPENAI_API_KEY").unwrap_or_default())
    }

    /// Name `option` as the way to set the server's address when it
    /// cannot be reached (the embeddings server's is `--embeddings-url`).
    pub fn naming_url_option(mut self, option: &'static str) -> Client {
        Arc::make_mut(&mut self.http).set_url_option(option);
        self
    }

    /// Replies cached in `dir` (None: not cached).
    pub fn cached_in(mut self, dir: Option<PathBuf>) -> Client {
        self.cache = dir;
        self
    }

    /// The trial of a run of several: each trial's replies are cached
    /// apart (the trial enters the cache key), so a rerun answers each
    /// trial as it answered and trials never share a reply.
    pub fn for_trial(&self, trial: Option<usize>) -> Client {
        Client {
            trial,
            ..self.clone()
        }
    }

    /// Every reply counted into `meter`, for `role`.
    pub fn metered(mut self, meter: &Meter, role: Role) -> Client {
        self.meter = Some((meter.clone(), role));
        self
    }

    pub fn base_url(&self) -> &str {
        self.http.base_url()
    }

    pub fn settings(&self) -> &HttpSettings {
        self.http.settings()
    }

    pub fn cache(&self) -> Option<&Path> {
        self.cache.as_deref()
    }

    /// The meter the client counts into, when it has one.
    pub fn meter(&self) -> Option<&Meter> {
        self.meter.as_ref().map(|(m, _)| m)
    }

    /// Count one reply for `model`.
    pub fn record(&self, model: &str, cached: bool, usage: Option<Tokens>) {
        if let Some((meter, role)) = &self.meter {
            meter.record(*role, model, cached, usage);
        }
    }

    /// The answer to a chat completion request `body` (a model asked for
    /// `model`), from the cache when it is there; `tag` enters the cache
    /// key (two requests of one body with different tags never answer for
    /// each other).
    pub async fn chat<B: Serialize + ?Sized>(
        &self,
        model: &str,
        body: &B,
        tag: Option<&str>,
    ) -> Result<Completion> {
        let prefix = cache::chat_key_prefix(self.base_url(), self.trial, tag);
        let path = self
            .cache
            .as_deref()
            .map(|dir| cache::entry_path(dir, &prefix, body));
        if let Some(response) = path.as_deref().and_then(cache::read_chat) {
            let completion = Completion {
                response,
                cached: true,
            };
            self.record(model, true, completion.usage());
            return Ok(completion);
        }
        // No choice, or a message with nothing in it, is a failed request:
        // retried, never cached, and an error when it persists.
        let response: CreateChatCompletionResponse = self
            .http
            .post_checked("chat/completions", body, "a chat completion", nothing_in)
            .await
            .map_err(Error::Other)?;
        let completion = Completion {
            response,
            cached: false,
        };
        self.record(model, false, completion.usage());
        if let Some(path) = path {
            let entry = serde_json::json!({"request": body, "response": completion.response});
            cache::write(&path, &entry)?;
        }
        Ok(completion)
    }

    /// [`Client::chat`] from a worker thread (never from inside an async
    /// runtime).
    pub fn chat_blocking<B: Serialize + ?Sized>(
        &self,
        model: &str,
        body: &B,
        tag: Option<&str>,
    ) -> Result<Completion> {
        runtime()?.block_on(self.chat(model, body, tag))
    }

    /// The embeddings of `inputs` from `model`, in order, asked in one
    /// request (never cached here: see [`super::embed::Embedder`]).
    pub async fn embeddings(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>> {
        let request = EmbeddingRequest {
            model,
            input: inputs,
        };
        let answer: EmbeddingAnswer = self
            .http
            .post("embeddings", &request, "embeddings")
            .await
            .map_err(Error::Other)?;
        self.record(model, false, answer.usage.as_ref().map(Tokens::from));
        let mut data = answer.data;
        data.sort_by_key(|e| e.index);
        if data.len() != inputs.len() {
            return Err(Error::Other(format!(
                "{}: asked for {} embeddings, got {}",
                self.base_url(),
                inputs.len(),
                data.len()
            )));
        }
        Ok(data.into_iter().map(|e| e.embedding).collect())
    }

    /// [`Client::embeddings`] from a worker thread.
    pub fn embeddings_blocking(&self, model: &str, inputs: &[String]) -> Result<Vec<Vec<f32>>> {
        runtime()?.block_on(self.embeddings(model, inputs))
    }
}

/// The runtime the blocking forms wait on, one for the process: started
/// on first use and never stopped, so no client is tied to a runtime's
/// lifetime.
fn runtime() -> Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> =
        OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))
        })
        .as_ref()
        .map_err(|e| Error::Other(e.clone()))
}

/// How to ask one model by prompts: the client, and the model's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub http: HttpSettings,
    pub model: String,
    pub temperature: f32,
    pub max_tokens: u32,
    /// The on-disk cache; None disables it.
    pub cache: Option<PathBuf>,
    /// The trial of a run of several (see [`Client::for_trial`]).
    pub trial: Option<usize>,
}

/// A reply to a prompt, and whether it came from the cache.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    /// The model the server says answered (`None` when it did not say).
    pub model: Option<String>,
    pub cached: bool,
    /// The tokens it took, when the server said.
    pub usage: Option<Tokens>,
}

impl From<Completion> for Reply {
    fn from(c: Completion) -> Self {
        Reply {
            text: c.text(),
            model: c.model(),
            usage: c.usage(),
            cached: c.cached,
        }
    }
}

/// One model asked by prompts (scenario generation, drafting, level 3's
/// assistant and user): the request built from [`Settings`].
#[derive(Debug, Clone)]
pub struct Prompter {
    client: Client,
    settings: Settings,
}

impl Prompter {
    /// `api_key` is used for the Authorization header and nothing else.
    pub fn new(settings: Settings, api_key: &str) -> Result<Prompter> {
        let client = Client::new(settings.http.clone(), api_key)?
            .cached_in(settings.cache.clone())
            .for_trial(settings.trial);
        Ok(Prompter { client, settings })
    }

    /// Every reply counted into `meter`, for `role`.
    pub fn metered(mut self, meter: &Meter, role: Role) -> Prompter {
        self.client = self.client.metered(meter, role);
        self
    }

    pub fn model(&self) -> &str {
        &self.settings.model
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

    /// Like [`Prompter::complete`], with `tag` in the cache key: two
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

    /// [`Prompter::chat`] from a worker thread.
    pub fn chat_blocking(&self, messages: Vec<ChatCompletionRequestMessage>) -> Result<Reply> {
        runtime()?.block_on(self.chat(messages))
    }

    async fn chat_tagged(
        &self,
        messages: Vec<ChatCompletionRequestMessage>,
        tag: Option<&str>,
    ) -> Result<Reply> {
        let request = self.request(messages);
        let completion = self
            .client
            .chat(&self.settings.model, &request, tag)
            .await?;
        Ok(completion.into())
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
