//! The files the linter reads, as their suite's format says: conversations
//! in the model's JSON shape (ToolTalk's .json), dialogue lines (API-Bank's
//! .jsonl, and the lines a format makes of its files) and scenario pools
//! (.json with `scenarios`).
//!
//! A document is parsed into [`Json`] trees that borrow their strings from
//! the file's text, so the text is read first and outlives the document:
//! the engine reads a file, parses it, runs the rules and drops both. A
//! conversation is read from its tree by the model's reader
//! ([`Conversation`]), strictly where it can be ([`Strict`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::dialogue::Conversation;
use crate::formats::apibank::Dialogue;
use crate::formats::read::json_error;
use crate::formats::scenario::ScenarioPool;
use crate::json::tree::{Json, Strict};
use crate::suite::format::{FileFormat, LintReading};
use crate::suite::linted_tasks::{ArgumentValue, LintedTasks};
use crate::suite::{Registry, Suite};
use crate::{Error, Result};

/// What `--suite` (alias `--input-format`) asks for.
#[derive(Clone, Copy, Default)]
pub enum InputFormat {
    /// By the file's name (the longest registered ending, as every
    /// command reads files) and content (a `scenarios` list is a pool,
    /// dialogue lines in a `.json` file are read as lines).
    #[default]
    Auto,
    /// As the files of one suite.
    Suite(&'static dyn Suite),
}

impl InputFormat {
    /// `auto`, or a suite's name in `registry`.
    pub fn named(registry: &Registry, name: &str) -> Option<InputFormat> {
        match name {
            "auto" => Some(InputFormat::Auto),
            _ => registry.by_name(name).map(InputFormat::Suite),
        }
    }

    /// The suite forced, if any.
    pub fn forced(self) -> Option<&'static dyn Suite> {
        match self {
            InputFormat::Auto => None,
            InputFormat::Suite(suite) => Some(suite),
        }
    }
}

impl std::fmt::Debug for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputFormat::Auto => f.write_str("Auto"),
            InputFormat::Suite(suite) => write!(f, "Suite({})", suite.name()),
        }
    }
}

/// The suite and format a file is linted with: the ones every other
/// command reads it with (`Registry::for_path`), and whether its content
/// may still say otherwise (not when `--suite` forced them).
#[derive(Clone, Copy)]
pub struct Reading {
    pub suite: &'static dyn Suite,
    pub format: &'static FileFormat,
    pub sniff: bool,
}

impl Reading {
    /// How `path` is read: by its name among `registry`'s formats (a file
    /// no format names, given by name, as the first suite's dialogue).
    pub fn of(registry: &Registry, path: &Path, input: InputFormat) -> Reading {
        let forced = input.forced();
        let (suite, format) = registry.for_path(path, forced).unwrap_or_else(|| {
            let first = registry.first();
            (first, first.formats()[0])
        });
        Reading {
            suite,
            format,
            sniff: forced.is_none(),
        }
    }

    /// The suite of a document read this way: a file whose content turned
    /// out to be dialogue lines though its format reads a conversation
    /// belongs to the suite whose dialogues are such lines.
    pub fn suite_of(&self, registry: &Registry, document: &Document<'_>) -> &'static dyn Suite {
        let lines = |format: &FileFormat| {
            matches!(format.lint, LintReading::Lines | LintReading::LinesFrom(_))
        };
        match document {
            Document::Lines(_) if !lines(self.format) => registry
                .suites()
                .iter()
                .copied()
                .find(|suite| lines(suite.formats()[0]))
                .unwrap_or(self.suite),
            _ => self.suite,
        }
    }
}

/// A JSON file with its text, parsed tree and typed view (None when the
/// tree does not have the type's shape; `schema` reports why).
#[derive(Debug, Clone)]
pub struct JsonFile<'t, T> {
    pub path: PathBuf,
    pub text: &'t str,
    pub value: Json<'t>,
    pub typed: Option<T>,
    /// The typed view was read strictly ([`Strict`]): the file is written
    /// the one way the schema describes, as far as the type can tell.
    pub strict: bool,
    /// Why the typed view failed, with its line and column.
    pub shape_error: Option<(String, usize, usize)>,
}

