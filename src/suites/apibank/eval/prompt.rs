//! The chat messages a model is asked with: a system prompt rendered from
//! a template (`prompts/apibank-eval.j2`, or `--template FILE`) with the
//! documentation of the APIs the level shows, then the dialogue before the
//! sample as chat messages.
//!
//! Level 1 shows the APIs the dialogue calls; level 2 shows ToolSearcher
//! alone, and the model finds the others through it (its answers, in the
//! history, document them). A reply sample shows the dialogue's APIs at
//! both levels, as the reference's evaluator does. The documentation is
//! the catalog's (our own words), as one line of JSON per API.
//!
//! The history follows the reference's evaluator: the user's lines as
//! user messages, the AI's as assistant messages, and each API line as a
//! system message `[ApiName(key='value', ...)] Response: <output>`. With
//! `--api-mode functions` the APIs are offered as tools instead, and each
//! API line is an assistant tool call followed by its tool message.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::super::call_text::render_api_request;
use super::super::catalog::catalog;
use crate::dialogue::{Conversation, Role};
use crate::suite::ToolSpec;
use crate::{Error, Result};

/// The template shipped with talkforge.
pub const DEFAULT_TEMPLATE: &str = include_str!("../../../../prompts/apibank-eval.j2");

/// What the model is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// The next API call.
    Call,
    /// The reply after an API's result.
    Reply,
}

impl Task {
    fn name(self) -> &'static str {
        match self {
            Task::Call => "call",
            Task::Reply => "reply",
        }
    }
}

/// A prompt template, checked when it is loaded.
#[derive(Debug, Clone)]
pub struct Template {
    source: String,
}

impl Template {
    /// talkforge's own template.
    pub fn builtin() -> Self {
        Template {
            source: DEFAULT_TEMPLATE.to_string(),
        }
    }

    /// A template file (`--template`), refused with its file named when
    /// it does not compile.
    pub fn load(path: &Path) -> Result<Self> {
        let source = crate::formats::read::read_text(path)?;
        let env = minijinja::Environment::new();
        env.template_from_str(&source)
            .map_err(|e| Error::input(path, format!("the template does not compile: {e}")))?;
        Ok(Template { source })
    }

    /// The template's text (recorded with the results: another template
    /// is another run).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The system prompt for `task` at `level`, showing `apis`.
    pub fn render(&self, task: Task, level: u8, apis: &[&ToolSpec], docs: bool) -> Result<String> {
        let apis: Vec<Value> = apis
            .iter()
            .map(|spec| json!({"name": spec.name, "doc": api_doc(spec, docs).to_string()}))
            .collect();
        let env = minijinja::Environment::new();
        env.render_str(
            &self.source,
            minijinja::context! { task => task.name(), level => level, apis => apis },
        )
        .map(|text| text.trim().to_string())
        .map_err(|e| Error::Other(format!("the prompt template does not render: {e}")))
    }
}

/// One API's documentation as the prompt shows it.
pub fn api_doc(spec: &ToolSpec, docs: bool) -> Value {
    let describe = |text: &str| {
        if docs {
            text.to_string()
        } else {
            String::new()
        }
    };
    let parameters: Map<String, Value> = spec
        .parameters
        .iter()
        .map(|p| {
            (
                p.name.to_string(),
                json!({"type": p.ty.json_name(), "description": describe(p.description),
                       "required": p.required}),
            )
        })
        .collect();
    json!({"name": spec.name, "description": describe(spec.description), "parameters": parameters})
}

/// The APIs a sample shows: for a call sample at level 2, ToolSearcher
/// alone; otherwise every API the dialogue calls, in the catalog's order.
pub fn shown_apis(dialogue: &Conversation, task: Task, level: u8) -> Vec<&'static ToolSpec> {
    let tools = catalog().tools().iter().copied();
    if task == Task::Call && level == 2 {
        return tools.filter(|t| t.name == "ToolSearcher").collect();
    }
    tools
        .filter(|t| dialogue.apis_used.iter().any(|used| used == t.name))
        .collect()
}

/// The dialogue's first `lines` lines as chat messages; with `functions`,
/// API lines as tool calls.
pub fn history(dialogue: &Conversation, lines: usize, functions: bool) -> Vec<Value> {
    let mut messages = Vec::new();
    for (position, turn) in dialogue.conversation[..lines].iter().enumerate() {
        match (turn.role, turn.calls().first()) {
            (Role::User, _) => messages.push(json!({"role": "user", "content": turn.text})),
            (Role::Assistant, None) => {
                messages.push(json!({"role": "assistant", "content": turn.text}))
            }
            (Role::Assistant, Some(call)) => {
                let output = call.response.get("output").cloned().unwrap_or(Value::Null);
                if functions {
                    let id = format!("call_{position}");
                    let arguments = Value::Object(call.request.parameters.clone()).to_string();
                    messages.push(json!({
                        "role": "assistant",
                        "tool_calls": [{"id": id, "type": "function",
                                        "function": {"name": call.request.api_name, "arguments": arguments}}],
                    }));
                    let content =
                        json!({"output": output, "exception": call.response.get("exception")});
                    messages.push(
                        json!({"role": "tool", "tool_call_id": id, "content": content.to_string()}),
                    );
                } else {
                    let text = render_api_request(&call.request.api_name, &call.request.parameters);
                    messages.push(
                        json!({"role": "system", "content": format!("{text} Response: {output}")}),
                    );
                }
            }
        }
    }
    messages
}

/// The APIs offered as tools in functions mode: those the level shows,
/// and at level 2 also every API an earlier ToolSearcher answer in the
/// history documented.
pub fn offered_tools(dialogue: &Conversation, lines: usize, level: u8, docs: bool) -> Vec<Value> {
    let mut apis = shown_apis(dialogue, Task::Call, level);
    if level == 2 {
        for turn in &dialogue.conversation[..lines] {
            for call in turn
                .calls()
                .iter()
                .filter(|c| c.request.api_name == "ToolSearcher")
            {
                let Some(name) = super::super::apis::tool_search::recorded_pick(&call.response)
                else {
                    continue;
                };
                if let Some(spec) = catalog()
                    .tool(&name)
                    .filter(|s| !apis.iter().any(|a| a.name == s.name))
                {
                    apis.push(spec);
                }
            }
        }
    }
    apis.into_iter()
        .map(|spec| crate::suite::docs::openai_tool(spec, docs))
        .collect()
}
