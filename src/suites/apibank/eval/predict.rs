//! What a sample asks of the answerer ([`crate::run::answer`]): the call
//! of a call sample or the reply of a reply sample, with the gold answer
//! for the oracle (the gold call in the paper's text form, the gold reply
//! as written) and, for a model, the chat ([`super::prompt`]); and
//! API-Bank's replay line format.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::super::call_text::render_api_request;
use super::prompt::{history, offered_tools, shown_apis, Task, Template};
use super::samples::sample_place;
use super::score::Predicted;
use crate::dialogue::Conversation;
use crate::run::answer::replay::Lines;
use crate::run::answer::{Answer, Answerer, Asked, Chat, Key, Message, Request, Settings};
use crate::sim::pyargs::display;
use crate::{Error, Result};

/// One sample as the answerer is asked it.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The dialogue's path relative to the folder evaluated.
    pub file: &'a str,
    pub dialogue: &'a Conversation,
    pub level: u8,
    /// The target line: the gold API line of a call sample, the gold reply
    /// of a reply sample. The history is every line before it.
    pub line: usize,
    /// For a call sample: 0, or 1 for the line's second sample.
    pub occurrence: u8,
}

/// A model's answer to a call sample.
#[derive(Debug, Clone, PartialEq)]
pub enum CallAnswer {
    /// Text to read the call out of.
    Text(String),
    /// A tool call (functions mode), with the raw text of its arguments.
    Function { predicted: Predicted, raw: String },
}

impl CallAnswer {
    /// What the model wrote, as recorded.
    pub fn raw(&self) -> &str {
        match self {
            CallAnswer::Text(text) => text,
            CallAnswer::Function { raw, .. } => raw,
        }
    }
}

/// How a model is asked: the prompt template, and whether the APIs are
/// offered as tools (functions mode) and documented.
pub struct SamplePrompt {
    pub template: Template,
    pub functions: bool,
    pub docs: bool,
}

impl SamplePrompt {
    /// The chat a model is sent for a sample.
    pub fn chat(&self, input: &Input<'_>, task: Task) -> Result<Chat> {
        let functions = self.functions && task == Task::Call;
        let apis = shown_apis(input.dialogue, task, input.level);
        let system = self.template.render(task, input.level, &apis, self.docs)?;
        let mut messages = vec![Message::System(system)];
        messages.extend(history(input.dialogue, input.line, functions));
        let tools = if functions {
            offered_tools(input.dialogue, input.line, input.level, self.docs)
        } else {
            Vec::new()
        };
        Ok(Chat { messages, tools })
    }
}

/// Who answers the samples, and how a model among them is asked.
pub struct Asker<'a> {
    pub answerer: &'a dyn Answerer,
    /// None for an answerer that asks no model.
    pub prompt: Option<&'a SamplePrompt>,
}

impl Asker<'_> {
    fn ask(&self, input: &Input<'_>, task: Task, key: Key, gold: String) -> Result<Answer> {
        let chat = || match self.prompt {
            Some(prompt) => prompt.chat(input, task),
            None => Ok(Chat::default()),
        };
        self.answerer.answer(&Request {
            key,
            step: 0,
            gold: Some(Answer::text(gold)),
            chat: &chat,
        })
    }

    /// The call the answerer makes for a call sample, and the model the
    /// server said made it.
    pub fn call(&self, input: &Input<'_>) -> Result<(CallAnswer, Option<String>)> {
        let gold = &input.dialogue.conversation[input.line].calls()[0];
        let gold = render_api_request(&gold.request.api_name, &gold.request.parameters);
        let key = key(input.file, input.line, input.occurrence, Asked::Call);
        let answer = self.ask(input, Task::Call, key, gold)?;
        let model = answer.model();
        let Some(call) = answer.calls.into_iter().next() else {
            return Ok((CallAnswer::Text(answer.text), model));
        };
        let raw = format!("{}({})", call.name, call.raw.unwrap_or_default());
        Ok(match call.arguments {
            Some(arguments) => {
                let param_dict = arguments
                    .into_iter()
                    .map(|(name, value)| (name, Value::String(display(&value))))
                    .collect();
                let predicted = Predicted {
                    api_name: call.name,
                    param_dict,
                };
                (CallAnswer::Function { predicted, raw }, model)
            }
            // Arguments that are no JSON object: read as text, which fails
            // with its reason.
            None => (CallAnswer::Text(raw), model),
        })
    }

    /// The reply for a reply sample (keyed by the API line it follows),
    /// and the model the server said wrote it.
    pub fn reply(&self, input: &Input<'_>) -> Result<(String, Option<String>)> {
        let gold = input.dialogue.conversation[input.line].text.clone();
        let key = key(input.file, input.line - 1, 0, Asked::Reply);
        let answer = self.ask(input, Task::Reply, key, gold)?;
        let model = answer.model();
        Ok((answer.text, model))
    }
}

fn key(file: &str, line: usize, occurrence: u8, asked: Asked) -> Key {
    Key {
        unit: file.to_string(),
        position: line,
        occurrence,
        asked,
    }
}

