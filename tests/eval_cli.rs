//! `talkforge evaluate` from the command line: the replay predictor, the
//! output folder, resume and reset, the JSON contract, and bad input.

mod eval_support;

use std::path::Path;

use assert_cmd::Command;
use eval_support::{conversation, write_conversation, write_databases};
use serde_json::{json, Value};

fn setup(dir: &Path) {
    write_databases(&dir.join("db"));
    let add = conversation(
        "add",
        "Wake me at seven.",
        &[("AddAlarm", json!({"time": "07:00:00"}))],
        "Done.",
    );
    let find = conversation("find", "My alarms?", &[("FindAlarms", json!({}))], "One.");
    write_conversation(&dir.join("data/easy/add.json"), &add, &dir.join("db"));
    write_conversation(&dir.join("data/easy/find.json"), &find, &dir.join("db"));
}

fn evaluate(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(dir)
        .args(["evaluate", "data", "--databases", "db"])
        .args(args)
        .output()
        .unwrap()
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

const PREDICTIONS: &str = r#"{"conversation_id": "add", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}}}, {"role": "assistant", "text": "Set."}]}

{"conversation_id": "find", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "FindAlarms", "parameters": {"start_range": "09:00:00"}}}, {"role": "api", "request": {"api_name": "AddAlarm", "parameters": null}}, {"role": "assistant", "text": "None."}]}
"#;

#[test]
fn replay_predictions_and_the_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    std::fs::write(root.join("p.jsonl"), PREDICTIONS).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--predictor",
            "replay",
            "--predictions",
            "p.jsonl",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        evaluate(root, &args)
    };
    let output = run(&["--out", "out"]);
    assert_eq!(output.status.code(), Some(1));
    let summary = json_of(&output);
    // add: one matching action. find: a query that misses the 08:00 alarm,
    // and an AddAlarm with unreadable arguments (failed, so not a bad
    // action). 3 predictions, 2 gold, 1 match, 2 actions, 0 bad.
    for (key, want) in [
        ("conversations", json!(2)),
        ("predictions", json!(3)),
        ("ground_truths", json!(2)),
        ("matches", json!(1)),
        ("actions", json!(2)),
        ("bad_actions", json!(0)),
        ("precision", json!(1.0 / 3.0)),
        ("recall", json!(0.5)),
        ("action_precision", json!(0.5)),
        ("incorrect_action_rate", json!(0.0)),
        ("success_rate", json!(0.5)),
        ("soft_success_rate", json!(0.5)),
    ] {
        assert_eq!(summary[key], want, "{key}");
    }
    let per = summary["per_conversation"].as_array().unwrap();
    assert_eq!(per.len(), 2);
    assert_eq!(per[0]["name"], "add");
    assert_eq!(per[0]["success"], true);
    assert_eq!(per[1]["name"], "find");
    // Why find failed: the gold FindAlarms against the closest prediction,
    // the argument that differs, and the call that raised.
    assert_eq!(per[0].get("why_failed"), None);
    assert_eq!(
        per[1]["why_failed"],
        json!([
            {"turn": 1, "kind": "missed_gold_call", "api_name": "FindAlarms", "call": 0,
             "message": "turn 1: gold call FindAlarms not matched; the closest prediction differs in start_range (gold none, predicted \"09:00:00\")",
             "closest": {"prediction": 0, "arguments": [
                 {"name": "start_range", "gold": null, "predicted": "09:00:00"}]}},
            {"turn": 1, "kind": "exception", "api_name": "AddAlarm", "call": 1,
             "message": "turn 1: AddAlarm raised: Failed to parse API call"}
        ])
    );
    assert_eq!(per[1]["incorrect_action_rate"], 0.0);
    assert_eq!(per[1].get("bad_action_rate"), None);
    assert_eq!(per[1]["recall"], 0.0);
    // find failed: one turn with an unmatched FindAlarms gold call and
    // unmatched FindAlarms + AddAlarm predictions: faulty planning.
    assert_eq!(summary["error_types"]["faulty_planning"], 1);
    assert_eq!(summary["predictor"], "replay:p.jsonl");

    let out = root.join("out");
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("conversations/find.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored["metrics"]["predictions"], 2);
    assert_eq!(stored["conversation"][1]["apis"][0]["match"], false);
    assert_eq!(
        stored["conversation"][1]["predictions"][1]["exception"],
        "Failed to parse API call"
    );
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(on_disk, summary);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| 1 | easy | 2 | 50.0 | 50.0 | 33.3 | 50.0 | 50.0 | 0.0 |"),
        "{report}"
    );
    assert!(
        report.contains("| 1 | 1 | 0.0 (0/1) | 100.0 (1/1) | 0.0 (0/1) |"),
        "{report}"
    );
    assert!(
        report.contains(
            "| 1 | `data/easy/find.json` | easy | 0.0 | turn 1: gold call FindAlarms not matched"
        ),
        "{report}"
    );
    assert!(
        report.contains("| 1 | FindAlarms | 1 | 1 | 1 | 1 | 0 |"),
        "{report}"
    );

    // Resume: the same settings and inputs take every result from `out`.
    let again = run(&["--out", "out"]);
    let resumed = json_of(&again);
    assert_eq!(resumed["resumed"], 2);
    assert_eq!(resumed["precision"], summary["precision"]);
    assert_eq!(resumed["error_types"], summary["error_types"]);
    assert_eq!(
        resumed["per_conversation"][1]["why_failed"],
        summary["per_conversation"][1]["why_failed"]
    );
    assert!(!String::from_utf8_lossy(&again.stderr).contains("note:"));
    // Each output file records what it was made with.
    let evaluation = &stored["evaluation"];
    assert_eq!(evaluation["predictor"], "replay:p.jsonl");
    assert_eq!(evaluation["predictions"], "p.jsonl");
    assert_eq!(evaluation["predictions_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        evaluation["conversation_sha256"].as_str().unwrap().len(),
        64
    );
    for key in ["model", "api_mode", "no_docs", "temperature"] {
        assert_eq!(evaluation[key], Value::Null, "{key}");
    }
    assert_eq!(evaluation["similarity"], "lexical");
    assert_eq!(evaluation["max_calls_per_turn"], 10);
    assert_eq!(
        summary["settings"]["predictions_sha256"],
        evaluation["predictions_sha256"]
    );

    // A changed predictions file: both are evaluated again, with a note.
    std::fs::write(root.join("p.jsonl"), "").unwrap();
    let changed = run(&["--out", "out"]);
    assert_eq!(changed.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&changed.stderr);
    assert!(
        stderr.contains("note:") && stderr.contains("predictions_sha256"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no predictions for conversation"),
        "{stderr}"
    );
    // Reset: evaluated again, and now the file has nothing for them.
    let reset = run(&["--out", "out", "--reset"]);
    assert_eq!(reset.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&reset.stderr).contains("no predictions for conversation"));
}

