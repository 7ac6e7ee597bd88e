//! Every upstream tau2 gold action (airline and retail) against the tables
//! made by running tau2's own Python (../shared/upstream/tau2/<domain>/
//! gold-replay.tsv and gold-final.tsv): the same outcome, exception text
//! and agent-facing output string for each action, and the same database
//! hash after each task.

use std::collections::BTreeMap;
use std::path::Path;

use talkforge::suites::tau2::domain::{Db, Initial};
use talkforge::suites::tau2::{tasks, verify};

/// The columns of a TSV file by header name, one map a row.
fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t'))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

struct Figures {
    actions: usize,
    agree: usize,
    outputs_agree: usize,
    tasks: usize,
    hashes_agree: usize,
    scripted: Vec<(String, usize)>,
    defects: Vec<(String, usize)>,
    mismatches: Vec<String>,
}

fn replay_domain(dir: &Path, initial_hash: &str) -> Figures {
    let db = Db::load(&dir.join("db.json")).unwrap();
    assert_eq!(db.hash(), initial_hash, "initial hash of {}", dir.display());
    let db = Initial::new(db);
    assert_eq!(db.hash(&db.db), initial_hash, "streamed initial hash");
    let tasks = tasks::load(&dir.join("tasks.json")).unwrap();
    let replays: BTreeMap<String, verify::TaskReplay> = tasks
        .iter()
        .map(|t| (t.id.clone(), verify::replay("tasks.json", t, &db)))
        .collect();
    let mut f = Figures {
        actions: 0,
        agree: 0,
        outputs_agree: 0,
        tasks: 0,
        hashes_agree: 0,
        scripted: Vec::new(),
        defects: Vec::new(),
        mismatches: Vec::new(),
    };
    for row in rows(&dir.join("gold-replay.tsv")) {
        f.actions += 1;
        let index: usize = row["action_index"].parse().unwrap();
        let step = &replays[&row["task_id"]].steps[index];
        let want_exception = (row["outcome"] == "error").then(|| row["exception_text"].clone());
        let output: String = serde_json::from_str(&row["output"]).unwrap();
        if step.exception == want_exception {
            f.agree += 1;
        } else {
            f.mismatches.push(format!(
                "task {} action {index} {}: {:?} vs tau2 {:?}",
                row["task_id"], row["name"], step.exception, want_exception
            ));
        }
        if step.agent_text == output {
            f.outputs_agree += 1;
        } else {
            f.mismatches.push(format!(
                "task {} action {index} {} output:\n ours {}\n tau2 {}",
                row["task_id"], row["name"], step.agent_text, output
            ));
        }
    }
    for row in rows(&dir.join("gold-final.tsv")) {
        f.tasks += 1;
        let replay = &replays[&row["task_id"]];
        if replay.final_state.db_hash == row["final_agent_db_hash"] {
            f.hashes_agree += 1;
        } else {
            f.mismatches
                .push(format!("task {} final hash differs", row["task_id"]));
        }
        for raised in &replay.raised {
            let place = (raised.task_id.clone(), raised.action);
            if raised.scripted {
                f.scripted.push(place);
            } else {
                f.defects.push(place);
            }
        }
    }
    for m in f.mismatches.iter().take(10) {
        eprintln!("{m}");
    }
    f
}

#[test]
fn airline_gold_actions_replay_as_tau2() {
    let Some(dir) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let f = replay_domain(
        &dir.join("airline"),
        "124e39a664b56402bcd09cb8a6a9cece6acb8462337c969799d5658e3250f263",
    );
    assert_eq!((f.actions, f.tasks), (142, 50));
    assert_eq!(f.agree, f.actions, "outcomes");
    assert_eq!(f.outputs_agree, f.actions, "agent-facing outputs");
    assert_eq!(f.hashes_agree, f.tasks, "final hashes");
    assert!(f.scripted.is_empty() && f.defects.is_empty());
}

#[test]
fn retail_gold_actions_replay_as_tau2_with_13_scripted_raises_and_5_defects() {
    let Some(dir) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let f = replay_domain(
        &dir.join("retail"),
        "b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c",
    );
    assert_eq!((f.actions, f.tasks), (550, 114));
    assert_eq!(f.agree, f.actions, "outcomes");
    assert_eq!(f.outputs_agree, f.actions, "agent-facing outputs");
    assert_eq!(f.hashes_agree, f.tasks, "final hashes");
    let defects: Vec<(&str, usize)> = f.defects.iter().map(|(t, a)| (t.as_str(), *a)).collect();
    assert_eq!(
        defects,
        [("2", 1), ("3", 1), ("4", 1), ("64", 6), ("105", 0)]
    );
    assert_eq!(f.scripted.len(), 13);
}
