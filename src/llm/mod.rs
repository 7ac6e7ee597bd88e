//! The one OpenAI-compatible client: bounded concurrency, retries with
//! backoff, an on-disk cache keyed by the request, and key hygiene. Used by
//! scenario generation and by evaluation.

pub mod client;
pub mod endpoint;
pub mod http;