#[test]
fn resume_re_evaluates_what_other_settings_or_inputs_produced() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    std::fs::write(root.join("p.jsonl"), PREDICTIONS).unwrap();
    let replay = |extra: &[&str]| {
        let mut args = vec!["--predictor", "replay", "--predictions", "p.jsonl"];
        args.extend_from_slice(&["--format", "json", "--out", "out"]);
        args.extend_from_slice(extra);
        evaluate(root, &args)
    };
    let first = json_of(&replay(&[]));
    assert_eq!(first["success_rate"], 0.5);

    // Another predictor in the same folder: evaluated again, not mixed in.
    let oracle = evaluate(
        root,
        &["--predictor", "oracle", "--format", "json", "--out", "out"],
    );
    assert_eq!(oracle.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&oracle.stderr);
    assert_eq!(stderr.matches("note:").count(), 2, "{stderr}");
    assert!(
        stderr.contains("predictor was \"replay:p.jsonl\""),
        "{stderr}"
    );
    let summary = json_of(&oracle);
    assert_eq!(summary["resumed"], 0);
    assert_eq!(summary["success_rate"], 1.0);
    assert_eq!(summary["predictor"], "oracle");
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["settings"]["predictor"], "oracle");
    assert!(std::fs::read_to_string(root.join("out/report.md"))
        .unwrap()
        .contains("| 1 | `oracle` | - | - | - | - | - | lexical | 10 |"));

    // Back to replay: both again; then a rerun resumes both.
    assert_eq!(json_of(&replay(&[]))["resumed"], 0);
    assert_eq!(json_of(&replay(&[]))["resumed"], 2);

    // A different call bound or similarity: evaluated again.
    let bound = replay(&["--max-calls-per-turn", "1"]);
    assert!(String::from_utf8_lossy(&bound.stderr).contains("max_calls_per_turn was 10"));
    let bound = json_of(&bound);
    assert_eq!(bound["resumed"], 0);
    assert_eq!(bound["settings"]["max_calls_per_turn"], 1);
    assert_eq!(bound["turns_stopped_by_bound"], 1);
    let exact = replay(&["--max-calls-per-turn", "1", "--similarity", "exact"]);
    assert!(String::from_utf8_lossy(&exact.stderr).contains("similarity was \"lexical\""));
    assert_eq!(json_of(&exact)["resumed"], 0);

    // An edited conversation file: that one alone is evaluated again.
    let path = root.join("data/easy/find.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("My alarms?", "Which alarms do I have?")).unwrap();
    let edited = replay(&["--max-calls-per-turn", "1", "--similarity", "exact"]);
    let stderr = String::from_utf8_lossy(&edited.stderr);
    assert_eq!(stderr.matches("note:").count(), 1, "{stderr}");
    assert!(
        stderr.contains("find.json") && stderr.contains("conversation_sha256"),
        "{stderr}"
    );
    assert_eq!(json_of(&edited)["resumed"], 1);

    // Edited databases: every conversation is evaluated again, since it
    // ran on the old ones.
    let db = root.join("db/Alarm.json");
    let text = std::fs::read_to_string(&db).unwrap();
    std::fs::write(&db, format!("{}\n", text.trim_end())).unwrap();
    let rerun = replay(&["--max-calls-per-turn", "1", "--similarity", "exact"]);
    let stderr = String::from_utf8_lossy(&rerun.stderr);
    assert_eq!(stderr.matches("databases_sha256").count(), 2, "{stderr}");
    assert_eq!(json_of(&rerun)["resumed"], 0);
    assert_eq!(
        json_of(&replay(&[
            "--max-calls-per-turn",
            "1",
            "--similarity",
            "exact"
        ]))["resumed"],
        2
    );

    // An output file from before settings were recorded: evaluated again.
    let out = root.join("out/conversations/add.json");
    let mut old: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    old["evaluation"] =
        json!({"predictor": "replay:p.jsonl", "similarity": "exact", "max_calls_per_turn": 1});
    std::fs::write(&out, old.to_string()).unwrap();
    let legacy = replay(&["--max-calls-per-turn", "1", "--similarity", "exact"]);
    assert!(
        String::from_utf8_lossy(&legacy.stderr).contains("conversation_sha256 was not recorded")
    );
    assert_eq!(json_of(&legacy)["resumed"], 1);
}

