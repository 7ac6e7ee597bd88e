//! `evaluate --suite tau2 --predictor oracle` on upstream airline and
//! retail (../shared/upstream/tau2): the gold actions as the agent's
//! trajectory reach the gold's database on every task, the reward is 1 on
//! every task that needs no judge, and replaying the results file the
//! oracle wrote grades every task the same.

use assert_cmd::Command;
use serde_json::Value;

fn evaluate(args: &[&str]) -> Value {
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("evaluate")
        .args(args)
        .args(["--suite", "tau2", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn judged(tasks: &[Value], id: &str) -> bool {
    let task = tasks.iter().find(|t| t["id"] == id).unwrap();
    let criteria = &task["evaluation_criteria"];
    let basis = criteria["reward_basis"].as_array().unwrap();
    basis.iter().any(|b| b == "NL_ASSERTION")
        && criteria["nl_assertions"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
}

#[test]
fn the_oracle_gets_the_full_reward_wherever_no_judge_is_needed() {
    let Some(up) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    // (domain, tasks, tasks needing a judge)
    for (domain, count, needing_judge) in [("airline", 50, 0), ("retail", 114, 40)] {
        let dir = up.join(domain);
        let tasks_path = dir.join("tasks.json");
        let tasks: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&tasks_path).unwrap()).unwrap();
        let out = tempfile::tempdir().unwrap();
        let doc = evaluate(&[
            tasks_path.to_str().unwrap(),
            "--predictor",
            "oracle",
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(doc["tasks"], count, "{domain}");
        assert_eq!(doc["scored"], count - needing_judge, "{domain}");
        assert_eq!(doc["reward"], 1.0, "{domain}");
        let rows = doc["per_task"].as_array().unwrap();
        for row in rows {
            let id = row["task_id"].as_str().unwrap();
            assert_eq!(row["db_match"], true, "{domain} task {id}");
            if judged(&tasks, id) {
                assert!(row["reward"].is_null(), "{domain} task {id}");
            } else {
                assert_eq!(row["reward"], 1.0, "{domain} task {id}: {row}");
            }
        }
        let results = out.path().join("results.json");
        let replayed = evaluate(&[
            tasks_path.to_str().unwrap(),
            "--predictor",
            "replay",
            "--predictions",
            results.to_str().unwrap(),
        ]);
        let same = |doc: &Value| -> Vec<(Value, Value, Value)> {
            doc["per_task"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["task_id"].clone(),
                        r["reward"].clone(),
                        r["db_match"].clone(),
                    )
                })
                .collect()
        };
        assert_eq!(same(&replayed), same(&doc), "{domain}");
    }
}
