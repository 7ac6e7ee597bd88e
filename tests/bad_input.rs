//! Bad input never panics: every command that reads conversations answers a
//! malformed, binary, mistyped, incomplete, absurdly deep or huge file with
//! exit 2 (or 1 where it is a finding) and a message naming the file, and
//! line and column where there is one; fill writes nothing.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn good_conversation() -> Value {
    json!({
        "name": "ok", "conversation_id": "c-ok", "suites_used": [], "apis_used": [],
        "user": {}, "metadata": {"location": "Lisbon", "timestamp": "2024-05-13 09:00:00"},
        "conversation": [
            {"index": 0, "role": "user", "text": "Hello"},
            {"index": 1, "role": "assistant", "text": "Hi, how can I help?"}
        ]
    })
}

/// The bad files, each with what its message must contain.
fn bad_files(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut files = Vec::new();
    let mut add = |name: &str, contents: Vec<u8>, expect: &'static str| {
        let path = dir.join(name);
        fs::write(&path, contents).unwrap();
        files.push((path, expect));
    };
    add(
        "truncated.json",
        b"{\n    \"name\": \"x\",\n    \"conversation\": [\n".to_vec(),
        "truncated.json:4:1",
    );
    add(
        "binary.json",
        vec![0x7f, b'E', b'L', b'F', 0, 1, 2, 0xff],
        "binary.json: binary file",
    );
    add(
        "not-utf8.json",
        b"{\"name\": \"caf\xe9\"}".to_vec(),
        "not-utf8.json:1:",
    );
    let mut wrong_type = good_conversation();
    wrong_type["conversation"] = json!(5);
    add(
        "wrong-type.json",
        serde_json::to_vec_pretty(&wrong_type).unwrap(),
        "wrong-type.json:",
    );
    let mut missing = good_conversation();
    missing.as_object_mut().unwrap().remove("conversation_id");
    add(
        "missing-field.json",
        serde_json::to_vec_pretty(&missing).unwrap(),
        "the field `conversation_id` is missing",
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    add("deep.json", deep.into_bytes(), "deep.json:1:");
    files
}

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

fn assert_clean_failure(assert: assert_cmd::assert::Assert, code: i32, expect: &str) {
    assert
        .code(code)
        .stderr(predicate::str::contains(expect))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn verify_stats_and_fill_name_each_bad_file_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    for (path, expect) in bad_files(tmp.path()) {
        let before = fs::read(&path).unwrap();
        for command in ["verify", "fill", "stats"] {
            let mut cmd = talkforge();
            cmd.arg(command).arg(&path);
            if command != "stats" {
                cmd.arg("--databases").arg(repo().join("databases"));
            }
            assert_clean_failure(cmd.assert(), 2, expect);
        }
        assert_eq!(fs::read(&path).unwrap(), before, "{}", path.display());
    }
}

#[test]
fn lint_reports_the_readable_files_and_names_the_unreadable_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = bad_files(tmp.path());
    // A readable file with a finding is still linted beside the bad ones.
    let mut finding = good_conversation();
    finding["conversation"][0]["role"] = json!("assistant");
    fs::write(
        tmp.path().join("readable.json"),
        serde_json::to_vec_pretty(&finding).unwrap(),
    )
    .unwrap();
    let output = talkforge()
        .args(["lint", "--format", "json"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("panicked").not())
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (path, _) in &bad {
        let name = path.file_name().unwrap().to_string_lossy();
        let readable_but_wrong = name == "wrong-type.json" || name == "missing-field.json";
        if !readable_but_wrong {
            assert!(stderr.contains(&*name), "{name} not named in: {stderr}");
        }
    }
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rules_by_file: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            let name = Path::new(file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, f["rule"].as_str().unwrap().to_string())
        })
        .collect();
    // Shape problems in parseable files are schema findings with a place.
    assert!(rules_by_file.contains(&("wrong-type.json".into(), "schema".into())));
    assert!(rules_by_file.contains(&("missing-field.json".into(), "schema".into())));
    assert!(rules_by_file.contains(&("readable.json".into(), "turn-order".into())));
}

