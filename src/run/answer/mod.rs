//! One way to ask for an answer, for every kind of evaluation: a kind
//! turns its unit (a turn of a conversation, a call sample, a scenario's
//! next message) into a [`Request`], and an [`Answerer`] answers it: the
//! [`oracle`] with the gold answer the request carries, a [`replay`] file
//! with the answer recorded for the request's key, or a model behind an
//! OpenAI-compatible server ([`llm`]) with the chat the request builds.

pub mod llm;
pub mod oracle;
pub mod replay;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::llm::client::Client;
use crate::Result;

/// Where a request stands, as replay files name it: the unit (a
/// conversation's id, a dialogue's path, a scenario), the position in it
/// (a turn, a line) and, where one position asks twice, which time.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub unit: String,
    pub position: usize,
    pub occurrence: u8,
    pub asked: Asked,
}

/// What a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Asked {
    /// The assistant's next step: calls, or text that ends its turn.
    Next,
    /// A call (a call sample).
    Call,
    /// Words for the user (a reply sample).
    Reply,
}

/// One message of the chat a model is sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    System(String),
    User(String),
    Assistant(String),
    /// The assistant calling a tool (`arguments` as JSON text).
    Call {
        id: String,
        name: String,
        arguments: String,
    },
    /// A tool's result, answering the call with `id`.
    Result {
        id: String,
        content: String,
    },
    /// The assistant calling several tools in one message, with what it
    /// wrote beside them, as the server answered.
    Calls {
        text: Option<String>,
        /// (id, name, arguments as JSON text) of each call.
        calls: Vec<(String, String, String)>,
    },
}

impl Message {
    /// The message as chat completions take it.
    pub fn to_json(&self) -> Value {
        match self {
            Message::System(text) => json!({"role": "system", "content": text}),
            Message::User(text) => json!({"role": "user", "content": text}),
            Message::Assistant(text) => json!({"role": "assistant", "content": text}),
            Message::Call {
                id,
                name,
                arguments,
            } => json!({
                "role": "assistant",
                "tool_calls": [{"id": id, "type": "function",
                                "function": {"name": name, "arguments": arguments}}],
            }),
            Message::Result { id, content } => {
                json!({"role": "tool", "tool_call_id": id, "content": content})
            }
            Message::Calls { text, calls } => json!({
                "role": "assistant",
                "content": text,
                "tool_calls": calls.iter().map(|(id, name, arguments)| json!({
                    "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments},
                })).collect::<Vec<_>>(),
            }),
        }
    }
}

/// What a model is sent: the messages, and the tools it is offered (as
/// function specs; none offers no tools).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chat {
    pub messages: Vec<Message>,
    pub tools: Vec<Value>,
}

/// One question to an answerer.
pub struct Request<'a> {
    pub key: Key,
    /// The calls already made at this key (a turn asks again after each).
    pub step: usize,
    /// The gold answer, where the kind has one (the oracle's).
    pub gold: Option<Answer>,
    /// The chat a model is sent, built only when a model asks.
    pub chat: &'a (dyn Fn() -> Result<Chat> + Sync),
}

/// A call an answer asks for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Call {
    pub name: String,
    /// `None` when the arguments are no JSON object.
    pub arguments: Option<Map<String, Value>>,
    /// The arguments as the model wrote them.
    pub raw: Option<String>,
    /// The tool call's id, when a server gave one.
    pub id: Option<String>,
    /// What a replay file kept about the call, written to outputs as is.
    pub metadata: Option<Value>,
}

/// An answer: calls to make, or else text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    pub text: String,
    pub calls: Vec<Call>,
    /// Set when a server answered.
    pub served: Option<Served>,
}

/// What the server said of its answer (provenance).
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    /// The model it named (None when it named none).
    pub model: Option<String>,
    pub finish_reason: Option<Value>,
}

