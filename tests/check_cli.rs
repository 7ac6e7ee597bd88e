//! `talkforge check`: the repository's own dataset passes, and each kind of
//! problem turns the check red with the file named.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(root: &Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("talkforge")
        .unwrap()
        .arg("check")
        .arg("--root")
        .arg(root)
        .assert()
}

/// A small repository: the project's databases and two easy conversations.
fn small_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let easy = tmp.path().join("conversations/easy");
    fs::create_dir_all(&easy).unwrap();
    for name in ["AddAlarm-easy.json", "QueryCalendar-easy.json"] {
        fs::copy(
            repo().join("conversations/easy").join(name),
            easy.join(name),
        )
        .unwrap();
    }
    let databases = tmp.path().join("databases");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo().join("databases")).unwrap() {
        let path = entry.unwrap().path();
        // ToolTalk's files; other suites' databases are in subfolders.
        if path.is_file() {
            fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    tmp
}

fn edit(path: &Path, change: impl FnOnce(&mut Value)) {
    let mut value: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    change(&mut value);
    fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

fn first_call(value: &mut Value) -> &mut Value {
    value["conversation"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find_map(|t| {
            t.get_mut("apis")
                .filter(|a| !a.as_array().unwrap().is_empty())
        })
        .map(|apis| &mut apis[0])
        .unwrap()
}

#[test]
fn the_repository_dataset_passes() {
    check(&repo())
        .success()
        .stdout(predicate::str::contains("check passed"))
        .stdout(predicate::str::contains("55 of 81 tools used"));
}

#[test]
fn the_declared_card_is_not_passed_over_but_other_stray_files_are() {
    // The repository's card (talkforge.toml's `card`) sits in conversations/.
    check(&repo())
        .success()
        .stderr(predicate::str::contains("passed over").not());
    // Another repository declares no card: its README.md among the
    // dialogues is named, as any stray file is.
    let tmp = small_repo();
    fs::write(tmp.path().join("conversations/README.md"), "# notes\n").unwrap();
    fs::write(tmp.path().join("conversations/easy/todo.md"), "later\n").unwrap();
    check(tmp.path())
        .success()
        .stderr(predicate::str::contains("passed over").count(2))
        .stderr(predicate::str::contains(
            "README.md: its name ends in none of",
        ))
        .stderr(predicate::str::contains(
            "todo.md: its name ends in none of",
        ));
    // Declared as its card (the tables written by `card --write`), the
    // same file is no longer named.
    fs::write(
        tmp.path().join("conversations/README.md"),
        "# Card\n\n<!-- talkforge card: subsets -->\n<!-- talkforge card: end -->\n\n\
         <!-- talkforge card: coverage -->\n<!-- talkforge card: end -->\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("talkforge.toml"),
        "[dataset]\ncard = \"conversations/README.md\"\n",
    )
    .unwrap();
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["card", "--write", "--root"])
        .arg(tmp.path())
        .assert()
        .success();
    check(tmp.path())
        .success()
        .stderr(predicate::str::contains("passed over").count(1))
        .stderr(predicate::str::contains("todo.md"));
}

#[test]
fn a_small_clean_repository_passes_and_reports_json() {
    let tmp = small_repo();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--format", "json", "--root"])
        .arg(tmp.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["outcome"], "passed");
    let steps: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["databases", "lint", "verify"]);
    assert_eq!(report["stats"]["conversations"], 2);
}

#[test]
fn a_recorded_result_that_no_longer_reproduces_fails_verify() {
    let tmp = small_repo();
    let file = tmp.path().join("conversations/easy/AddAlarm-easy.json");
    edit(&file, |v| {
        first_call(v)["response"] = serde_json::json!({"alarm_id": "0000-0000"})
    });
    check(tmp.path())
        .code(1)
        .stdout(predicate::str::contains("verify     FAILED"))
        .stdout(predicate::str::contains("AddAlarm-easy.json turn"))
        .stdout(predicate::str::contains("check failed"));
}

/// The turn and call of the first gold call, as verify numbers them.
fn first_call_place(value: &Value) -> (usize, usize) {
    let turn = value["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .position(|t| {
            t.get("apis")
                .is_some_and(|a| !a.as_array().unwrap().is_empty())
        })
        .unwrap();
    (turn, 0)
}

#[test]
fn a_difference_an_erratum_records_passes_and_a_stale_erratum_fails() {
    let tmp = small_repo();
    let file = tmp.path().join("conversations/easy/AddAlarm-easy.json");
    let mut place = (0, 0);
    // The erratum in the file itself.
    edit(&file, |v| {
        place = first_call_place(v);
        first_call(v)["response"] = serde_json::json!({"alarm_id": "0000-0000"});
        v["errata"] = serde_json::json!([{
            "turn": place.0, "call": place.1, "api_name": "AddAlarm",
            "reason": "the id was typed by hand", "since": "2026-11-26"
        }]);
    });
    check(tmp.path())
        .success()
        .stdout(predicate::str::contains("1 differs as known errata record"));

    // Fixed, the erratum no longer applies: check fails and says so.
    edit(&file, |v| {
        let fixed =
            fs::read_to_string(repo().join("conversations/easy/AddAlarm-easy.json")).unwrap();
        let fixed: Value = serde_json::from_str(&fixed).unwrap();
        first_call(v)["response"] = first_call(&mut fixed.clone())["response"].clone();
    });
    check(tmp.path()).code(1).stdout(predicate::str::contains(
        "no longer applies: the call reproduces now",
    ));

    // An errata file entry that names no dialogue fails too.
    edit(&file, |v| {
        v.as_object_mut().unwrap().remove("errata");
    });
    let errata = tmp.path().join("errata.json");
    fs::write(
        &errata,
        r#"{"errata": [{"file": "easy/Gone.json", "turn": 1, "call": 0, "api_name": "AddAlarm", "reason": "r", "since": "s"}]}"#,
    )
    .unwrap();
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--root"])
        .arg(tmp.path())
        .arg("--errata")
        .arg(&errata)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "easy/Gone.json turn 1 call 0 (AddAlarm): the erratum in",
        ))
        .stdout(predicate::str::contains("names no dialogue"));
}

