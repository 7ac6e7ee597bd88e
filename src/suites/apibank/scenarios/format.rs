//! Our own level-3 scenario format (`<name>.lv3.json`), for scenarios a
//! maintainer writes: the sheet's parts as fields, and the ground-truth
//! calls as the dialogues write API lines (`api_name`, `param_dict` with
//! every value text as a model writes it, a list as its literal, e.g.
//! `"['JohnDoe', 'AliceSmith']"`). Its JSON Schema is generated from
//! [`ScenarioFile`] into `schemas/apibank-level3-scenario.schema.json`.
//!
//! ```json
//! {
//!   "scene": "Meeting Schedule",
//!   "first_utterance": "Can you book a meeting for me?",
//!   "key_info": ["username: JohnDoe", "password: pass123", "topic: Budget review"],
//!   "ground_truth": [
//!     {"api_name": "GetUserToken", "param_dict": {"username": "JohnDoe", "password": "pass123"}}
//!   ]
//! }
//! ```

use std::path::Path;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{scenario_name, GroundTruthCall, Scenario};
use crate::formats::read::{json_error, TextIndex};
use crate::json::locate::locate_nearest;
use crate::json::tree::Json;
use crate::schema::SchemaKind;
use crate::suite::format::FormatSchema;

/// The format's schema, `schemas/apibank-level3-scenario.schema.json`.
pub const SCHEMA: FormatSchema = FormatSchema {
    file_name: "apibank-level3-scenario.schema.json",
    make: schema,
};
use crate::{Error, Result};

/// A level-3 scenario for API-Bank: what the user says first, what they
/// know, and the calls the assistant must make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The schema this file follows (for editors).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The scene, in a few words.
    #[schemars(length(min = 1))]
    pub scene: String,
    /// What the user says to open the conversation.
    #[schemars(length(min = 1))]
    pub first_utterance: String,
    /// What the user knows and tells the assistant when asked, one fact
    /// an item.
    pub key_info: Vec<String>,
    /// The calls the assistant must make, in the order they are expected.
    #[schemars(length(min = 1))]
    pub ground_truth: Vec<CallFile>,
}

/// One ground-truth call, as an API line of a dialogue writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallFile {
    #[schemars(length(min = 1))]
    pub api_name: String,
    /// The arguments as the model writes them: every value text.
    pub param_dict: IndexMap<String, String>,
}

/// The JSON Schema of the format.
pub fn schema() -> Value {
    serde_json::to_value(schemars::schema_for!(ScenarioFile)).expect("schemas serialise")
}

