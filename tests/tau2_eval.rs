//! `evaluate --suite tau2` on a small hand-made retail domain: the oracle,
//! replay of what the oracle wrote, predictions in lines, selection by
//! split and id, a judge behind a stub server on 127.0.0.1, and bad input.

mod eval_support;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

fn talkforge() -> Command {
    let mut command = Command::cargo_bin("talkforge").unwrap();
    command
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_API_KEY");
    command
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

const MOVE: &str = r#"{"user_id": "ann_1", "address1": "2 Oak Rd", "address2": "",
    "city": "Bergen", "state": "VE", "country": "NO", "zip": "5003"}"#;

/// A domain folder `shop/` of one user and three tasks: a move to say
/// (DB and COMMUNICATE), a look-up judged by NL assertions, and nothing
/// to do (DB only).
fn domain(dir: &Path) -> PathBuf {
    let folder = dir.join("shop");
    std::fs::create_dir_all(&folder).unwrap();
    let db = json!({
        "products": {},
        "orders": {},
        "users": {"ann_1": {
            "user_id": "ann_1",
            "name": {"first_name": "Ann", "last_name": "Lee"},
            "address": {"address1": "1 Elm St", "address2": "", "city": "Oslo",
                        "country": "NO", "state": "OS", "zip": "0150"},
            "email": "ann@example.org",
            "payment_methods": {},
            "orders": []
        }}
    });
    let moved: Value = serde_json::from_str(MOVE).unwrap();
    let tasks = json!([
        {"id": "move", "user_scenario": {"instructions": {"reason_for_call": "I moved to Bergen."}},
         "evaluation_criteria": {
            "actions": [{"action_id": "m0", "name": "modify_user_address", "arguments": moved}],
            "communicate_info": ["Bergen"], "nl_assertions": [], "reward_basis": ["DB", "COMMUNICATE"]}},
        {"id": "look", "user_scenario": {},
         "evaluation_criteria": {
            "actions": [{"action_id": "l0", "name": "get_user_details", "arguments": {"user_id": "ann_1"}}],
            "nl_assertions": ["The agent reads the user's details."], "reward_basis": ["DB", "NL_ASSERTION"]}},
        {"id": "idle", "user_scenario": {},
         "evaluation_criteria": {"actions": [], "reward_basis": ["DB"]}}
    ]);
    std::fs::write(folder.join("db.json"), db.to_string()).unwrap();
    std::fs::write(
        folder.join("tasks.json"),
        serde_json::to_string_pretty(&tasks).unwrap(),
    )
    .unwrap();
    std::fs::write(
        folder.join("split_tasks.json"),
        r#"{"train": ["move", "look"], "test": ["idle"]}"#,
    )
    .unwrap();
    folder.join("tasks.json")
}