#[test]
fn a_bad_timestamp_is_named_with_its_field() {
    let tmp = tempfile::tempdir().unwrap();
    let mut conversation = good_conversation();
    conversation["metadata"]["timestamp"] = json!("next Tuesday");
    let path = tmp.path().join("when.json");
    fs::write(&path, serde_json::to_vec_pretty(&conversation).unwrap()).unwrap();
    assert_clean_failure(
        talkforge()
            .arg("verify")
            .arg(&path)
            .arg("--databases")
            .arg(repo().join("databases"))
            .assert(),
        2,
        "when.json: metadata.timestamp: time data 'next Tuesday' does not match format",
    );
    talkforge()
        .args(["lint", "--format", "json"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("/metadata/timestamp"));
}

#[test]
fn an_unknown_tool_is_a_difference_for_verify_and_a_finding_for_lint() {
    let tmp = tempfile::tempdir().unwrap();
    let mut conversation = good_conversation();
    conversation["conversation"][1]["apis"] = json!([{
        "request": {"api_name": "TeleportUser", "parameters": {}},
        "response": {"status": "success"}, "exception": null
    }]);
    let path = tmp.path().join("teleport.json");
    fs::write(&path, serde_json::to_vec_pretty(&conversation).unwrap()).unwrap();
    talkforge()
        .arg("verify")
        .arg(&path)
        .arg("--databases")
        .arg(repo().join("databases"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "teleport.json turn 1 call 0 (TeleportUser) differs",
        ))
        .stderr(predicate::str::contains("panicked").not());
    talkforge()
        .arg("lint")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("unknown-tool"));
}

#[test]
fn a_huge_file_is_refused_by_size_before_it_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("huge.json");
    let file = fs::File::create(&path).unwrap();
    // Sparse: no disk is used, but the size is over the limit.
    file.set_len(talkforge::formats::read::MAX_FILE_BYTES + 1)
        .unwrap();
    assert_clean_failure(
        talkforge().arg("stats").arg(&path).assert(),
        2,
        "huge.json: file is",
    );
}

#[test]
fn a_large_but_allowed_text_is_handled() {
    let tmp = tempfile::tempdir().unwrap();
    let mut conversation = good_conversation();
    conversation["conversation"][0]["text"] = json!("word ".repeat(4 * 1024 * 1024));
    let path = tmp.path().join("long.json");
    fs::write(&path, serde_json::to_vec(&conversation).unwrap()).unwrap();
    talkforge()
        .args(["stats", "--format", "json"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"conversations\": 1"));
}

#[test]
fn a_malformed_database_is_named_by_every_command_that_loads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let databases = tmp.path().join("databases");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo().join("databases")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    fs::write(databases.join("Email.json"), "{\n  \"ann\": {,\n}").unwrap();
    let conversation = repo().join("conversations/easy/SearchInbox-easy.json");
    for command in ["verify", "fill", "evaluate"] {
        let mut cmd = talkforge();
        cmd.arg(command)
            .arg(&conversation)
            .arg("--databases")
            .arg(&databases);
        if command == "evaluate" {
            cmd.args(["--predictor", "oracle", "--out"])
                .arg(tmp.path().join("eval"));
        }
        if command == "fill" {
            cmd.arg("--check");
        }
        assert_clean_failure(cmd.assert(), 2, "Email.json:2:11");
    }
}

#[test]
fn a_missing_path_is_named() {
    assert_clean_failure(
        talkforge()
            .args(["verify", "no/such/folder", "--databases"])
            .arg(repo().join("databases"))
            .assert(),
        2,
        "no/such/folder: no such file or folder",
    );
}