impl Answer {
    pub fn text(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            ..Answer::default()
        }
    }

    /// The model the server named, if one answered.
    pub fn model(&self) -> Option<String> {
        self.served.as_ref()?.model.clone()
    }
}

/// What an answerer was set up with, recorded in every output file so
/// that a resumed run evaluates again what other settings produced; the
/// fields that do not apply stay `None` (null in JSON).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Settings {
    /// The chat model asked for (openai).
    pub model: Option<String>,
    /// Which tools the model is shown, and how (openai).
    pub api_mode: Option<String>,
    /// Whether the tool documentation was blanked (openai).
    pub no_docs: Option<bool>,
    /// The sampling temperature; null also when the server's default was used.
    pub temperature: Option<f32>,
    /// The predictions file as given (replay); informative, not compared.
    pub predictions: Option<String>,
    /// SHA-256 of the predictions file's bytes (replay).
    pub predictions_sha256: Option<String>,
    /// SHA-256 of the prompt template's text, where the run may choose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_sha256: Option<String>,
    /// The trial (1-based) of a run of several (`--trials`), for an
    /// answerer whose answers vary from trial to trial; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial: Option<usize>,
}

/// Whoever answers: the assistant under evaluation.
pub trait Answerer: Sync {
    /// A short name for reports ("oracle", "openai:gpt-4o", ...).
    fn name(&self) -> String;

    /// What it was set up with, for the record.
    fn settings(&self) -> Settings {
        Settings::default()
    }

    /// The templates its prompts are rendered from, each name with the
    /// SHA-256 of its text (none for an answerer that sends no prompt).
    fn prompt_templates(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    /// The answer to `request`.
    fn answer(&self, request: &Request<'_>) -> Result<Answer>;

    /// The answer to `request`, which the caller no longer needs: the
    /// oracle hands on the gold answer instead of copying it.
    fn answer_owned(&self, request: Request<'_>) -> Result<Answer> {
        self.answer(&request)
    }
}

/// The models a server said answered, in order of first answer.
#[derive(Debug, Clone, Default)]
pub struct Reported(Vec<String>);

impl Reported {
    pub fn add(&mut self, model: Option<String>) {
        if let Some(model) = model.filter(|m| !self.0.contains(m)) {
            self.0.push(model);
        }
    }

    pub fn models(&self) -> Vec<String> {
        self.0.clone()
    }

    /// Each of `models` once, in order of first mention.
    pub fn all<'a>(models: impl IntoIterator<Item = &'a String>) -> Vec<String> {
        let mut reported = Reported::default();
        for model in models {
            reported.add(Some(model.clone()));
        }
        reported.0
    }
}

/// Who answers, as the command line chose it; each kind makes the
/// answerer of a trial from it.
#[derive(Debug, Clone)]
pub enum Choice {
    Oracle,
    /// Answers read from this file.
    Replay(PathBuf),
    Llm(Model),
}

/// A model to ask: the client (its cache and meter) and the sampling.
#[derive(Debug, Clone)]
pub struct Model {
    pub client: Client,
    pub model: String,
    pub temperature: Option<f32>,
    /// A token limit, sent as async-openai's typed request (see [`llm`]).
    pub max_tokens: Option<u32>,
}

impl Choice {
    /// The answerer of `trial`: a replay read in the format `lines`
    /// makes, or the model recording `settings` and `templates` (its
    /// model, temperature and trial filled in).
    pub fn answerer<L: replay::Lines>(
        &self,
        trial: Option<usize>,
        lines: impl FnOnce() -> Result<L>,
        settings: Settings,
        templates: BTreeMap<String, String>,
    ) -> Result<Box<dyn Answerer>> {
        Ok(match self {
            Choice::Oracle => Box::new(oracle::Oracle),
            Choice::Replay(path) => Box::new(replay::Replay::load(path, &lines()?)?),
            Choice::Llm(model) => Box::new(model.llm(trial, settings, templates)),
        })
    }
}
