//! `talkforge fill`: results written from the simulator, byte-for-byte
//! no-ops, `--check`, `--seed`, and refusing bad input without writing.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use serde_json::{json, Value};

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

fn write_json(path: &Path, value: &Value) {
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// A world with one logged-in user, Ann, whose inbox is empty.
fn small_world(dir: &Path) -> PathBuf {
    let db = dir.join("databases");
    fs::create_dir_all(&db).unwrap();
    write_json(
        &db.join("Account.json"),
        &json!({"ann": {"username": "ann", "email": "ann@example.com", "phone": "555-010-0000",
                        "name": "Ann Example", "password": "pw", "session_token": null}}),
    );
    write_json(
        &db.join("Email.json"),
        &json!({"ann": {"old": {"email_id": "old", "date": "2023-08-01 09:00:00",
                "sender": "bo@example.com", "subject": "Lunch", "body": "Lunch on Friday?"}}}),
    );
    db
}

fn conversation(calls: Value) -> Value {
    json!({
        "name": "inbox", "conversation_id": "c-1", "suites_used": ["Email"],
        "apis_used": ["SearchInbox"],
        "user": {"username": "ann", "email": "ann@example.com", "phone": "555-010-0000",
                 "name": "Ann Example", "password": "pw", "session_token": "tok-ann"},
        "metadata": {"location": "Lisbon", "timestamp": "2023-09-10 12:00:00",
                     "session_token": "tok-ann", "username": "ann"},
        "conversation": [
            {"index": 0, "role": "user", "text": "Did Dana send the invoice?"},
            {"index": 1, "role": "assistant", "text": "Yes, this morning.", "apis": calls}
        ]
    })
}

fn invoice_email() -> Value {
    json!({"email_id": "inv-1", "date": "2023-09-10 08:00:00", "sender": "dana@example.com",
           "subject": "Invoice", "body": "Here is the invoice for August."})
}

fn search_call(response: Value) -> Value {
    json!({"request": {"api_name": "SearchInbox",
                       "parameters": {"session_token": "tok-ann", "query": "invoice"}},
           "response": response, "exception": null})
}

#[test]
fn blanked_upstream_easy_is_restored_byte_for_byte() {
    let Some(up) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut originals = Vec::new();
    for entry in fs::read_dir(up.join("easy")).unwrap() {
        let path = entry.unwrap().path();
        let original = fs::read_to_string(&path).unwrap();
        let mut value: Value = serde_json::from_str(&original).unwrap();
        for turn in value["conversation"].as_array_mut().unwrap() {
            for call in turn
                .get_mut("apis")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                call["response"] = Value::Null;
                call["exception"] = Value::Null;
            }
        }
        let copy = tmp.path().join(path.file_name().unwrap());
        write_json(&copy, &value);
        originals.push((copy, original));
    }
    assert_eq!(originals.len(), 28);
    talkforge()
        .arg("fill")
        .arg(tmp.path())
        .arg("--databases")
        .arg(up.join("databases"))
        .assert()
        .success();
    for (copy, original) in &originals {
        assert_eq!(
            &fs::read_to_string(copy).unwrap(),
            original,
            "{}",
            copy.display()
        );
    }
    // Filled again: nothing to do, and --check agrees.
    talkforge()
        .args(["fill", "--check"])
        .arg(tmp.path())
        .arg("--databases")
        .arg(up.join("databases"))
        .assert()
        .code(0);
}

#[test]
fn check_reports_without_writing_and_fill_then_changes_only_what_differs() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let file = tmp.path().join("inbox.json");
    // Recorded: nothing found; the simulator finds nothing either, but the
    // second call (a request written by hand) has no result at all yet.
    let mut value = conversation(json!([search_call(json!({"emails": []}))]));
    value["conversation"][1]["apis"]
        .as_array_mut()
        .unwrap()
        .push(json!({"request": {"api_name": "SearchInbox",
                                 "parameters": {"session_token": "tok-ann", "query": "lunch"}}}));
    write_json(&file, &value);
    let before = fs::read(&file).unwrap();

    let out = talkforge()
        .args(["fill", "--check", "--format", "json"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["filled"].as_array().unwrap().len(), 1);
    assert_eq!(report["filled"][0]["call"], 1);
    assert_eq!(report["written"], false);
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "--check wrote to the file"
    );

    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success();
    let after: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let filled = &after["conversation"][1]["apis"][1];
    assert_eq!(filled["response"]["emails"][0]["email_id"], "old");
    assert_eq!(filled["exception"], Value::Null);
    // Key order kept: request, response, exception.
    let keys: Vec<&String> = filled.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["request", "response", "exception"]);

    // A second fill has nothing to change and does not touch the file.
    let modified = fs::metadata(&file).unwrap().modified().unwrap();
    let bytes = fs::read(&file).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success()
        .stdout(predicates::str::contains("0 filled in 0 files"));
    assert_eq!(fs::read(&file).unwrap(), bytes);
    assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), modified);
}

