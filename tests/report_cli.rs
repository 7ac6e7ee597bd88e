//! `talkforge report RUN_DIR...`: evaluation folders side by side, as
//! Markdown, JSON and one self-contained HTML page (checked in a headless
//! Chromium when one is installed).

mod eval_support;

use std::path::Path;

use assert_cmd::Command;
use eval_support::{conversation, write_conversation, write_databases};
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
    assert!(md.contains("1. `run-a`: replay:p.jsonl"), "{md}");
    assert!(md.contains("2. `run-b`: oracle"), "{md}");
    assert!(
        md.contains("| 1 | hard | 1 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 100.0 |"),
        "{md}"
    );
    assert!(md.contains("| 2 | **all** | 2 | 100.0 |"), "{md}");
    assert!(md.contains("| `find.json` | fail | pass |"), "{md}");

    let json_out = talkforge(root, &["report", "run-a", "run-b", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(doc["same_dataset"], true);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 2);
    assert_eq!(doc["runs"][0]["rates"]["success_rate"], 0.5);
    assert_eq!(doc["runs"][1]["rates"]["success_rate"], 1.0);
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

/// A headless Chromium, when one is installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            std::process::Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
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
        html.contains("<a href=\"#r1-c1\"><code>data/hard/find.json</code></a>"),
        "{html}"
    );
    assert!(html.contains("<article class=dialogue id=\"r1-c1\">"));
    assert!(html.contains("<a href=\"#r1-c1-t1\">turn 1</a>"));
    assert!(html.contains("FindAlarms({&quot;session_token&quot;:"));
    assert!(html.contains("DeleteAlarm({&quot;alarm_id&quot;:&quot;aaaa-bbbb&quot;"));
    assert!(html.contains("<span class=bad>bad action</span>"));
    // Text from the dialogue is escaped.
    assert!(!html.contains("<b>now</b>"));

    let Some(browser) = chromium() else {
        eprintln!("skipped the browser check: no chromium installed (apt-get install chromium)");
        return;
    };
    let page = root.join("report.html");
    let run = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&run.stdout);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{log}");
    assert!(
        dom.contains("data-check=\"ok\""),
        "the page's own check failed: {}\n{log}",
        dom.split("data-check=")
            .nth(1)
            .unwrap_or("(no verdict)")
            .lines()
            .next()
            .unwrap_or_default()
    );
    let bars: usize = dom
        .split("data-bars=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // Success per subset (3 + 2 subsets of runs), matched gold calls, bad
    // actions and error types: some bars in every chart but the oracle's zeros.
    assert!(bars >= 8, "{bars} bars drawn");
    let console_errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(console_errors.is_empty(), "{console_errors:#?}");
}