#[test]
fn a_hallucinated_tool_fails_lint() {
    let tmp = small_repo();
    let file = tmp.path().join("conversations/easy/AddAlarm-easy.json");
    edit(&file, |v| {
        first_call(v)["request"]["api_name"] = "SnoozeAlarm".into()
    });
    check(tmp.path())
        .code(1)
        .stdout(predicate::str::contains("lint       FAILED"))
        .stdout(predicate::str::contains("[unknown-tool]"));
}

/// Issue 22: a last-turn gold call without the session token used to pass
/// lint, verify and check (the world supplies the token when it runs), while
/// the oracle then scored recall 2/3 on the file. Now lint's
/// `session-token` fails the check, and `fill` writes the token back, in
/// the place and style the file had, after which the check passes and the
/// oracle scores it perfectly.
#[test]
fn a_gold_call_without_its_session_token_fails_the_check_until_filled() {
    let tmp = small_repo();
    let name = "Calendar-Email-Messages-SearchInbox-0.json";
    let original = fs::read_to_string(repo().join("conversations/hard").join(name)).unwrap();
    let file = tmp.path().join("conversations/easy").join(name);
    // The last call's token line goes; everything else stays as written.
    let token_line = "                            \"session_token\": \"f15e138b-33a4-1589\",\n";
    let at = original.rfind(token_line).unwrap();
    let call = original[..at].rsplit("\"api_name\"").next().unwrap();
    assert!(call.contains("\"SendMessage\""), "{call}");
    let broken = format!("{}{}", &original[..at], &original[at + token_line.len()..]);
    fs::write(&file, broken).unwrap();
    check(tmp.path())
        .code(1)
        .stdout(predicate::str::contains("lint       FAILED"))
        .stdout(predicate::str::contains("[session-token]"))
        .stdout(predicate::str::contains("verify     ok"));

    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["fill", "--check"])
        .arg(&file)
        .arg("--databases")
        .arg(tmp.path().join("databases"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "(SendMessage; request session_token)",
        ));
    Command::cargo_bin("talkforge")
        .unwrap()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(tmp.path().join("databases"))
        .assert()
        .success();
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
    check(tmp.path()).success();
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["evaluate", "--predictor", "oracle", "--format", "json"])
        .arg(&file)
        .arg("--databases")
        .arg(tmp.path().join("databases"))
        .arg("--out")
        .arg(tmp.path().join("eval"))
        .assert()
        .success()
        .stdout(predicate::str::contains("\"recall\": 1.0"));
}

#[test]
fn malformed_json_breaks_the_check_but_the_summary_still_names_it() {
    let tmp = small_repo();
    let file = tmp
        .path()
        .join("conversations/easy/QueryCalendar-easy.json");
    fs::write(&file, "{\n  \"name\": \"x\",\n  oops\n}\n").unwrap();
    check(tmp.path())
        .code(2)
        .stdout(predicate::str::contains("QueryCalendar-easy.json:3:3"))
        .stdout(predicate::str::contains("BROKEN"))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn missing_databases_break_the_check() {
    let tmp = small_repo();
    fs::remove_dir_all(tmp.path().join("databases")).unwrap();
    check(tmp.path())
        .code(2)
        .stdout(predicate::str::contains("databases  BROKEN"));
}

#[test]
fn outside_a_repository_the_error_says_where_to_run_it() {
    let tmp = tempfile::tempdir().unwrap();
    check(tmp.path())
        .code(2)
        .stderr(predicate::str::contains("no conversations folder"));
}

#[cfg(unix)]
#[test]
fn a_card_outside_the_repository_is_refused_naming_talkforge_toml() {
    let tmp = small_repo();
    let root = tmp.path();
    let outside = tempfile::tempdir().unwrap();
    let card =
        "# Card\n\n<!-- talkforge:card:conversations -->\n<!-- /talkforge:card:conversations -->\n";
    fs::write(outside.path().join("card.md"), card).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("docs")).unwrap();
    let outside_card = outside.path().join("card.md").display().to_string();
    for path in ["../card.md", "docs/card.md", outside_card.as_str()] {
        fs::write(
            root.join("talkforge.toml"),
            format!("[dataset]\ncard = {path:?}\n"),
        )
        .unwrap();
        for command in [vec!["card", "--write"], vec!["check"]] {
            let output = Command::cargo_bin("talkforge")
                .unwrap()
                .args(&command)
                .arg("--root")
                .arg(root)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{path} {command:?}: {stderr}"
            );
            assert!(
                stderr.contains("talkforge.toml") && stderr.contains("leads out of the repository"),
                "{path} {command:?}: {stderr}"
            );
        }
        assert_eq!(
            fs::read_to_string(outside.path().join("card.md")).unwrap(),
            card
        );
    }
}