/// What API-Bank's output files record of an answerer's settings: every
/// field of a model's (null when unset), only what is set of another's.
pub fn recorded(settings: &Settings) -> Value {
    let Ok(Value::Object(mut map)) = serde_json::to_value(settings) else {
        return Value::Null;
    };
    let model = settings.model.is_some();
    map.retain(|key, value| {
        if model {
            !key.starts_with("predictions")
        } else {
            !value.is_null()
        }
    });
    Value::Object(map)
}

/// One line of a replay file (see DESIGN.md: API-Bank replay predictions).
/// Other keys are ignored (a generator may record its model, its prompt).
#[derive(Debug, Deserialize)]
struct ReplayLine {
    file: String,
    turn: usize,
    #[serde(default)]
    occurrence: u8,
    output: String,
    /// The reply after the gold result of this API line (talkforge's
    /// addition; the sample keyed with occurrence 0 carries it).
    #[serde(default)]
    reply: Option<String>,
}

/// One dialogue's call samples `(turn, occurrence)`, and the API lines a
/// reply sample follows.
type SampleKeys = (Vec<(usize, u8)>, HashSet<usize>);

/// API-Bank's replay lines: `{"file", "turn", "occurrence", "output"}`
/// per call sample, with an optional `"reply"` for the reply after that
/// API line. A line's `file` names an evaluated dialogue by its path
/// relative to the folder evaluated, or by its file name alone when
/// unique; a line must answer one of its samples.
pub struct SampleLines {
    /// Each evaluated file's call samples `(turn, occurrence)` and the
    /// API lines a reply sample follows, by relative path.
    samples: HashMap<String, SampleKeys>,
    /// The evaluated files by file name (None: more than one has it).
    by_name: HashMap<String, Option<String>>,
}

impl SampleLines {
    /// The samples of `dialogues`, each with its relative path.
    pub fn new<'a>(dialogues: impl IntoIterator<Item = (&'a str, &'a Conversation)>) -> Self {
        let mut lines = SampleLines {
            samples: HashMap::new(),
            by_name: HashMap::new(),
        };
        for (file, dialogue) in dialogues {
            let name = Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            lines
                .by_name
                .entry(name)
                .and_modify(|known| *known = None)
                .or_insert_with(|| Some(file.to_string()));
            let samples = super::samples::samples(dialogue);
            let calls = samples
                .calls
                .iter()
                .map(|s| (s.line, s.occurrence))
                .collect();
            let replied = samples.replies.iter().map(|r| r.after).collect();
            lines.samples.insert(file.to_string(), (calls, replied));
        }
        lines
    }
}

impl Lines for SampleLines {
    fn name(&self, _: &Path) -> String {
        "replay".into()
    }

    fn parse(&self, path: &Path, line_no: usize, line: &str) -> Result<Vec<(Key, Answer)>> {
        let bad = |message: String| Error::syntax(path, line_no, 1, message);
        let parsed: ReplayLine = serde_json::from_str(line).map_err(|e| {
            Error::syntax(path, line_no, e.column(), format!("not a replay line: {e}"))
        })?;
        let file = if self.samples.contains_key(&parsed.file) {
            parsed.file.clone()
        } else {
            match self.by_name.get(&parsed.file) {
                Some(Some(file)) => file.clone(),
                Some(None) => return Err(bad(format!("{:?} names more than one evaluated dialogue: give its path relative to the folder evaluated", parsed.file))),
                None => return Err(bad(format!("{:?} is none of the evaluated dialogues", parsed.file))),
            }
        };
        let mut answers = vec![(
            key(&file, parsed.turn, parsed.occurrence, Asked::Call),
            Answer::text(parsed.output),
        )];
        if let Some(reply) = parsed.reply {
            let key = key(&file, parsed.turn, parsed.occurrence, Asked::Reply);
            answers.push((key, Answer::text(reply)));
        }
        Ok(answers)
    }

    fn check(&self, key: &Key) -> std::result::Result<(), String> {
        let (file, turn, occurrence) = (&key.unit, key.position, key.occurrence);
        let (calls, replied) = &self.samples[file];
        if key.asked == Asked::Reply {
            if occurrence != 0 || !replied.contains(&turn) {
                return Err(format!(
                    "{file}: no reply sample follows {} (`\"turn\": {turn}, \"occurrence\": {occurrence}`; a reply goes with the first sample of an API line the AI answers right after)",
                    sample_place(turn, occurrence)
                ));
            }
        } else if !calls.contains(&(turn, occurrence)) {
            let known: Vec<String> = calls
                .iter()
                .map(|&(t, o)| {
                    format!(
                        "{} (`\"turn\": {t}, \"occurrence\": {o}`)",
                        sample_place(t, o)
                    )
                })
                .collect();
            return Err(format!(
                "{file} has no call sample at {} (`\"turn\": {turn}, \"occurrence\": {occurrence}`); its call samples: {}",
                sample_place(turn, occurrence),
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
        }
        Ok(())
    }

    fn duplicate(&self, _: &Key) -> String {
        "a second line for the same file, turn and occurrence".to_string()
    }
}
