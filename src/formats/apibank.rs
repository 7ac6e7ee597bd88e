//! An API-Bank dialogue: a .jsonl file, one turn a line. A line is a user
//! or AI utterance (`{"role": "User"|"AI", "text": ...}`) or an API call
//! with its result (`{"role": "API", "api_name", "param_dict", "result"}`).
//!
//! [`Dialogue::parse`] fails only on what cannot be read at all (a line
//! that is not JSON); a line of the wrong shape is kept, for the linter's
//! `schema` rule to report. The lines are [`Json`] trees borrowing from the
//! file's text, which the caller keeps for as long as the dialogue.
//!
//! [`read_conversation`] maps a dialogue into the model (one line a turn,
//! see `dialogue`), refusing a line of the wrong shape; [`write_results`]
//! writes recorded results back as upstream writes its lines (Python's
//! `json.dumps`), rewriting only the lines whose result changes.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::dialogue::{Conversation, GoldCall, Metadata, Place, Request, Role, Turn, User};
use crate::formats::read::{json_error, line_column, read_text};
use crate::formats::LoadedConversation;
use crate::json::locate::locate;
use crate::json::tree::{Json, Object};
use crate::{Error, Result};

/// Whether a JSON value is a dialogue line: it has one of the roles.
pub fn has_role(value: &serde_json::Value) -> bool {
    value
        .get("role")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|r| matches!(r, "User" | "AI" | "API"))
}

/// The ending of API-Bank's level-3 scenario sheets (prose; read in the
/// API-Bank suite's folder, `scenarios::sheet`).
pub const SHEET_ENDING: &str = "txt";

/// Whether the opening bytes of a text file are a level-3 sheet's: its
/// first non-blank line is the `Scene:` heading.
pub fn opens_as_sheet(opening: &[u8]) -> bool {
    let opening = opening.strip_prefix(b"\xef\xbb\xbf").unwrap_or(opening);
    let first = opening
        .split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .find(|line| !line.is_empty());
    first.is_some_and(|line| line.len() >= 6 && line[..6].eq_ignore_ascii_case(b"scene:"))
}

/// Why a dialogue saved under another extension is not read as one.
pub const DIALOGUE_AS_JSON: &str = "the file holds one JSON object a line with API-Bank roles, an API-Bank dialogue: read it with `--suite apibank` (or name it .jsonl)";

/// Why JSON Lines are not one JSON document.
pub const LINES_AS_JSON: &str = "the file holds one JSON value a line (JSON Lines), not one JSON document; API-Bank dialogues are read with `--suite apibank` (or named .jsonl)";

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
    /// The file's own text when the dialogue was made from a file of
    /// another format whose lines it keeps (a level-3 scenario): reports
    /// show its lines.
    pub source: Option<&'t str>,
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
            let value = Json::parse(line).map_err(|e| line_error(path, position, &e))?;
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
            source: None,
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

/// A JSON error in the line at 0-based `position`, placed in the file.
fn line_error(path: &Path, position: usize, error: &serde_json::Error) -> Error {
    match json_error(path, error) {
        Error::Syntax {
            column, message, ..
        } => Error::syntax(path, position + 1, column, message),
        other => other,
    }
}

