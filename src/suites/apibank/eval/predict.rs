//! Who answers the samples: the oracle (the gold answers, written out as a
//! model writes them), a replay file, or a chat model.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::super::call_text::render_api_request;
use super::prompt::{history, offered_tools, shown_apis, Task, Template};
use super::score::Predicted;
use crate::dialogue::Conversation;
use crate::formats::read::read_text;
use crate::sim::pyargs::display;
use crate::suite::levels::ChatSettings;
use crate::{Error, Result};

/// One sample as a predictor sees it.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The dialogue's path relative to the folder evaluated.
    pub file: &'a str,
    pub dialogue: &'a Conversation,
    pub level: u8,
    /// The target line: the gold API line of a call sample, the gold reply
    /// of a reply sample. The history is every line before it.
    pub line: usize,
    /// For a call sample: 0, or 1 for the line's second sample. For a
    /// reply sample: the API line it follows is keyed with occurrence 0.
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

/// An answer, and the model the server said gave it (provenance).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered<T> {
    pub answer: T,
    pub model: Option<String>,
}

impl<T> Answered<T> {
    /// An answer no server gave.
    fn offline(answer: T) -> Self {
        Answered {
            answer,
            model: None,
        }
    }
}

/// An assistant under evaluation, sample by sample.
pub trait Answerer: Sync {
    /// A short name for reports.
    fn name(&self) -> String;
    /// What it was set up with, recorded in every output file so that a
    /// resumed run evaluates again what other settings produced.
    fn settings(&self) -> Value;
    /// The call it makes for a call sample.
    fn call(&self, input: &Input<'_>) -> Result<Answered<CallAnswer>>;
    /// Its reply for a reply sample.
    fn reply(&self, input: &Input<'_>) -> Result<Answered<String>>;
    /// The templates its prompts are rendered from, with their SHA-256.
    fn prompt_templates(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }
}

/// The gold answers: the gold call in the paper's text form, the gold
/// reply as written.
pub struct Oracle;

impl Answerer for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn settings(&self) -> Value {
        json!({})
    }

    fn call(&self, input: &Input<'_>) -> Result<Answered<CallAnswer>> {
        let call = &input.dialogue.conversation[input.line].calls()[0];
        Ok(Answered::offline(CallAnswer::Text(render_api_request(
            &call.request.api_name,
            &call.request.parameters,
        ))))
    }

    fn reply(&self, input: &Input<'_>) -> Result<Answered<String>> {
        Ok(Answered::offline(
            input.dialogue.conversation[input.line].text.clone(),
        ))
    }
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

/// Answers read from a JSONL file: `{"file", "turn", "occurrence",
/// "output"}` per call sample, with an optional `"reply"` for the reply
/// after that API line. A sample with no line is answered with empty text.
pub struct Replay {
    path: PathBuf,
    sha256: String,
    answers: HashMap<(String, usize, u8), (String, Option<String>)>,
    /// The file's line of each answer, for [`Replay::check`].
    lines: HashMap<(String, usize, u8), usize>,
}

impl Replay {
    /// Read `path`; a malformed line is an error naming its line.
    /// `files` are the evaluated dialogues' relative paths, which the
    /// lines' `file` must name (or their file name alone, when unique).
    pub fn load(path: &Path, files: &[String]) -> Result<Self> {
        let text = read_text(path)?;
        let mut by_name: HashMap<String, Option<String>> = HashMap::new();
        for file in files {
            let name = Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            by_name
                .entry(name)
                .and_modify(|known| *known = None)
                .or_insert_with(|| Some(file.clone()));
        }
        let mut answers = HashMap::new();
        let mut lines = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed: ReplayLine = serde_json::from_str(line).map_err(|e| {
                Error::syntax(
                    path,
                    number + 1,
                    e.column(),
                    format!("not a replay line: {e}"),
                )
            })?;
            let file = if files.contains(&parsed.file) {
                parsed.file.clone()
            } else {
                match by_name.get(&parsed.file) {
                    Some(Some(file)) => file.clone(),
                    Some(None) => {
                        return Err(Error::syntax(
                            path,
                            number + 1,
                            1,
                            format!("{:?} names more than one evaluated dialogue: give its path relative to the folder evaluated", parsed.file),
                        ))
                    }
                    None => {
                        return Err(Error::syntax(
                            path,
                            number + 1,
                            1,
                            format!("{:?} is none of the evaluated dialogues", parsed.file),
                        ))
                    }
                }
            };
            let key = (file, parsed.turn, parsed.occurrence);
            lines.insert(key.clone(), number + 1);
            if answers.insert(key, (parsed.output, parsed.reply)).is_some() {
                return Err(Error::syntax(
                    path,
                    number + 1,
                    1,
                    "a second line for the same file, turn and occurrence".to_string(),
                ));
            }
        }
        Ok(Replay {
            path: path.to_path_buf(),
            sha256: crate::llm::sha256_hex(text.as_bytes()),
            answers,
            lines,
        })
    }

    /// Refuse a line that answers no sample: `samples` gives, per evaluated
    /// file, its call samples `(turn, occurrence)` and the API lines a
    /// reply sample follows. The error names the replay file's line.
    pub fn check(&self, samples: &HashMap<String, SampleKeys>) -> Result<()> {
        let mut keys: Vec<_> = self.answers.keys().collect();
        keys.sort_by_key(|key| self.lines[*key]);
        for key in keys {
            let (file, turn, occurrence) = key;
            let (calls, replied) = &samples[file];
            let line = self.lines[key];
            if !calls.contains(&(*turn, *occurrence)) {
                let known: Vec<String> = calls
                    .iter()
                    .map(|(t, o)| format!("turn {t} occurrence {o}"))
                    .collect();
                return Err(Error::syntax(
                    &self.path,
                    line,
                    1,
                    format!(
                        "{file} has no call sample at turn {turn} occurrence {occurrence} (its call samples: {})",
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    ),
                ));
            }
            let reply_given = self.answers[key].1.is_some();
            if reply_given && (*occurrence != 0 || !replied.contains(turn)) {
                return Err(Error::syntax(
                    &self.path,
                    line,
                    1,
                    format!("{file}: no reply sample follows turn {turn} occurrence {occurrence} (a reply goes on the occurrence-0 line of an API line the AI answers right after)"),
                ));
            }
        }
        Ok(())
    }

    fn answer(&self, input: &Input<'_>, line: usize) -> Option<&(String, Option<String>)> {
        self.answers
            .get(&(input.file.to_string(), line, input.occurrence))
    }
}

impl Answerer for Replay {
    fn name(&self) -> String {
        "replay".into()
    }

