//! Scenario generation: plugin-subset prompts rendered from the catalog,
//! sent through the LLM client, scenario extraction and filtering, and even
//! sampling across tools.

pub mod ask;
pub mod drafts;
pub mod extract;
pub mod prompts;
pub mod sample;

pub use crate::formats::scenario::{Scenario, ScenarioPool};
pub use extract::Filter;
pub use prompts::{render_all, Ask, Prompt, DEFAULT_TEMPLATE};