/// A dialogue file's text in the model: every line a turn (User a user
/// turn, AI an assistant turn, API an assistant turn with no text holding
/// its call), each call placed at its line and its index among the API
/// lines. A line of the wrong shape is an error naming its line and column.
pub fn read_conversation(path: &Path, text: &str) -> Result<Conversation> {
    let dialogue = Dialogue::parse(path, text)?;
    let mut turns = Vec::with_capacity(dialogue.lines.len());
    let mut apis_used: Vec<String> = Vec::new();
    let mut calls = 0;
    for line in &dialogue.lines {
        let shape_error = |pointer: &str, message: String| {
            let line_text = dialogue.line_text(line);
            let offset = locate(line_text, pointer).map_or(0, |found| found.value);
            let column = line_column(line_text, offset).1;
            Error::syntax(path, line.position + 1, column, message)
        };
        let turn = |role: Role, text: &str, apis: Option<Vec<GoldCall>>| Turn {
            index: Some(line.position as u64),
            role,
            text: text.to_string(),
            apis,
        };
        let Some(object) = line.value.as_object() else {
            return Err(shape_error(
                "",
                "a dialogue line must be a JSON object".into(),
            ));
        };
        let role = match object.get("role") {
            Some(Json::String(role)) => role.as_ref(),
            Some(_) => {
                return Err(shape_error(
                    "/role",
                    "\"role\" must be \"User\", \"AI\" or \"API\"".into(),
                ))
            }
            None => {
                return Err(shape_error(
                    "",
                    "the line has no \"role\" (\"User\", \"AI\" or \"API\")".into(),
                ))
            }
        };
        let text = || match object.get("text") {
            Some(Json::String(text)) => Ok(text.as_ref()),
            Some(_) => Err(shape_error("/text", "\"text\" must be a string".into())),
            None => Err(shape_error("", format!("a {role} line needs a \"text\""))),
        };
        turns.push(match role {
            "User" => turn(Role::User, text()?, None),
            "AI" => turn(Role::Assistant, text()?, None),
            "API" => {
                let api_name = match object.get("api_name") {
                    Some(Json::String(name)) => name.to_string(),
                    Some(_) => {
                        return Err(shape_error(
                            "/api_name",
                            "\"api_name\" must be a string".into(),
                        ))
                    }
                    None => {
                        return Err(shape_error("", "an API line needs an \"api_name\"".into()))
                    }
                };
                let parameters = match object.get("param_dict").map(Json::to_value) {
                    Some(Value::Object(parameters)) => parameters,
                    Some(_) => {
                        return Err(shape_error(
                            "/param_dict",
                            "\"param_dict\" must be an object".into(),
                        ))
                    }
                    None => {
                        return Err(shape_error("", "an API line needs a \"param_dict\"".into()))
                    }
                };
                let response = match object.get("result").map(Json::to_value) {
                    None | Some(Value::Null) => Value::Null,
                    Some(result @ Value::Object(_)) => result,
                    Some(_) => {
                        return Err(shape_error(
                            "/result",
                            "\"result\" must be an object (or left out, for fill to record)".into(),
                        ))
                    }
                };
                let exception = response
                    .get("exception")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if !apis_used.contains(&api_name) {
                    apis_used.push(api_name.clone());
                }
                let call = GoldCall {
                    request: Request {
                        api_name,
                        parameters,
                    },
                    response,
                    exception,
                    place: Some(Place {
                        turn: line.position,
                        call: calls,
                    }),
                };
                calls += 1;
                turn(Role::Assistant, "", Some(vec![call]))
            }
            other => {
                return Err(shape_error(
                    "/role",
                    format!("unknown role {other:?} (expected \"User\", \"AI\" or \"API\")"),
                ))
            }
        });
    }
    let name = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Conversation {
        conversation_id: name.clone(),
        name,
        suites_used: Vec::new(),
        apis_used,
        scenario: None,
        user: User::default(),
        // API-Bank dialogues carry no clock (GetToday answers a fixed date).
        metadata: Metadata::default(),
        conversation: turns,
        errata: Vec::new(),
    })
}

/// Read a dialogue file to record results in it: API lines without a
/// `result` object are the ones it records nothing for.
pub fn load(path: &Path) -> Result<LoadedConversation> {
    let text = read_text(path)?;
    let conversation = read_conversation(path, &text)?;
    let unrecorded = conversation
        .gold_calls()
        .filter(|(_, _, call)| !call.response.is_object())
        .map(|(turn, call, _)| (turn, call))
        .collect();
    Ok(LoadedConversation {
        path: path.to_path_buf(),
        text,
        conversation,
        unrecorded,
    })
}

