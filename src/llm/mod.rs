//! The one OpenAI-compatible client ([`client::Client`]): bounded
//! concurrency, retries with backoff, one on-disk cache keyed by the
//! request, token usage counted per model ([`usage::Meter`]), and key
//! hygiene. Used by scenario generation, drafting and evaluation.

pub mod cache;
pub mod client;
pub mod embed;
pub mod http;
pub mod usage;

pub use cache::sha256_hex;
