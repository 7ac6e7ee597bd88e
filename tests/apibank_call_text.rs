//! The text form of API calls on every call the upstream API-Bank
//! dialogues record: written by talkforge and read back it gives the same
//! `param_dict`, and the reference's own regular expressions
//! (`api_call_extraction.parse_api_call`, as the reference scoring reads
//! text) read the same arguments from it.

use serde_json::Value;
use talkforge::suites::apibank::call_text::{parse_api_request, render_api_request};
use talkforge::suites::apibank::eval::reference_parse;

#[test]
fn every_upstream_call_round_trips_and_reads_as_the_reference_reads_it() {
    let Some(root) = talkforge::test_support::upstream("apibank/lv1-lv2-samples") else {
        return;
    };
    let mut calls = 0;
    for entry in walkdir::WalkDir::new(&root) {
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
            let reference = reference_parse::read(&written).unwrap();
            assert_eq!(
                (reference.api_name.as_str(), &reference.param_dict),
                (name, dict),
                "{written}"
            );
            calls += 1;
        }
    }
    assert_eq!(calls, 508, "every upstream API line");
}
