//! The one way talkforge talks to an OpenAI-compatible server: `generate`'s
//! chat completions, `evaluate`'s openai predictor and its embeddings
//! similarity all post through [`Http::post`]. async-openai provides the
//! request and response types; the request itself is sent here with
//! reqwest so that every answer's status and headers are seen.
//!
//! Retries:
//! - a 429 or any 5xx answer is retried whatever its body (OpenAI's
//!   `{"error": {...}}`, vLLM's `{"object": "error", ...}`, plain text),
//!   except a 429 whose error type or code is `insufficient_quota`: no
//!   wait makes that one pass. The wait is the server's `Retry-After`
//!   (seconds or an HTTP date; or OpenAI's `retry-after-ms`) when given,
//!   at most [`MAX_RETRY_AFTER`], else exponential backoff from
//!   `retry_base` (doubling, at most 64 times the base) with ±50% jitter.
//!   Retrying stops once the next wait would end later than `retry_for`
//!   after the first attempt.
//! - an attempt with no complete answer within `timeout` is retried with
//!   the same backoff, `retries` times at most.
//! - a connection the server closes (or resets) without answering is
//!   retried like a 5xx answer.
//! - a connection that cannot be made is not retried: the error names the
//!   URL at once. Other 4xx answers are not retried either.
//!
//! - an answer the caller finds empty (a chat completion with no choice,
//!   or whose message has neither text nor a tool call) is a failed
//!   request: retried like a 5xx answer, never handed on (so never
//!   cached), and named in the error when every attempt gives one.
//!
//! An answer larger than [`MAX_REPLY_BYTES`] is refused as it arrives,
//! never held whole.
//!
//! The API key goes into the Authorization header (marked sensitive) and
//! nowhere else; no error message, log line or cache entry holds it. A
//! server that echoes it, in an error body or in an answer (a model
//! repeating its prompt's headers), has it replaced by `[redacted]`
//! before anything reads the answer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{Error, Result};

/// The longest server-requested wait honoured for one retry.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The largest answer read: a chat completion is a few kilobytes, the
/// embeddings of a batch of texts a few megabytes.
pub const MAX_REPLY_BYTES: usize = 16 << 20;

/// Where the server is and how patient to be with it.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// Up to and including the version, e.g. `http://localhost:8000/v1`.
    pub base_url: String,
    /// Per attempt.
    pub timeout: Duration,
    /// Timed-out attempts are retried at most this often.
    pub retries: u32,
    /// The first backoff delay; doubled each retry, with jitter.
    pub retry_base: Duration,
    /// How long 429 and 5xx answers are retried, from the first attempt.
    pub retry_for: Duration,
}

impl HttpSettings {
    /// `--base-url`, else `OPENAI_BASE_URL`, else OpenAI's; no trailing `/`.
    pub fn base_url_from(flag: Option<&str>) -> String {
        flag.map(str::to_string)
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok())
            .unwrap_or_else(|| "https://api.openai.com/v1".to_string())
            .trim_end_matches('/')
            .to_string()
    }
}