    fn settings(&self) -> Value {
        json!({"predictions": self.path.display().to_string(), "predictions_sha256": self.sha256})
    }

    fn call(&self, input: &Input<'_>) -> Result<Answered<CallAnswer>> {
        Ok(Answered::offline(CallAnswer::Text(
            self.answer(input, input.line)
                .map(|(output, _)| output.clone())
                .unwrap_or_default(),
        )))
    }

    /// The reply is keyed by the API line it follows.
    fn reply(&self, input: &Input<'_>) -> Result<Answered<String>> {
        Ok(Answered::offline(
            self.answer(input, input.line - 1)
                .and_then(|(_, reply)| reply.clone())
                .unwrap_or_default(),
        ))
    }
}

/// One dialogue's samples as replay lines name them: its call samples
/// `(turn, occurrence)`, and the API lines a reply sample follows.
pub type SampleKeys = (Vec<(usize, u8)>, Vec<usize>);

/// A chat model behind an OpenAI-compatible endpoint.
pub struct Chat<'s> {
    settings: &'s ChatSettings,
    /// The settings' client for this trial: each trial's replies are
    /// cached apart.
    client: crate::llm::client::Client,
    template: Template,
    trial: Option<usize>,
}

impl<'s> Chat<'s> {
    pub fn new(settings: &'s ChatSettings, trial: Option<usize>) -> Result<Self> {
        let template = match &settings.template {
            Some(path) => Template::load(path)?,
            None => Template::builtin(),
        };
        Ok(Chat {
            settings,
            client: settings.client.for_trial(trial),
            template,
            trial,
        })
    }