#[test]
fn human_output_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    let output = evaluate(root, &["--predictor", "oracle"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("success rate 100.0% (2/2)"), "{text}");
    assert!(!root.join("out").exists());
}

/// One bad file never hides the rest: every failing file is reported,
/// every other file is evaluated, and summary.json is written for them
/// with the failures listed.
#[test]
fn every_failure_is_reported_and_the_other_files_are_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_databases(&root.join("db"));
    let names: Vec<String> = (0..40).map(|i| format!("c{i:02}")).collect();
    for name in &names {
        let c = conversation(name, "My alarms?", &[("FindAlarms", json!({}))], "One.");
        write_conversation(
            &root.join(format!("data/easy/{name}.json")),
            &c,
            &root.join("db"),
        );
    }
    // A file that does not parse (found while reading it), and a later one
    // whose user is unknown (found while simulating).
    std::fs::write(
        root.join("data/easy/c12.json"),
        "{\"name\": \"x\",\n  oops}",
    )
    .unwrap();
    let path = root.join("data/easy/c22.json");
    let mut c: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    c["user"]["username"] = json!("nobody");
    std::fs::write(&path, serde_json::to_string_pretty(&c).unwrap()).unwrap();

    let output = evaluate(root, &["--predictor", "oracle", "--out", "out"]);
    assert_eq!(output.status.code(), Some(2));
    // The human summary of the others is printed all the same.
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("38 conversations"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("2 of 40 conversations"), "{stderr}");
    assert!(stderr.contains("c12.json:2:3"), "{stderr}");
    assert!(
        stderr.contains("c22.json") && stderr.contains("nobody"),
        "{stderr}"
    );
    let written: Vec<&String> = names
        .iter()
        .filter(|n| root.join(format!("out/conversations/{n}.json")).exists())
        .collect();
    assert_eq!(written.len(), 38, "{written:?}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["conversations"], 38);
    let failed: Vec<&str> = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 2);
    assert!(failed[0].ends_with("c12.json") && failed[1].ends_with("c22.json"));
    let report = std::fs::read_to_string(root.join("out/report.md")).unwrap();
    assert!(
        report.contains("Run 1 could not evaluate 2 conversations of 40")
            && report.contains("## Not evaluated"),
        "{report}"
    );
    // Without --out, --format json prints the same summary: the others'
    // results with the failures listed, and exit 2.
    let output = evaluate(root, &["--predictor", "oracle", "--format", "json"]);
    assert_eq!(output.status.code(), Some(2));
    let printed = json_of(&output);
    assert_eq!(printed["conversations"], 38);
    assert_eq!(printed["failures"], summary["failures"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("2 of 40 conversations"));
}

