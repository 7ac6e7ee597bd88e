//! What a sample asks of the answerer ([`crate::run::answer`]): the call
//! of a call sample or the reply of a reply sample, with the gold answer
//! for the oracle (the gold call in the paper's text form, the gold reply
//! as written) and, for a model, the chat ([`super::prompt`]); and
//! API-Bank's replay line format.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::super::call_text::render_api_request;
use super::prompt::SamplePrompt;
use super::samples::{sample_place, CallSample};
use super::score::Predicted;
use crate::dialogue::Conversation;
use crate::run::answer::replay::Lines;
use crate::run::answer::{Answer, Answerer, Asked, Key, Request, Settings};
use crate::sim::pyargs::display;
use crate::{Error, Result};

/// A model's answer to a call sample: what it wrote, and the call it made
/// as a tool call (functions mode), which is taken as made rather than
/// read out of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAnswer {
    pub raw: String,
    pub function: Option<Predicted>,
}

/// Who answers the samples of one dialogue, and how a model is asked.
pub struct Asker<'a> {
    pub answerer: &'a dyn Answerer,
    pub prompt: &'a SamplePrompt,
    /// The dialogue's path relative to the folder evaluated.
    pub file: &'a str,
    pub dialogue: &'a Conversation,
}

impl Asker<'_> {
    /// The answer to what is `asked` at `line` (the target line: the
    /// history is every line before it), keyed by `position` and
    /// `occurrence`, and the model the server said gave it.
    fn ask(&self, asked: Asked, line: usize, occurrence: u8, gold: String) -> Result<Answer> {
        // A reply is keyed by the API line it follows.
        let position = if asked == Asked::Reply {
            line - 1
        } else {
            line
        };
        let chat = || self.prompt.chat(self.dialogue, line, asked);
        self.answerer.answer_owned(Request {
            key: key(self.file, position, occurrence, asked),
            step: 0,
            gold: Some(Answer::text(gold)),
            chat: &chat,
        })
    }

    /// The call the answerer makes for the call sample at `line`, and the
    /// model the server said made it.
    pub fn call(&self, line: usize, occurrence: u8) -> Result<(CallAnswer, Option<String>)> {
        let gold = &self.dialogue.conversation[line].calls()[0].request;
        let gold = render_api_request(&gold.api_name, &gold.parameters);
        let answer = self.ask(Asked::Call, line, occurrence, gold)?;
        let model = answer.model();
        let (raw, function) = match answer.calls.into_iter().next() {
            None => (answer.text, None),
            // Arguments that are no JSON object are read as text, which
            // fails with its reason.
            Some(call) => {
                let text = |(k, v): (String, Value)| (k, Value::String(display(&v)));
                let param_dict = (call.arguments).map(|a| a.into_iter().map(text).collect());
                let function = param_dict.map(|p| Predicted::new(&call.name, p));
                let raw = format!("{}({})", call.name, call.raw.unwrap_or_default());
                (raw, function)
            }
        };
        Ok((CallAnswer { raw, function }, model))
    }

    /// The reply for the reply sample at `line`, and the model the server
    /// said wrote it.
    pub fn reply(&self, line: usize) -> Result<(String, Option<String>)> {
        let gold = self.dialogue.conversation[line].text.clone();
        let answer = self.ask(Asked::Reply, line, 0, gold)?;
        let model = answer.model();
        Ok((answer.text, model))
    }
}

fn key(file: &str, position: usize, occurrence: u8, asked: Asked) -> Key {
    Key {
        unit: file.to_string(),
        position,
        occurrence,
        asked,
    }
}

/// What API-Bank's output files record of an answerer's settings: every
/// field of a model's (null when unset), only what is set of another's.
pub fn recorded(settings: &Settings) -> Value {
    let model = settings.model.is_some();
    let mut map = serde_json::to_value(settings).unwrap_or_default();
    if let Some(map) = map.as_object_mut() {
        map.retain(|key, value| match model {
            true => !key.starts_with("predictions"),
            false => !value.is_null(),
        });
    }
    map
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
    reply: Option<String>,
}

/// API-Bank's replay lines: `{"file", "turn", "occurrence", "output"}`
/// per call sample, with an optional `"reply"` for the reply after that
/// API line. A line's `file` names an evaluated dialogue by its path
/// relative to the folder evaluated, or by its file name alone when
/// unique; a line must answer one of its samples.
pub struct SampleLines {
    /// Each evaluated file's samples, by relative path.
    samples: HashMap<String, Vec<CallSample>>,
    /// The evaluated files by file name (None: more than one has it).
    by_name: HashMap<String, Option<String>>,
}

impl SampleLines {
    /// The samples of `dialogues`, each with its relative path.
    pub fn new<'a>(dialogues: impl IntoIterator<Item = (&'a str, &'a Conversation)>) -> Self {
        let (mut samples, mut by_name) = (HashMap::new(), HashMap::new());
        for (file, dialogue) in dialogues {
            let name = Path::new(file).file_name().unwrap_or_default();
            by_name
                .entry(name.to_string_lossy().into_owned())
                .and_modify(|known| *known = None)
                .or_insert_with(|| Some(file.to_string()));
            samples.insert(file.to_string(), super::samples::samples(dialogue));
        }
        SampleLines { samples, by_name }
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
        let file = match self.by_name.get(&parsed.file) {
            _ if self.samples.contains_key(&parsed.file) => &parsed.file,
            Some(Some(file)) => file,
            Some(None) => return Err(bad(format!("{:?} names more than one evaluated dialogue: give its path relative to the folder evaluated", parsed.file))),
            None => return Err(bad(format!("{:?} is none of the evaluated dialogues", parsed.file))),
        };
        let key = |asked| key(file, parsed.turn, parsed.occurrence, asked);
        let reply = (parsed.reply).map(|reply| (key(Asked::Reply), Answer::text(reply)));
        let call = (key(Asked::Call), Answer::text(parsed.output));
        Ok(std::iter::once(call).chain(reply).collect())
    }

    fn check(&self, key: &Key) -> std::result::Result<(), String> {
        let (file, turn, occurrence) = (&key.unit, key.position, key.occurrence);
        let samples = &self.samples[file];
        // A sample's place with its keys, the parenthesis left open for
        // what a message adds inside it.
        let at = |t, o| {
            format!(
                "{} (`\"turn\": {t}, \"occurrence\": {o}`",
                sample_place(t, o)
            )
        };
        let found = samples
            .iter()
            .find(|s| (s.line, s.occurrence) == (turn, occurrence));
        match key.asked {
            Asked::Reply if !found.is_some_and(|s| s.reply) => Err(format!(
                "{file}: no reply sample follows {}; a reply goes with the first sample of an API line the AI answers right after)",
                at(turn, occurrence)
            )),
            _ if found.is_none() => {
                let known: Vec<String> = samples.iter().map(|s| at(s.line, s.occurrence) + ")").collect();
                let known = if known.is_empty() { "none".into() } else { known.join(", ") };
                Err(format!("{file} has no call sample at {}); its call samples: {known}", at(turn, occurrence)))
            }
            _ => Ok(()),
        }
    }

    fn duplicate(&self, _: &Key) -> String {
        "a second line for the same file, turn and occurrence".to_string()
    }
}
