//! Scenario generation: plugin-subset prompts rendered from the catalog,
//! sent through the LLM client, scenario extraction and filtering, and even
//! sampling across tools.

pub mod extract;
pub mod prompts;
pub mod sample;
pub mod scenario;

pub use extract::Filter;
pub use prompts::{render_all, Ask, Prompt, DEFAULT_TEMPLATE};
pub use scenario::{Scenario, ScenarioPool};
