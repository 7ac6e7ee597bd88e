//! `--predictor openai` over tau2 tasks: a model plays the agent (the
//! domain's policy as its instructions, the domain's tools as functions,
//! or those of `--tool-docs`) and a model plays the user (told the task's
//! `user_scenario`), over the function-calling conversation of
//! [`crate::run::conversation::functions`]; the agent's calls run on the
//! domain's simulator as tau2's environment answers them. The prompts
//! are talkforge's own words, so scores are not comparable with tau2's
//! leaderboard.
//!
//! tau2's signals end a conversation: the user writes `###STOP###` (done),
//! `###TRANSFER###` (handed to a human agent, after the agent's
//! `transfer_to_human_agents`) or `###OUT-OF-SCOPE###`; the agent may
//! write `###STOP###`. Its limits too: a step bound and ten calls that
//! raised, each ending the conversation with reward 0.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::message::{Message, ToolCall};
use crate::llm::sha256_hex;
use crate::run::answer::Settings;
use crate::run::conversation::functions::{self, Ending, Setting, Simulator, Step};
use crate::run::conversation::user::LlmUser;
use crate::suite::tasks::LlmPlayers;
use crate::suites::tau2::common::Output;
use crate::suites::tau2::domain::Db;
use crate::suites::tau2::tasks::Task;
use crate::{Error, Result};

/// What the agent says first, as tau2's agent does.
pub const GREETING: &str = "Hi! How can I help you today?";

/// The user's signals that end the conversation.
pub const USER_STOPS: [&str; 3] = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"];

/// The agent's.
pub const AGENT_STOP: &str = "###STOP###";

/// The agent's instructions, before the domain's policy.
const AGENT_PROMPT: &str = "You work as a customer service agent. The policy below governs everything you do: follow it exactly, and refuse what it does not allow. Use the tools you are given to look things up and to make changes; never make up an identifier, a price or a fact that a tool has not told you. Either call tools or write to the customer in a message, not both at once. Ask the customer for what you need, and before any change to their records, say what you will do and wait for their yes.";

/// The simulated user's instructions, before the scenario.
const USER_PROMPT: &str = "You are role-playing a customer who contacts a customer service agent; the agent is what is being tested. Be the person the scenario below describes: say what you want in your own words, a little at a time, as a real customer would, and give a piece of information only when the agent asks for it or needs it. Never make up information the scenario does not give you: if asked for something you do not know, say you do not know it. Never act as the agent yourself.\n\nWhen everything you wanted is done, or cannot be done, write ###STOP### as your whole message to end the conversation. If the agent transfers you to a human agent, write ###TRANSFER### instead. If the agent cannot help with anything you came for, write ###OUT-OF-SCOPE###.";

/// The templates of the prompts, for provenance: each name with the
/// SHA-256 of its text.
pub fn templates() -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "tau2-agent".to_string(),
            sha256_hex(AGENT_PROMPT.as_bytes()),
        ),
        ("tau2-user".to_string(), sha256_hex(USER_PROMPT.as_bytes())),
    ])
}

/// The agent's system prompt for a domain's policy.
fn agent_system(policy: &str) -> String {
    format!("{AGENT_PROMPT}\n\n<policy>\n{}\n</policy>", policy.trim())
}

/// The user's system prompt for a task's scenario.
fn user_system(task: &Task) -> String {
    let scenario = match &task.user_scenario {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).expect("JSON serialises"),
    };
    format!("{USER_PROMPT}\n\n<scenario>\n{scenario}\n</scenario>")
}

/// The names of a domain's tools.
fn domain_tools(domain: &str) -> Vec<&'static crate::suite::ToolSpec> {
    match domain {
        "airline" => super::super::airline::TOOLS
            .iter()
            .map(|t| t.spec)
            .collect(),
        _ => super::super::retail::TOOLS.iter().map(|t| t.spec).collect(),
    }
}

