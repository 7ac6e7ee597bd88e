//! The oracle predictor must score perfectly wherever the simulator and the
//! comparators are right: on upstream ToolTalk (78/78, precision = recall
//! = 1, as the reference's own oracle test demands) and on the project's
//! own dataset.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The upstream ToolTalk data: skipped when missing, except under CI.
fn upstream() -> Option<PathBuf> {
    talkforge::test_support::upstream("tooltalk")
}

/// talkforge counts a turn with `"apis": []` as a turn without gold calls
/// (Table 2); the reference tests for the key. The two agree on upstream
/// because no upstream turn has an empty list: keep that checked.
#[test]
fn no_upstream_assistant_turn_has_an_empty_apis_list() {
    let Some(dir) = upstream() else { return };
    let files =
        talkforge::formats::discover(&[dir.join("easy"), dir.join("tooltalk")], &["json"]).unwrap();
    let mut assistant_turns = 0;
    for file in &files {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for turn in value["conversation"].as_array().unwrap() {
            if turn["role"] == "assistant" {
                assistant_turns += 1;
                assert_ne!(
                    turn.get("apis"),
                    Some(&Value::Array(vec![])),
                    "{}",
                    file.display()
                );
            }
        }
    }
    assert_eq!(assistant_turns, 230);
}

fn oracle(paths: &[PathBuf], databases: &Path) -> Value {
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("evaluate")
        .args(paths)
        .arg("--databases")
        .arg(databases)
        .args(["--predictor", "oracle", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "evaluate could not run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON document on stdout")
}

/// The conversations that fell short, for the failure message.
fn failures(summary: &Value) -> Vec<String> {
    summary["per_conversation"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["success"] != Value::Bool(true) || c["precision"] != 1.0)
        .map(|c| {
            format!(
                "{} (precision {}, recall {})",
                c["name"], c["precision"], c["recall"]
            )
        })
        .collect()
}

fn assert_perfect(summary: &Value, conversations: u64) {
    assert_eq!(summary["conversations"], conversations);
    let failed = failures(summary);
    assert!(failed.is_empty(), "the oracle fell short on {failed:#?}");
    assert_eq!(summary["success_rate"], 1.0);
    assert_eq!(summary["precision"], 1.0);
    assert_eq!(summary["recall"], 1.0);
    assert_eq!(summary["incorrect_action_rate"], 0.0);
    assert_eq!(summary["matches"], summary["ground_truths"]);
    assert_eq!(summary["predictions"], summary["ground_truths"]);
    // The oracle's worlds end as the gold ones, every turn.
    assert_eq!(
        summary["state_check"]["conversations_checked"],
        conversations
    );
    assert_eq!(summary["state_check"]["conversations_clean"], conversations);
}

#[test]
fn oracle_scores_78_of_78_on_upstream_tooltalk() {
    let Some(dir) = upstream() else { return };
    let summary = oracle(
        &[dir.join("easy"), dir.join("tooltalk")],
        &dir.join("databases"),
    );
    assert_perfect(&summary, 78);
    assert_eq!(summary["ground_truths"], 266);
    assert_eq!(summary["by_subset"]["easy"]["conversations"], 28);
    assert_eq!(summary["by_subset"]["tooltalk"]["conversations"], 50);
}

#[test]
fn oracle_is_perfect_on_the_project_dataset() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The ToolTalk part of the dataset (the API-Bank part is evaluated by level).
    let conversations = [
        root.join("conversations/easy"),
        root.join("conversations/hard"),
    ];
    let files = talkforge::formats::discover(&conversations, &["json"]).unwrap();
    assert!(!files.is_empty(), "the project dataset is empty");
    let summary = oracle(&conversations, &root.join("databases"));
    assert_perfect(&summary, files.len() as u64);
}
