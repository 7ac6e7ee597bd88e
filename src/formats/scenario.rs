//! A scenario pool: what one generation prompt asked for, what the model
//! answered, and the scenarios extracted from the answer with the verdict
//! of the filter. One pool file per prompt under `scenarios/`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One pool file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioPool {
    /// The prompt's stable name, `<PluginA>-<PluginB>-<PluginC>-<RequiredTool>`.
    pub name: String,
    /// The plugins whose tools the prompt documented, in catalog order.
    pub plugins: Vec<String>,
    /// The tool every scenario of this prompt must use.
    pub required_tool: String,
    /// The model that answered.
    pub model: String,
    /// SHA-256 (hex) of the rendered prompt text.
    pub prompt_sha256: String,
    /// The model's reply, unchanged.
    pub raw_reply: String,
    /// The scenarios extracted from the reply, in reply order.
    pub scenarios: Vec<Scenario>,
}

/// One extracted scenario and the filter's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scenario {
    /// The scenario text, whitespace collapsed.
    pub text: String,
    /// The tools the scenario mentions, first mention first.
    pub tools: Vec<String>,
    /// Whether the filter kept it.
    pub accepted: bool,
    /// Why the filter rejected it (empty when accepted).
    #[serde(default)]
    pub reasons: Vec<String>,
}