/// A request written without the session token gets the session's token
/// as its first argument (where the tools take it), a wrong one is
/// corrected in its place, and `--check` counts both as needing a fill.
#[test]
fn the_session_token_is_written_where_missing_and_corrected_where_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let file = tmp.path().join("inbox.json");
    let mut missing = search_call(json!({"emails": []}));
    missing["request"]["parameters"] = json!({"query": "invoice"});
    let mut wrong = search_call(json!({"emails": []}));
    wrong["request"]["parameters"] = json!({"query": "invoice", "session_token": "tok-bob"});
    write_json(&file, &conversation(json!([missing, wrong])));
    let before = fs::read(&file).unwrap();

    let out = talkforge()
        .args(["fill", "--check", "--format", "json"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert_eq!(fs::read(&file).unwrap(), before);
    let report: Value = serde_json::from_slice(&out).unwrap();
    let filled = report["filled"].as_array().unwrap();
    assert_eq!(filled.len(), 2, "{report:#}");
    for call in filled {
        assert_eq!(call["arguments"], json!(["session_token"]));
    }

    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success();
    let text = fs::read_to_string(&file).unwrap();
    let after: Value = serde_json::from_str(&text).unwrap();
    let parameters = |call: usize| {
        let p = after["conversation"][1]["apis"][call]["request"]["parameters"]
            .as_object()
            .unwrap();
        p.iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(parameters(0), ["session_token=tok-ann", "query=invoice"]);
    assert_eq!(parameters(1), ["query=invoice", "session_token=tok-ann"]);
    // Nothing left to do; the file stays as it is.
    talkforge()
        .args(["fill", "--check"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(0);
    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success();
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn seed_adds_listed_records_the_database_lacks_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let file = tmp.path().join("inbox.json");
    let recorded = json!({"emails": [invoice_email()]});
    write_json(&file, &conversation(json!([search_call(recorded.clone())])));
    let conversation_before = fs::read(&file).unwrap();

    // Without the record, verify shows the recording does not reproduce.
    talkforge()
        .arg("verify")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(1);

    let out = talkforge()
        .args(["fill", "--seed", "--format", "json"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["seeded"].as_array().unwrap().len(), 1);
    assert_eq!(report["seeded"][0]["database"], "Email");
    assert_eq!(report["seeded"][0]["user"], "ann");
    assert_eq!(report["seeded"][0]["id"], "inv-1");
    assert!(report["filled"].as_array().unwrap().is_empty());

    // The recording now reproduces; the conversation itself was not rewritten.
    assert_eq!(fs::read(&file).unwrap(), conversation_before);
    talkforge()
        .arg("verify")
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .success();
    let email: Value =
        serde_json::from_str(&fs::read_to_string(db.join("Email.json")).unwrap()).unwrap();
    let ann: Vec<&String> = email["ann"].as_object().unwrap().keys().collect();
    assert_eq!(
        ann,
        ["old", "inv-1"],
        "the existing record stays first and unchanged"
    );
    assert_eq!(email["ann"]["inv-1"], invoice_email());

    // Seeding again adds nothing.
    talkforge()
        .args(["fill", "--seed", "--check"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(0);
}

#[test]
fn seed_never_rewrites_an_existing_record() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let file = tmp.path().join("inbox.json");
    // The recording claims the old email has another subject.
    let old = json!({"email_id": "old", "date": "2023-08-01 09:00:00",
        "sender": "bo@example.com", "subject": "Dinner", "body": "Lunch on Friday?"});
    let mut value = conversation(json!([search_call(json!({"emails": [old.clone()]}))]));
    value["conversation"][1]["apis"][0]["request"]["parameters"]["query"] = json!("lunch");
    write_json(&file, &value);
    let database_before = fs::read(db.join("Email.json")).unwrap();
    talkforge()
        .args(["fill", "--seed", "--check"])
        .arg(&file)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(1)
        .stdout(predicates::str::contains("would fill"))
        .stdout(predicates::str::contains("would seed").not());
    assert_eq!(fs::read(db.join("Email.json")).unwrap(), database_before);
}

#[test]
fn an_unreadable_file_stops_the_fill_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let good = tmp.path().join("a-good.json");
    write_json(&good, &conversation(json!([search_call(Value::Null)])));
    let good_before = fs::read(&good).unwrap();
    let bad = tmp.path().join("b-bad.json");
    fs::write(&bad, "{\n  \"name\": \"x\",\n  \"conversation\": [1, 2,\n").unwrap();
    talkforge()
        .arg("fill")
        .arg(tmp.path().join("a-good.json"))
        .arg(&bad)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("b-bad.json:4:"))
        .stderr(predicates::str::contains("panicked").not());
    assert_eq!(
        fs::read(&good).unwrap(),
        good_before,
        "the good file was written"
    );
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 3, "no temporary files left: {leftovers:?}");
}

#[test]
fn an_unknown_suite_is_a_usage_error_and_a_known_one_is_used() {
    talkforge()
        .args(["fill", "--check", "--suite", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value 'nope' for '--suite",
        ));
    let tmp = tempfile::tempdir().unwrap();
    let databases = small_world(tmp.path());
    let file = tmp.path().join("c.json");
    write_json(
        &file,
        &conversation(json!([search_call(json!({"emails": []}))])),
    );
    talkforge()
        .args(["fill", "--check", "--suite", "tooltalk"])
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .stdout(predicates::str::contains("1 conversation, 1 gold call:"));
}

#[test]
fn fmt_lays_out_hand_edited_files_and_check_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("c.json");
    let edited = r#"{"conversation": [{"role": "user", "text": "Hi", "index": 4}],
        "name": "n", "conversation_id": "c", "suites_used": [], "apis_used": [],
        "user": {}, "metadata": {"location": "Here", "timestamp": "2023-01-01 09:00:00"}}"#;
    std::fs::write(&file, edited).unwrap();
    talkforge()
        .args(["fmt", "--check"])
        .arg(tmp.path())
        .assert()
        .code(1)
        .stdout(predicates::str::contains("would reformat"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        edited,
        "--check writes nothing"
    );
    talkforge().arg("fmt").arg(tmp.path()).assert().code(0);
    let laid_out = std::fs::read_to_string(&file).unwrap();
    assert!(
        laid_out.starts_with("{\n    \"name\": \"n\","),
        "{laid_out}"
    );
    assert!(laid_out.contains("\"index\": 0,"), "{laid_out}");
    talkforge()
        .args(["fmt", "--check"])
        .arg(tmp.path())
        .assert()
        .code(0)
        .stdout("");
    // A file that is no JSON: named, exit 2, nothing written.
    let other = tmp.path().join("d.json");
    std::fs::write(&other, "{\"name\": ").unwrap();
    std::fs::write(&file, edited).unwrap();
    talkforge()
        .arg("fmt")
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("d.json:1:"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
}

#[test]
fn fmt_keeps_numbers_as_written_and_refuses_what_readers_refuse() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("c.json");
    let edited = r#"{"conversation": [{"role": "user", "text": "Hi", "index": 4}],
        "name": "n", "conversation_id": "c", "suites_used": [], "apis_used": [],
        "note": {"big": 123456789012345678901234567890, "price": 1.50},
        "user": {}, "metadata": {"location": "Here", "timestamp": "2023-01-01 09:00:00"}}"#;
    std::fs::write(&file, edited).unwrap();
    talkforge().arg("fmt").arg(tmp.path()).assert().code(0);
    let laid_out = std::fs::read_to_string(&file).unwrap();
    assert!(
        laid_out.contains("\"big\": 123456789012345678901234567890,")
            && laid_out.contains("\"price\": 1.50"),
        "{laid_out}"
    );
    let lines = tmp.path().join("d.jsonl");
    std::fs::write(
        &lines,
        "{\"role\": \"User\", \"text\": \"hi\", \"n\": 18446744073709551616}\n",
    )
    .unwrap();
    talkforge().arg("fmt").arg(&lines).assert().code(0);
    assert!(std::fs::read_to_string(&lines)
        .unwrap()
        .contains("18446744073709551616}"));
    // A key written twice, and a file of the wrong shape: refused at their
    // place, exit 2, nothing written.
    for (name, text, place) in [
        (
            "twice.json",
            edited.replace("\"name\": \"n\",", "\"name\": \"n\", \"name\": \"m\","),
            "twice.json:2:",
        ),
        (
            "twice.jsonl",
            "{\"role\": \"User\", \"text\": \"hi\"}\n{\"role\": \"AI\", \"text\": \"a\", \"text\": \"b\"}\n"
                .to_string(),
            "twice.jsonl:2:",
        ),
        (
            "shape.json",
            edited.replace("\"role\": \"user\"", "\"role\": 7"),
            "shape.json:1:",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        let output = talkforge().arg("fmt").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(place), "{name}: {stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}

#[cfg(unix)]
#[test]
fn fill_fmt_and_verify_do_not_follow_a_folder_link_out_of_the_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let data = tmp.path().join("data");
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&data).unwrap();
    fs::create_dir_all(&elsewhere).unwrap();
    // Both need filling, and the outside one is not laid out canonically.
    write_json(
        &data.join("in.json"),
        &conversation(json!([search_call(Value::Null)])),
    );
    let outside = elsewhere.join("out.json");
    write_json(&outside, &conversation(json!([search_call(Value::Null)])));
    let before = fs::read_to_string(&outside).unwrap();
    std::os::unix::fs::symlink(&elsewhere, data.join("ext")).unwrap();
    let output = talkforge()
        .args(["verify", "--format", "json", "--databases"])
        .arg(&db)
        .arg(&data)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["conversations"], 1, "{report}");
    talkforge()
        .arg("fill")
        .arg(&data)
        .arg("--databases")
        .arg(&db)
        .assert()
        .code(0);
    talkforge().arg("fmt").arg(&data).assert().code(0);
    assert_eq!(fs::read_to_string(&outside).unwrap(), before);
    assert_ne!(
        fs::read_to_string(data.join("in.json")).unwrap(),
        before,
        "the file inside was filled"
    );
}

#[test]
fn check_reports_every_bad_file_including_those_that_fail_after_parsing() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let data = tmp.path().join("data");
    fs::create_dir(&data).unwrap();
    let good = data.join("a-good.json");
    write_json(&good, &conversation(json!([search_call(Value::Null)])));
    let bad = data.join("b-bad.json");
    fs::write(&bad, "{\n  \"name\": \"x\",\n  \"conversation\": [1, 2,\n").unwrap();
    // Parses, but its user is not in the databases: fails while filling.
    let mut stranger = conversation(json!([search_call(Value::Null)]));
    stranger["user"]["username"] = json!("nobody");
    stranger["metadata"]["username"] = json!("nobody");
    let stranger_path = data.join("c-stranger.json");
    write_json(&stranger_path, &stranger);
    for check in [true, false] {
        let mut command = talkforge();
        command.arg("fill").arg(&data).arg("--databases").arg(&db);
        if check {
            command.arg("--check");
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("2 files cannot be filled"), "{stderr}");
        assert!(stderr.contains("b-bad.json:4:"), "{stderr}");
        assert!(stderr.contains("c-stranger.json"), "{stderr}");
        assert!(!stderr.contains("a-good.json"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A call that raises is filled with its error as the result, often
/// because of a typo: fill says which calls raised, with the exception and
/// what lint finds at the call, in its text and its JSON.
#[test]
fn fill_names_the_calls_that_raised_with_what_lint_finds_there() {
    let tmp = tempfile::tempdir().unwrap();
    let db = small_world(tmp.path());
    let path = tmp.path().join("typo.json");
    let typo = json!({"request": {"api_name": "SearchInbox",
                                  "parameters": {"session_token": "tok-ann", "query": "invoice", "sendr": "dana"}}});
    write_json(
        &path,
        &conversation(json!([search_call(Value::Null), typo])),
    );
    let fill = |format: &str| {
        let out = talkforge()
            .current_dir(tmp.path())
            .arg("fill")
            .arg(&path)
            .arg("--databases")
            .arg(&db)
            .args(["--check", "--format", format])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    let report: Value = serde_json::from_str(&fill("json")).unwrap();
    let filled = report["filled"].as_array().unwrap();
    assert_eq!(filled.len(), 2, "{report}");
    // The call that ran well says nothing more.
    assert!(filled[0].get("exception").is_none(), "{report}");
    let exception = filled[1]["exception"].as_str().unwrap();
    assert!(exception.contains("sendr"), "{exception}");
    let findings: Vec<&str> = filled[1]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("unknown-argument:") && f.contains("sendr")),
        "{findings:?}"
    );
    let human = fill("human");
    assert!(
        human.contains(&format!(
            "turn 1 call 1 (SearchInbox): it raised {exception:?}"
        )),
        "{human}"
    );
    assert!(human.contains("    lint: unknown-argument:"), "{human}");
    assert!(
        human.contains("2 would fill in 1 file (1 of them raised"),
        "{human}"
    );
}

/// fmt names every file it cannot read, not only the first, and then
/// writes nothing.
#[test]
fn fmt_names_every_unreadable_file_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("a-broken.json"), "{\n  oops\n}\n").unwrap();
    fs::write(tmp.path().join("b-broken.json"), "[1,").unwrap();
    let untidy = tmp.path().join("c-untidy.json");
    let text = serde_json::to_string(&conversation(json!([search_call(Value::Null)]))).unwrap();
    fs::write(&untidy, &text).unwrap();
    let output = talkforge().arg("fmt").arg(tmp.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("a-broken.json:2:3"), "{stderr}");
    assert!(stderr.contains("b-broken.json:1:"), "{stderr}");
    assert_eq!(fs::read_to_string(&untidy).unwrap(), text);
}
