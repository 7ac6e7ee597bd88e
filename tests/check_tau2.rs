//! `talkforge check` over a repository whose dataset is a tau2-style
//! domain folder (tasks.json with db.json beside it), in a temp dir: the
//! databases beside the tasks load, lint runs the task rules, verify is
//! the family's own replay, and a defective gold turns it red.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn corpus(rest: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lint-corpus")
        .join(rest)
}

/// A repository holding one hand-made retail domain: `tasks` as its tasks
/// file, with the corpus' small db.json beside it.
fn domain_repo(tasks: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let domain = tmp.path().join("conversations/retail");
    fs::create_dir_all(&domain).unwrap();
    fs::copy(corpus(tasks), domain.join("tasks.json")).unwrap();
    fs::copy(corpus("clean/tau2-retail/db.json"), domain.join("db.json")).unwrap();
    tmp
}

fn check_json(root: &Path) -> (i32, Value) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--format", "json", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), report)
}

fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}: {report:#}"))
}

#[test]
fn a_repository_holding_a_clean_tau2_domain_passes() {
    let tmp = domain_repo("clean/tau2-retail/tasks.json");
    let (code, report) = check_json(tmp.path());
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["outcome"], "passed");
    for name in ["databases", "lint", "verify"] {
        assert_eq!(step(&report, name)["outcome"], "passed", "{report:#}");
    }
    assert!(step(&report, "verify")["summary"]
        .as_str()
        .unwrap()
        .starts_with("6 gold actions in 2 tasks"));
    assert_eq!(report["stats"]["conversations"], 2);
}

#[test]
fn a_write_that_raises_fails_lint_and_verify_naming_the_task() {
    let tmp = domain_repo("broken/db-unchanged-by-raise/cancel-a-delivered-order/tasks.json");
    let (code, report) = check_json(tmp.path());
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(step(&report, "lint")["outcome"], "failed");
    let verify = step(&report, "verify");
    assert_eq!(verify["outcome"], "failed");
    let problems = verify["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{verify:#}");
    assert!(problems[0]
        .as_str()
        .unwrap()
        .contains("task 0 action 1 cancel_pending_order: DEFECT"));
    let findings = report["lint"]["findings"].as_array().unwrap();
    assert_eq!(findings[0]["rule"], "db-unchanged-by-raise");
    assert_eq!(findings[0]["task_id"], "0");
}

#[test]
fn a_domain_without_its_database_breaks_the_check() {
    let tmp = domain_repo("clean/tau2-retail/tasks.json");
    fs::remove_file(tmp.path().join("conversations/retail/db.json")).unwrap();
    let (code, report) = check_json(tmp.path());
    assert_eq!(code, 2, "{report:#}");
    let databases = step(&report, "databases");
    assert_eq!(databases["outcome"], "broken");
    assert!(databases["problems"][0]
        .as_str()
        .unwrap()
        .contains("holds no db.json"));
}

/// A repository of two families: the broken retail domain (task 0's
/// action 1 raises) and a ToolTalk conversation whose recorded result is
/// wrong, with ToolTalk's databases.
fn two_family_repo() -> tempfile::TempDir {
    let tmp = domain_repo("broken/db-unchanged-by-raise/cancel-a-delivered-order/tasks.json");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let easy = tmp.path().join("conversations/easy");
    fs::create_dir_all(&easy).unwrap();
    let mut conversation: Value = serde_json::from_str(
        &fs::read_to_string(repo.join("conversations/easy/AddAlarm-easy.json")).unwrap(),
    )
    .unwrap();
    conversation["conversation"][3]["apis"][0]["response"]["alarm_id"] = "0000-0000".into();
    fs::write(
        easy.join("AddAlarm-easy.json"),
        serde_json::to_string_pretty(&conversation).unwrap(),
    )
    .unwrap();
    let databases = tmp.path().join("databases");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo.join("databases")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn erratum(file: &str, turn: usize, call: usize, api_name: &str) -> Value {
    serde_json::json!({"file": file, "turn": turn, "call": call, "api_name": api_name,
                       "reason": "known", "since": "2026-11-28"})
}

fn check_with_errata(root: &Path, errata: &[Value]) -> (i32, Value) {
    let file = root.join("errata.json");
    fs::write(&file, serde_json::json!({ "errata": errata }).to_string()).unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--format", "json", "--errata"])
        .arg(&file)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), report)
}

#[test]
fn errata_of_both_families_are_matched_by_their_own_part_and_none_reported_stale() {
    let tmp = two_family_repo();
    // Without errata both defects fail verify.
    let (code, report) = check_with_errata(tmp.path(), &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        step(&report, "verify")["problems"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let known = [
        erratum("retail/tasks.json", 0, 1, "cancel_pending_order"),
        erratum("easy/AddAlarm-easy.json", 3, 0, "AddAlarm"),
    ];
    let (_, report) = check_with_errata(tmp.path(), &known);
    let verify = step(&report, "verify");
    assert_eq!(verify["outcome"], "passed", "{verify:#}");
    assert_eq!(verify["problems"], serde_json::json!([]), "{verify:#}");
    // The lint finding of the raising write still fails the check.
    assert_eq!(step(&report, "lint")["outcome"], "failed");
}

#[test]
fn a_stale_tau2_erratum_is_reported_once_and_one_naming_no_file_once() {
    let tmp = two_family_repo();
    let errata = [
        erratum("retail/tasks.json", 0, 1, "cancel_pending_order"),
        erratum("easy/AddAlarm-easy.json", 3, 0, "AddAlarm"),
        // Action 0 runs: stale, judged by the tau2 part.
        erratum("retail/tasks.json", 0, 0, "find_user_id_by_name_zip"),
        // No such file in the repository: stale, judged by the whole check.
        erratum("airline/tasks.json", 0, 0, "book_reservation"),
    ];
    let (code, report) = check_with_errata(tmp.path(), &errata);
    assert_eq!(code, 1, "{report:#}");
    let verify = step(&report, "verify");
    assert_eq!(verify["outcome"], "failed");
    let problems: Vec<&str> = verify["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.contains("stale erratum"))
            .count(),
        1,
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("action 0")),
        "{problems:#?}"
    );
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.contains("airline/tasks.json") && p.contains("names no dialogue"))
            .count(),
        1,
        "{problems:#?}"
    );
}
