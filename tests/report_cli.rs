//! `talkforge report RUN_DIR...`: evaluation folders side by side, as
//! Markdown, JSON and one self-contained HTML page (checked in a headless
//! Chromium when one is installed).

mod eval_support;

use std::path::Path;

use assert_cmd::Command;
use eval_support::{check_in_browser, conversation, write_conversation, write_databases};
use serde_json::{json, Value};

fn talkforge(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Two conversations, and two runs over them: a replayed assistant that
/// fails `find` (run-a), and the oracle (run-b).
fn two_runs(dir: &Path) {
    write_databases(&dir.join("db"));
    let add = conversation(
        "add",
        "Wake me at seven.",
        &[("AddAlarm", json!({"time": "07:00:00"}))],
        "Done.",
    );
    let find = conversation("find", "My alarms?", &[("FindAlarms", json!({}))], "One.");
    write_conversation(&dir.join("data/easy/add.json"), &add, &dir.join("db"));
    write_conversation(&dir.join("data/hard/find.json"), &find, &dir.join("db"));
    std::fs::write(
        dir.join("p.jsonl"),
        r#"{"conversation_id": "add", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}}}, {"role": "assistant", "text": "Set <b>now</b>."}]}
{"conversation_id": "find", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "DeleteAlarm", "parameters": {"alarm_id": "aaaa-bbbb"}}}, {"role": "assistant", "text": "None."}]}
"#,
    )
    .unwrap();
    let base = ["evaluate", "data", "--databases", "db", "--format", "json"];
    let a = talkforge(
        dir,
        &[
            &base[..],
            &[
                "--predictor",
                "replay",
                "--predictions",
                "p.jsonl",
                "--out",
                "run-a",
            ],
        ]
        .concat(),
    );
    assert_eq!(
        a.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let b = talkforge(
        dir,
        &[&base[..], &["--predictor", "oracle", "--out", "run-b"]].concat(),
    );
    assert_eq!(b.status.code(), Some(0));
}

