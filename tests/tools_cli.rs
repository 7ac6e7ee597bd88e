//! `talkforge tools`: the catalog in its three formats, snapshot-tested so
//! any change to a tool's documentation shows up in review.

use assert_cmd::Command;
use serde_json::Value;

fn tools(format: &str) -> String {
    suite_tools("tooltalk", format)
}

fn suite_tools(suite: &str, format: &str) -> String {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["tools", "--suite", suite, "--format", format])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn markdown_reference() {
    insta::assert_snapshot!("tools_markdown", tools("markdown"));
}

#[test]
fn json_catalog() {
    let text = tools("json");
    let catalog: Value = serde_json::from_str(&text).unwrap();
    let plugins = catalog["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 7);
    let counts: Vec<(String, usize)> = plugins
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["tools"].as_array().unwrap().len(),
            )
        })
        .collect();
    let want = [
        ("AccountTools", 10),
        ("Alarm", 3),
        ("Calendar", 4),
        ("Email", 2),
        ("Messages", 2),
        ("Reminder", 4),
        ("Weather", 3),
    ];
    assert_eq!(
        counts,
        want.map(|(n, c)| (n.to_string(), c)).to_vec(),
        "7 plugins, 28 tools"
    );
    insta::assert_snapshot!("tools_json", text);
}

#[test]
fn openai_tool_schemas_are_valid_json_schemas() {
    let text = tools("openai");
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(entries.len(), 28);
    for entry in &entries {
        assert_eq!(entry["type"], "function");
        let parameters = &entry["function"]["parameters"];
        jsonschema::validator_for(parameters)
            .unwrap_or_else(|e| panic!("{}: {e}", entry["function"]["name"]));
        for required in parameters["required"].as_array().unwrap() {
            let name = required.as_str().unwrap();
            assert!(parameters["properties"].get(name).is_some(), "{name}");
        }
    }
    insta::assert_snapshot!("tools_openai", text);
}

/// API-Bank's catalog as people read it: its 53 APIs, each described in
/// our own words, with its parameters.
#[test]
fn apibank_markdown_reference() {
    insta::assert_snapshot!("tools_apibank_markdown", suite_tools("apibank", "markdown"));
}

#[test]
fn apibank_json_catalog() {
    let text = suite_tools("apibank", "json");
    let catalog: Value = serde_json::from_str(&text).unwrap();
    let plugins = catalog["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    assert_eq!(plugins[0]["tools"].as_array().unwrap().len(), 53);
    insta::assert_snapshot!("tools_apibank_json", text);
}

/// `--suite` prints another suite's catalog; an unknown suite is a usage error.
#[test]
fn another_suites_catalog() {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["tools", "--suite", "apibank", "--format", "openai"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 53);
    assert!(names.contains(&"ToolSearcher") && !names.contains(&"QueryCalendar"));
    let markdown = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["tools", "--suite", "apibank"])
        .output()
        .unwrap();
    let text = String::from_utf8(markdown.stdout).unwrap();
    assert!(text.contains("53 tools in 1 group."), "{text}");
    assert!(text.contains("take the user's credential as an argument"));
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["tools", "--suite", "nope"])
        .assert()
        .code(2);
}