/// The dialogue's text with the `result` of the API lines at the given
/// 0-based line positions replaced. Those lines are written as upstream
/// writes them (`json.dumps(line)`: key order kept, a new `result` last);
/// every other byte stays as it was, line ends and the final newline
/// included.
/// `fill`'s writer for API-Bank dialogues: each recorded call's whole
/// `result` object replaced by the response the world returned, on the
/// call's own line.
pub fn record_results(
    loaded: &LoadedConversation,
    results: &[super::write::Recorded],
) -> Result<String> {
    let lines: Vec<(usize, &serde_json::Value)> = results
        .iter()
        .map(|recorded| {
            let line = loaded.conversation.conversation[recorded.turn].calls()[recorded.call]
                .place(recorded.turn, recorded.call)
                .turn;
            (line, &recorded.response)
        })
        .collect();
    write_results(&loaded.path, &loaded.text, &lines)
}

pub fn write_results(path: &Path, text: &str, results: &[(usize, &Value)]) -> Result<String> {
    let mut out = String::with_capacity(text.len() + 64 * results.len());
    for (position, line) in text.split('\n').enumerate() {
        if position > 0 {
            out.push('\n');
        }
        let Some((_, result)) = results.iter().find(|(at, _)| *at == position) else {
            out.push_str(line);
            continue;
        };
        let (body, line_end) = match line.strip_suffix('\r') {
            Some(body) => (body, "\r"),
            None => (line, ""),
        };
        let mut value: Map<String, Value> =
            serde_json::from_str(body).map_err(|e| line_error(path, position, &e))?;
        value.insert("result".into(), Value::clone(result));
        out.push_str(&super::write::to_python_json_line(&value));
        out.push_str(line_end);
    }
    Ok(out)
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

    const DIALOGUE: &str = concat!(
        "{\"role\": \"User\", \"text\": \"Log me in\"}\n",
        "\n",
        "{\"role\": \"API\", \"api_name\": \"GetUserToken\", \"param_dict\": {\"username\": \"JohnDoe\", \"password\": \"pass123\"}, ",
        "\"result\": {\"api_name\": \"GetUserToken\", \"input\": {\"username\": \"JohnDoe\", \"password\": \"pass123\"}, \"output\": {\"token\": \"t-john\"}, \"exception\": null}}\n",
        "{\"role\": \"AI\", \"text\": \"Done.\"}\n",
        "{\"role\": \"API\", \"api_name\": \"CheckToken\", \"param_dict\": {\"token\": \"t-x\"}, ",
        "\"result\": {\"api_name\": \"CheckToken\", \"input\": {\"token\": \"t-x\"}, \"output\": null, \"exception\": \"The token is invalid.\"}}\n",
        "{\"role\": \"API\", \"api_name\": \"CheckToken\", \"param_dict\": {\"token\": \"t-john\"}}"
    );

    #[test]
    fn a_dialogue_maps_one_line_a_turn_with_calls_placed_at_their_lines() {
        let c = read_conversation(Path::new("x/d.jsonl"), DIALOGUE).unwrap();
        assert_eq!((c.name.as_str(), c.conversation.len()), ("d", 5));
        assert_eq!(c.apis_used, ["GetUserToken", "CheckToken"]);
        let roles: Vec<Role> = c.conversation.iter().map(|t| t.role).collect();
        use Role::{Assistant as A, User as U};
        assert_eq!(roles, [U, A, A, A, A]);
        // Blank line 1 makes no turn; the turns keep their lines.
        let lines: Vec<Option<u64>> = c.conversation.iter().map(|t| t.index).collect();
        assert_eq!(lines, [Some(0), Some(2), Some(3), Some(4), Some(5)]);
        let calls: Vec<(usize, usize, Place, &str)> = c
            .gold_calls()
            .map(|(t, i, call)| (t, i, call.place(t, i), call.request.api_name.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                (1, 0, Place { turn: 2, call: 0 }, "GetUserToken"),
                (3, 0, Place { turn: 4, call: 1 }, "CheckToken"),
                (4, 0, Place { turn: 5, call: 2 }, "CheckToken"),
            ]
        );
        let second = &c.conversation[3].calls()[0];
        assert_eq!(second.exception.as_deref(), Some("The token is invalid."));
        assert_eq!(second.response["output"], Value::Null);
        assert_eq!(second.request.parameters["token"], "t-x");
        // A line without a result records nothing.
        assert_eq!(c.conversation[4].calls()[0].response, Value::Null);
        assert_eq!(c.conversation[2].text, "Done.");
    }

    #[test]
    fn a_line_of_the_wrong_shape_is_an_error_at_its_line_and_column() {
        let place = |text: &str| match read_conversation(Path::new("d.jsonl"), text) {
            Err(Error::Syntax {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("{other:?}"),
        };
        let hi = "{\"role\": \"User\", \"text\": \"hi\"}\n";
        let (line, column, message) =
            place(&format!("{hi}\n{{\"role\": \"Bot\", \"text\": \"x\"}}\n"));
        assert_eq!((line, column), (3, 10));
        assert_eq!(
            message,
            "unknown role \"Bot\" (expected \"User\", \"AI\" or \"API\")"
        );
        let (line, column, message) = place(&format!("{hi}{{\"role\": \"AI\", \"text\": 3}}"));
        assert_eq!(
            (line, column, message.as_str()),
            (2, 24, "\"text\" must be a string")
        );
        let (_, _, message) = place("{\"role\": \"API\", \"api_name\": \"X\"}");
        assert_eq!(message, "an API line needs a \"param_dict\"");
        let (_, column, message) = place(
            "{\"role\": \"API\", \"api_name\": \"X\", \"param_dict\": {}, \"result\": \"ok\"}",
        );
        assert_eq!(column, 62);
        assert!(
            message.starts_with("\"result\" must be an object"),
            "{message}"
        );
        let (line, column, _) = place("[1]");
        assert_eq!((line, column), (1, 1));
        // An empty file is a dialogue without turns.
        let empty = read_conversation(Path::new("d.jsonl"), "").unwrap();
        assert!(empty.conversation.is_empty());
    }

    #[test]
    fn results_are_written_into_their_lines_only() {
        let path = Path::new("d.jsonl");
        let result = serde_json::json!({"api_name": "CheckToken", "input": {"token": "t-john"},
                                        "output": {"username": "JohnDoe"}, "exception": null});
        let text = write_results(path, DIALOGUE, &[(5, &result)]).unwrap();
        let (old, new): (Vec<&str>, Vec<&str>) =
            (DIALOGUE.split('\n').collect(), text.split('\n').collect());
        assert_eq!(old.len(), new.len());
        assert_eq!(old[..5], new[..5]);
        assert_eq!(
            new[5],
            "{\"role\": \"API\", \"api_name\": \"CheckToken\", \"param_dict\": {\"token\": \"t-john\"}, \
             \"result\": {\"api_name\": \"CheckToken\", \"input\": {\"token\": \"t-john\"}, \
             \"output\": {\"username\": \"JohnDoe\"}, \"exception\": null}}"
        );
        // A CRLF line keeps its line end; a result replaces the old one in place.
        let crlf =
            "{\"role\": \"API\", \"result\": 1, \"api_name\": \"A\", \"param_dict\": {}}\r\n";
        let text = write_results(path, crlf, &[(0, &Value::Null)]).unwrap();
        assert_eq!(
            text,
            "{\"role\": \"API\", \"result\": null, \"api_name\": \"A\", \"param_dict\": {}}\r\n"
        );
    }

    /// Every upstream dialogue, its API lines rewritten with their own
    /// recorded results, comes back byte for byte: the writer writes what
    /// upstream's `json.dumps` wrote (floats, escapes and all).
    #[test]
    fn upstream_lines_rewritten_unchanged_are_the_same_bytes() {
        let Some(upstream) = crate::test_support::upstream("apibank") else {
            return;
        };
        let files =
            crate::formats::discover(&[upstream.join("lv1-lv2-samples")], &["jsonl"]).unwrap();
        assert!(files.len() > 250);
        let mut lines = 0;
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let c = read_conversation(path, &text).unwrap();
            let results: Vec<(usize, &Value)> = c
                .gold_calls()
                .map(|(t, i, call)| (call.place(t, i).turn, &call.response))
                .collect();
            lines += results.len();
            assert_eq!(
                write_results(path, &text, &results).unwrap(),
                text,
                "{}",
                path.display()
            );
        }
        assert_eq!(lines, 508);
    }
}
