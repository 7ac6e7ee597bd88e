//! lint over tau2 tasks files: each task rule on its hand-made fixture
//! (a snapshot of what a maintainer reads), the places and keys of its
//! findings, and upstream retail and airline: the tracker's known defects
//! found, the lookups the tasks script left alone.

use std::collections::BTreeSet;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const BROKEN: &str = "tests/lint-corpus/broken";

fn lint(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The fixture folders of a rule that hold a tasks file.
fn task_fixtures(rule: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(BROKEN)
        .join(rule);
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("tasks.json").is_file())
        .map(|p| {
            format!(
                "{BROKEN}/{rule}/{}",
                p.file_name().unwrap().to_string_lossy()
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn each_task_rule_reports_its_fixture_as_a_maintainer_reads_it() {
    for (rule, code) in [
        ("unknown-id", 1),
        ("unreachable-argument", 1),
        ("duplicate-task", 1),
        ("shared-gold", 0),
        ("write-without-effect", 0),
        ("db-unchanged-by-raise", 1),
        ("communicate-not-in-output", 0),
    ] {
        let fixtures = task_fixtures(rule);
        assert!(!fixtures.is_empty(), "{rule} has no tasks fixture");
        let args: Vec<&str> = fixtures.iter().map(String::as_str).collect();
        let (got, stdout) = lint(&args);
        assert_eq!(got, code, "{rule}: {stdout}");
        insta::assert_snapshot!(format!("lint_tau2_{rule}"), stdout);
    }
}

#[test]
fn task_findings_carry_the_task_id_and_the_action_index() {
    let fixture = format!("{BROKEN}/unknown-id/product-nobody-names/tasks.json");
    let (code, stdout) = lint(&[&fixture, "--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let [finding] = report["findings"].as_array().unwrap().as_slice() else {
        panic!("{report:#}")
    };
    assert_eq!(finding["rule"], "unknown-id");
    assert_eq!(finding["task_id"], "0");
    assert_eq!(finding["turn"], 0);
    assert_eq!(finding["call"], 1);
    assert_eq!(finding["argument"], "product_id");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&fixture)).unwrap();
    let line = text
        .lines()
        .nth(finding["line"].as_u64().unwrap() as usize - 1)
        .unwrap();
    let at: String = line
        .chars()
        .skip(finding["column"].as_u64().unwrap() as usize - 1)
        .collect();
    assert!(at.starts_with("\"5999999999\""), "{at}");
}

#[test]
fn a_tasks_file_without_its_database_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(BROKEN)
            .join("unknown-id/product-nobody-names/tasks.json"),
        &tasks,
    )
    .unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("lint")
        .arg(&tasks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("no db.json"), "{stderr}");
    // Given with --databases, the domain's folder is used.
    let domain = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(BROKEN)
        .join("unknown-id/product-nobody-names");
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("lint")
        .arg(&tasks)
        .arg("--databases")
        .arg(&domain)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

/// (task id, action index) of every finding of `rule`.
fn places(findings: &[Value], rule: &str) -> BTreeSet<(String, u64)> {
    findings
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            (
                f["task_id"].as_str().unwrap().to_string(),
                f["call"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect()
}

#[test]
fn upstream_defects_are_found_and_scripted_lookups_left_alone() {
    let Some(dir) = talkforge::test_support::upstream("tau2") else {
        return;
    };
    let retail = dir.join("retail/tasks.json");
    let (code, stdout) = lint(&[retail.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    // #89: product 6086499569 in tasks 2-4, named by no one.
    let unknown: BTreeSet<(String, u64)> =
        ["2", "3", "4"].iter().map(|t| (t.to_string(), 1)).collect();
    assert_eq!(places(findings, "unknown-id"), unknown);
    assert!(findings
        .iter()
        .filter(|f| f["rule"] == "unknown-id")
        .all(|f| f["message"].as_str().unwrap().contains("6086499569")));
    // Task 105's only write raises: its gold leaves the database as it was.
    let unchanged: BTreeSet<(String, u64)> = [("105".to_string(), 0)].into();
    assert_eq!(places(findings, "db-unchanged-by-raise"), unchanged);
    // The 13 raises the tasks script (the user gives a wrong id first)
    // draw no finding at their action.
    let verified = talkforge::suites::tau2::report::verify_files(
        std::slice::from_ref(&retail),
        None,
        &talkforge::errata::Errata::none(),
    )
    .unwrap();
    let scripted: Vec<(String, u64)> = verified
        .raised
        .iter()
        .filter(|r| r.raised.scripted)
        .map(|r| (r.raised.task_id.clone(), r.raised.action as u64))
        .collect();
    assert_eq!(scripted.len(), 13);
    for (task, action) in &scripted {
        let at: Vec<&Value> = findings
            .iter()
            .filter(|f| f["task_id"] == task.as_str() && f["call"] == *action)
            .collect();
        assert!(at.is_empty(), "task {task} action {action}: {at:#?}");
    }
    // Few false alarms: every value is checked, almost all are explained.
    for domain in ["airline", "retail"] {
        let file = dir.join(domain).join("tasks.json");
        let text = std::fs::read_to_string(&file).unwrap();
        let facts = talkforge::suites::tau2::lint::read(&file, &text, None).unwrap();
        let actions = facts.tasks.iter().flat_map(|t| &t.actions);
        let checked: usize = actions.clone().map(|a| a.checked).sum();
        let unexplained: usize = actions.map(|a| a.unexplained.len()).sum();
        for task in &facts.tasks {
            for (i, action) in task.actions.iter().enumerate() {
                for value in &action.unexplained {
                    eprintln!(
                        "{domain} task {} action {i} {} {} = {:?}",
                        task.id, action.name, value.argument, value.value
                    );
                }
            }
        }
        eprintln!("{domain}: {checked} argument values checked, {unexplained} unexplained");
        assert!(checked > 400, "{domain}: {checked}");
        assert!(
            unexplained * 50 < checked,
            "{domain}: {unexplained} of {checked}"
        );
    }
}

#[test]
fn the_catalog_rules_check_gold_actions_and_name_the_task() {
    for (fixture, rule) in [
        ("unknown-tool/tau2-misspelt-lookup", "unknown-tool"),
        (
            "missing-argument/tau2-lookup-without-order",
            "missing-argument",
        ),
    ] {
        let (code, stdout) = lint(&[&format!("{BROKEN}/{fixture}"), "--format", "json"]);
        assert_eq!(code, 1, "{stdout}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let [finding] = report["findings"].as_array().unwrap().as_slice() else {
            panic!("{report:#}")
        };
        assert_eq!(finding["rule"], rule);
        assert_eq!(
            (&finding["task_id"], &finding["turn"], &finding["call"]),
            (&Value::from("0"), &Value::from(0), &Value::from(1))
        );
    }
}
