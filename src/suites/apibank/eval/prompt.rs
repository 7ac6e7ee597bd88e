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

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::super::call_text::render_api_request;
use super::super::catalog::catalog;
use crate::dialogue::{Conversation, Role};
use crate::run::answer::{Asked, Chat, Message, Settings};
use crate::suite::docs::openai_tool;
use crate::suite::levels::LevelRun;
use crate::suite::{ToolSpec, ValueFormat};
use crate::{Error, Result};

/// The template shipped with talkforge, and its name in provenance.
const DEFAULT_TEMPLATE: &str = include_str!("../../../../prompts/apibank-eval.j2");
const DEFAULT_TEMPLATE_NAME: &str = "prompts/apibank-eval.j2";

/// How a model is asked a sample: the system prompt's template, and
/// whether the APIs are offered as tools (functions mode) and documented.
pub struct SamplePrompt {
    /// The template's name in provenance records.
    name: String,
    template: String,
    level: u8,
    functions: bool,
    docs: bool,
}

impl SamplePrompt {
    /// The prompt `run` asks with: `--template` (refused with its file
    /// named when it does not compile) or talkforge's own.
    pub fn of(run: &LevelRun<'_>) -> Result<Self> {
        let (name, template) = match &run.template {
            Some(path) => {
                let source = crate::formats::read::read_text(path)?;
                let env = minijinja::Environment::new();
                env.template_from_str(&source).map_err(|e| {
                    Error::input(path, format!("the template does not compile: {e}"))
                })?;
                (path.display().to_string(), source)
            }
            None => (DEFAULT_TEMPLATE_NAME.into(), DEFAULT_TEMPLATE.into()),
        };
        Ok(SamplePrompt {
            name,
            template,
            level: run.level,
            functions: run.functions,
            docs: !run.no_docs,
        })
    }

    /// What a model asked with it records: its settings, and the template
    /// by name with the SHA-256 of its text (another template is another
    /// run).
    pub fn record(&self) -> (Settings, BTreeMap<String, String>) {
        let sha256 = crate::llm::sha256_hex(self.template.as_bytes());
        let settings = Settings {
            api_mode: Some(if self.functions { "functions" } else { "text" }.into()),
            no_docs: Some(!self.docs),
            template_sha256: Some(sha256.clone()),
            ..Settings::default()
        };
        (settings, [(self.name.clone(), sha256)].into())
    }

    /// The system prompt for what is `asked` (the template's `task`:
    /// `call` or `reply`), showing `apis`.
    fn system(&self, asked: Asked, apis: &[&'static ToolSpec]) -> Result<String> {
        let task = if asked == Asked::Reply {
            "reply"
        } else {
            "call"
        };
        let apis: Vec<Value> = apis
            .iter()
            .map(|spec| json!({"name": spec.name, "doc": api_doc(spec, self.docs).to_string()}))
            .collect();
        let env = minijinja::Environment::new();
        env.render_str(
            &self.template,
            minijinja::context! { task => task, level => self.level, apis => apis },
        )
        .map(|text| text.trim().to_string())
        .map_err(|e| Error::Other(format!("the prompt template does not render: {e}")))
    }

    /// The chat a model is sent for what is `asked` at `line` of
    /// `dialogue`.
    pub fn chat(&self, dialogue: &Conversation, line: usize, asked: Asked) -> Result<Chat> {
        let functions = self.functions && asked == Asked::Call;
        let apis = shown_apis(dialogue, asked, self.level, 0);
        let mut messages = vec![Message::System(self.system(asked, &apis)?)];
        messages.extend(history(dialogue, line, functions));
        let offered = match functions {
            true => shown_apis(dialogue, asked, self.level, line),
            false => Vec::new(),
        };
        let tools: Vec<Value> = (offered.into_iter())
            .map(|spec| openai_tool(spec, self.docs))
            .collect();
        Ok(Chat { messages, tools })
    }
}

/// One API's documentation as the prompt shows it: its description and
/// each parameter's type, whether it is required and, where the value has
/// a fixed shape, that shape (a timestamp's pattern, a token from an
/// earlier call). `docs` false blanks the descriptions.
fn api_doc(spec: &'static ToolSpec, docs: bool) -> Value {
    let describe = |text: &'static str| if docs { text } else { "" };
    let parameters: Map<String, Value> = spec
        .parameters
        .iter()
        .map(|p| {
            let mut doc = Map::new();
            doc.insert("type".into(), p.ty.json_name().into());
            if !p.description.is_empty() {
                doc.insert("description".into(), describe(p.description).into());
            }
            if let Some(shape) = shape(p.format) {
                doc.insert("format".into(), shape.into());
            }
            doc.insert("required".into(), p.required.into());
            (p.name.to_string(), Value::Object(doc))
        })
        .collect();
    json!({"name": spec.name, "description": describe(spec.description), "parameters": parameters})
}

/// How a value of `format` is written, for the model.
fn shape(format: ValueFormat) -> Option<&'static str> {
    match format {
        ValueFormat::Timestamp => Some("%Y-%m-%d %H:%M:%S"),
        ValueFormat::Date => Some("%Y-%m-%d"),
        ValueFormat::Time => Some("%H:%M:%S"),
        ValueFormat::MonthDay => Some("%m-%d"),
        ValueFormat::Email => Some("an email address"),
        ValueFormat::Phone => Some("ddd-ddd-dddd"),
        ValueFormat::Token => Some("the token an earlier GetUserToken returned"),
        ValueFormat::Id => Some("an id an earlier call returned"),
        ValueFormat::Any => None,
    }
}