fn evaluate(tasks: &Path, extra: &[&str]) -> (i32, Value, String) {
    let output = talkforge()
        .arg("evaluate")
        .arg(tasks)
        .args(["--suite", "tau2", "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let doc = if output.stdout.is_empty() {
        Value::Null
    } else {
        json(&output.stdout)
    };
    (output.status.code().unwrap(), doc, stderr)
}

/// `(task_id, reward, db_match)` per row.
fn rewards(doc: &Value) -> Vec<(String, Value, bool)> {
    doc["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["task_id"].as_str().unwrap().to_string(),
                r["reward"].clone(),
                r["db_match"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_oracle_scores_one_where_no_judge_is_needed_and_replay_of_its_results_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("out");
    let (code, doc, stderr) = evaluate(
        &tasks,
        &["--predictor", "oracle", "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        (
            doc["suite"].as_str(),
            doc["tasks"].as_u64(),
            doc["scored"].as_u64()
        ),
        (Some("tau2"), Some(3), Some(2))
    );
    assert_eq!(doc["reward"], 1.0);
    assert_eq!(
        rewards(&doc),
        [
            ("move".to_string(), json!(1.0), true),
            ("look".to_string(), Value::Null, true),
            ("idle".to_string(), json!(1.0), true)
        ]
    );
    let look = &doc["per_task"][1];
    assert!(
        look["nl_assertions"].is_null()
            && look["errors"][0]
                .as_str()
                .unwrap()
                .contains("--judge-model")
    );
    assert!(
        doc["per_task"][2]["communicate"].is_null(),
        "COMMUNICATE is outside idle's basis"
    );

    // The trajectory in tau2's format: the call, the string the agent saw,
    // and the closing message that says what must be said.
    let trajectory = json(&std::fs::read(out.join("tasks/shop/move.json")).unwrap());
    let messages = trajectory["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(messages[1]["tool_calls"][0]["name"], "modify_user_address");
    assert_eq!(messages[2]["id"], messages[1]["tool_calls"][0]["id"]);
    let seen: Value = serde_json::from_str(messages[2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(seen["address"]["city"], "Bergen");
    assert!(messages[3]["content"].as_str().unwrap().contains("Bergen"));

    let results = json(&std::fs::read(out.join("results.json")).unwrap());
    assert_eq!(results["info"]["environment_info"]["domain_name"], "retail");
    assert_eq!(results["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(results["simulations"][0]["reward_info"]["reward"], 1.0);
    assert!(results["simulations"][1]["reward_info"].is_null());

    let (code, replayed, stderr) = evaluate(
        &tasks,
        &[
            "--predictor",
            "replay",
            "--predictions",
            out.join("results.json").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rewards(&replayed), rewards(&doc));
    assert_eq!(replayed["reward"], doc["reward"]);
}

#[test]
fn predicted_actions_are_run_and_graded_and_the_selection_narrows_the_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let predictions = dir.path().join("p.jsonl");
    let moved: Value = serde_json::from_str(MOVE).unwrap();
    let mut elsewhere = moved.clone();
    elsewhere["city"] = json!("Tromso");
    let lines = [
        // the right write, but nothing said: COMMUNICATE fails
        json!({"task_id": "move", "actions": [{"name": "modify_user_address", "arguments": moved}]}),
        // a write where none is wanted: DB fails
        json!({"file": "shop/tasks.json", "task_id": "idle", "actions": [{"name": "modify_user_address", "arguments": elsewhere}]}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&predictions, text.join("\n") + "\n").unwrap();
    let replay = [
        "--predictor",
        "replay",
        "--predictions",
        predictions.to_str().unwrap(),
    ];
    let (code, doc, stderr) = evaluate(&tasks, &replay);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        rewards(&doc),
        [
            ("move".to_string(), json!(0.0), true),
            ("idle".to_string(), json!(0.0), false)
        ]
    );
    assert_eq!(doc["per_task"][0]["communicate"], 0.0);
    assert_eq!(
        doc["not_predicted"],
        json!([format!("{}#look", tasks.display())])
    );

    let (_, test_split, _) = evaluate(&tasks, &[&replay[..], &["--split", "test"]].concat());
    assert_eq!(
        rewards(&test_split),
        [("idle".to_string(), json!(0.0), false)]
    );
    let (code, only, _) = evaluate(
        &tasks,
        &["--predictor", "oracle", "--task-ids", "idle,move"],
    );
    assert_eq!(code, 0);
    assert_eq!(only["tasks"], 2);
    let (code, _, stderr) = evaluate(&tasks, &["--predictor", "oracle", "--task-ids", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--task-ids nope"), "{stderr}");
}

#[test]
fn a_bad_prediction_is_named_by_file_and_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let predictions = dir.path().join("p.jsonl");
    std::fs::write(
        &predictions,
        "{\"task_id\": \"idle\", \"actions\": []}\n{\"task_id\": \"idle\", \"actions\": [}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = evaluate(
        &tasks,
        &[
            "--predictor",
            "replay",
            "--predictions",
            predictions.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("p.jsonl:2:"), "{stderr}");
    assert!(!out.exists());
    std::fs::write(&predictions, "{\"task_id\": \"gone\", \"actions\": []}\n").unwrap();
    let (code, _, stderr) = evaluate(
        &tasks,
        &[
            "--predictor",
            "replay",
            "--predictions",
            predictions.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("p.jsonl:1: no task gone"), "{stderr}");
    let (code, _, stderr) = evaluate(&tasks, &["--predictor", "oracle", "--fresh-tasks"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--fresh-tasks"), "{stderr}");
}

#[test]
fn a_judge_scores_the_nl_assertions() {
    let stub = eval_support::Stub::start(Box::new(|_, body: &Value, _| {
        let asked = body["messages"][1]["content"].as_str().unwrap_or_default();
        let met = asked.contains("get_user_details") || asked.contains("ann_1");
        (
            200,
            eval_support::text_answer(
                &json!({"results": [{"outcome": "reads", "reasoning": "it called the tool", "met": met}]}).to_string(),
            ),
        )
    }));
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let (code, doc, stderr) = evaluate(
        &tasks,
        &[
            "--predictor",
            "oracle",
            "--task-ids",
            "look",
            "--judge-model",
            "judge-1",
            "--base-url",
            &stub.url,
            "--no-cache",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["per_task"][0]["reward"], 1.0);
    assert_eq!(doc["per_task"][0]["nl_assertions"], 1.0);
    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "judge-1");
    let asked = requests[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        asked.contains("1. The agent reads the user's details."),
        "{asked}"
    );
}