/// A client for one OpenAI-compatible server.
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
    authorization: Option<HeaderValue>,
    /// The key, only to take it out of error messages.
    redact: Option<String>,
    settings: HttpSettings,
    /// The command-line option that sets the server's address, named when
    /// it cannot be reached.
    url_option: &'static str,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Http {
    /// `api_key` is used for the Authorization header and nothing else; an
    /// empty key sends no header (a local server may need none).
    pub fn new(mut settings: HttpSettings, api_key: &str) -> Result<Http> {
        settings.base_url = settings.base_url.trim_end_matches('/').to_string();
        let authorization = if api_key.is_empty() {
            None
        } else {
            let mut value = HeaderValue::from_str(&format!("Bearer {api_key}")).map_err(|_| {
                Error::Usage("OPENAI_API_KEY holds characters a header cannot carry".into())
            })?;
            value.set_sensitive(true);
            Some(value)
        };
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| Error::Other(format!("cannot set up the HTTP client: {e}")))?;
        Ok(Http {
            client,
            authorization,
            redact: (!api_key.is_empty()).then(|| api_key.to_string()),
            settings,
            url_option: "--base-url",
        })
    }

    /// Name `option` (`--embeddings-url`) as the way to set the server's
    /// address when it cannot be reached [default: `--base-url`].
    pub fn set_url_option(&mut self, option: &'static str) {
        self.url_option = option;
    }

    pub fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    pub fn base_url(&self) -> &str {
        &self.settings.base_url
    }

    /// POST `body` as JSON to `{base_url}/{path}` and read the answer as
    /// `T`, with the retry policy above. `what` names the request in
    /// error messages ("a chat completion").
    pub async fn post<B, T>(&self, path: &str, body: &B, what: &str) -> Result<T, String>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        self.post_checked(path, body, what, |_: &T| None).await
    }

    /// Like [`Http::post`], but an answer in which `empty` finds nothing
    /// (it says what is missing) is a failed request: retried as a 5xx
    /// answer is, and named in the error when every attempt gives one.
    pub async fn post_checked<B, T>(
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
        self.post_unredacted(path, body, what, empty)
            .await
            .map_err(|message| redact(message, self.redact.as_deref()))
    }

    async fn post_unredacted<B, T>(
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
        let url = format!(
            "{}/{}",
            self.settings.base_url,
            path.trim_start_matches('/')
        );
        let body = serde_json::to_vec(body).map_err(|e| format!("encoding {what}: {e}"))?;
        let started = Instant::now();
        let mut backoff = Backoff::new(self.settings.retry_base);
        let mut timeouts = 0;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let wait = match tokio::time::timeout(self.settings.timeout, self.attempt(&url, &body))
                .await
            {
                Ok(Ok((_, _, Body::TooLarge(seen)))) => {
                    return Err(format!(
                        "{url} answered {what} with more than {} MiB ({seen} bytes and more); refused",
                        MAX_REPLY_BYTES >> 20
                    ));
                }
                Ok(Ok((status, headers, Body::Whole(bytes)))) => {
                    if status.is_success() {
                        let answer: T = self.read_answer(&bytes).map_err(|e| {
                            format!(
                                "{url} answered {what} with something unexpected: {e}: {}",
                                snippet(self.redacted(&bytes).as_bytes())
                            )
                        })?;
                        let Some(missing) = empty(&answer) else {
                            return Ok(answer);
                        };
                        let wait = backoff.next();
                        if started.elapsed() + wait > self.settings.retry_for {
                            return Err(format!(
                                "{url} answered {what} with {missing} every time; gave up after {attempts} attempts in {:.1}s (--retry-for)",
                                started.elapsed().as_secs_f64()
                            ));
                        }
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                    // Redacted before it is cut short, so no part of the key shows.
                    let message = error_message(self.redacted(&bytes).as_bytes());
                    if !retryable(status, &bytes) {
                        return Err(format!("{url} refused {what}: {status}: {message}"));
                    }
                    let wait = retry_after(&headers)
                        .map(|d| d.min(MAX_RETRY_AFTER))
                        .unwrap_or_else(|| backoff.next());
                    if started.elapsed() + wait > self.settings.retry_for {
                        return Err(format!(
                            "{url} answered {what} with {status} ({message}); gave up after {attempts} attempts in {:.1}s (--retry-for)",
                            started.elapsed().as_secs_f64()
                        ));
                    }
                    wait
                }
                Ok(Err(e)) if e.is_connect() => {
                    return Err(format!(
                        "cannot reach {url} for {what}: {} (check {} / OPENAI_BASE_URL)",
                        describe(&e),
                        self.url_option
                    ))
                }
                Ok(Err(e)) if e.is_builder() || e.is_redirect() || e.is_decode() => {
                    return Err(format!("{url} failed {what}: {}", describe(&e)))
                }
                // The connection was closed or reset before a whole answer
                // came: as passing as a 5xx.
                Ok(Err(e)) if !e.is_timeout() => {
                    let wait = backoff.next();
                    if started.elapsed() + wait > self.settings.retry_for {
                        return Err(format!(
                            "{url} closed the connection without answering {what} ({}); gave up after {attempts} attempts in {:.1}s (--retry-for)",
                            describe(&e),
                            started.elapsed().as_secs_f64()
                        ));
                    }
                    wait
                }
                // A timeout, ours or reqwest's.
                Ok(Err(_)) | Err(_) => {
                    if timeouts >= self.settings.retries {
                        return Err(format!(
                            "{url}: no answer within {:?} for {what}, {attempts} attempts",
                            self.settings.timeout
                        ));
                    }
                    timeouts += 1;
                    backoff.next()
                }
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// A successful answer read as `T`, any text in it that holds the key
    /// with the key replaced (however the JSON escapes it).
    fn read_answer<T: DeserializeOwned>(&self, bytes: &[u8]) -> serde_json::Result<T> {
        let Some(key) = self.redact.as_deref() else {
            return serde_json::from_slice(bytes);
        };
        let mut value: serde_json::Value = serde_json::from_slice(bytes)?;
        redact_value(&mut value, key);
        serde_json::from_value(value)
    }

    /// A body as text, the key taken out.
    fn redacted(&self, body: &[u8]) -> String {
        redact(
            String::from_utf8_lossy(body).into_owned(),
            self.redact.as_deref(),
        )
    }

    async fn attempt(
        &self,
        url: &str,
        body: &[u8],
    ) -> std::result::Result<(StatusCode, HeaderMap, Body), reqwest::Error> {
        let mut request = self
            .client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if let Some(auth) = &self.authorization {
            request = request.header(AUTHORIZATION, auth.clone());
        }
        let mut response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let announced = response.content_length().unwrap_or(0);
        if announced > MAX_REPLY_BYTES as u64 {
            return Ok((status, headers, Body::TooLarge(announced as usize)));
        }
        // Read into one buffer, and stop at the limit.
        let mut bytes = Vec::with_capacity(announced as usize);
        while let Some(chunk) = response.chunk().await? {
            if bytes.len() + chunk.len() > MAX_REPLY_BYTES {
                return Ok((status, headers, Body::TooLarge(bytes.len() + chunk.len())));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, headers, Body::Whole(bytes)))
    }
}

/// An answer's body: read whole, or refused for its size (the bytes seen).
enum Body {
    Whole(Vec<u8>),
    TooLarge(usize),
}

/// Replace the key in every string and member name of `value`.
fn redact_value(value: &mut serde_json::Value, key: &str) {
    use serde_json::Value;
    match value {
        Value::String(text) if text.contains(key) => {
            *text = text.replace(key, "[redacted]");
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact_value(item, key)),
        Value::Object(members) => {
            if members.keys().any(|k| k.contains(key)) {
                *members = std::mem::take(members)
                    .into_iter()
                    .map(|(k, v)| (k.replace(key, "[redacted]"), v))
                    .collect();
            }
            members.values_mut().for_each(|v| redact_value(v, key));
        }
        _ => {}
    }
}

/// `message` with every occurrence of the key replaced.
fn redact(message: String, key: Option<&str>) -> String {
    match key {
        Some(key) if message.contains(key) => message.replace(key, "[redacted]"),
        _ => message,
    }
}

/// reqwest's error with its causes (the top-level text alone is often
/// just "error sending request"); the URL is in our message already.
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether an error answer is worth asking again.
pub fn retryable(status: StatusCode, body: &[u8]) -> bool {
    if status.is_server_error() {
        return true;
    }
    if status != StatusCode::TOO_MANY_REQUESTS {
        return false;
    }
    // A 429 for an exhausted quota does not pass by waiting.
    let value: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let error = value.get("error").unwrap_or(&value);
    !["type", "code"]
        .iter()
        .any(|k| error.get(k).and_then(|v| v.as_str()) == Some("insufficient_quota"))
}

/// The wait a server asks for: `retry-after-ms`, or `Retry-After` in
/// seconds or as an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = when.signed_duration_since(chrono::Utc::now());
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// The message of an error answer, whatever its shape.
fn error_message(body: &[u8]) -> String {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => return snippet(body),
    };
    let message = value
        .pointer("/error/message")
        .or_else(|| value.get("message"))
        .or_else(|| value.get("error").filter(|e| e.is_string()))
        .or_else(|| value.get("detail"))
        .and_then(|m| m.as_str());
    match message {
        Some(m) => m.to_string(),
        None => snippet(body),
    }
}

/// The start of a body, for error messages.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_string();
    }
    let mut cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    cut
}