#[test]
fn runs_side_by_side_in_markdown_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    let md = talkforge(root, &["report", "run-a", "run-b"]);
    assert_eq!(
        md.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| 1 | replay:p.jsonl | `run-a` |"), "{md}");
    assert!(md.contains("| 2 | oracle | `run-b` |"), "{md}");
    assert!(
        md.contains("| 1 | hard | 1 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 100.0 |"),
        "{md}"
    );
    assert!(md.contains("| 2 | all | 2 | 100.0 |"), "{md}");
    // Every shared section is there, in words where it does not apply.
    for section in [
        "## Reliability (pass^k)\n\nNot applicable:",
        "## State check\n",
        "## Not evaluated\n\nEvery conversation of every run was evaluated.",
        "## Provenance\n",
    ] {
        assert!(md.contains(section), "{section} in {md}");
    }
    assert!(md.contains("| `find.json` | fail | pass |"), "{md}");

    let json_out = talkforge(root, &["report", "run-a", "run-b", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(doc["same_dataset"], true);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 2);
    assert_eq!(doc["runs"][0]["rates"]["success_rate"], 0.5);
    assert_eq!(doc["runs"][1]["rates"]["success_rate"], 1.0);
    assert_eq!(doc["runs"][0]["evaluated"], 2);
    assert_eq!(doc["runs"][0]["not_evaluated"], 0);
    let sections: Vec<&str> = doc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(
        sections.contains(&"pass-hat") && sections.contains(&"not-evaluated"),
        "{sections:?}"
    );
    assert_eq!(
        doc["outcome_differs"],
        json!([{"file": "find.json", "success": [false, true]}])
    );
}

#[test]
fn runs_over_different_datasets_are_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    let c = talkforge(
        root,
        &[
            "evaluate",
            "data/easy",
            "--databases",
            "db",
            "--predictor",
            "oracle",
            "--out",
            "run-c",
        ],
    );
    assert_eq!(c.status.code(), Some(0));
    let refused = talkforge(root, &["report", "run-b", "run-c"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("evaluated different datasets")
            && stderr.contains("--allow-different-datasets"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty());
    let allowed = talkforge(
        root,
        &["report", "run-b", "run-c", "--allow-different-datasets"],
    );
    assert_eq!(allowed.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&allowed.stdout).contains("did not all evaluate the same dataset")
    );
    let missing = talkforge(root, &["report", "run-b", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nowhere: no summary.json here"));
}

#[test]
fn the_html_report_is_one_file_with_charts_and_dialogues_and_loads_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    let out = talkforge(
        root,
        &[
            "report",
            "run-a",
            "run-b",
            "--format",
            "html",
            "-o",
            "report.html",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let html = std::fs::read_to_string(root.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Self-contained: nothing is fetched.
    for outside in ["src=", "http://", "https://", "<link"] {
        let found = html.matches(outside).count()
            - html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
                * usize::from(outside == "http://");
        assert_eq!(found, 0, "{outside} in the page");
    }
    assert_eq!(html.matches("<svg class=\"chart\"").count(), 5);
    // The failure links to its dialogue, which shows gold and prediction.
    assert!(
        html.contains("<a href=\"#r1-c1\"><code>data&#x2f;hard&#x2f;find.json</code></a>"),
        "{html}"
    );
    assert!(html.contains("<article class=dialogue id=\"r1-c1\">"));
    assert!(html.contains("<div class=\"turn failing\" id=\"r1-c1-t1\">"));
    assert!(html.contains("FindAlarms({&quot;session_token&quot;:"));
    assert!(html.contains("DeleteAlarm({&quot;alarm_id&quot;:&quot;aaaa-bbbb&quot;"));
    assert!(html.contains("<span class=bad>bad action</span>"));
    // Text from the dialogue is escaped.
    assert!(!html.contains("<b>now</b>"));

    // Success per subset (3 + 2 subsets of runs), matched gold calls, bad
    // actions and error types: some bars in every chart but the oracle's zeros.
    check_in_browser(&root.join("report.html"), 8);
}

/// An API-Bank dataset (two dialogues) and two level-1 runs over it: the
/// oracle (`l1-oracle`) and a replay (`l1-replay`) that logs in with the
/// wrong password in `dentist.jsonl` (the call raises) and calls another
/// API in `alarm.jsonl`.
fn two_level_runs(dir: &Path) {
    let databases = dir.join("abdb");
    std::fs::create_dir_all(&databases).unwrap();
    let accounts = json!({
        "lwong": {"password": "tulip-88", "token": "q1w2e3r4t5y6", "email": "lwong@example.com"}
    });
    std::fs::write(databases.join("Account.json"), accounts.to_string()).unwrap();
    for name in ["Agenda.json", "Alarm.json"] {
        std::fs::write(databases.join(name), "{}").unwrap();
    }
    let dialogues = dir.join("ab");
    std::fs::create_dir_all(&dialogues).unwrap();
    let login = json!({"role": "API", "api_name": "GetUserToken", "param_dict": {"username": "lwong", "password": "tulip-88"},
        "result": {"api_name": "GetUserToken", "input": {"username": "lwong", "password": "tulip-88"}, "output": {"token": "q1w2e3r4t5y6"}, "exception": null}});
    let write = |name: &str, lines: &[Value]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(dialogues.join(name), text).unwrap();
    };
    write(
        "dentist.jsonl",
        &[
            json!({"role": "User", "text": "Log me in: lwong, password tulip-88."}),
            login.clone(),
            json!({"role": "AI", "text": "You are logged in."}),
        ],
    );
    write(
        "alarm.jsonl",
        &[
            json!({"role": "User", "text": "Log me in (lwong, tulip-88) and wake me at seven."}),
            login,
            json!({"role": "AI", "text": "Logged in. Setting the alarm."}),
        ],
    );
    std::fs::write(
        dir.join("ab.jsonl"),
        r#"{"file": "dentist.jsonl", "turn": 1, "output": "[GetUserToken(username='lwong', password='tulip-99')]", "reply": "Logged in <b>now</b>."}
{"file": "alarm.jsonl", "turn": 1, "output": "[AddAlarm(token='q1w2e3r4t5y6', time='07:00:00')]", "reply": "Logged in. Setting the alarm."}
"#,
    )
    .unwrap();
    let base = ["evaluate", "ab", "--databases", "abdb", "--level", "1"];
    let oracle = talkforge(
        dir,
        &[&base[..], &["--predictor", "oracle", "--out", "l1-oracle"]].concat(),
    );
    assert_eq!(
        oracle.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&oracle.stderr)
    );
    let replay = talkforge(
        dir,
        &[
            &base[..],
            &[
                "--predictor",
                "replay",
                "--predictions",
                "ab.jsonl",
                "--out",
                "l1-replay",
            ],
        ]
        .concat(),
    );
    assert_eq!(
        replay.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

#[test]
fn level_runs_side_by_side_in_markdown_json_and_html() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_level_runs(root);
    let md = talkforge(root, &["report", "l1-oracle", "l1-replay"]);
    assert_eq!(
        md.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.starts_with("# Runs at level 1 compared"), "{md}");
    assert!(md.contains("| 1 | oracle | `l1-oracle` |"), "{md}");
    assert!(md.contains("| 2 | replay:ab.jsonl | `l1-replay` |"), "{md}");
    assert!(
        md.contains("| 1 | 1 | 2 | 2 | 2 | 100.0 | 2 | 1.0000 |"),
        "{md}"
    );
    assert!(md.contains("| 2 | 1 | 2 | 2 | 0 | 0.0 | 2 |"), "{md}");
    // Shares of the wrong samples: one wrong API, one exception.
    assert!(
        md.contains(
            "| 2 | 2 | 0.0 (0/2) | 0.0 (0/2) | 50.0 (1/2) | 0.0 (0/2) | 50.0 (1/2) | 0.0 (0/2) |"
        ),
        "{md}"
    );
    assert!(md.contains("- run 1: 0 of 2 wrong\n"), "{md}");
    // Levels have no state check, and say so.
    assert!(
        md.contains("## State check\n\nNot applicable: each call sample is one call"),
        "{md}"
    );
    assert!(
        md.contains("| GetUserToken | 100.0 (2/2) | 0.0 (0/2) |"),
        "{md}"
    );
    assert!(
        md.contains("| `alarm.jsonl line 2 GetUserToken` | right | wrong (wrong API) |"),
        "{md}"
    );
    assert!(md.contains("| 2 | `alarm.jsonl line 2` | GetUserToken | wrong API | called AddAlarm where the gold call is GetUserToken |"), "{md}");

    let doc: Value = serde_json::from_slice(
        &talkforge(
            root,
            &["report", "l1-oracle", "l1-replay", "--format", "json"],
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(doc["kind"], "levels");
    assert_eq!(doc["level"], 1);
    assert_eq!(doc["same_dataset"], true);
    assert_eq!(doc["runs"][0]["accuracy"], 1.0);
    assert_eq!(doc["runs"][1]["accuracy"], 0.0);
    assert_eq!(doc["runs"][1]["cause_shares"]["wrong_api"], 0.5);
    assert_eq!(doc["runs"][1]["wrong"].as_array().unwrap().len(), 2);
    assert_eq!(
        doc["verdict_differs"],
        json!([
            {"file": "alarm.jsonl", "turn": 1, "occurrence": 0, "api_name": "GetUserToken", "correct": [true, false]},
            {"file": "dentist.jsonl", "turn": 1, "occurrence": 0, "api_name": "GetUserToken", "correct": [true, false]}
        ])
    );

    let out = talkforge(
        root,
        &[
            "report",
            "l1-oracle",
            "l1-replay",
            "--format",
            "html",
            "-o",
            "levels.html",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(root.join("levels.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg class=\"chart\"").count(), 4);
    assert!(html.contains("API-call accuracy by API"));
    assert!(html.contains("Error causes per run"));
    // Every wrong sample with its cause, reason and what the model wrote.
    assert!(
        html.contains("called AddAlarm where the gold call is GetUserToken"),
        "{html}"
    );
    assert!(
        html.contains("[AddAlarm(token=&#x27;q1w2e3r4t5y6&#x27;, time=&#x27;07:00:00&#x27;)]"),
        "{html}"
    );
    assert!(html.contains("<td>exception</td>"), "{html}");
    assert!(html.contains("password=&#x27;tulip-99&#x27;"), "{html}");
    assert!(!html.contains("<b>now</b>"));
    check_in_browser(&root.join("levels.html"), 5);
}

#[test]
fn runs_of_different_kinds_or_levels_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    two_level_runs(root);
    let mixed = talkforge(root, &["report", "run-b", "l1-oracle"]);
    assert_eq!(mixed.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&mixed.stderr);
    assert!(
        stderr.contains("run-b is a run of whole conversations and l1-oracle a run scored by samples at level 1"),
        "{stderr}"
    );
    assert!(mixed.stdout.is_empty());
    // The same dialogues at level 2.
    let l2 = talkforge(
        root,
        &[
            "evaluate",
            "ab",
            "--databases",
            "abdb",
            "--level",
            "2",
            "--predictor",
            "oracle",
            "--out",
            "l2-oracle",
        ],
    );
    assert_eq!(
        l2.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&l2.stderr)
    );
    // Levels 1 and 2 share a page, as the paper's Table 3 row.
    let levels = talkforge(root, &["report", "l1-oracle", "l2-oracle"]);
    assert_eq!(
        levels.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&levels.stderr)
    );
    let md = String::from_utf8_lossy(&levels.stdout);
    assert!(md.contains("## API-Bank's Table 3"), "{md}");
    assert!(md.contains("| oracle | 100.0 | 100.0 |"), "{md}");
    // A level-3 run (conversations with a user) is another kind.
    std::fs::create_dir_all(root.join("lv3")).unwrap();
    std::fs::write(
        root.join("lv3/summary.json"),
        r#"{"suite": "apibank", "level": 3, "scenarios": 0, "completed": 0, "mean_turns": null, "per_scenario": []}"#,
    )
    .unwrap();
    let lv3 = talkforge(root, &["report", "l1-oracle", "lv3"]);
    assert_eq!(lv3.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&lv3.stderr).contains("conversations with a user at level 3"));
    // A summary.json of no kind is named.
    std::fs::create_dir_all(root.join("odd")).unwrap();
    std::fs::write(
        root.join("odd/summary.json"),
        r#"{"suite": "apibank", "level": 3}"#,
    )
    .unwrap();
    let odd = talkforge(root, &["report", "l1-oracle", "odd"]);
    assert_eq!(odd.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&odd.stderr);
    assert!(
        stderr.contains("odd/summary.json") && stderr.contains("neither"),
        "{stderr}"
    );
    // Level runs over other dialogues are refused unless allowed.
    let one = talkforge(
        root,
        &[
            "evaluate",
            "ab/dentist.jsonl",
            "--databases",
            "abdb",
            "--level",
            "1",
            "--predictor",
            "oracle",
            "--out",
            "l1-one",
        ],
    );
    assert_eq!(one.status.code(), Some(0));
    let different = talkforge(root, &["report", "l1-oracle", "l1-one"]);
    assert_eq!(different.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&different.stderr).contains("evaluated different datasets"));
    let allowed = talkforge(
        root,
        &[
            "report",
            "l1-oracle",
            "l1-one",
            "--allow-different-datasets",
        ],
    );
    assert_eq!(allowed.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&allowed.stdout).contains("did not all evaluate the same dataset")
    );
}

/// A run that could not evaluate its conversations (their user is not in
/// its databases) is over the same files as a complete one: they compare,
/// and the report says what is missing; with nothing evaluated, every
/// rate is null, never 0.
#[test]
fn a_partial_run_compares_with_a_complete_one_and_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    write_databases(&root.join("db-partial"));
    std::fs::write(
        root.join("db-partial/Account.json"),
        json!({"bob": {"username": "bob", "email": "bob@example.com", "phone": "555-000-2222",
                       "name": "Bob", "password": "pw", "session_token": null}})
        .to_string(),
    )
    .unwrap();
    let partial = talkforge(
        root,
        &[
            "evaluate",
            "data",
            "--databases",
            "db-partial",
            "--predictor",
            "oracle",
            "--out",
            "run-none",
            "--format",
            "json",
        ],
    );
    assert_eq!(partial.status.code(), Some(2));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("run-none/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["conversations"], 0);
    for rate in [
        "success_rate",
        "precision",
        "recall",
        "incorrect_action_rate",
    ] {
        assert_eq!(summary[rate], Value::Null, "{rate}");
    }
    assert_eq!(summary["format_version"], 2);
    assert_eq!(summary["provenance"]["dataset"]["files"], 2);

    let md = talkforge(root, &["report", "run-b", "run-none"]);
    assert_eq!(
        md.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("Run 2 could not evaluate 2 conversations of 2"),
        "{md}"
    );
    // Its Table 1 row: no conversation, no rate.
    assert!(
        md.contains("| 2 | all | 0 | - | - | - | - | - | - |"),
        "{md}"
    );
    assert!(md.contains("## Not evaluated"), "{md}");
    assert!(md.contains("data/easy/add.json"), "{md}");
    assert!(
        !md.contains("did not all evaluate the same dataset"),
        "{md}"
    );
    let doc: Value = serde_json::from_slice(
        &talkforge(root, &["report", "run-b", "run-none", "--format", "json"]).stdout,
    )
    .unwrap();
    assert_eq!(doc["runs"][0]["evaluated"], 2);
    assert_eq!(doc["runs"][1]["evaluated"], 0);
    assert_eq!(doc["runs"][1]["not_evaluated"], 2);
    assert_eq!(doc["runs"][1]["rates"]["success_rate"], Value::Null);
}

/// A summary from a newer talkforge is refused by name; one from before
/// `format_version` that lacks what this one needs says it is older.
#[test]
fn summaries_of_other_formats_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    two_runs(root);
    let path = root.join("run-b/summary.json");
    let mut summary: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    summary["format_version"] = json!(99);
    std::fs::create_dir_all(root.join("newer")).unwrap();
    std::fs::write(root.join("newer/summary.json"), summary.to_string()).unwrap();
    let newer = talkforge(root, &["report", "run-b", "newer"]);
    assert_eq!(newer.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&newer.stderr);
    assert!(
        stderr.contains("newer/summary.json") && stderr.contains("written by a newer talkforge"),
        "{stderr}"
    );
    let object = summary.as_object_mut().unwrap();
    object.remove("format_version");
    object.remove("error_types");
    std::fs::create_dir_all(root.join("older")).unwrap();
    std::fs::write(root.join("older/summary.json"), summary.to_string()).unwrap();
    let older = talkforge(root, &["report", "run-b", "older"]);
    assert_eq!(older.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&older.stderr);
    assert!(
        stderr.contains("older/summary.json") && stderr.contains("older summary format"),
        "{stderr}"
    );
}

#[test]
fn markdown_shows_html_in_the_data_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_databases(&root.join("db"));
    let subset = "<img src=x onerror=alert(1)>";
    let find = conversation("find", "My alarms?", &[("FindAlarms", json!({}))], "One.");
    write_conversation(
        &root.join("data").join(subset).join("a|`<b>`.json"),
        &find,
        &root.join("db"),
    );
    std::fs::write(
        root.join("p.jsonl"),
        r#"{"conversation_id": "find", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "DeleteAlarm", "parameters": {"alarm_id": "aaaa-bbbb"}}}, {"role": "assistant", "text": "None."}]}
"#,
    )
    .unwrap();
    let base = ["evaluate", "data", "--databases", "db", "--format", "json"];
    let replay = ["--predictor", "replay", "--predictions", "p.jsonl"];
    let a = talkforge(root, &[&base[..], &replay, &["--out", "run-a"]].concat());
    assert_eq!(
        a.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let b = talkforge(
        root,
        &[&base[..], &["--predictor", "oracle", "--out", "run-b"]].concat(),
    );
    assert_eq!(b.status.code(), Some(0));
    let md = talkforge(root, &["report", "run-a", "run-b", "--format", "markdown"]);
    assert_eq!(md.status.code(), Some(0));
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(!outside_code(&md).contains('<'), "{md}");
    assert!(md.contains("&lt;img src=x onerror=alert(1)&gt;"), "{md}");
    // A file name in a code span that a backtick cannot close early, and
    // a `|` that does not split its table cell.
    assert!(md.contains("| ``a\\|`<b>`.json`` | fail | pass |"), "{md}");
    for report in ["run-a/report.md", "run-b/report.md"] {
        let text = std::fs::read_to_string(root.join(report)).unwrap();
        assert!(!outside_code(&text).contains('<'), "{report}: {text}");
    }
}

/// Markdown without its code spans (whose text is shown as written).
fn outside_code(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let fence = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + fence..];
        let closing = "`".repeat(fence);
        // The closing fence: the same run of backticks, not part of a longer one.
        let mut search = 0;
        let end = loop {
            match after[search..].find(&closing) {
                Some(at) => {
                    let at = search + at;
                    let longer = after[at + fence..].starts_with('`');
                    if !longer {
                        break Some(at);
                    }
                    search = at
                        + fence
                        + after[at + fence..]
                            .chars()
                            .take_while(|&c| c == '`')
                            .count();
                }
                None => break None,
            }
        };
        match end {
            Some(at) => rest = &after[at + fence..],
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}