/// One file to lint, borrowing from its text.
#[derive(Debug, Clone)]
pub enum Document<'t> {
    /// A conversation (the model's format).
    Conversation(Box<JsonFile<'t, Conversation>>),
    /// A dialogue written one JSON object a line (API-Bank's format).
    Lines(Dialogue<'t>),
    Pool(Box<JsonFile<'t, ScenarioPool>>),
    /// A file of tasks for a simulated user (tau2's `tasks.json`), with
    /// what its suite found replaying them.
    Tasks(Box<TasksFile<'t>>),
}

/// A tasks file: its tree (for places) and its suite's facts.
#[derive(Debug, Clone)]
pub struct TasksFile<'t> {
    pub path: PathBuf,
    pub text: &'t str,
    pub value: Json<'t>,
    pub facts: LintedTasks,
}

impl TasksFile<'_> {
    /// The tasks file a rule is given, if it is one.
    pub fn of<'d>(document: &'d Document<'_>) -> Option<&'d TasksFile<'d>> {
        match document {
            Document::Tasks(file) => Some(file),
            _ => None,
        }
    }

    /// The pointer to a task's gold action.
    pub fn action_pointer(task: usize, action: usize) -> String {
        format!("/{task}/evaluation_criteria/actions/{action}")
    }

    /// Where an argument value of a task's gold action is.
    pub fn value_anchor(task: usize, action: usize, value: &ArgumentValue) -> super::Anchor {
        super::Anchor::value(format!(
            "{}/arguments/{}{}",
            Self::action_pointer(task, action),
            super::pointer_token(&value.top),
            value.below
        ))
    }

    /// Where a gold action's tool name is.
    pub fn name_anchor(task: usize, action: usize) -> super::Anchor {
        super::Anchor::value(format!("{}/name", Self::action_pointer(task, action)))
    }

    /// Where a task's id is.
    pub fn id_anchor(task: usize) -> super::Anchor {
        super::Anchor::value(format!("/{task}/id"))
    }
}

/// A file's text as the linter reads it: the file's own, or for a format
/// read as the dialogue lines made of it (API-Bank's level-3 scenarios),
/// those lines, the file's own text kept beside for showing its lines.
#[derive(Debug, Clone)]
pub struct LintText {
    pub text: String,
    pub source: Option<String>,
}

impl LintText {
    /// Read `path` for the linter; a file whose lines cannot be made is an
    /// error naming the file (exit 2).
    pub fn read(path: &Path, reading: &Reading) -> Result<LintText> {
        let text = crate::formats::read::read_text(path)?;
        match reading.format.lint {
            LintReading::LinesFrom(lines) => Ok(LintText {
                text: lines(path, &text)?,
                source: Some(text),
            }),
            LintReading::Conversation | LintReading::Lines | LintReading::Tasks(_) => {
                Ok(LintText { text, source: None })
            }
        }
    }
}

