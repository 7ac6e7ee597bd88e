//! What a turn of a whole conversation asks ([`super::replayed`]): the
//! request for the assistant's next step, with the gold step for the
//! oracle and, for a model, the chat.
//!
//! The chat: a system prompt (`prompts/eval-system.j2`: location, time,
//! and the username when the conversation's metadata names one), the
//! history, and the tools' documentation. The history is the gold
//! conversation up to the turn (user and assistant texts, earlier gold
//! calls with their recorded results) followed by the calls already made
//! in this turn with the results the world gave them, exactly the history
//! ToolTalk's `run_conversation` builds: every call is an assistant
//! message with one tool call followed by a tool message whose content is
//! `{"response": ..., "exception": ...}`. An earlier assistant turn's gold
//! calls come before its text, as the assistant produced them: the
//! reference's order since its fix "move API calls *before* assistant
//! response in the history" (microsoft/ToolTalk #10, commit 19e23f0, May
//! 2024; the data snapshot talkforge follows, e05f4ce, is later; the code
//! as first published appended the text before the calls). The tools: the conversation's own tools (`exact`),
//! the tools of its plugins (`suite`) or the whole catalog (`all`);
//! `--no-docs` blanks every description, as the paper's documentation
//! ablation does.
//!
//! The reference used the legacy `functions` interface, one call per
//! answer; tool calls are its successor. A model that answers with several
//! tool calls at once gets them run in order. In the history a call whose
//! arguments could not be parsed is shown with `{}` as arguments.

use serde_json::{json, Value};

use super::answer::{Answer, Asked, Call, Chat, Key, Message};
use crate::dialogue::{Conversation, Role};
use crate::suite::catalog::CallRef;
use crate::suite::predict::TurnInput;
use crate::suite::{Catalog, ToolSpec};

pub const SYSTEM_TEMPLATE: &str = include_str!("../../prompts/eval-system.j2");
pub const SYSTEM_TEMPLATE_NAME: &str = "prompts/eval-system.j2";

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

impl ApiMode {
    pub fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self)
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }
}

/// What a model is shown of the tools.
#[derive(Debug, Clone, Copy)]
pub struct TurnPrompt {
    /// The suite's catalog, whose tools the model is offered.
    pub catalog: &'static Catalog,
    pub api_mode: ApiMode,
    /// Send tool and parameter descriptions.
    pub docs: bool,
}

/// Where a turn's request stands: the conversation and the turn, asked
/// again after each call made (a replay file's line names it the same way).
pub fn key(input: &TurnInput<'_>) -> Key {
    turn_key(&input.conversation.conversation_id, input.turn)
}

/// The key of turn `turn` of conversation `id`.
pub fn turn_key(id: &str, turn: usize) -> Key {
    Key {
        unit: id.to_string(),
        position: turn,
        occurrence: 0,
        asked: Asked::Next,
    }
}

/// The gold step: the turn's next gold call (without the argument the
/// suite's world puts in itself, `injected`: the gold calls record it, a
/// model never sends it), then its text.
pub fn gold(input: &TurnInput<'_>, injected: Option<&str>) -> Option<Answer> {
    let turn = input.conversation.conversation.get(input.turn)?;
    let calls = turn.calls();
    Some(match calls.get(input.predicted.len()) {
        Some(gold) => {
            let mut arguments = gold.request.parameters.clone();
            // `Map::remove` moves the last argument into the token's
            // place, the order the outputs have always recorded.
            if let Some(name) = injected {
                arguments.remove(name);
            }
            let call = Call {
                name: gold.request.api_name.clone(),
                arguments: Some(arguments),
                ..Call::default()
            };
            Answer {
                calls: vec![call],
                ..Answer::default()
            }
        }
        None if input.predicted.len() == calls.len() => Answer::text(turn.text.clone()),
        None => return None,
    })
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

/// The chat a model is sent for one step.
pub fn chat(prompt: &TurnPrompt, input: &TurnInput<'_>) -> Chat {
    let mut messages = vec![Message::System(system_prompt(input.conversation))];
    // Each entry of the history by its position: a call's id is `call_K`.
    let mut k = 0;
    for turn in &input.conversation.conversation[..input.turn] {
        if turn.role == Role::Assistant {
            for gold in turn.calls() {
                call(&mut messages, k, gold.into(), true);
                k += 1;
            }
        }
        messages.push(match turn.role {
            Role::User => Message::User(turn.text.clone()),
            Role::Assistant => Message::Assistant(turn.text.clone()),
        });
        k += 1;
    }
    for p in input.predicted {
        call(&mut messages, k, p.as_call(), p.parsed);
        k += 1;
    }
    let tools: Vec<Value> = tools_for(prompt.catalog, prompt.api_mode, input.conversation)
        .into_iter()
        .map(|t| crate::suite::docs::openai_tool(t, prompt.docs))
        .collect();
    Chat { messages, tools }
}

/// A call the `k`th entry of the history made and what it returned;
/// arguments that could not be read (not `parsed`) are shown as `{}`.
fn call(messages: &mut Vec<Message>, k: usize, call: CallRef<'_>, parsed: bool) {
    let id = format!("call_{k}");
    let arguments = match parsed {
        true => serde_json::to_string(call.parameters).expect("JSON values serialize"),
        false => "{}".to_string(),
    };
    let content = json!({"response": call.response, "exception": call.exception});
    messages.push(Message::Call {
        id: id.clone(),
        name: call.api_name.to_string(),
        arguments,
    });
    messages.push(Message::Result {
        id,
        content: content.to_string(),
    });
}

/// The tools whose documentation is sent, in catalog order.
pub fn tools_for(
    catalog: &'static Catalog,
    mode: ApiMode,
    conversation: &Conversation,
) -> Vec<&'static ToolSpec> {
    let sent = |t: &ToolSpec| match mode {
        ApiMode::All | ApiMode::Functions => true,
        ApiMode::Exact => conversation.apis_used.iter().any(|a| a == t.name),
        ApiMode::Suite => conversation.suites_used.iter().any(|s| s == t.group),
    };
    catalog
        .tools()
        .iter()
        .copied()
        .filter(|t| sent(t))
        .collect()
}

/// A call's metadata in the output: what a replay file kept, or the tool
/// call's id and the model that made it (and the arguments as written,
/// when they could not be read).
pub fn call_metadata(call: &Call, answer: &Answer) -> Option<Value> {
    if call.metadata.is_some() {
        return call.metadata.clone();
    }
    let id = call.id.as_ref()?;
    let mut metadata = json!({"tool_call_id": id});
    if let Some(model) = answer.model() {
        metadata["model"] = json!(model);
    }
    if call.arguments.is_none() {
        metadata["arguments"] = json!(call.raw);
    }
    Some(metadata)
}

/// The text answer's metadata in the output: what the server said of it.
pub fn text_metadata(answer: &Answer) -> Option<Value> {
    let served = answer.served.as_ref()?;
    Some(match &served.model {
        Some(model) => json!({"finish_reason": served.finish_reason, "model": model}),
        None => json!({"finish_reason": served.finish_reason}),
    })
}
