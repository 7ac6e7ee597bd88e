//! Scenario generation: plugin-subset prompts rendered from the catalog,
//! an LLM client with retry, bounded concurrency and an on-disk cache,
//! scenario extraction and filtering, and even sampling across tools.

pub mod client;
pub mod extract;
pub mod http;
pub mod prompts;
pub mod sample;

pub use extract::Filter;
pub use prompts::{render_all, Ask, Prompt, DEFAULT_TEMPLATE};
