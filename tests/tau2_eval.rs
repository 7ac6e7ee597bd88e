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

/// A stub server playing both sides of `move`: the agent (asked with the
/// tools) makes the gold call, then says where the user now lives; the
/// user (asked without tools) says why they call, then stops. From the
/// `fail_after`-th conversation on, the agent only talks.
fn players(fail_after: usize) -> eval_support::Stub {
    let opened = std::sync::atomic::AtomicUsize::new(0);
    eval_support::Stub::start(Box::new(move |_, body: &Value, _| {
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        let answer = if body.get("tools").is_some() {
            if last["role"] == "tool" {
                eval_support::text_answer("Done: your address is now in Bergen.")
            } else {
                let n = opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if n < fail_after {
                    eval_support::tool_answer(&[("modify_user_address", MOVE)])
                } else {
                    eval_support::text_answer("All set.")
                }
            }
        } else if messages.len() <= 2 {
            eval_support::text_answer("I moved to 2 Oak Rd, Bergen. My id is ann_1.")
        } else {
            eval_support::text_answer("Thanks! ###STOP###")
        };
        (200, answer)
    }))
}

fn openai<'a>(stub: &'a eval_support::Stub, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--predictor",
        "openai",
        "--model",
        "agent-1",
        "--user-model",
        "user-1",
        "--task-ids",
        "move",
        "--base-url",
        &stub.url,
        "--no-cache",
        "--concurrency",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn an_openai_agent_talks_with_a_simulated_user_and_earns_the_full_reward() {
    let stub = players(usize::MAX);
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("run");
    let (code, doc, stderr) = evaluate(&tasks, &openai(&stub, &out, &[]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["suite"], "tau2");
    assert_eq!(doc["reward"], 1.0);
    let row = &doc["per_task"][0];
    assert_eq!(
        (&row["task_id"], &row["reward"], &row["db_match"]),
        (&json!("move"), &json!(1.0), &json!(true))
    );
    assert_eq!(row["termination"], "user_stop");
    assert_eq!(doc["provenance"]["model_requested"], "agent-1");
    assert_eq!(doc["provenance"]["user_model_requested"], "user-1");
    let roles: Vec<&str> = doc["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["role"].as_str().unwrap())
        .collect();
    assert!(
        roles.contains(&"assistant") && roles.contains(&"user"),
        "{roles:?}"
    );

    // The agent was offered the retail tools and got the call's result.
    let requests = stub.requests();
    let agent: Vec<_> = requests
        .iter()
        .filter(|r| r.body.get("tools").is_some())
        .collect();
    assert_eq!(agent.len(), 2);
    let offered: Vec<&str> = agent[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"modify_user_address") && offered.contains(&"transfer_to_human_agents")
    );
    assert!(!offered.contains(&"book_reservation"));
    let sent = agent[1].body["messages"].as_array().unwrap();
    assert_eq!(sent[sent.len() - 2]["tool_calls"][0]["id"], "call_stub_0");
    assert_eq!(sent[sent.len() - 1]["role"], "tool");
    assert_eq!(sent[sent.len() - 1]["tool_call_id"], "call_stub_0");
    // The user heard no call and no result.
    let user = requests
        .iter()
        .find(|r| r.body.get("tools").is_none())
        .unwrap();
    let scenario = user.body["messages"][0]["content"].as_str().unwrap();
    assert!(scenario.contains("I moved to Bergen.") && scenario.contains("###STOP###"));

    // The trajectory in tau2's format, and results.json that replay reads.
    let (_, written) = talkforge_json(&out.join("tasks/shop/move.json"));
    let messages = written["messages"].as_array().unwrap();
    assert_eq!(messages[0]["content"], "Hi! How can I help you today?");
    assert!(messages
        .iter()
        .any(|m| m["role"] == "tool" && m["id"] == "call_stub_0"));
    let results = out.join("results.json");
    let (code, replayed, stderr) = evaluate(
        &tasks,
        &[
            "--predictor",
            "replay",
            "--predictions",
            results.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(replayed["per_task"][0]["reward"], 1.0);

    // Run again: every trajectory is taken back from --out, nothing asked.
    let (code, again, stderr) = evaluate(&tasks, &openai(&stub, &out, &[]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(again["resumed"], 1);
    assert_eq!(again["per_task"][0]["reward"], 1.0);
    assert_eq!(stub.requests().len(), requests.len());
    // Other settings make it again.
    let (code, again, stderr) = evaluate(&tasks, &openai(&stub, &out, &["--temperature", "0.3"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(again["resumed"], 0);
    assert!(stderr.contains("made with other settings"), "{stderr}");
    assert!(stub.requests().len() > requests.len());
}

fn talkforge_json(path: &Path) -> (String, Value) {
    let text = std::fs::read_to_string(path).unwrap();
    let value = json(text.as_bytes());
    (text, value)
}

#[test]
fn ten_calls_that_raise_end_the_conversation_with_reward_zero() {
    let stub = eval_support::Stub::start(Box::new(|_, body: &Value, _| {
        let answer = if body.get("tools").is_some() {
            eval_support::tool_answer(&[("get_user_details", r#"{"user_id": "nobody"}"#)])
        } else {
            eval_support::text_answer("I moved. My id is ann_1.")
        };
        (200, answer)
    }));
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("run");
    let (code, doc, stderr) = evaluate(&tasks, &openai(&stub, &out, &[]));
    assert_eq!(code, 1, "{stderr}");
    let row = &doc["per_task"][0];
    assert_eq!(row["termination"], "too_many_errors");
    assert_eq!(row["reward"], 0.0);
    let (_, written) = talkforge_json(&out.join("tasks/shop/move.json"));
    let raised = written["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool" && m["error"] == true)
        .count();
    assert_eq!(raised, 10);
    let (_, results) = talkforge_json(&out.join("results.json"));
    assert_eq!(results["info"]["max_errors"], 10);
    assert_eq!(
        results["simulations"][0]["termination_reason"],
        "too_many_errors"
    );
}

#[test]
fn tool_docs_that_name_an_unknown_tool_are_refused() {
    let stub = players(usize::MAX);
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("run");
    let docs = dir.path().join("tools.json");
    std::fs::write(
        &docs,
        json!([{"type": "function", "function": {"name": "book_reservation", "parameters": {}}}])
            .to_string(),
    )
    .unwrap();
    let (code, _, stderr) = evaluate(
        &tasks,
        &openai(&stub, &out, &["--tool-docs", docs.to_str().unwrap()]),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("tools.json") && stderr.contains("book_reservation"),
        "{stderr}"
    );
    std::fs::write(&docs, "{\"not\": \"a list\"}").unwrap();
    let (code, _, stderr) = evaluate(
        &tasks,
        &openai(&stub, &out, &["--tool-docs", docs.to_str().unwrap()]),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("OpenAI tools JSON"), "{stderr}");
    assert!(stub.requests().is_empty());
    assert!(!out.exists());

    // Schemas the user supplies are what the agent is offered.
    std::fs::write(
        &docs,
        json!([{"type": "function", "function": {"name": "modify_user_address",
            "description": "Move a user.", "parameters": {"type": "object", "properties": {}}}}])
        .to_string(),
    )
    .unwrap();
    let (code, _, stderr) = evaluate(
        &tasks,
        &openai(&stub, &out, &["--tool-docs", docs.to_str().unwrap()]),
    );
    assert_eq!(code, 0, "{stderr}");
    let requests = stub.requests();
    let agent = requests
        .iter()
        .find(|r| r.body.get("tools").is_some())
        .unwrap();
    let offered = &agent.body["tools"];
    assert_eq!(offered.as_array().unwrap().len(), 1);
    assert_eq!(offered[0]["function"]["description"], "Move a user.");
}

#[test]
fn trials_give_pass_hat_and_report_reads_the_run_in_every_format() {
    // The first conversation earns the reward; the second does nothing.
    let stub = players(1);
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("run");
    let (code, doc, stderr) = evaluate(
        &tasks,
        &openai(&stub, &out, &["--trials", "2", "--temperature", "0.5"]),
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(doc["trajectories"], 2);
    assert_eq!(doc["reward"], 0.5);
    assert_eq!(doc["trials"]["pass_hat"], json!([0.5, 0.0]));
    assert_eq!(doc["trials"]["groups"]["retail"]["units"], 1);
    assert!(out.join("tasks/shop/move.trial-1.json").is_file());
    let (_, results) = talkforge_json(&out.join("results.json"));
    assert_eq!(results["simulations"].as_array().unwrap().len(), 2);

    let report = |format: &str| {
        let output = talkforge()
            .args(["report", out.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let markdown = report("markdown");
    assert!(markdown.contains("## Results by run"), "{markdown}");
    assert!(
        markdown.contains("| 1 | retail | 2 | 0.5000 |"),
        "{markdown}"
    );
    assert!(markdown.contains("pass^2"), "{markdown}");
    assert!(
        markdown.contains("the database differs from the gold's"),
        "{markdown}"
    );
    let document = json(report("json").as_bytes());
    assert_eq!(document["kind"], "tau2");
    assert_eq!(document["runs"][0]["pass_hat"], json!([0.5, 0.0]));
    assert_eq!(document["runs"][0]["by_domain"][0]["reward"], 0.5);
    assert_eq!(document["runs"][0]["below_full_reward"][0]["trial"], 1);
    let html = report("html");
    assert!(
        html.contains("<table") && html.contains("Reward components"),
        "{html}"
    );
    let written = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(written.contains("## Reward components"), "{written}");
}

#[test]
fn a_transfer_to_a_human_agent_ends_the_conversation_by_the_users_signal() {
    let stub = eval_support::Stub::start(Box::new(|_, body: &Value, _| {
        let messages = body["messages"].as_array().unwrap();
        let answer = if body.get("tools").is_some() {
            if messages.last().unwrap()["role"] == "tool" {
                eval_support::text_answer("You are being transferred to a human agent.")
            } else {
                eval_support::tool_answer(&[(
                    "transfer_to_human_agents",
                    r#"{"summary": "The user wants a person."}"#,
                )])
            }
        } else if messages.len() <= 2 {
            eval_support::text_answer("I want to talk to a person.")
        } else {
            eval_support::text_answer("###TRANSFER###")
        };
        (200, answer)
    }));
    let dir = tempfile::tempdir().unwrap();
    let tasks = domain(dir.path());
    let out = dir.path().join("run");
    let mut args = openai(&stub, &out, &[]);
    let at = args.iter().position(|a| *a == "move").unwrap();
    args[at] = "idle";
    let (code, doc, stderr) = evaluate(&tasks, &args);
    assert_eq!(code, 0, "{stderr}");
    let row = &doc["per_task"][0];
    assert_eq!(row["termination"], "user_stop");
    assert_eq!(row["reward"], 1.0);
    let (_, written) = talkforge_json(&out.join("tasks/shop/idle.json"));
    let messages = written["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["content"], "###TRANSFER###");
    assert!(messages
        .iter()
        .any(|m| m["role"] == "tool" && m["content"] == "Transfer successful"));
}