/// Read a scenario file's text: JSON of the schema's shape, or an error
/// naming the file, line and column.
pub fn parse(path: &Path, text: &str) -> Result<Scenario> {
    // Read through the tree that refuses a key written twice, as the
    // readers of dialogues do, rather than keep the last value.
    let value = Json::parse(text)
        .map_err(|e| json_error(path, &e))?
        .to_value();
    if let Some(violation) =
        crate::schema::validate(path, text, &value, SchemaKind::Format(SCHEMA)).first()
    {
        let shown = if violation.pointer.is_empty() {
            "/"
        } else {
            &violation.pointer
        };
        return Err(Error::syntax(
            path,
            violation.line,
            violation.column,
            format!("{shown}: {}", violation.message),
        ));
    }
    let file: ScenarioFile = serde_json::from_value(value)
        .map_err(|e| Error::input(path, format!("not a level-3 scenario: {e}")))?;
    // Every call placed in one pass over the text (one pass a call costs
    // the square of the file's length).
    let mut pointers: Vec<String> = (0..file.ground_truth.len())
        .map(|i| format!("/ground_truth/{i}"))
        .collect();
    pointers.push("/first_utterance".into());
    let pointers: Vec<&str> = pointers.iter().map(String::as_str).collect();
    let index = TextIndex::new(text);
    let mut places = locate_nearest(text, &pointers).into_iter().map(|found| {
        let offset = found.filter(|f| f.exact).map_or(0, |f| f.located.value);
        index.line_column(offset)
    });
    let ground_truth: Vec<GroundTruthCall> = file
        .ground_truth
        .into_iter()
        .zip(places.by_ref())
        .map(|(call, (line, column))| GroundTruthCall {
            api_name: call.api_name,
            param_dict: call
                .param_dict
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
            line,
            column,
        })
        .collect();
    Ok(Scenario {
        name: scenario_name(path),
        scene: file.scene,
        first_utterance: file.first_utterance,
        key_info: file.key_info.join("\n"),
        ground_truth,
        first_utterance_line: places.next().map_or(1, |(line, _)| line),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
  "scene": "Alarm",
  "first_utterance": "Wake me up.",
  "key_info": ["username: Ann", "password: pw"],
  "ground_truth": [
    {"api_name": "GetUserToken", "param_dict": {"username": "Ann", "password": "pw"}},
    {"api_name": "AddAlarm",
     "param_dict": {"token": "t-ann", "time": "2023-04-01 07:00:00"}}
  ]
}
"#;

    #[test]
    fn a_scenario_file_is_read_with_its_calls_placed() {
        let s = parse(Path::new("d/alarm.lv3.json"), FILE).unwrap();
        assert_eq!(s.name, "alarm");
        assert_eq!(s.key_info, "username: Ann\npassword: pw");
        assert_eq!(s.first_utterance_line, 3);
        let places: Vec<(usize, usize)> =
            s.ground_truth.iter().map(|c| (c.line, c.column)).collect();
        assert_eq!(places, [(6, 5), (7, 5)]);
        assert_eq!(s.ground_truth[1].param_dict["token"], "t-ann");
    }

    #[test]
    fn many_calls_are_placed_in_one_pass() {
        let call = r#"{"api_name": "GetToday", "param_dict": {}}"#;
        let calls = vec![call; 5000].join(",\n    ");
        let text = FILE.replace(
            r#""ground_truth": ["#,
            &format!(r#""ground_truth": [{calls},"#),
        );
        let scans = crate::formats::read::TEXT_SCANS.with(std::cell::Cell::get);
        let s = parse(Path::new("many.lv3.json"), &text).unwrap();
        let scans = crate::formats::read::TEXT_SCANS.with(std::cell::Cell::get) - scans;
        assert_eq!(s.ground_truth.len(), 5002);
        assert_eq!(
            (s.ground_truth[4999].line, s.ground_truth[4999].column),
            (5004, 5)
        );
        assert_eq!(s.first_utterance_line, 3);
        assert!(
            scans <= 3,
            "{scans} passes over the file to place 5,002 calls"
        );
    }

    #[test]
    fn a_misspelt_key_is_shown_at_its_line_with_the_name_it_nearly_is() {
        let typo = FILE.replace("\"ground_truth\"", "\"grond_truth\"");
        let line = typo
            .lines()
            .position(|l| l.contains("grond_truth"))
            .unwrap()
            + 1;
        let err = parse(Path::new("a.lv3.json"), &typo).unwrap_err();
        let Error::Syntax {
            line: at,
            column,
            message,
            ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!(*at, line, "{message}");
        assert!(*column > 1, "{err}");
        assert!(
            message.ends_with("did you mean `ground_truth`?"),
            "{message}"
        );
        // A key like none of the allowed: no guess.
        let other = FILE.replace("\"ground_truth\"", "\"zzz\"");
        let err = parse(Path::new("a.lv3.json"), &other).unwrap_err();
        assert!(!err.to_string().contains("did you mean"), "{err}");
    }

    #[test]
    fn a_key_written_twice_is_refused_at_its_place() {
        for (from, to, line) in [
            (
                "\"scene\": \"Alarm\",",
                "\"scene\": \"Alarm\", \"scene\": \"Other\",",
                2,
            ),
            (
                "{\"username\": \"Ann\",",
                "{\"username\": \"Ann\", \"username\": \"Bob\",",
                6,
            ),
        ] {
            let twice = FILE.replace(from, to);
            let err = parse(Path::new("a.lv3.json"), &twice).unwrap_err();
            let Error::Syntax {
                line: at, message, ..
            } = &err
            else {
                panic!("{err}")
            };
            assert_eq!(*at, line, "{message}");
            assert!(message.contains("duplicate key"), "{message}");
        }
    }

    #[test]
    fn a_file_off_the_schema_is_an_error_at_its_place() {
        let typo = FILE.replace("\"param_dict\": {\"username\"", "\"params\": {\"username\"");
        let err = parse(Path::new("a.lv3.json"), &typo).unwrap_err();
        let Error::Syntax { line, message, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(*line, 6, "{message}");
        let number = FILE.replace("\"pw\"}", "3}");
        let err = parse(Path::new("a.lv3.json"), &number).unwrap_err();
        assert!(
            err.to_string()
                .contains("/ground_truth/0/param_dict/password"),
            "{err}"
        );
        let empty =
            r#"{"scene": "x", "first_utterance": "hi", "key_info": [], "ground_truth": []}"#;
        let err = parse(Path::new("a.lv3.json"), empty).unwrap_err();
        assert!(err.to_string().contains("/ground_truth"), "{err}");
        let err = parse(Path::new("a.lv3.json"), "{").unwrap_err();
        assert!(err.to_string().contains("a.lv3.json"), "{err}");
    }
}