/// The APIs a sample shows: for a call sample at level 2, ToolSearcher
/// and every API that a ToolSearcher answer among the dialogue's first
/// `lines` lines documented (a model given tools can call no other:
/// GetUserToken beside an API that takes a token); otherwise every API the
/// dialogue calls, in the catalog's order.
fn shown_apis(
    dialogue: &Conversation,
    asked: Asked,
    level: u8,
    lines: usize,
) -> Vec<&'static ToolSpec> {
    let tools = catalog().tools().iter().copied();
    if asked == Asked::Reply || level != 2 {
        return tools
            .filter(|t| dialogue.apis_used.iter().any(|used| used == t.name))
            .collect();
    }
    let mut apis: Vec<&'static ToolSpec> = tools.filter(|t| t.name == "ToolSearcher").collect();
    let searches = (dialogue.gold_calls_in(0..lines))
        .filter(|(_, _, call)| call.request.api_name == "ToolSearcher");
    // A search's answer documents one API, or a list of them.
    let found = searches.flat_map(|(_, _, call)| match call.response.get("output") {
        Some(Value::Array(entries)) => entries.iter().collect(),
        entry => entry.into_iter().collect::<Vec<_>>(),
    });
    for spec in found.filter_map(|entry| catalog().tool(entry.get("name")?.as_str()?)) {
        if !apis.iter().any(|a| a.name == spec.name) {
            apis.push(spec);
        }
    }
    apis
}

/// The dialogue's first `lines` lines as chat messages; with `functions`,
/// API lines as tool calls.
fn history(dialogue: &Conversation, lines: usize, functions: bool) -> Vec<Message> {
    let mut messages = Vec::new();
    for (position, turn) in dialogue.conversation[..lines].iter().enumerate() {
        match (turn.role, turn.calls().first()) {
            (Role::User, _) => messages.push(Message::User(turn.text.clone())),
            (Role::Assistant, None) => messages.push(Message::Assistant(turn.text.clone())),
            (Role::Assistant, Some(call)) => {
                let output = call.response.get("output").cloned().unwrap_or(Value::Null);
                if functions {
                    let id = format!("call_{position}");
                    let arguments = Value::Object(call.request.parameters.clone()).to_string();
                    let content =
                        json!({"output": output, "exception": call.response.get("exception")});
                    messages.push(Message::Call {
                        id: id.clone(),
                        name: call.request.api_name.clone(),
                        arguments,
                    });
                    messages.push(Message::Result {
                        id,
                        content: content.to_string(),
                    });
                } else {
                    let text = render_api_request(&call.request.api_name, &call.request.parameters);
                    messages.push(Message::System(format!("{text} Response: {output}")));
                }
            }
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialogue() -> Conversation {
        let search = json!({"role": "API", "api_name": "ToolSearcher", "param_dict": {"keywords": "agenda"},
            "result": {"api_name": "ToolSearcher", "input": {"keywords": "agenda"},
                       "output": [{"name": "GetUserToken"}, {"name": "AddAgenda"}], "exception": null}});
        let text = format!(
            "{}\n{search}\n{}\n",
            json!({"role": "User", "text": "Add a dentist visit."}),
            json!({"role": "AI", "text": "Your username and password?"})
        );
        crate::formats::apibank::read_conversation(std::path::Path::new("d.jsonl"), &text).unwrap()
    }

    fn names(apis: Vec<&'static ToolSpec>) -> Vec<&'static str> {
        apis.iter().map(|spec| spec.name).collect()
    }

    #[test]
    fn level_two_offers_toolsearcher_and_what_earlier_searches_found() {
        let d = dialogue();
        assert_eq!(names(shown_apis(&d, Asked::Call, 2, 1)), ["ToolSearcher"]);
        assert_eq!(
            names(shown_apis(&d, Asked::Call, 2, 3)),
            ["ToolSearcher", "GetUserToken", "AddAgenda"]
        );
        assert_eq!(names(shown_apis(&d, Asked::Call, 1, 3)), ["ToolSearcher"]);
    }

    #[test]
    fn the_builtin_template_renders_each_task() {
        let prompt = |level| SamplePrompt {
            name: DEFAULT_TEMPLATE_NAME.into(),
            template: DEFAULT_TEMPLATE.into(),
            level,
            functions: false,
            docs: true,
        };
        let apis = shown_apis(&dialogue(), Asked::Call, 1, 0);
        let call = prompt(1).system(Asked::Call, &apis).unwrap();
        assert!(call.contains("[ApiName(key1='value1', key2='value2')]"));
        assert!(call.contains("\"name\":\"ToolSearcher\""));
        let level2 = prompt(2).system(Asked::Call, &apis).unwrap();
        assert!(level2.contains("call ToolSearcher"));
        let reply = prompt(1).system(Asked::Reply, &apis).unwrap();
        assert!(reply.contains("next message to the user"));
        assert!(!reply.contains("key1"));
    }
}