#[test]
fn verify_reports_the_good_files_beside_a_bad_one() {
    let tmp = tempfile::tempdir().unwrap();
    fs::copy(
        repo().join("conversations/easy/AddAlarm-easy.json"),
        tmp.path().join("a-good.json"),
    )
    .unwrap();
    fs::write(tmp.path().join("b-bad.json"), "{\"name\": }").unwrap();
    let output = talkforge()
        .args(["verify", "--format", "json"])
        .arg(tmp.path())
        .arg("--databases")
        .arg(repo().join("databases"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("b-bad.json:1:10"))
        .stderr(predicate::str::contains(
            "1 of 2 files could not be verified",
        ))
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(report["conversations"], 1);
    assert_eq!(report["reproduced"], 1);
    assert_eq!(report["errors"].as_array().unwrap().len(), 1);
}

/// A folder holding dialogues of two suites is refused by the commands that
/// run calls (one databases folder serves one suite), naming a file of
/// each; `--suite` picks one suite's files; an unknown suite is a usage
/// error.
#[test]
fn dialogues_of_two_suites_need_a_suite_named() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.json"), good_conversation().to_string()).unwrap();
    fs::write(
        dir.path().join("b.jsonl"),
        "{\"role\": \"User\", \"text\": \"Hi\"}\n",
    )
    .unwrap();
    let databases = repo().join("databases");
    for command in ["verify", "fill", "stats", "evaluate"] {
        let mut cmd = Command::cargo_bin("talkforge").unwrap();
        cmd.arg(command).arg(dir.path());
        if command == "evaluate" {
            cmd.args(["--predictor", "oracle"]);
        }
        if command != "stats" {
            cmd.arg("--databases").arg(&databases);
        }
        cmd.assert()
            .code(2)
            .stderr(predicate::str::contains(
                "belongs to the apibank suite and other files to the tooltalk suite",
            ))
            .stderr(predicate::str::contains("--suite"));
    }
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["stats", "--suite", "tooltalk", "--format", "json"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("\"conversations\": 1"));
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["verify", "--suite", "tau-bench"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown suite \"tau-bench\" (known: tooltalk, apibank, tau2)",
        ));
}

/// API-Bank dialogues are evaluated at a level: without `--level`,
/// `evaluate` says so (exit 2); a malformed line is named with its line
/// (exit 2), and the other dialogues' results are still written.
#[test]
fn api_bank_evaluation_needs_a_level_and_names_a_bad_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dialogues");
    fs::create_dir(&dir).unwrap();
    let file = dir.join("d.jsonl");
    fs::write(&file, "{\"role\": \"User\", \"text\": \"Hi\"}\n").unwrap();
    let databases = tmp.path().join("databases");
    fs::create_dir(&databases).unwrap();
    fs::write(databases.join("Account.json"), "{}").unwrap();
    let evaluate = || {
        let mut command = Command::cargo_bin("talkforge").unwrap();
        command
            .arg("evaluate")
            .arg(&dir)
            .args(["--predictor", "oracle", "--databases"])
            .arg(&databases);
        command
    };
    evaluate().assert().code(2).stderr(predicate::str::contains(
        "the apibank suite is evaluated at a level: give --level",
    ));
    evaluate().args(["--level", "1"]).assert().success();
    fs::write(
        dir.join("broken.jsonl"),
        "{\"role\": \"User\", \"text\": \"Hi\"}\n{\"role\": \"API\", \"param_dict\": {}}\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    evaluate()
        .args(["--level", "1", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken.jsonl:2"))
        .stderr(predicate::str::contains(
            "an API line needs an \"api_name\"",
        ));
    assert!(out.join("summary.json").is_file());
    Command::cargo_bin("talkforge")
        .unwrap()
        .arg("lint")
        .arg(&file)
        .assert()
        .success();
}

#[test]
fn a_missing_default_databases_folder_says_to_pass_databases() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("ok.json"),
        serde_json::to_vec_pretty(&good_conversation()).unwrap(),
    )
    .unwrap();
    for args in [
        &["verify", "ok.json"][..],
        &["fill", "--check", "ok.json"],
        &["evaluate", "ok.json", "--predictor", "oracle"],
    ] {
        let assert = talkforge().current_dir(dir.path()).args(args).assert();
        assert_clean_failure(assert, 2, "databases: no such folder");
        let assert = talkforge().current_dir(dir.path()).args(args).assert();
        assert_clean_failure(assert, 2, "hint: pass --databases DIR");
    }
    // A folder named by --databases that is missing is named as it is.
    let assert = talkforge()
        .current_dir(dir.path())
        .args(["verify", "ok.json", "--databases", "elsewhere"])
        .assert();
    assert_clean_failure(assert, 2, "elsewhere: cannot read the databases folder");
}