/// The tools the agent is offered in `domain`: talkforge's schemas, or
/// those of `docs` (an OpenAI tools JSON: an array of `{"type":
/// "function", "function": {"name", ...}}`), which may name only the
/// domain's tools.
pub fn tools(domain: &str, docs: Option<&Path>) -> Result<Vec<Value>> {
    let specs = domain_tools(domain);
    let Some(path) = docs else {
        return Ok(specs
            .iter()
            .map(|spec| crate::suite::docs::openai_tool(spec, true))
            .collect());
    };
    let (_, value) = crate::formats::read_json(path)?;
    let Value::Array(entries) = value else {
        return Err(Error::input(
            path,
            "is no OpenAI tools JSON: an array of {\"type\": \"function\", \"function\": {\"name\", \"description\", \"parameters\"}} was expected",
        ));
    };
    for (i, entry) in entries.iter().enumerate() {
        let name = entry
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::input(path, format!("tool {i} has no function.name")))?;
        if !specs.iter().any(|s| s.name == name) {
            let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(Error::input(
                path,
                format!(
                    "tool {i} is {name}, which the {domain} domain has not (its tools: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(entries)
}

/// The domain's simulator, answering the agent as tau2's environment does.
struct Environment<'a>(&'a mut Db);

impl Simulator for Environment<'_> {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> (String, bool) {
        match self.0.call(name, arguments) {
            Ok(output) => (output.agent_text(), false),
            Err(raised) => (Output::Text(format!("Error: {raised}")).agent_text(), true),
        }
    }
}

/// A conversation held on one task.
pub struct Held {
    pub messages: Vec<Message>,
    pub termination: String,
    pub agent_models: Vec<String>,
    pub user_models: Vec<String>,
}

/// Hold the conversation of `task` (of `unit`'s name) on a copy of `db`;
/// `trial` is the trial of a run of several (each trial's replies are
/// cached apart). An error is a request that got no answer.
pub fn hold(
    players: &LlmPlayers,
    task: &Task,
    unit: &str,
    policy: &str,
    tools: &[Value],
    db: &Db,
    trial: Option<usize>,
) -> std::result::Result<Held, String> {
    let agent = players.agent.llm(trial, Settings::default(), templates());
    let user_model = players.user.llm(trial, Settings::default(), templates());
    let mut user = LlmUser::new(&user_model, user_system(task));
    let system = agent_system(policy);
    let mut db = db.clone();
    let setting = Setting {
        system: &system,
        tools,
        greeting: GREETING,
        user_stops: &USER_STOPS,
        assistant_stop: AGENT_STOP,
        max_steps: players.max_steps,
        max_errors: players.max_errors,
        unit,
    };
    let talk = functions::converse(&setting, &agent, &mut user, &mut Environment(&mut db))?;
    Ok(Held {
        messages: talk.steps.into_iter().map(message).collect(),
        termination: match talk.ending {
            Ending::AssistantStop => "agent_stop",
            Ending::UserStop => "user_stop",
            Ending::MaxSteps => "max_steps",
            Ending::TooManyErrors => "too_many_errors",
        }
        .to_string(),
        agent_models: talk.assistant_models,
        user_models: talk.user_models,
    })
}

/// A step in tau2's message format.
fn message(step: Step) -> Message {
    match step {
        Step::User(text) => Message::User {
            content: Some(text),
            tool_calls: None,
        },
        Step::Assistant { text, calls } => Message::Assistant {
            content: text,
            tool_calls: (!calls.is_empty()).then(|| {
                calls
                    .into_iter()
                    .map(|c| ToolCall {
                        id: c.id,
                        name: c.name,
                        arguments: c.arguments,
                        requestor: "assistant".into(),
                    })
                    .collect()
            }),
        },
        Step::Tool { id, content, error } => Message::Tool {
            id,
            content: Some(content),
            requestor: "assistant".into(),
            error,
        },
    }
}
