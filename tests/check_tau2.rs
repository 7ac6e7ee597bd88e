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