impl<'t> Document<'t> {
    /// A file as [`LintText::read`] read it; a tasks file with the
    /// databases of `databases` (None: where its suite looks for them).
    pub fn of_text(
        path: &Path,
        read: &'t LintText,
        reading: &Reading,
        databases: Option<&Path>,
    ) -> Result<Document<'t>> {
        if let LintReading::Tasks(facts) = reading.format.lint {
            let value = Json::parse(&read.text).map_err(|e| json_error(path, &e))?;
            let facts = facts(path, &read.text, databases)?;
            return Ok(Document::Tasks(Box::new(TasksFile {
                path: path.to_path_buf(),
                text: &read.text,
                value,
                facts,
            })));
        }
        match &read.source {
            Some(source) => {
                let mut dialogue = Dialogue::parse(path, &read.text)?;
                dialogue.source = Some(source);
                Ok(Document::Lines(dialogue))
            }
            None => Document::parse(path, &read.text, reading.format.lint, reading.sniff),
        }
    }

    /// Read a file's text (from `formats::read::read_text`) as `lint`
    /// says, the content telling lines, a conversation and a pool apart
    /// when `sniff`; fails (exit 2) only when it cannot be read as JSON at
    /// all.
    pub fn parse(
        path: &Path,
        text: &'t str,
        lint: LintReading,
        sniff: bool,
    ) -> Result<Document<'t>> {
        if !matches!(lint, LintReading::Conversation) {
            return Ok(Document::Lines(Dialogue::parse(path, text)?));
        }
        let value = match Json::parse(text) {
            Ok(value) => value,
            Err(e) => return not_json(path, text, sniff, &e),
        };
        if !value.is_object() {
            return Err(Error::input(
                path,
                "expected a JSON object (a conversation or a scenario pool)",
            ));
        }
        // A one-line API-Bank dialogue saved as .json.
        if sniff
            && value.get("role").is_some_and(Json::is_string)
            && value.get("conversation").is_none()
        {
            return Ok(Document::Lines(Dialogue::parse(path, text)?));
        }
        let is_pool =
            sniff && value.get("scenarios").is_some() && value.get("conversation").is_none();
        Ok(if is_pool {
            Document::Pool(Box::new(typed(path, text, value)))
        } else {
            Document::Conversation(Box::new(conversation(path, text, value)))
        })
    }

    pub fn path(&self) -> &Path {
        match self {
            Document::Conversation(f) => &f.path,
            Document::Lines(d) => &d.path,
            Document::Pool(f) => &f.path,
            Document::Tasks(f) => &f.path,
        }
    }

    pub fn text(&self) -> &'t str {
        match self {
            Document::Conversation(f) => f.text,
            Document::Lines(d) => d.text,
            Document::Pool(f) => f.text,
            Document::Tasks(f) => f.text,
        }
    }
}

/// A text that is not one JSON document. JSON Lines whose lines carry an
/// API-Bank `role` are an API-Bank dialogue whatever the extension: read as
/// one when the format is sniffed, refused with a hint when it was forced;
/// other JSON Lines are refused with a hint.
fn not_json<'t>(
    path: &Path,
    text: &'t str,
    sniff: bool,
    error: &serde_json::Error,
) -> Result<Document<'t>> {
    let located = json_error(path, error);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first: Option<Value> = lines.next().and_then(|l| serde_json::from_str(l).ok());
    let second_is_json = lines
        .next()
        .is_some_and(|l| serde_json::from_str::<Value>(l).is_ok());
    if first.is_none() || !second_is_json {
        return Err(located);
    }
    let has_role = first
        .as_ref()
        .is_some_and(crate::formats::apibank::has_role);
    if has_role && sniff {
        return Ok(Document::Lines(Dialogue::parse(path, text)?));
    }
    let hint = if has_role {
        crate::formats::apibank::DIALOGUE_AS_JSON
    } else {
        crate::formats::apibank::LINES_AS_JSON
    };
    Err(match located {
        Error::Syntax {
            path,
            line,
            column,
            message,
        } => Error::Syntax {
            path,
            line,
            column,
            message: format!("{message}; {hint}"),
        },
        other => other,
    })
}

/// A conversation file: read strictly from its tree where it can be, else
/// as the model's reader takes it.
fn conversation<'t>(path: &Path, text: &'t str, value: Json<'t>) -> JsonFile<'t, Conversation> {
    match Conversation::deserialize(Strict(&value)) {
        Ok(conversation) => JsonFile {
            path: path.to_path_buf(),
            text,
            value,
            typed: Some(conversation),
            strict: true,
            shape_error: None,
        },
        Err(_) => typed(path, text, value),
    }
}

fn typed<'t, T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &'t str,
    value: Json<'t>,
) -> JsonFile<'t, T> {
    // From the tree already parsed, turned into the `Value` it stands for
    // (a repeated key settled as a `Value` settles it); only when that
    // fails is the text read again, so that the shape error has a line and
    // column.
    let (typed, shape_error) = match T::deserialize(&value.to_value()) {
        Ok(t) => (Some(t), None),
        Err(_) => match serde_json::from_str::<T>(text) {
            Ok(t) => (Some(t), None),
            Err(e) => {
                let located = json_error(path, &e);
                let detail = match located {
                    Error::Syntax {
                        line,
                        column,
                        message,
                        ..
                    } => (message, line, column),
                    other => (other.to_string(), 1, 1),
                };
                (None, Some(detail))
            }
        },
    };
    JsonFile {
        path: path.to_path_buf(),
        text,
        value,
        typed,
        strict: false,
        shape_error,
    }
}
