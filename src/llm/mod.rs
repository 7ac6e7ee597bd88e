//! The one OpenAI-compatible client: bounded concurrency, retries with
//! backoff, an on-disk cache keyed by the request, and key hygiene. Used by
//! scenario generation and by evaluation.

pub mod cache;
pub mod client;
pub mod embed;
pub mod endpoint;
pub mod http;

pub use cache::sha256_hex;
