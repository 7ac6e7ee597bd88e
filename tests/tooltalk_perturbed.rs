//! Imperfect assistants on upstream ToolTalk get the metrics and the
//! exception texts microsoft/ToolTalk's own evaluation gives them.
//!
//! ../shared/upstream/tooltalk/perturbed/ holds twelve runs of perturbed
//! gold predictions (dropped, duplicated, swapped and extra calls, a
//! session token written by the model, logging out first, unknown tools,
//! null parameters, premature answers, wrong arguments, a seeded mix) in
//! the replay format, and `reference.json`: per run and conversation, the
//! reference's metrics and, per executed predicted call, `[turn, call,
//! tool, exception]`. Each run goes through `evaluate --predictor replay`
//! as a user runs it, with exact similarity on both sides.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

/// Whether talkforge's metric `got` is the reference's `want`: booleans
/// equal, numbers equal up to float rounding.
fn same_metric(want: &Value, got: Option<&Value>) -> bool {
    match (want, got) {
        (Value::Bool(w), Some(Value::Bool(g))) => w == g,
        (Value::Number(w), Some(Value::Number(g))) => {
            (w.as_f64().unwrap() - g.as_f64().unwrap()).abs() <= 1e-12
        }
        _ => false,
    }
}

/// `[turn, call, tool, exception]` for every predicted call talkforge ran,
/// calls counted from 0 within each assistant turn.
fn executed_calls(conversation: &Value) -> Vec<Value> {
    let mut calls = Vec::new();
    for (t, turn) in conversation["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        if turn["role"] != "assistant" {
            continue;
        }
        let predictions = turn["predictions"].as_array().into_iter().flatten();
        for (k, prediction) in predictions.filter(|p| p["role"] == "api").enumerate() {
            calls.push(serde_json::json!([
                t,
                k,
                prediction["request"]["api_name"],
                prediction["exception"]
            ]));
        }
    }
    calls
}

/// Runs one perturbation and lists every way talkforge's per-conversation
/// output differs from the reference's.
fn differences(upstream: &Path, run: &str, reference: &BTreeMap<String, Value>) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let output = talkforge()
        .arg("evaluate")
        .arg(upstream.join("easy"))
        .arg(upstream.join("tooltalk"))
        .arg("--databases")
        .arg(upstream.join("databases"))
        .args(["--predictor", "replay", "--predictions"])
        .arg(upstream.join("perturbed").join(format!("{run}.jsonl")))
        .args(["--similarity", "exact", "--max-calls-per-turn", "1000"])
        .arg("--out")
        .arg(out.path())
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{run}: evaluate could not run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut found = Vec::new();
    for (relative, want) in reference {
        let path = out.path().join("conversations").join(relative);
        let Ok(text) = std::fs::read_to_string(&path) else {
            found.push(format!("{run} {relative}: no per-conversation output"));
            continue;
        };
        let got: Value = serde_json::from_str(&text).unwrap();
        if let Some(metrics) = want["metrics"].as_object() {
            for (name, value) in metrics {
                if !same_metric(value, got["metrics"].get(name)) {
                    found.push(format!(
                        "{run} {relative}: {name} reference {value} talkforge {}",
                        got["metrics"][name]
                    ));
                }
            }
        }
        let want_calls = want["calls"].as_array().unwrap();
        let got_calls = executed_calls(&got);
        if want_calls != &got_calls {
            found.push(format!(
                "{run} {relative}: executed calls reference {want_calls:?} talkforge {got_calls:?}"
            ));
        }
    }
    found
}

#[test]
fn imperfect_assistants_get_the_reference_metrics_and_exceptions() {
    let Some(upstream) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let text = std::fs::read_to_string(upstream.join("perturbed/reference.json")).unwrap();
    let reference: BTreeMap<String, BTreeMap<String, Value>> = serde_json::from_str(&text).unwrap();
    assert_eq!(reference.len(), 12, "the twelve perturbation runs");
    let mut conversations = 0;
    let mut found = Vec::new();
    for (run, per_conversation) in &reference {
        conversations += per_conversation.len();
        found.extend(differences(&upstream, run, per_conversation));
    }
    assert_eq!(conversations, 936);
    assert!(
        found.is_empty(),
        "{} differences from the reference:\n{}",
        found.len(),
        found.join("\n")
    );
}