    /// The request body for a sample, as sent.
    pub fn request_body(&self, input: &Input<'_>, task: Task) -> Result<Value> {
        let functions = self.settings.functions && task == Task::Call;
        let apis = shown_apis(input.dialogue, task, input.level);
        let system = self
            .template
            .render(task, input.level, &apis, !self.settings.no_docs)?;
        let mut messages = vec![json!({"role": "system", "content": system})];
        messages.extend(history(input.dialogue, input.line, functions));
        let mut body = Map::new();
        body.insert("model".into(), json!(self.settings.model));
        body.insert("messages".into(), Value::Array(messages));
        if functions {
            let tools = offered_tools(
                input.dialogue,
                input.line,
                input.level,
                !self.settings.no_docs,
            );
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(t) = self.settings.temperature {
            body.insert("temperature".into(), json!(t));
        }
        Ok(Value::Object(body))
    }

    /// The first choice's message, and the model the server reported.
    fn ask(
        &self,
        body: &Value,
    ) -> Result<Answered<async_openai::types::ChatCompletionResponseMessage>> {
        let response = self
            .client
            .chat_blocking(&self.settings.model, body, None)?
            .response;
        let model = Some(response.model).filter(|m| !m.is_empty());
        let message = response
            .choices
            .into_iter()
            .next()
            .map(|choice| choice.message)
            .ok_or_else(|| Error::Other("the model answered without a choice".into()))?;
        Ok(Answered {
            answer: message,
            model,
        })
    }
}

impl Answerer for Chat<'_> {
    fn name(&self) -> String {
        format!("openai:{}", self.settings.model)
    }

    fn settings(&self) -> Value {
        let mut settings = json!({
            "model": self.settings.model,
            "api_mode": if self.settings.functions { "functions" } else { "text" },
            "no_docs": self.settings.no_docs,
            "temperature": self.settings.temperature,
            "template_sha256": crate::llm::sha256_hex(self.template.source().as_bytes()),
        });
        if let Some(trial) = self.trial {
            settings["trial"] = json!(trial);
        }
        settings
    }

    fn prompt_templates(&self) -> BTreeMap<String, String> {
        let name = match &self.settings.template {
            Some(path) => path.display().to_string(),
            None => super::prompt::DEFAULT_TEMPLATE_NAME.to_string(),
        };
        BTreeMap::from([(
            name,
            crate::llm::sha256_hex(self.template.source().as_bytes()),
        )])
    }

    fn call(&self, input: &Input<'_>) -> Result<Answered<CallAnswer>> {
        let Answered {
            answer: message,
            model,
        } = self.ask(&self.request_body(input, Task::Call)?)?;
        let answered = |answer: CallAnswer| Answered {
            answer,
            model: model.clone(),
        };
        let text = message.content.unwrap_or_default();
        let Some(call) = message
            .tool_calls
            .and_then(|calls| calls.into_iter().next())
        else {
            return Ok(answered(CallAnswer::Text(text)));
        };
        let raw = format!("{}({})", call.function.name, call.function.arguments);
        let param_dict = match serde_json::from_str::<Value>(&call.function.arguments) {
            Ok(Value::Object(arguments)) => arguments
                .into_iter()
                .map(|(name, value)| (name, Value::String(display(&value))))
                .collect(),
            // Arguments that are no JSON object: read as text, which fails
            // with its reason.
            _ => return Ok(answered(CallAnswer::Text(raw))),
        };
        Ok(answered(CallAnswer::Function {
            predicted: Predicted {
                api_name: call.function.name,
                param_dict,
            },
            raw,
        }))
    }

    fn reply(&self, input: &Input<'_>) -> Result<Answered<String>> {
        let Answered { answer, model } = self.ask(&self.request_body(input, Task::Reply)?)?;
        Ok(Answered {
            answer: answer.content.unwrap_or_default(),
            model,
        })
    }
}
