//! The text form of API calls on every call the upstream API-Bank
//! dialogues record: written by talkforge and read back it gives the same
//! `param_dict`, and the reference's own regular expressions
//! (`api_call_extraction.parse_api_call`, ported here as a yardstick) read
//! the same arguments from it.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use serde_json::{Map, Value};
use talkforge::suites::apibank::call_text::{parse_api_request, render_api_request};

const LEVELS: &str = "../shared/upstream/apibank/lv1-lv2-samples";

/// The reference's reading: the call by a greedy match on one line, then
/// each `key='value'`, `key=[...]` or `key=word`.
fn reference_parse(text: &str) -> Option<(String, Map<String, Value>)> {
    static CALL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[(\w+)\((.*)\)\]").unwrap());
    static PARAM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(\w+)\s*=\s*['"](.+?)['"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)"#).unwrap()
    });
    let (call, param) = (&*CALL, &*PARAM);
    let found = call.captures(text)?;
    let mut dict = Map::new();
    for m in param.captures_iter(&found[2]) {
        let (key, value) = if let Some(k) = m.get(1) {
            (k, m.get(2))
        } else if let Some(k) = m.get(3) {
            (k, m.get(4))
        } else {
            (m.get(5).unwrap(), m.get(6))
        };
        dict.insert(
            key.as_str().to_string(),
            Value::String(value.unwrap().as_str().to_string()),
        );
    }
    Some((found[1].to_string(), dict))
}

#[test]
fn every_upstream_call_round_trips_and_reads_as_the_reference_reads_it() {
    let root = Path::new(LEVELS);
    if !root.is_dir() {
        eprintln!("skipped: {LEVELS} is not here");
        return;
    }
    let mut calls = 0;
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let value: Value = serde_json::from_str(line).unwrap();
            if value["role"] != "API" {
                continue;
            }
            let name = value["api_name"].as_str().unwrap();
            let dict = value["param_dict"].as_object().unwrap();
            let written = render_api_request(name, dict);
            let read = parse_api_request(&written).unwrap();
            assert_eq!(
                (read.api_name.as_str(), &read.param_dict),
                (name, dict),
                "{written}"
            );
            assert_eq!(
                reference_parse(&written),
                Some((name.to_string(), dict.clone())),
                "{written}"
            );
            calls += 1;
        }
    }
    assert_eq!(calls, 508, "every upstream API line");
}