/// Exponential backoff with ±50% jitter.
struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    fn new(base: Duration) -> Backoff {
        Backoff {
            next: base,
            max: base * 64,
        }
    }

    fn next(&mut self) -> Duration {
        let delay = self.next;
        self.next = (self.next * 2).min(self.max);
        delay.mul_f64(0.5 + unit_random())
    }
}

/// A number in [0, 1), different on every call (for jitter only).
fn unit_random() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ nanos;
    // splitmix64
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_retried() {
        let s = |n| StatusCode::from_u16(n).unwrap();
        assert!(retryable(s(429), b"slow down"));
        assert!(retryable(s(429), br#"{"object":"error","message":"busy"}"#));
        assert!(retryable(s(500), b"<html>oops</html>"));
        assert!(retryable(s(503), b""));
        assert!(!retryable(s(400), b"bad"));
        assert!(!retryable(s(404), b"{}"));
        assert!(!retryable(
            s(429),
            br#"{"error":{"message":"quota","type":"insufficient_quota"}}"#
        ));
    }

    #[test]
    fn the_key_is_taken_out_of_messages() {
        let key = "sk-SECRET-123";
        assert_eq!(
            redact(
                format!("401: Incorrect API key provided: {key}; {key}"),
                Some(key)
            ),
            "401: Incorrect API key provided: [redacted]; [redacted]"
        );
        assert_eq!(redact("no key here".into(), None), "no key here");
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after", HeaderValue::from_static("0.5"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(500)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
    }

    #[test]
    fn backoff_doubles_with_jitter_up_to_a_cap() {
        let mut b = Backoff::new(Duration::from_millis(100));
        for round in 0..10u32 {
            let nominal = Duration::from_millis(100) * 2u32.pow(round.min(6));
            let d = b.next();
            assert!(d >= nominal / 2 && d < nominal * 3 / 2, "{round}: {d:?}");
        }
    }

    #[test]
    fn error_messages_of_every_shape() {
        assert_eq!(error_message(br#"{"error":{"message":"slow"}}"#), "slow");
        assert_eq!(
            error_message(br#"{"object":"error","message":"busy","code":500}"#),
            "busy"
        );
        assert_eq!(error_message(b"plain text"), "plain text");
        assert_eq!(error_message(b""), "(empty body)");
    }
}
