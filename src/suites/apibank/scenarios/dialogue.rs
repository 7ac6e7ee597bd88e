//! A scenario as a dialogue, so that `verify` and `lint` run over its
//! ground-truth calls with the machinery they run over API-Bank dialogues.
//!
//! The dialogue is the first utterance (a User line) followed by one API
//! line per ground-truth call, each placed at the line of the file where
//! the call is written: reports name the scenario file's own lines. A
//! scenario records no results; each call's recorded result is the
//! expectation `{"exception": null}`, "runs without raising", which the
//! suite compares on the exception alone (see `ApiBank::reproduces`).

use serde_json::{json, Map, Value};

use super::Scenario;
use crate::dialogue::{Conversation, GoldCall, Metadata, Place, Request, Role, Turn, User};

/// What a scenario's ground-truth call is expected to return: no
/// exception. A recorded result of this shape (an object whose only key is
/// `exception`) is compared on the exception alone.
pub fn expectation() -> Value {
    json!({"exception": null})
}

/// Whether a recorded result is only an expectation about the exception.
pub fn is_expectation(recorded: &Value) -> bool {
    recorded
        .as_object()
        .is_some_and(|o| o.len() == 1 && o.contains_key("exception"))
}

/// The scenario in the model: a user turn, then an assistant turn per
/// ground-truth call. Turn indexes and call places are the 0-based lines
/// of the scenario file, as for API-Bank dialogues.
pub fn conversation(scenario: &Scenario) -> Conversation {
    let mut turns = vec![Turn {
        index: Some(scenario.first_utterance_line.saturating_sub(1) as u64),
        role: Role::User,
        text: scenario.first_utterance.clone(),
        apis: None,
    }];
    let mut apis_used: Vec<String> = Vec::new();
    for (i, call) in scenario.ground_truth.iter().enumerate() {
        if !apis_used.contains(&call.api_name) {
            apis_used.push(call.api_name.clone());
        }
        let line = call.line.saturating_sub(1);
        turns.push(Turn {
            index: Some(line as u64),
            role: Role::Assistant,
            text: String::new(),
            apis: Some(vec![GoldCall {
                request: Request {
                    api_name: call.api_name.clone(),
                    parameters: call.param_dict.clone(),
                },
                response: expectation(),
                exception: None,
                place: Some(Place {
                    turn: line,
                    call: i,
                }),
            }]),
        });
    }
    Conversation {
        name: scenario.name.clone(),
        conversation_id: scenario.name.clone(),
        suites_used: Vec::new(),
        apis_used,
        scenario: Some(scenario.scene.clone()),
        user: User::default(),
        metadata: Metadata::default(),
        conversation: turns,
        errata: Vec::new(),
    }
}

/// The scenario as the text of an API-Bank dialogue (one JSON object a
/// line) whose lines stand where the scenario file has them: the User
/// line at the first utterance's line, each API line at its call's line
/// (a later free line when two share one), every other line blank. The
/// linter reads this text, so its findings name the file's lines.
pub fn dialogue_text(scenario: &Scenario) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut put = |line: usize, value: Value| {
        let mut at = line.saturating_sub(1);
        while lines.get(at).is_some_and(|l| !l.is_empty()) {
            at += 1;
        }
        if lines.len() <= at {
            lines.resize(at + 1, String::new());
        }
        lines[at] = value.to_string();
    };
    // What the user knows is theirs to tell: it stands in their line, so
    // that a value the calls need can be traced to it.
    put(
        scenario.first_utterance_line,
        json!({"role": "User", "text": format!("{}\n{}", scenario.first_utterance, scenario.key_info)}),
    );
    for call in &scenario.ground_truth {
        let mut line = Map::new();
        line.insert("role".into(), "API".into());
        line.insert("api_name".into(), call.api_name.clone().into());
        line.insert("param_dict".into(), Value::Object(call.param_dict.clone()));
        line.insert("result".into(), expectation());
        put(call.line, Value::Object(line));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const SHEET: &str = "Scene: Alarm\nFirst Utterance: Wake me up.\nKey Info:\nAnn, pw\nAPI Calls:\nGetUserToken(username=\"Ann\", password=\"pw\")\n\nAddAlarm(token=\"t-ann\", time=\"2023-04-01 07:00:00\")\n";

    #[test]
    fn calls_stand_at_their_lines_in_both_forms() {
        let s = super::super::sheet::parse(Path::new("Alarm.txt"), SHEET).unwrap();
        let c = conversation(&s);
        let places: Vec<(usize, usize, &str)> = c
            .gold_calls()
            .map(|(t, i, call)| {
                let p = call.place(t, i);
                (p.turn, p.call, call.request.api_name.as_str())
            })
            .collect();
        assert_eq!(places, [(5, 0, "GetUserToken"), (7, 1, "AddAlarm")]);
        assert_eq!(c.conversation[0].index, Some(1));
        let text = dialogue_text(&s);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8);
        assert!(lines[1].contains("\"User\""));
        assert!(lines[5].contains("GetUserToken") && lines[7].contains("AddAlarm"));
        assert!(lines[6].is_empty() && lines[0].is_empty());
        // The text reads back as the same dialogue.
        let back = crate::formats::apibank::read_conversation(Path::new("x.jsonl"), &text).unwrap();
        assert_eq!(back.gold_calls().count(), 2);
    }

    #[test]
    fn only_a_lone_exception_is_an_expectation() {
        assert!(is_expectation(&expectation()));
        assert!(!is_expectation(&json!({"exception": null, "output": 1})));
        assert!(!is_expectation(&Value::Null));
    }
}
