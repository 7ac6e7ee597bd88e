//! The files the linter reads: ToolTalk conversations (.json), API-Bank
//! dialogues (.jsonl) and scenario pools (.json with `scenarios`).
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
use crate::suite::Suite;
use crate::{Error, Result};

/// What `--suite` (alias `--input-format`) asks for.
#[derive(Clone, Copy, Default)]
pub enum InputFormat {
    /// By extension (a suite's dialogue files) and content (a `scenarios`
    /// list is a pool).
    #[default]
    Auto,
    /// As the dialogues of one suite.
    Suite(&'static dyn Suite),
}

impl InputFormat {
    /// `auto`, or a suite's name.
    pub fn named(name: &str) -> Option<InputFormat> {
        match name {
            "auto" => Some(InputFormat::Auto),
            _ => crate::suites::by_name(name).map(InputFormat::Suite),
        }
    }

    /// Extensions to look for in folders.
    pub fn extensions(self) -> Vec<&'static str> {
        match self {
            InputFormat::Auto => crate::suites::extensions(None),
            InputFormat::Suite(suite) => crate::suites::extensions(Some(suite)),
        }
    }

    /// Whether files are read as dialogues one JSON object a line.
    fn forces_lines(self) -> bool {
        matches!(self, InputFormat::Suite(suite) if suite.extension() == LINES)
    }

    fn is_auto(self) -> bool {
        matches!(self, InputFormat::Auto)
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

/// The extension of dialogues written one JSON object a line.
const LINES: &str = "jsonl";

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
}

/// A file's text as the linter reads it: the file's own, or for a file a
/// suite reads as a dialogue of another format (API-Bank's level-3
/// scenarios), the dialogue the suite makes of it, the file's own text
/// kept beside for showing its lines.
#[derive(Debug, Clone)]
pub struct LintText {
    pub text: String,
    pub source: Option<String>,
}

impl LintText {
    /// Read `path` for the linter; a scenario that cannot be read is an
    /// error naming the file (exit 2).
    pub fn read(path: &Path, format: InputFormat) -> Result<LintText> {
        let text = crate::formats::read::read_text(path)?;
        let forced = match format {
            InputFormat::Auto => None,
            InputFormat::Suite(suite) => Some(suite),
        };
        match crate::suites::for_path(path, forced)
            .and_then(|suite| suite.scenario_dialogue_text(path, &text))
        {
            Some(dialogue) => Ok(LintText {
                text: dialogue?,
                source: Some(text),
            }),
            None => Ok(LintText { text, source: None }),
        }
    }
}

impl<'t> Document<'t> {
    /// A file as [`LintText::read`] read it.
    pub fn of_text(path: &Path, read: &'t LintText, format: InputFormat) -> Result<Document<'t>> {
        match &read.source {
            Some(source) => {
                let mut dialogue = Dialogue::parse(path, &read.text)?;
                dialogue.source = Some(source);
                Ok(Document::Lines(dialogue))
            }
            None => Document::parse(path, &read.text, format),
        }
    }

    /// Read a file's text (from `formats::read::read_text`); fails (exit 2)
    /// only when it cannot be read as JSON at all.
    pub fn parse(path: &Path, text: &'t str, format: InputFormat) -> Result<Document<'t>> {
        let is_jsonl = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(LINES));
        if format.forces_lines() || (format.is_auto() && is_jsonl) {
            return Ok(Document::Lines(Dialogue::parse(path, text)?));
        }
        let value = match Json::parse(text) {
            Ok(value) => value,
            Err(e) => return not_json(path, text, format, &e),
        };
        if !value.is_object() {
            return Err(Error::input(
                path,
                "expected a JSON object (a conversation or a scenario pool)",
            ));
        }
        // A one-line API-Bank dialogue saved as .json.
        if format.is_auto()
            && value.get("role").is_some_and(Json::is_string)
            && value.get("conversation").is_none()
        {
            return Ok(Document::Lines(Dialogue::parse(path, text)?));
        }
        let is_pool = format.is_auto()
            && value.get("scenarios").is_some()
            && value.get("conversation").is_none();
        Ok(if is_pool {
            Document::Pool(Box::new(typed(path, text, value)))
        } else {
            Document::Conversation(Box::new(conversation(path, text, value)))
        })
    }

    /// The suite whose dialogues the document holds: the one whose files
    /// are written in its format (scenario pools feed the conversations').
    pub fn suite(&self) -> Option<&'static dyn Suite> {
        let extension = match self {
            Document::Conversation(_) | Document::Pool(_) => "json",
            Document::Lines(_) => LINES,
        };
        crate::suites::all()
            .into_iter()
            .find(|suite| suite.extension() == extension)
    }

    pub fn path(&self) -> &Path {
        match self {
            Document::Conversation(f) => &f.path,
            Document::Lines(d) => &d.path,
            Document::Pool(f) => &f.path,
        }
    }

    pub fn text(&self) -> &'t str {
        match self {
            Document::Conversation(f) => f.text,
            Document::Lines(d) => d.text,
            Document::Pool(f) => f.text,
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
    format: InputFormat,
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
    if has_role && format.is_auto() {
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