#[test]
fn a_folder_without_dialogues_is_an_error_for_every_command() {
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "not a dialogue").unwrap();
    let databases = repo().join("databases");
    for args in [
        &["verify"][..],
        &["fill", "--check"],
        &["stats"],
        &["lint"],
        &["evaluate", "--predictor", "oracle"],
    ] {
        let mut command = talkforge();
        command.args(args).arg(empty.path());
        if !matches!(args[0], "stats" | "lint") {
            command.arg("--databases").arg(&databases);
        }
        let assert = command.assert().stdout(predicate::str::is_empty());
        assert_clean_failure(assert, 2, "holds no dialogue file");
    }
}

#[test]
fn a_database_folder_missing_or_holding_the_wrong_databases_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let conversation = repo().join("conversations/easy/SearchInbox-easy.json");
    let copy = |name: &str| {
        let databases = tmp.path().join(name);
        fs::create_dir_all(&databases).unwrap();
        for entry in fs::read_dir(repo().join("databases")).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
            }
        }
        databases
    };
    // An unknown database (a misspelt name).
    let unknown = copy("unknown");
    fs::write(unknown.join("Alarms.json"), "{}").unwrap();
    // A database a gold call needs is missing.
    let missing = copy("missing");
    fs::remove_file(missing.join("Email.json")).unwrap();
    // A malformed Account record: named in Account.json, not the conversation.
    let account = copy("account");
    let mut accounts: Value =
        serde_json::from_str(&fs::read_to_string(account.join("Account.json")).unwrap()).unwrap();
    let first = accounts.as_object().unwrap().keys().next().unwrap().clone();
    accounts[&first]["session_token"] = json!(5);
    fs::write(
        account.join("Account.json"),
        serde_json::to_string_pretty(&accounts).unwrap(),
    )
    .unwrap();
    let cases = [
        (&unknown, "Alarms.json: not one of ToolTalk's databases"),
        (&missing, "no Email.json, which SearchInbox needs"),
        (&account, "Account.json:"),
    ];
    for (databases, expect) in cases {
        for command in ["verify", "fill", "evaluate"] {
            let mut cmd = talkforge();
            cmd.arg(command)
                .arg(&conversation)
                .arg("--databases")
                .arg(databases);
            if command == "evaluate" {
                cmd.args(["--predictor", "oracle"]);
            }
            if command == "fill" {
                cmd.arg("--check");
            }
            let output = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
            assert!(stderr.contains(expect), "{command}: {stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

/// A line the suite's reader refuses (an unknown role) stops lint as it
/// stops verify and stats: exit 2 from all three, the file named with its
/// place; lint still says where the shape breaks.
#[test]
fn a_line_every_reader_refuses_gets_exit_2_from_lint_verify_and_stats() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("role.jsonl");
    fs::write(
        &file,
        "{\"role\": \"User\", \"text\": \"hi\"}\n{\"role\": \"Assistant\", \"text\": \"hello\"}\n",
    )
    .unwrap();
    let databases = tmp.path().join("databases");
    fs::create_dir_all(&databases).unwrap();
    fs::write(databases.join("Account.json"), "{}").unwrap();
    for command in ["lint", "verify", "stats"] {
        let mut run = talkforge();
        run.arg(command).arg(&file);
        if command == "verify" {
            run.arg("--databases").arg(&databases);
        }
        let output = run.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("role.jsonl:2:10: unknown role \"Assistant\""),
            "{command}: {stderr}"
        );
        if command == "lint" {
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(stdout.contains("error[schema] unknown role"), "{stdout}");
        }
    }
}
