//! The files the linter reads: ToolTalk conversations (.json), API-Bank
//! dialogues (.jsonl) and scenario pools (.json with `scenarios`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::apibank::Dialogue;
use crate::dataset::read::{json_error, read_text};
use crate::model::{Conversation, ScenarioPool};
use crate::{Error, Result};

/// What `--input-format` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InputFormat {
    /// By extension (.jsonl is API-Bank) and content (a `scenarios` list is
    /// a pool).
    #[default]
    Auto,
    Tooltalk,
    Apibank,
}

impl InputFormat {
    /// Extensions to look for in folders.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            InputFormat::Auto => &["json", "jsonl"],
            InputFormat::Tooltalk => &["json"],
            InputFormat::Apibank => &["jsonl"],
        }
    }
}

/// A JSON file with its text, parsed tree and typed view (None when the
/// tree does not have the type's shape; `schema` reports why).
#[derive(Debug, Clone)]
pub struct JsonFile<T> {
    pub path: PathBuf,
    pub text: String,
    pub value: Value,
    pub typed: Option<T>,
    /// Why the typed view failed, with its line and column.
    pub shape_error: Option<(String, usize, usize)>,
}

/// One file to lint.
#[derive(Debug, Clone)]
pub enum Document {
    ToolTalk(Box<JsonFile<Conversation>>),
    ApiBank(Dialogue),
    Pool(Box<JsonFile<ScenarioPool>>),
}

impl Document {
    /// Read a file; fails (exit 2) only when it cannot be read as JSON at all.
    pub fn load(path: &Path, format: InputFormat) -> Result<Document> {
        let is_jsonl = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
        if format == InputFormat::Apibank || (format == InputFormat::Auto && is_jsonl) {
            return Ok(Document::ApiBank(Dialogue::load(path)?));
        }
        let text = read_text(path)?;
        let value: Value = serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
        if !value.is_object() {
            return Err(Error::input(
                path,
                "expected a JSON object (a conversation or a scenario pool)",
            ));
        }
        let is_pool = format == InputFormat::Auto
            && value.get("scenarios").is_some()
            && value.get("conversation").is_none();
        Ok(if is_pool {
            Document::Pool(Box::new(typed(path, text, value)))
        } else {
            Document::ToolTalk(Box::new(typed(path, text, value)))
        })
    }

    pub fn path(&self) -> &Path {
        match self {
            Document::ToolTalk(f) => &f.path,
            Document::ApiBank(d) => &d.path,
            Document::Pool(f) => &f.path,
        }
    }

    pub fn text(&self) -> &str {
        match self {
            Document::ToolTalk(f) => &f.text,
            Document::ApiBank(d) => &d.text,
            Document::Pool(f) => &f.text,
        }
    }
}

fn typed<T: serde::de::DeserializeOwned>(path: &Path, text: String, value: Value) -> JsonFile<T> {
    // From the tree already parsed; only when that fails is the text read
    // again, so that the shape error has a line and column.
    let (typed, shape_error) = match T::deserialize(&value) {
        Ok(t) => (Some(t), None),
        Err(_) => match serde_json::from_str::<T>(&text) {
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
        shape_error,
    }
}
