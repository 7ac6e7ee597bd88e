//! An OpenAI-compatible endpoint as the evaluator uses it: the shared
//! HTTP client of [`crate::llm::http`] (the same retry policy as
//! `generate`: 429 and 5xx answers retried with backoff, jitter and
//! `Retry-After` for up to `retry_for`; timed-out attempts `retries` times)
//! and a runtime to wait on it from the evaluator's worker threads.
//!
//! The API key is read from OPENAI_API_KEY into the Authorization header
//! and kept nowhere else; error messages name the endpoint URL, never the
//! key.

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::llm::http::Http;
pub use crate::llm::http::HttpSettings as EndpointSettings;
use crate::{Error, Result};

pub struct Endpoint {
    http: Http,
    runtime: tokio::runtime::Runtime,
}

impl Endpoint {
    /// The key comes from OPENAI_API_KEY (a local server may need none).
    pub fn new(settings: EndpointSettings) -> Result<Self> {
        let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        let http = Http::new(settings, &api_key)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
        Ok(Endpoint { http, runtime })
    }

    pub fn settings(&self) -> &EndpointSettings {
        self.http.settings()
    }

    pub fn base_url(&self) -> &str {
        self.http.base_url()
    }

    /// POST `body` to `{base_url}/{path}` and wait for the answer (from a
    /// worker thread, never from inside the runtime).
    pub fn post<B, T>(&self, path: &str, body: &B, what: &str) -> Result<T, String>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        self.block_on(self.http.post(path, body, what))
    }

    /// [`Http::post_checked`] from a worker thread: an answer in which
    /// `empty` finds nothing is retried, and an error when it persists.
    pub fn post_checked<B, T>(
        &self,
        path: &str,
        body: &B,
        what: &str,
        empty: impl Fn(&T) -> Option<String>,
    ) -> Result<T, String>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        self.block_on(self.http.post_checked(path, body, what, empty))
    }

    /// Wait for `future` from a worker thread (never from inside the runtime).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

// The evaluator's names for the cache helpers, until its call sites use
// `llm::cache` directly.
pub use super::cache::{sha256_hex, write as write_cache};

/// A cache entry's field, if the entry exists and parses.
pub fn read_cache(path: &std::path::Path, field: &str) -> Option<serde_json::Value> {
    let mut entry: serde_json::Value = super::cache::read(path)?;
    entry.get_mut(field).map(serde_json::Value::take)
}
