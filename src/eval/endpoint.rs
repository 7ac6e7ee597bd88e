//! An OpenAI-compatible endpoint as the evaluator uses it: an async-openai
//! client, a runtime to wait on it from worker threads, and the retry
//! policy.
//!
//! async-openai retries 429 (except quota exhaustion) and 5xx answers with
//! the exponential backoff given here, for up to `retry_for`. Around each
//! attempt sits a timeout; a timed-out attempt (or a reqwest timeout) is
//! retried with the same backoff shape, `retries` times at most.
//!
//! The API key is handed to async-openai for the Authorization header and
//! kept nowhere else; error messages name the endpoint URL, never the key.

use std::future::Future;
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;

use crate::{Error, Result};

/// Where the endpoint is and how patient to be with it.
#[derive(Debug, Clone)]
pub struct EndpointSettings {
    pub base_url: String,
    /// Per attempt.
    pub timeout: Duration,
    /// Timed-out attempts retried at most this often.
    pub retries: u32,
    /// The first backoff delay; doubled each retry, with jitter.
    pub retry_base: Duration,
    /// How long async-openai keeps retrying 429/5xx answers.
    pub retry_for: Duration,
}

impl EndpointSettings {
    /// `--base-url`, else `OPENAI_BASE_URL`, else OpenAI's.
    pub fn base_url_from(flag: Option<&str>) -> String {
        flag.map(str::to_string)
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok())
            .unwrap_or_else(|| "https://api.openai.com/v1".to_string())
            .trim_end_matches('/')
            .to_string()
    }
}

pub struct Endpoint {
    pub client: async_openai::Client<OpenAIConfig>,
    pub settings: EndpointSettings,
    runtime: tokio::runtime::Runtime,
}

impl Endpoint {
    /// The key comes from OPENAI_API_KEY (a local server may need none).
    pub fn new(settings: EndpointSettings) -> Result<Self> {
        let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        let config = OpenAIConfig::new()
            .with_api_base(&settings.base_url)
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
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
        Ok(Endpoint {
            client: async_openai::Client::with_config(config).with_backoff(backoff),
            settings,
            runtime,
        })
    }

    /// Wait for `future` from a worker thread (never from inside the runtime).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Run `attempt` with the timeout and retry policy.
    pub async fn call<T, F, Fut>(&self, what: &str, attempt: F) -> Result<T, String>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, OpenAIError>>,
    {
        let url = &self.settings.base_url;
        let mut delay = self.settings.retry_base;
        let mut tries = 0;
        loop {
            let outcome = tokio::time::timeout(self.settings.timeout, attempt()).await;
            let timed_out = match outcome {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(OpenAIError::Reqwest(e))) if e.is_timeout() => true,
                Ok(Err(OpenAIError::Reqwest(e))) if e.is_connect() => {
                    return Err(format!(
                        "cannot reach {url} for {what}: {e} (check --base-url / OPENAI_BASE_URL)"
                    ))
                }
                Ok(Err(e)) => return Err(format!("{url} failed {what}: {e}")),
                Err(_) => true,
            };
            if timed_out && tries >= self.settings.retries {
                return Err(format!(
                    "{url}: no answer for {what} within {:?}, {} attempts",
                    self.settings.timeout,
                    tries + 1
                ));
            }
            tries += 1;
            tokio::time::sleep(jittered(delay)).await;
            delay *= 2;
        }
    }
}

/// `delay` scaled by a factor in [0.5, 1.5).
fn jittered(delay: Duration) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    delay.mul_f64(0.5 + f64::from(nanos % 1000) / 1000.0)
}

/// Hex SHA-256, for cache keys.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Read a cache entry's field, if the entry exists and parses.
pub fn read_cache(path: &std::path::Path, field: &str) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get_mut(field).map(serde_json::Value::take)
}

/// Store a cache entry atomically.
pub fn write_cache(path: &std::path::Path, entry: &serde_json::Value) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::input(dir, format!("cannot create the cache folder: {e}")))?;
    }
    let body = serde_json::to_string(entry).expect("JSON values serialize");
    crate::dataset::atomic_write(path, body.as_bytes())
}
