//! The assistant under test behind an OpenAI-compatible chat completions
//! endpoint, with tools.
//!
//! Each step sends: a system prompt (`prompts/eval-system.j2`: location,
//! time, and the username when the conversation's metadata names one), the
//! history (user and assistant texts; every call as an assistant message
//! with one tool call followed by a tool message whose content is
//! `{"response": ..., "exception": ...}`; an earlier assistant turn's calls
//! come before its text, as in the reference, see [`crate::suite::predict`]), and
//! the tools' documentation:
//! the conversation's own tools (`exact`), the tools of its plugins
//! (`suite`) or the whole catalog (`all`); `--no-docs` blanks every
//! description, as the paper's documentation ablation does.
//!
//! The reference used the legacy `functions` interface, one call per
//! answer; tool calls are its successor. A model that answers with several
//! tool calls at once gets them run in order. Arguments that are not a JSON
//! object become a failed call ("Failed to parse API call"), as in the
//! reference. In the history such a call is shown with `{}` as arguments.
//!
//! Answers come through the LLM client ([`crate::llm::client`]), cached on
//! disk keyed by the request (endpoint, trial, model, messages, tools), so
//! an interrupted run pays once, and counted on the run's meter.

use std::path::PathBuf;

use async_openai::types::CreateChatCompletionResponse;
use serde_json::{json, Map, Value};

use super::output::PredictorSettings;
use crate::dialogue::Conversation;
use crate::llm::client::Client;
use crate::llm::sha256_hex;
use crate::suite::predict::{
    HistoryItem, PredictError, Prediction, Predictor, ProposedCall, TurnInput,
};
use crate::suite::{Catalog, ToolSpec};

const SYSTEM_TEMPLATE: &str = include_str!("../../prompts/eval-system.j2");
const SYSTEM_TEMPLATE_NAME: &str = "prompts/eval-system.j2";

/// Which tools' documentation each request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ApiMode {
    /// The tools the conversation's gold calls use.
    Exact,
    /// Every tool of the plugins the conversation uses.
    Suite,
    /// The whole catalog.
    All,
    /// For suites evaluated at levels (API-Bank): offer the level's APIs
    /// as tools (function calling) instead of asking for the call in the
    /// text form. Conversation suites always offer tools, so it is refused
    /// for them.
    Functions,
}

#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    /// The suite's catalog, whose tools the model is offered.
    pub catalog: &'static Catalog,
    pub model: String,
    pub api_mode: ApiMode,
    /// Send tool and parameter descriptions.
    pub docs: bool,
    pub temperature: Option<f32>,
    /// The request cache folder; `None` disables it.
    pub cache: Option<PathBuf>,
    /// The trial of a run of several (`--trials`): each trial's replies
    /// are cached apart, so a rerun answers each trial as it answered.
    pub trial: Option<usize>,
}

pub struct OpenAiPredictor {
    client: Client,
    settings: OpenAiSettings,
}

impl OpenAiPredictor {
    /// Asks through `client`, cached in the settings' folder for the
    /// settings' trial.
    pub fn new(client: Client, settings: OpenAiSettings) -> Self {
        let client = client
            .cached_in(settings.cache.clone())
            .for_trial(settings.trial);
        OpenAiPredictor { client, settings }
    }

    /// The request body for one step, as sent.
    pub fn request_body(&self, input: &TurnInput<'_>) -> Value {
        request_body(&self.settings, input)
    }
}

impl Predictor for OpenAiPredictor {
    fn name(&self) -> String {
        format!("openai:{}", self.settings.model)
    }

    fn settings(&self) -> PredictorSettings {
        let mode = clap::ValueEnum::to_possible_value(&self.settings.api_mode)
            .map(|v| v.get_name().to_string());
        PredictorSettings {
            model: Some(self.settings.model.clone()),
            api_mode: mode,
            no_docs: Some(!self.settings.docs),
            temperature: self.settings.temperature,
            trial: self.settings.trial,
            ..PredictorSettings::default()
        }
    }

    fn prompt_templates(&self) -> std::collections::BTreeMap<String, String> {
        [(
            SYSTEM_TEMPLATE_NAME.to_string(),
            sha256_hex(SYSTEM_TEMPLATE.as_bytes()),
        )]
        .into_iter()
        .collect()
    }

