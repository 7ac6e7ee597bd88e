//! The options every command that talks to an LLM server shares
//! (`generate`, `evaluate`): the server, how many requests run at once, how
//! failures are retried, and the reply cache; the same names, units and
//! defaults everywhere, under the same help headings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::llm::http::HttpSettings;
use crate::Error;

/// The chat model every command asks unless `--model` says otherwise.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// Where replies are cached unless `--cache` says otherwise.
pub const DEFAULT_CACHE: &str = ".talkforge-cache/llm";

/// The help headings of the shared options. Each option names its own (a
/// `next_help_heading` would carry over to the options declared after the
/// flattened group).
const REQUESTS: &str = "Requests";
const CACHE: &str = "Cache";

#[derive(Debug, Clone, clap::Args)]
pub struct RequestArgs {
    /// The OpenAI-compatible server, up to its version (`http://localhost:8000/v1`)
    /// [default: OPENAI_BASE_URL, else OpenAI's]. The key is read from
    /// OPENAI_API_KEY and never printed.
    #[arg(long, value_name = "URL", help_heading = REQUESTS)]
    pub base_url: Option<String>,
    /// At most this many requests in flight.
    #[arg(long, default_value_t = 4, help_heading = REQUESTS)]
    pub concurrency: usize,
    /// Seconds one attempt may take before it counts as timed out.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, help_heading = REQUESTS)]
    pub timeout: f64,
    /// How often an attempt that timed out, or whose connection dropped,
    /// is tried again.
    #[arg(long, default_value_t = 3, help_heading = REQUESTS)]
    pub retries: u32,
    /// Seconds to wait before the first retry (doubled each retry, with
    /// jitter).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, help_heading = REQUESTS)]
    pub retry_base: f64,
    /// Seconds to keep retrying 429 and 5xx answers (a server's
    /// Retry-After is honoured, up to 60 s a wait).
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0, help_heading = REQUESTS)]
    pub retry_for: f64,
}

impl RequestArgs {
    /// The HTTP settings these options give; a zero `--concurrency` is a
    /// usage error.
    pub fn http(&self) -> Result<HttpSettings, Error> {
        if self.concurrency == 0 {
            return Err(Error::Usage("--concurrency must be at least 1".into()));
        }
        let timeout = seconds("timeout", self.timeout)?;
        if timeout.is_zero() {
            return Err(Error::Usage("--timeout must be more than 0 seconds".into()));
        }
        Ok(HttpSettings {
            base_url: HttpSettings::base_url_from(self.base_url.as_deref()),
            timeout,
            retries: self.retries,
            retry_base: seconds("retry-base", self.retry_base)?,
            retry_for: seconds("retry-for", self.retry_for)?,
        })
    }
}

fn seconds(flag: &str, value: f64) -> Result<Duration, Error> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| Error::Usage(format!("--{flag} must be a number of seconds, 0 or more")))
}

#[derive(Debug, Clone, clap::Args)]
pub struct CacheArgs {
    /// Where replies are cached, keyed by the whole request, so that a
    /// rerun pays only for what it has not asked yet.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CACHE, help_heading = CACHE)]
    pub cache: PathBuf,
    /// Ask the server again even when a reply is cached, and cache nothing.
    #[arg(long, help_heading = CACHE)]
    pub no_cache: bool,
}

impl CacheArgs {
    /// The cache folder for one kind of request (`chat`, `embeddings`),
    /// or `None` with `--no-cache`.
    pub fn folder(&self, kind: &str) -> Option<PathBuf> {
        (!self.no_cache).then(|| self.cache.join(kind))
    }

    /// The cache root, or `None` with `--no-cache`.
    pub fn root(&self) -> Option<&Path> {
        (!self.no_cache).then_some(self.cache.as_path())
    }
}
