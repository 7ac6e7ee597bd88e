//! API-Bank's level-3 scenarios as files: what the person playing the
//! user is told (a first utterance and the key information they know) and
//! the ground-truth calls the assistant must end up making. These are
//! API-Bank's file formats, read by `verify`, `lint`, `stats` and
//! `evaluate --level 3` alike (the evaluation is [`super::level3`]'s).
//!
//! Scenarios come in two formats, both read into [`Scenario`]:
//! - upstream's sheets (`.txt`, prose: `Scene:`, `First Utterance:`,
//!   `Key Info:`, then the calls one a line in the paper's text form),
//!   read as they are by [`sheet`];
//! - our own JSON (`.lv3.json`, [`format`], schema
//!   `schemas/apibank-level3-scenario.schema.json`), for scenarios a
//!   maintainer writes.
//!
//! For `verify` and `lint` a scenario becomes a dialogue ([`dialogue`]):
//! the first utterance, then one API line per ground-truth call placed at
//! the call's line of the file.

use std::path::Path;

use serde_json::{Map, Value};

use crate::Result;

pub mod dialogue;
pub mod format;
pub mod sheet;

/// The file-name endings of level-3 scenarios: upstream's sheets and our
/// JSON format.
pub const SHEET_EXTENSION: &str = crate::formats::apibank::SHEET_ENDING;
pub const JSON_EXTENSION: &str = "lv3.json";

/// One level-3 scenario, whichever file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The file's stem (without `.lv3` for our format).
    pub name: String,
    pub scene: String,
    /// What the user says first.
    pub first_utterance: String,
    /// What the user knows and tells when asked, as text.
    pub key_info: String,
    pub ground_truth: Vec<GroundTruthCall>,
    /// Where the first utterance is written (1-based line).
    pub first_utterance_line: usize,
}

/// One call the assistant must make, with its arguments as the dialogues'
/// `param_dict` holds them (text as written).
#[derive(Debug, Clone, PartialEq)]
pub struct GroundTruthCall {
    pub api_name: String,
    pub param_dict: Map<String, Value>,
    /// Where the call is written (1-based line and column).
    pub line: usize,
    pub column: usize,
}

/// Read a scenario file's text, in the format its name says.
pub fn parse_scenario(path: &Path, text: &str) -> Result<Scenario> {
    let lower = path.to_string_lossy().to_ascii_lowercase();
    if lower.ends_with(&format!(".{JSON_EXTENSION}")) {
        format::parse(path, text)
    } else {
        sheet::parse(path, text)
    }
}

/// Read a scenario file.
pub fn read_scenario(path: &Path) -> Result<Scenario> {
    parse_scenario(path, &crate::formats::read::read_text(path)?)
}

/// The name a scenario goes by: the file's stem, without `.lv3`.
fn scenario_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.strip_suffix(".lv3") {
        Some(name) => name.to_string(),
        None => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_files_are_known_by_the_end_of_their_name() {
        let formats = [
            &crate::suites::apibank::SCENARIO_SHEETS,
            &crate::suites::apibank::SCENARIOS,
        ];
        for (name, is) in [
            ("Shopping.txt", true),
            ("a/Hotel Booking.TXT", true),
            ("x.lv3.json", true),
            ("x.json", false),
            ("x.jsonl", false),
            (".txt", false),
            (".lv3.json", false),
            ("lv3.json", false),
        ] {
            let fits = formats.iter().any(|f| f.fits(Path::new(name)).is_some());
            assert_eq!(fits, is, "{name}");
        }
        assert_eq!(scenario_name(Path::new("d/meeting.lv3.json")), "meeting");
        assert_eq!(scenario_name(Path::new("d/Shopping.txt")), "Shopping");
    }
}