    fn predict(&self, input: &TurnInput<'_>) -> Result<Prediction, PredictError> {
        let body = self.request_body(input);
        let completion = self
            .client
            .chat_blocking(&self.settings.model, &body, None)
            .map_err(|e| PredictError(e.to_string()))?;
        interpret(completion.response)
    }
}

/// The system prompt for a conversation.
pub fn system_prompt(conversation: &Conversation) -> String {
    let env = minijinja::Environment::new();
    let metadata = &conversation.metadata;
    env.render_str(
        SYSTEM_TEMPLATE,
        minijinja::context! {
            location => metadata.location.as_deref().unwrap_or("unknown"),
            timestamp => metadata.timestamp,
            username => metadata.username,
        },
    )
    .expect("the system prompt template renders")
    .trim_end()
    .to_string()
}

/// The chat request body for one step.
pub fn request_body(settings: &OpenAiSettings, input: &TurnInput<'_>) -> Value {
    let mut messages =
        vec![json!({"role": "system", "content": system_prompt(input.conversation)})];
    for (k, item) in input.history().enumerate() {
        match item {
            HistoryItem::User(text) => messages.push(json!({"role": "user", "content": text})),
            HistoryItem::Assistant(text) => {
                messages.push(json!({"role": "assistant", "content": text}))
            }
            HistoryItem::Call {
                api_name,
                parameters,
                response,
                exception,
            } => {
                let id = format!("call_{k}");
                let arguments = match parameters {
                    Some(p) => serde_json::to_string(&p).expect("JSON values serialize"),
                    None => "{}".to_string(),
                };
                messages.push(json!({
                    "role": "assistant",
                    "tool_calls": [{"id": id, "type": "function",
                                    "function": {"name": api_name, "arguments": arguments}}],
                }));
                let content = json!({"response": response, "exception": exception});
                messages.push(
                    json!({"role": "tool", "tool_call_id": id, "content": content.to_string()}),
                );
            }
        }
    }
    let tools: Vec<Value> = tools_for(settings.catalog, settings.api_mode, input.conversation)
        .into_iter()
        .map(|t| crate::suite::docs::openai_tool(t, settings.docs))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    body.insert("messages".into(), Value::Array(messages));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = settings.temperature {
        body.insert("temperature".into(), json!(t));
    }
    Value::Object(body)
}

/// The tools whose documentation is sent, in catalog order.
pub fn tools_for(
    catalog: &'static Catalog,
    mode: ApiMode,
    conversation: &Conversation,
) -> Vec<&'static ToolSpec> {
    match mode {
        ApiMode::All | ApiMode::Functions => catalog.tools().to_vec(),
        ApiMode::Exact => catalog
            .tools()
            .iter()
            .copied()
            .filter(|t| conversation.apis_used.iter().any(|a| a == t.name))
            .collect(),
        ApiMode::Suite => catalog
            .tools()
            .iter()
            .copied()
            .filter(|t| conversation.suites_used.iter().any(|s| s == t.group))
            .collect(),
    }
}

/// Turn the model's answer into a prediction.
pub fn interpret(response: CreateChatCompletionResponse) -> Result<Prediction, PredictError> {
    let choice = response
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| PredictError("the model answered without a choice".into()))?;
    // The model the server says answered, kept with each step (provenance).
    let model = Some(response.model).filter(|m| !m.is_empty());
    let finish = choice
        .finish_reason
        .map(|f| serde_json::to_value(f).unwrap_or(Value::Null));
    let calls = choice.message.tool_calls.unwrap_or_default();
    if calls.is_empty() {
        return Ok(Prediction::Text {
            text: choice.message.content.unwrap_or_default(),
            metadata: Some(match &model {
                Some(model) => json!({"finish_reason": finish, "model": model}),
                None => json!({"finish_reason": finish}),
            }),
        });
    }
    let proposed = calls
        .into_iter()
        .map(|call| {
            let parameters = match serde_json::from_str::<Value>(&call.function.arguments) {
                Ok(Value::Object(p)) => Some(p),
                _ => None,
            };
            let mut metadata = json!({"tool_call_id": call.id});
            if let Some(model) = &model {
                metadata["model"] = json!(model);
            }
            if parameters.is_none() {
                metadata["arguments"] = json!(call.function.arguments);
            }
            ProposedCall {
                api_name: call.function.name,
                parameters,
                metadata: Some(metadata),
            }
        })
        .collect();
    Ok(Prediction::Calls(proposed))
}
