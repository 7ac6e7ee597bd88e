//! Upstream's level-3 sheets, read as they are: prose written for the
//! person playing the user, in four parts, each opened by a heading at the
//! start of a line (a leading `- ` and the case do not matter):
//!
//! ```text
//! Scene: Meeting Schedule
//! First Utterance: Can you please do a meeting booking for me?
//! Key Info:
//! ...what the user knows, free text...
//! API Calls:
//! GetUserToken(username="JohnDoe", password="pass123")
//! ...one call a line, in the paper's text form...
//! ```
//!
//! The sheets spell their headings in a few ways (`First Utterence`,
//! `GT API Call:`, `- API Calls:`); all are taken. A call line may carry a
//! note after the call (`...): 获取用户令牌`), which is not part of it.
//! Calls are read by [`call_text`](super::super::call_text), the reader of
//! calls in model text, into the dialogues' `param_dict` form.

use std::path::Path;

use super::{scenario_name, GroundTruthCall, Scenario};
use crate::suites::apibank::call_text::parse_api_request;
use crate::{Error, Result};

/// The heading a sheet's line opens, if any, and the text after its colon.
fn heading(line: &str) -> Option<(Heading, &str)> {
    let trimmed = line.trim_start();
    let trimmed = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
    let (head, rest) = trimmed.split_once(':')?;
    let head = head.trim().to_ascii_lowercase();
    let kind = match head.as_str() {
        "scene" => Heading::Scene,
        "first utterance" | "first utterence" => Heading::FirstUtterance,
        "key info" | "key information" => Heading::KeyInfo,
        "api call" | "api calls" | "gt api call" | "gt api calls" => Heading::Calls,
        _ => return None,
    };
    Some((kind, rest.trim()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heading {
    Scene,
    FirstUtterance,
    KeyInfo,
    Calls,
}

/// Read a sheet's text. A sheet that lacks a part, or a call line that
/// cannot be read, is an error naming the file (and the line).
pub fn parse(path: &Path, text: &str) -> Result<Scenario> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut scene = None;
    let mut first = None;
    let mut key_info: Option<Vec<&str>> = None;
    let mut calls: Option<Vec<GroundTruthCall>> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if calls.is_none() {
            match heading(line) {
                Some((Heading::Scene, rest)) if scene.is_none() => scene = Some(rest.to_string()),
                Some((Heading::FirstUtterance, rest)) if first.is_none() => {
                    first = Some((rest.to_string(), number));
                }
                Some((Heading::KeyInfo, rest)) if key_info.is_none() => {
                    key_info = Some(vec![rest]);
                }
                Some((Heading::Calls, _)) => calls = Some(Vec::new()),
                _ => {
                    if let Some(lines) = key_info.as_mut() {
                        lines.push(line);
                    }
                }
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let request = parse_api_request(line).map_err(|failure| {
            Error::syntax(
                path,
                number,
                first_column(line),
                format!("cannot read this ground-truth call: {failure}"),
            )
        })?;
        let column = line[..request.span.start].chars().count() + 1;
        calls.get_or_insert_with(Vec::new).push(GroundTruthCall {
            api_name: request.api_name,
            param_dict: request.param_dict,
            line: number,
            column,
        });
    }
    let missing = |what: &str| {
        Error::input(
            path,
            format!("not a level-3 scenario sheet: it has no `{what}` heading (a sheet has Scene:, First Utterance:, Key Info: and API Calls:, in that order)"),
        )
    };
    let scene = scene.ok_or_else(|| missing("Scene:"))?;
    let (first_utterance, first_utterance_line) =
        first.ok_or_else(|| missing("First Utterance:"))?;
    if first_utterance.is_empty() {
        return Err(Error::syntax(
            path,
            first_utterance_line,
            1,
            "the first utterance is empty",
        ));
    }
    let key_info = key_info.ok_or_else(|| missing("Key Info:"))?;
    let ground_truth = calls.ok_or_else(|| missing("API Calls:"))?;
    if ground_truth.is_empty() {
        return Err(Error::input(
            path,
            "no ground-truth call follows the `API Calls:` heading",
        ));
    }
    Ok(Scenario {
        name: scenario_name(path),
        scene,
        first_utterance,
        key_info: key_info.join("\n").trim().to_string(),
        ground_truth,
        first_utterance_line,
    })
}

/// The column of a line's first non-blank character (1-based).
fn first_column(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count() + 1
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const SHEET: &str = "Scene: Alarm\n\nFirst Utterence: Wake me up.\n\nKey Info:\n\"Ann\":{\n\"password\":\"pw\"\n},\n- time: 07:00\n\n- GT API Call:\nGetUserToken(username=\"Ann\", password=\"pw\"): a note\n\n  AddAlarm(token=t-ann, time=\"2023-04-01 07:00:00\")\n";

    #[test]
    fn a_sheet_is_read_with_its_calls_placed_at_their_lines() {
        let s = parse(Path::new("d/Alarm.txt"), SHEET).unwrap();
        assert_eq!(s.name, "Alarm");
        assert_eq!(s.scene, "Alarm");
        assert_eq!(
            (s.first_utterance.as_str(), s.first_utterance_line),
            ("Wake me up.", 3)
        );
        assert_eq!(
            s.key_info,
            "\"Ann\":{\n\"password\":\"pw\"\n},\n- time: 07:00"
        );
        let calls: Vec<(&str, usize, usize)> = s
            .ground_truth
            .iter()
            .map(|c| (c.api_name.as_str(), c.line, c.column))
            .collect();
        assert_eq!(calls, [("GetUserToken", 12, 1), ("AddAlarm", 14, 3)]);
        assert_eq!(
            serde_json::Value::Object(s.ground_truth[1].param_dict.clone()),
            json!({"token": "t-ann", "time": "2023-04-01 07:00:00"})
        );
    }

    #[test]
    fn a_sheet_without_a_part_or_with_a_bad_call_is_an_error_naming_it() {
        let err = parse(Path::new("notes.txt"), "just some notes\n").unwrap_err();
        assert!(err.to_string().contains("notes.txt"), "{err}");
        assert!(err.to_string().contains("no `Scene:` heading"), "{err}");
        let no_calls = SHEET.split("- GT API Call:").next().unwrap();
        let err = parse(Path::new("a.txt"), no_calls).unwrap_err();
        assert!(err.to_string().contains("API Calls:"), "{err}");
        let bad = format!("{SHEET}AddAlarm(token=\"t-ann\"\n");
        match parse(Path::new("a.txt"), &bad).unwrap_err() {
            Error::Syntax { line, message, .. } => {
                assert_eq!(line, 15);
                assert!(message.contains("AddAlarm"), "{message}");
            }
            other => panic!("{other}"),
        }
    }
}