/// One worker and eight give the same bytes, entries in file order.
#[test]
fn the_report_does_not_depend_on_the_number_of_workers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_databases(&root.join("db"));
    let names: Vec<String> = (0..40).map(|i| format!("c{i:02}")).collect();
    for (i, name) in names.iter().enumerate() {
        // Every third conversation asks for the wrong alarm time.
        let time = if i % 3 == 0 { "06:00:00" } else { "07:00:00" };
        let c = conversation(
            name,
            "Wake me at seven.",
            &[("AddAlarm", json!({"time": "07:00:00"}))],
            "Done.",
        );
        let folder = if i < 25 { "easy" } else { "hard" };
        write_conversation(
            &root.join(format!("data/{folder}/{name}.json")),
            &c,
            &root.join("db"),
        );
        let line = json!({"conversation_id": name, "turn": 1, "predictions": [
            {"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": time}}},
            {"role": "assistant", "text": "Set."}]});
        let mut predictions = std::fs::read_to_string(root.join("p.jsonl")).unwrap_or_default();
        predictions.push_str(&format!("{line}\n"));
        std::fs::write(root.join("p.jsonl"), predictions).unwrap();
    }
    let run = |workers: &str| {
        let output = evaluate(
            root,
            &[
                "--predictor",
                "replay",
                "--predictions",
                "p.jsonl",
                "--format",
                "json",
                "--jobs",
                workers,
            ],
        );
        assert_eq!(output.status.code(), Some(1), "some conversations fail");
        String::from_utf8(output.stdout).unwrap()
    };
    let one = run("1");
    let summary: Value = serde_json::from_str(&one).unwrap();
    let order: Vec<&str> = summary["per_conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(order, names);
    assert_eq!(summary["successes"], 26);
    // The same document, but for the time each run finished.
    let undated = |text: &str| {
        let mut v: Value = serde_json::from_str(text).unwrap();
        v["provenance"]["date"] = Value::Null;
        serde_json::to_string_pretty(&v).unwrap()
    };
    assert_eq!(undated(&one), undated(&run("8")));
}

