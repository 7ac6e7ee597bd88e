//! The tau2 family on the command line: a domain folder's `tasks.json` is
//! read by name and the files beside it as its data (stats, verify, fill,
//! fmt), the catalog is listed (tools), and a defect is known only through
//! an erratum. Upstream folders come from ../shared/upstream/tau2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn errata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("errata/tau2-upstream.json")
}

#[test]
fn stats_counts_each_task_and_passes_over_the_data_beside_it() {
    let Some(up) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let output = talkforge()
        .args(["stats", "--format", "json"])
        .arg(&up)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let doc = json(&output.stdout);
    assert_eq!(doc["conversations"], 164);
    assert_eq!(doc["gold_calls"], 692);
    assert_eq!(doc["by_subset"]["airline"], 50);
    assert_eq!(doc["by_subset"]["retail"], 114);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for domain in ["airline", "retail"] {
        for data in ["db.json", "split_tasks.json", "policy.md"] {
            let note = format!("{domain}/{data}: the data of tasks.json beside it");
            assert!(stderr.contains(&note), "{note} missing from:\n{stderr}");
        }
    }
}

#[test]
fn tools_lists_both_domains_as_openai_functions() {
    let output = talkforge()
        .args(["tools", "--suite", "tau2", "--format", "openai"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let tools = json(&output.stdout);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 28);
    for name in [
        "book_reservation",
        "exchange_delivered_order_items",
        "calculate",
    ] {
        assert!(names.contains(&name), "{name}");
    }
    let book = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "book_reservation")
        .unwrap();
    let cabin = &book["function"]["parameters"]["properties"]["cabin"];
    assert_eq!(
        cabin["enum"],
        serde_json::json!(["business", "economy", "basic_economy"])
    );
}

#[test]
fn verify_fails_on_the_retail_defects_unless_an_erratum_knows_them() {
    let Some(up) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let tasks = up.join("retail/tasks.json");
    let bare = talkforge()
        .args(["verify", "--format", "json"])
        .arg(&tasks)
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(1), "{bare:?}");
    let doc = json(&bare.stdout);
    assert_eq!(doc["calls"], 550);
    assert_eq!(doc["reproduced"], 532);
    assert_eq!(doc["raised"].as_array().unwrap().len(), 18);
    // Task 4 carries an issue of its own: shown, and no excuse.
    let task4 = doc["raised"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task_id"] == "4")
        .unwrap();
    assert_eq!(task4["scripted"], false);
    assert!(task4.get("known").is_none());
    assert!(task4["issues"].as_array().is_some_and(|i| !i.is_empty()));

    let known = talkforge()
        .args(["verify", "--format", "json", "--errata"])
        .arg(errata())
        .arg(&tasks)
        .output()
        .unwrap();
    assert_eq!(known.status.code(), Some(0), "{known:?}");
    let doc = json(&known.stdout);
    let known_defects = doc["raised"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["scripted"] == false && r.get("known").is_some())
        .count();
    assert_eq!(known_defects, 5);
    assert_eq!(doc["stale_errata"], serde_json::json!([]));
}

#[test]
fn an_erratum_on_an_action_that_does_not_raise_is_stale() {
    let Some(up) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let errata = dir.path().join("errata.json");
    std::fs::write(
        &errata,
        r#"{"errata": [{"file": "airline/tasks.json", "turn": 0, "call": 0,
            "api_name": "get_user_details", "reason": "r", "since": "s"}]}"#,
    )
    .unwrap();
    let output = talkforge()
        .args(["verify", "--format", "json", "--errata"])
        .arg(&errata)
        .arg(up.join("airline/tasks.json"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let doc = json(&output.stdout);
    assert_eq!(doc["stale_errata"].as_array().unwrap().len(), 1);
}

#[test]
fn fill_and_fmt_leave_a_tasks_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.json");
    let text = "[ {\"id\": \"0\",\n  \"evaluation_criteria\": {\"actions\": []}} ]\n";
    std::fs::write(&tasks, text).unwrap();
    let fill = talkforge().arg("fill").arg(&tasks).output().unwrap();
    assert!(fill.status.success(), "{fill:?}");
    assert!(String::from_utf8_lossy(&fill.stdout).contains("tau2 tasks record no results"));
    let fmt = talkforge().arg("fmt").arg(&tasks).output().unwrap();
    assert!(fmt.status.success(), "{fmt:?}");
    assert_eq!(std::fs::read_to_string(&tasks).unwrap(), text);
}

#[test]
fn a_malformed_tasks_file_is_named_before_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.json");
    std::fs::write(&tasks, "[\n {\"id\": 1}]").unwrap();
    let output = talkforge().arg("verify").arg(&tasks).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("{}:2:", tasks.display())),
        "{stderr}"
    );
}
