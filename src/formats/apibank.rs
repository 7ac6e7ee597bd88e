//! An API-Bank dialogue: a .jsonl file, one turn a line. A line is a user
//! or AI utterance (`{"role": "User"|"AI", "text": ...}`) or an API call
//! with its result (`{"role": "API", "api_name", "param_dict", "result"}`).
//!
//! Reading fails only on what cannot be read at all (a line that is not
//! JSON); a line of the wrong shape is kept, for the linter's `schema` rule
//! to report.
//!
//! The lines are [`Json`] trees borrowing from the file's text, which the
//! caller keeps for as long as the dialogue.

use std::path::{Path, PathBuf};

use crate::formats::read::json_error;
use crate::json::tree::{Json, Object};
use crate::{Error, Result};

/// Whether a JSON value is a dialogue line: it has one of the roles.
pub fn has_role(value: &serde_json::Value) -> bool {
    value
        .get("role")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|r| matches!(r, "User" | "AI" | "API"))
}

/// Why a dialogue saved under another extension is not read as one.
pub const DIALOGUE_AS_JSON: &str = "the file holds one JSON object a line with API-Bank roles, an API-Bank dialogue: read it with `--input-format apibank` (or name it .jsonl)";

/// Why JSON Lines are not one JSON document.
pub const LINES_AS_JSON: &str = "the file holds one JSON value a line (JSON Lines), not one JSON document; API-Bank dialogues are read with `--input-format apibank` (or named .jsonl)";

/// One non-blank line of the file.
#[derive(Debug, Clone)]
pub struct DialogueLine<'t> {
    /// 0-based line position in the file.
    pub position: usize,
    /// Byte offset of the line's start in the file.
    pub offset: usize,
    pub value: Json<'t>,
}

/// What a line says, when it has a recognisable shape.
#[derive(Debug, Clone, Copy)]
pub enum LineKind<'a> {
    User(&'a str),
    Ai(&'a str),
    Api(ApiCall<'a>),
}

/// An API line's call and result.
#[derive(Debug, Clone, Copy)]
pub struct ApiCall<'a> {
    pub api_name: &'a str,
    /// The arguments as the model wrote them.
    pub param_dict: &'a Object<'a>,
    /// The arguments after type conversion, when the result records them.
    pub input: Option<&'a Object<'a>>,
    /// The API's output (null when it raised).
    pub output: Option<&'a Json<'a>>,
    pub exception: Option<&'a str>,
}

impl DialogueLine<'_> {
    pub fn role(&self) -> Option<&str> {
        self.value.get("role").and_then(Json::as_str)
    }

    /// The line's meaning, or None when its shape is wrong.
    pub fn kind(&self) -> Option<LineKind<'_>> {
        let text = || self.value.get("text").and_then(Json::as_str);
        match self.role()? {
            "User" => text().map(LineKind::User),
            "AI" => text().map(LineKind::Ai),
            "API" => {
                let api_name = self.value.get("api_name")?.as_str()?;
                let param_dict = self.value.get("param_dict")?.as_object()?;
                let result = self.value.get("result").and_then(Json::as_object);
                let field = |name: &str| result.and_then(|r| r.get(name));
                Some(LineKind::Api(ApiCall {
                    api_name,
                    param_dict,
                    input: field("input").and_then(Json::as_object),
                    output: field("output").filter(|v| !v.is_null()),
                    exception: field("exception").and_then(Json::as_str),
                }))
            }
            _ => None,
        }
    }
}

/// A whole dialogue file.
#[derive(Debug, Clone)]
pub struct Dialogue<'t> {
    pub path: PathBuf,
    pub text: &'t str,
    pub lines: Vec<DialogueLine<'t>>,
}

impl<'t> Dialogue<'t> {
    /// Read a .jsonl dialogue's text; every non-blank line must be JSON.
    pub fn parse(path: &Path, text: &'t str) -> Result<Dialogue<'t>> {
        let mut lines = Vec::new();
        let mut offset = 0;
        for (position, line) in text.split('\n').enumerate() {
            let start = offset;
            offset += line.len() + 1;
            if line.trim().is_empty() {
                continue;
            }
            let value = Json::parse(line).map_err(|e| {
                let err = json_error(path, &e);
                match err {
                    Error::Syntax {
                        column, message, ..
                    } => Error::syntax(path, position + 1, column, message),
                    other => other,
                }
            })?;
            lines.push(DialogueLine {
                position,
                offset: start,
                value,
            });
        }
        Ok(Dialogue {
            path: path.to_path_buf(),
            text,
            lines,
        })
    }

    /// The text of one line (without its newline).
    pub fn line_text(&self, line: &DialogueLine<'_>) -> &'t str {
        let rest = &self.text[line.offset..];
        rest.split('\n').next().unwrap_or(rest)
    }

    /// API lines with their 0-based index among the file's API lines.
    pub fn api_lines(&self) -> impl Iterator<Item = (usize, &DialogueLine<'t>)> {
        self.lines
            .iter()
            .filter(|l| l.role() == Some("API"))
            .enumerate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_kinds() {
        let text = concat!(
            "{\"role\": \"User\", \"text\": \"hi\"}\n",
            "\n",
            "{\"role\": \"API\", \"api_name\": \"GetToday\", \"param_dict\": {}, ",
            "\"result\": {\"input\": {}, \"output\": \"2023-03-01\", \"exception\": null}}\n",
            "{\"role\": \"AI\", \"text\": \"ok\"}\n"
        );
        let d = Dialogue::parse(Path::new("d.jsonl"), text).unwrap();
        assert_eq!(d.lines.len(), 3);
        assert_eq!(d.lines[1].position, 2);
        assert!(matches!(d.lines[0].kind(), Some(LineKind::User("hi"))));
        let Some(LineKind::Api(call)) = d.lines[1].kind() else {
            panic!("not an API line")
        };
        assert_eq!(call.api_name, "GetToday");
        assert_eq!(call.output.and_then(Json::as_str), Some("2023-03-01"));
        assert_eq!(d.api_lines().count(), 1);
        assert!(d.line_text(&d.lines[2]).starts_with("{\"role\": \"AI\""));
    }

    #[test]
    fn a_broken_line_names_its_line_and_column() {
        let text = "{\"role\": \"User\", \"text\": \"hi\"}\n{\"role\": oops}\n";
        let err = Dialogue::parse(Path::new("d.jsonl"), text).unwrap_err();
        let Error::Syntax { line, column, .. } = err else {
            panic!("{err}")
        };
        assert_eq!((line, column), (2, 10));
    }

    #[test]
    fn a_wrong_shape_is_kept_for_the_linter() {
        let d = Dialogue::parse(Path::new("d.jsonl"), "{\"role\": \"Bot\"}\n").unwrap();
        assert!(d.lines[0].kind().is_none());
    }
}