#[test]
fn bad_input_exits_2_with_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    let fail = |args: &[&str], want: &str| {
        let output = evaluate(root, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    };
    fail(&["--predictor", "replay"], "--predictions");
    std::fs::write(
        root.join("bad.jsonl"),
        "{\"conversation_id\": \"add\", \"turn\": 1, \"predictions\": []}\n{\"conversation_id\": \"find\", \"turn\": 1, \n",
    )
    .unwrap();
    fail(
        &["--predictor", "replay", "--predictions", "bad.jsonl"],
        "bad.jsonl:2:",
    );
    std::fs::write(
        root.join("shape.jsonl"),
        "{\"conversation_id\": \"add\", \"turn\": \"one\", \"predictions\": []}\n",
    )
    .unwrap();
    fail(
        &["--predictor", "replay", "--predictions", "shape.jsonl"],
        "shape.jsonl:1:1: \"turn\"",
    );
    // Lines that name no evaluated conversation, a user turn or a turn
    // that does not exist: input errors with the file and line, not
    // silently skipped.
    let good = PREDICTIONS.lines().next().unwrap();
    for (line, want) in [
        (
            r#"{"conversation_id": "nobody", "turn": 1, "predictions": []}"#,
            "bad-lines.jsonl:3:1: conversation \"nobody\" is not among the 2 conversations evaluated",
        ),
        (
            r#"{"conversation_id": "find", "turn": 0, "predictions": []}"#,
            "bad-lines.jsonl:3:1: turn 0 of conversation \"find\" is a user turn",
        ),
        (
            r#"{"conversation_id": "find", "turn": 5, "predictions": []}"#,
            "bad-lines.jsonl:3:1: conversation \"find\" has no turn 5 (it has 2 turns, 0 to 1)",
        ),
    ] {
        std::fs::write(root.join("bad-lines.jsonl"), format!("{good}\n\n{line}\n")).unwrap();
        fail(
            &["--predictor", "replay", "--predictions", "bad-lines.jsonl"],
            want,
        );
    }
    std::fs::write(
        root.join("data/easy/broken.json"),
        "{\"name\": \"x\",\n  oops}",
    )
    .unwrap();
    // A file that cannot be read is named with its place; the others are
    // evaluated and their summary printed, the failure listed.
    let output = evaluate(root, &["--predictor", "oracle", "--format", "json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.json:2:3"));
    let printed = json_of(&output);
    assert_eq!(printed["conversations"], 2);
    assert!(printed["failures"][0]["error"]
        .as_str()
        .unwrap()
        .contains("broken.json:2:3"));
    std::fs::remove_file(root.join("data/easy/broken.json")).unwrap();
    let no_databases = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
        .args([
            "evaluate",
            "data",
            "--databases",
            "nowhere",
            "--predictor",
            "oracle",
        ])
        .output()
        .unwrap();
    assert_eq!(no_databases.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_databases.stderr).contains("nowhere"));
    fail(
        &["--predictor", "oracle", "--max-calls-per-turn", "0"],
        "--max-calls-per-turn",
    );
}

/// The state check: `add` sets 06:00 instead of 07:00 (a different write
/// at the alarm the gold call creates) and deletes the 08:00 alarm (a
/// write the gold never made); `find` only reads. Scores are ToolTalk's.
#[test]
fn the_state_check_reports_collateral_damage_beside_the_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    let predictions = r#"{"conversation_id": "add", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": "06:00:00"}}}, {"role": "api", "request": {"api_name": "DeleteAlarm", "parameters": {"alarm_id": "aaaa-bbbb"}}}, {"role": "assistant", "text": "Set."}]}
{"conversation_id": "find", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "FindAlarms", "parameters": {}}}, {"role": "assistant", "text": "One."}]}
"#;
    std::fs::write(root.join("p.jsonl"), predictions).unwrap();
    let args = [
        "--predictor",
        "replay",
        "--predictions",
        "p.jsonl",
        "--format",
        "json",
        "--out",
        "out",
    ];
    let output = evaluate(root, &args);
    assert_eq!(output.status.code(), Some(1));
    let summary = json_of(&output);
    assert_eq!(summary["bad_actions"], 2);
    assert_eq!(
        summary["state_check"],
        json!({"conversations_checked": 2, "conversations_with_collateral": 1,
               "conversations_clean": 1, "collateral": 1, "missing": 0, "different": 1})
    );
    let per = summary["per_conversation"].as_array().unwrap();
    let writes = &per[0]["state_check"]["writes"];
    assert_eq!(
        *writes,
        json!([
            {"turn": 1, "kind": "collateral", "database": "Alarm", "record": "alice", "item": "aaaa-bbbb"},
            {"turn": 1, "kind": "different", "database": "Alarm", "record": "alice", "item": "5bff-dd80"}
        ])
    );
    assert_eq!(per[1]["state_check"]["writes"], json!([]));
    // Resumed from the output files: the same check.
    let again = json_of(&evaluate(root, &args));
    assert_eq!(again["resumed"], 2);
    assert_eq!(again["state_check"], summary["state_check"]);
    assert_eq!(
        again["per_conversation"][0]["state_check"],
        per[0]["state_check"]
    );
    let report = std::fs::read_to_string(root.join("out/report.md")).unwrap();
    assert!(report.contains("| 1 | 2 | 1 | 1 | 1 | 0 | 1 |"), "{report}");
    assert!(
        report.contains(
            "turn 1 collateral Alarm.alice.aaaa-bbbb, turn 1 different Alarm.alice.5bff-dd80"
        ),
        "{report}"
    );
}
