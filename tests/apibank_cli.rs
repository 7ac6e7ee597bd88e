//! API-Bank dialogues through verify, fill, stats and check: small
//! dialogues and databases written here (with the APIs GetUserToken,
//! CheckToken and AddAgenda), bad input on purpose, and the upstream
//! dialogues through fill.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

/// A dataset: `databases/apibank/` (Account, Agenda) and
/// `conversations/agenda/`, where the dialogues go.
fn dataset() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let databases = tmp.path().join("databases/apibank");
    fs::create_dir_all(&databases).unwrap();
    let accounts = json!({
        "lwong": {"password": "tulip-88", "token": "q1w2e3r4t5y6", "email": "lwong@example.com"},
        "JohnDoe": {"password": "pass123", "token": "a9s8d7f6g5h4j3k2l1", "email": "johndoe@example.com"}
    });
    fs::write(databases.join("Account.json"), accounts.to_string()).unwrap();
    let agenda = json!({"1": {"content": "Gym", "time": "2023-03-16", "location": "24 Hour Fitness", "username": "JohnDoe"}});
    fs::write(databases.join("Agenda.json"), agenda.to_string()).unwrap();
    let dialogues = tmp.path().join("conversations/agenda");
    fs::create_dir_all(&dialogues).unwrap();
    (tmp, databases, dialogues)
}

const ASK: &str = r#"{"role": "User", "text": "Please put a dentist visit on my agenda for May 2nd at 3:30 pm at Pearl Dental. Username lwong, password tulip-88."}"#;
const LOGIN: &str = r#"{"role": "API", "api_name": "GetUserToken", "param_dict": {"username": "lwong", "password": "tulip-88"}}"#;
const ADD: &str = r#"{"role": "API", "api_name": "AddAgenda", "param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}}"#;
const DONE: &str = r#"{"role": "AI", "text": "Your dentist visit is on the agenda."}"#;

/// What the reference records for LOGIN and ADD.
const LOGIN_RESULT: &str = r#""result": {"api_name": "GetUserToken", "input": {"username": "lwong", "password": "tulip-88"}, "output": {"token": "q1w2e3r4t5y6"}, "exception": null}"#;
const ADD_RESULT: &str = r#""result": {"api_name": "AddAgenda", "input": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}, "output": "success", "exception": null}"#;

/// `line` (an API line without a result) with `result` recorded.
fn recorded(line: &str, result: &str) -> String {
    format!("{}, {result}}}", line.strip_suffix('}').unwrap())
}

/// The dentist dialogue with its results recorded, ending in a newline.
fn dentist() -> String {
    [
        ASK.to_string(),
        recorded(LOGIN, LOGIN_RESULT),
        recorded(ADD, ADD_RESULT),
        DONE.to_string(),
    ]
    .join("\n")
        + "\n"
}

fn run_json(command: &mut Command, code: i32) -> Value {
    let out = command.assert().code(code).get_output().stdout.clone();
    serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

fn verify(paths: &[&Path], databases: &Path, code: i32) -> Value {
    run_json(
        talkforge()
            .arg("verify")
            .args(paths)
            .arg("--databases")
            .arg(databases)
            .args(["--format", "json"]),
        code,
    )
}

#[test]
fn recordings_that_reproduce_verify_and_an_edited_one_differs_at_its_line() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    fs::write(&file, dentist()).unwrap();
    let report = verify(&[&file], &databases, 0);
    assert_eq!(
        (
            &report["conversations"],
            &report["calls"],
            &report["reproduced"]
        ),
        (&json!(1), &json!(2), &json!(2))
    );
    assert_eq!(report["differs"], json!([]));
    assert!(report.get("not_checked").is_none());
    // Results compare as Python's `==` compares dicts: key order aside.
    let reordered = dentist().replace(
        r#""result": {"api_name": "GetUserToken", "input""#,
        r#""result": {"input""#,
    ).replace(
        r#""output": {"token": "q1w2e3r4t5y6"}, "exception": null}"#,
        r#""output": {"token": "q1w2e3r4t5y6"}, "exception": null, "api_name": "GetUserToken"}"#,
    );
    assert_ne!(reordered, dentist());
    fs::write(&file, reordered).unwrap();
    assert_eq!(verify(&[&file], &databases, 0)["reproduced"], 2);

    // A blank line before the calls: the differing call is reported at
    // its line (in JSON 0-based as `turn`, blank lines counted, and 1-based
    // as `line`; a person reads the 1-based line) and its index among the
    // API lines.
    let edited = dentist()
        .replacen(ASK, &format!("{ASK}\n"), 1)
        .replace("\"output\": \"success\"", "\"output\": \"failed\"");
    fs::write(&file, edited).unwrap();
    let report = verify(&[&file], &databases, 1);
    assert_eq!(report["reproduced"], 1);
    let difference = &report["differs"][0];
    assert_eq!(
        (
            &difference["turn"],
            &difference["call"],
            &difference["api_name"]
        ),
        (&json!(3), &json!(1), &json!("AddAgenda"))
    );
    // The line as an editor numbers it, beside the documented fields.
    assert_eq!(difference["line"], 4);
    let diff = difference["diff"].as_str().unwrap();
    assert!(diff.contains("-        \"output\": \"failed\","), "{diff}");
    assert!(diff.contains("+        \"output\": \"success\","), "{diff}");

    let human = talkforge()
        .arg("verify")
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let human = String::from_utf8(human).unwrap();
    assert!(
        human.contains("dentist.jsonl line 4 (AddAgenda) differs:"),
        "{human}"
    );
    assert!(
        human.ends_with("1 conversation, 2 gold calls: 1 reproduces, 1 differs\n"),
        "{human}"
    );
}

#[test]
fn an_unknown_api_differs_with_the_reference_error() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("schedule.jsonl");
    let line = r#"{"role": "API", "api_name": "AddSchedule", "param_dict": {"token": "q1w2e3r4t5y6"}, "result": {"api_name": "AddSchedule", "input": {"token": "q1w2e3r4t5y6"}, "output": "success", "exception": null}}"#;
    fs::write(&file, format!("{ASK}\n{line}\n")).unwrap();
    let report = verify(&[&file], &databases, 1);
    let diff = report["differs"][0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("+        \"exception\": \"invalid tool name.\""),
        "{diff}"
    );
    // An argument the API does not take, as ToolManager refuses it.
    let line = r#"{"role": "API", "api_name": "CheckToken", "param_dict": {"tok": "x"}}"#;
    fs::write(&file, format!("{ASK}\n{line}\n")).unwrap();
    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .success();
    let text = fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(r#""result": {"api_name": "CheckToken", "input": null, "output": null, "exception": "invalid parameter name. parameter: tok"}"#),
        "{text}"
    );
}

/// A line the API refuses before it runs (an argument name it does not
/// take, a value that does not convert): one fill records the refusal,
/// and it is a fixed point: `fill --check` finds nothing, verify and
/// check agree, a second fill changes no byte. Once the line is corrected,
/// the next fill records what the corrected call gives.
#[test]
fn fill_reaches_its_fixed_point_at_once_for_a_call_the_api_refuses() {
    let (tmp, databases, dialogues) = dataset();
    // The APIs read these; the refused calls never get that far.
    fs::write(databases.join("Stock.json"), "{}").unwrap();
    fs::write(databases.join("Hotel.json"), "{}").unwrap();
    let file = dialogues.join("refused.jsonl");
    let stock = r#"{"role": "API", "api_name": "QueryStock", "param_dict": {"stock_code": "AAPL", "day": "2022-02-22"}}"#;
    let hotel = r#"{"role": "API", "api_name": "BookHotel", "param_dict": {"hotel_name": "Hilton", "check_in_time": "2023-06-01", "check_out_time": "2023-06-10", "room_count": "one", "adult_count": "4", "child_count": "2"}}"#;
    let typo = ADD.replace("\"content\"", "\"contnet\"");
    fs::write(&file, [ASK, stock, hotel, &typo, DONE].join("\n") + "\n").unwrap();
    let fill = |check: bool, code: i32| {
        let mut command = talkforge();
        command
            .arg("fill")
            .arg(&file)
            .arg("--databases")
            .arg(&databases);
        if check {
            command.arg("--check");
        }
        run_json(command.args(["--format", "json"]), code)
    };
    let report = fill(false, 0);
    let filled = report["filled"].as_array().unwrap();
    assert_eq!(filled.len(), 3);
    // Fill says each of them raised, with the finding that names the
    // cause, at the call's 1-based line.
    let said: Vec<(&Value, &Value)> = filled
        .iter()
        .map(|f| (&f["line"], &f["exception"]))
        .collect();
    assert_eq!(
        said,
        [
            (&json!(2), &json!("invalid parameter name. parameter: day")),
            (&json!(3), &json!("invalid parameter type. parameter: one")),
            (
                &json!(4),
                &json!("invalid parameter name. parameter: contnet")
            ),
        ]
    );
    let findings = filled[0]["findings"].to_string();
    assert!(
        findings.contains("unknown-argument: `QueryStock` takes no argument `day`"),
        "{findings}"
    );
    let findings = filled[1]["findings"].to_string();
    assert!(
        findings.contains("argument-type: `BookHotel` argument `room_count`"),
        "{findings}"
    );
    let once = fs::read_to_string(&file).unwrap();
    for exception in [
        "invalid parameter name. parameter: day",
        "invalid parameter type. parameter: one",
        "invalid parameter name. parameter: contnet",
    ] {
        assert!(
            once.contains(&format!("\"exception\": \"{exception}\"}}")),
            "{once}"
        );
    }
    assert_eq!(fill(true, 0)["filled"], json!([]));
    let report = verify(&[&file], &databases, 0);
    assert_eq!(report["reproduced"], 3, "{report}");
    assert_eq!(fill(false, 0)["filled"], json!([]));
    assert_eq!(fs::read_to_string(&file).unwrap(), once);
    talkforge()
        .arg("check")
        .arg("--root")
        .arg(tmp.path())
        .assert()
        .stdout(predicate::str::contains(
            "3 of 3 gold calls in 1 conversation reproduce",
        ));

    // The typo corrected, the recorded refusal no longer holds, and fill
    // records the call as corrected.
    fs::write(&file, once.replace("\"contnet\"", "\"content\"")).unwrap();
    let report = fill(false, 0);
    assert_eq!(report["filled"][0]["api_name"], "AddAgenda", "{report}");
    assert!(fs::read_to_string(&file).unwrap().contains(ADD_RESULT));
    assert_eq!(fill(true, 0)["filled"], json!([]));
}

/// A list of objects written as text reaches the API as text, as the
/// reference's `api_call` hands it on (its evaluator's version parses no
/// list), so the call can only raise: lint says so, and fill names the
/// finding beside the exception. Written as a JSON array, the API gets
/// the list and the call succeeds.
#[test]
fn a_list_of_objects_written_as_text_is_named_by_lint_and_fill() {
    let (_tmp, databases, dialogues) = dataset();
    fs::write(databases.join("HealthData.json"), "{}").unwrap();
    let ask = r#"{"role": "User", "text": "Record a heart rate of 80 for user A1 at 2023-03-31 08:00:00."}"#;
    let record = |health_data: &str| {
        format!(
            r#"{{"role": "API", "api_name": "RecordHealthData", "param_dict": {{"user_id": "A1", "time": "2023-03-31 08:00:00", "health_data": {health_data}}}}}"#
        )
    };
    let done = r#"{"role": "AI", "text": "Recorded."}"#;
    let text = dialogues.join("as-text.jsonl");
    let array = dialogues.join("as-array.jsonl");
    let written = |health_data: &str| [ask, &record(health_data), done].join("\n") + "\n";
    fs::write(
        &text,
        written(r#""[{'name': 'heart_rate', 'value': '80'}]""#),
    )
    .unwrap();
    fs::write(
        &array,
        written(r#"[{"name": "heart_rate", "value": "80"}]"#),
    )
    .unwrap();

    let lint = talkforge()
        .arg("lint")
        .arg(&text)
        .arg(&array)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let lint = String::from_utf8(lint).unwrap();
    assert!(
        lint.contains("as-text.jsonl:2:")
            && lint.contains(
                "argument `health_data`: a list of objects written as text reaches the API as text"
            ),
        "{lint}"
    );
    // (Both still lack their results: lint's schema rule says to fill.)
    assert!(
        !lint
            .lines()
            .any(|l| l.contains("as-array.jsonl") && l.contains("argument-type")),
        "{lint}"
    );

    let report = run_json(
        talkforge()
            .arg("fill")
            .arg(&text)
            .arg(&array)
            .arg("--databases")
            .arg(&databases)
            .args(["--format", "json"]),
        0,
    );
    let filled = report["filled"].as_array().unwrap();
    let by_file = |name: &str| {
        filled
            .iter()
            .find(|f| f["file"].as_str().unwrap().ends_with(name))
            .unwrap()
    };
    let as_text = by_file("as-text.jsonl");
    assert_eq!(as_text["exception"], "The health data has invalid format.");
    assert!(
        as_text["findings"].to_string().contains("argument-type"),
        "{as_text}"
    );
    assert_eq!(by_file("as-array.jsonl")["exception"], Value::Null);
    assert!(fs::read_to_string(&array)
        .unwrap()
        .contains(r#""output": "success""#));
    // Filled, the text line records the text it ran with: lint still
    // names it; the array line is clean.
    talkforge().arg("lint").arg(&array).assert().success();
    talkforge().arg("lint").arg(&text).assert().code(1);
}

#[test]
fn fill_records_results_as_upstream_writes_them_and_then_changes_nothing() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    // Written by hand: no results, no final newline.
    let written = [ASK, LOGIN, ADD, DONE].join("\n");
    fs::write(&file, &written).unwrap();
    let fill = |check: bool, code: i32| {
        let mut command = talkforge();
        command
            .arg("fill")
            .arg(&file)
            .arg("--databases")
            .arg(&databases);
        if check {
            command.arg("--check");
        }
        run_json(command.args(["--format", "json"]), code)
    };
    let report = fill(true, 1);
    assert_eq!(report["written"], false);
    let places: Vec<(u64, u64)> = report["filled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["turn"].as_u64().unwrap(), f["call"].as_u64().unwrap()))
        .collect();
    assert_eq!(places, [(1, 0), (2, 1)]);
    assert_eq!(fs::read_to_string(&file).unwrap(), written);

    fill(false, 0);
    let want = dentist();
    assert_eq!(fs::read_to_string(&file).unwrap(), want.trim_end());
    // Nothing left to fill: the bytes stay, and verify agrees.
    let report = fill(true, 0);
    assert_eq!(report["filled"], json!([]));
    fill(false, 0);
    assert_eq!(fs::read_to_string(&file).unwrap(), want.trim_end());
    verify(&[&file], &databases, 0);

    // With a final newline, it is kept.
    fs::write(&file, format!("{written}\n")).unwrap();
    fill(false, 0);
    assert_eq!(fs::read_to_string(&file).unwrap(), want);
}

const QUERY: &str = r#"{"role": "API", "api_name": "QueryAgenda", "param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}}"#;
/// A query answering a record the databases lack.
const QUERY_RESULT: &str = r#""result": {"api_name": "QueryAgenda", "input": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}, "output": {"content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental", "username": "lwong"}, "exception": null}"#;

#[test]
fn seeding_adds_the_record_a_recorded_query_answered() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("query.jsonl");
    let text = format!(
        "{ASK}\n{}\n{}\n",
        recorded(LOGIN, LOGIN_RESULT),
        recorded(QUERY, QUERY_RESULT)
    );
    fs::write(&file, &text).unwrap();
    let agenda = databases.join("Agenda.json");
    let before = fs::read_to_string(&agenda).unwrap();
    let verify = |code: i32| {
        talkforge()
            .arg("verify")
            .arg(&file)
            .arg("--databases")
            .arg(&databases)
            .assert()
            .code(code);
    };
    verify(1);
    let seed = |check: bool, code: i32| {
        let mut cmd = talkforge();
        cmd.args(["fill", "--seed"])
            .arg(&file)
            .arg("--databases")
            .arg(&databases);
        if check {
            cmd.arg("--check");
        }
        cmd.assert().code(code)
    };
    seed(true, 1).stdout(predicate::str::contains(
        r#"would seed Agenda["lwong"]: 2 (needed by"#,
    ));
    assert_eq!(fs::read_to_string(&agenda).unwrap(), before);
    seed(false, 0).stdout(predicate::str::contains("1 record seeded into"));
    // The record is added under the next id, in the file's own separators;
    // the dialogue, which now reproduces, is left as it was.
    let after: Value = serde_json::from_str(&fs::read_to_string(&agenda).unwrap()).unwrap();
    assert_eq!(
        after["2"],
        json!({"content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental", "username": "lwong"})
    );
    assert!(fs::read_to_string(&agenda).unwrap().contains("\"2\":{"));
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    verify(0);
    // Nothing more to seed: a second run changes nothing.
    seed(true, 0);
}

#[test]
fn stats_counts_dialogues_calls_and_apis() {
    let (_tmp, _databases, dialogues) = dataset();
    fs::write(dialogues.join("dentist.jsonl"), dentist()).unwrap();
    let other = dialogues.parent().unwrap().join("login");
    fs::create_dir(&other).unwrap();
    fs::write(
        other.join("login.jsonl"),
        format!("{ASK}\n{}\n", recorded(LOGIN, LOGIN_RESULT)),
    )
    .unwrap();
    let stats = run_json(
        talkforge()
            .args(["stats", "--format", "json"])
            .arg(dialogues.parent().unwrap()),
        0,
    );
    assert_eq!(stats["conversations"], 2);
    assert_eq!(stats["gold_calls"], 3);
    assert_eq!(stats["by_subset"], json!({"agenda": 1, "login": 1}));
    assert_eq!(stats["by_tool"]["GetUserToken"], 2);
    assert_eq!(stats["by_tool"]["AddAgenda"], 1);
    assert_eq!(stats["by_tool"]["ToolSearcher"], 0);
    assert_eq!(stats["by_plugin"], json!({"API-Bank": 3}));
    assert_eq!(stats["turns"], 6);
    assert_eq!(stats["user_turns"], 2);
}

#[test]
fn check_gates_an_api_bank_dataset() {
    let (tmp, _databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    fs::write(&file, dentist()).unwrap();
    let check = |code: i32| {
        talkforge()
            .arg("check")
            .arg("--root")
            .arg(tmp.path())
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone()
    };
    let out = String::from_utf8(check(0)).unwrap();
    assert!(
        out.contains("2 of 2 gold calls in 1 conversation reproduce"),
        "{out}"
    );
    assert!(out.contains("check passed"), "{out}");
    fs::write(
        &file,
        dentist().replace("\"output\": \"success\"", "\"output\": \"failed\""),
    )
    .unwrap();
    let out = String::from_utf8(check(1)).unwrap();
    assert!(
        out.contains("dentist.jsonl line 3 (AddAgenda): the recorded result differs"),
        "{out}"
    );
}

#[test]
fn a_broken_line_stops_every_command_naming_its_file_line_and_column() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("broken.jsonl");
    fs::write(
        &file,
        format!("{ASK}\n\n{{\"role\": \"AI\", \"text\": oops}}\n"),
    )
    .unwrap();
    let place = format!("{}:3:24: a JSON value should start here", file.display());
    for command in ["verify", "fill", "stats"] {
        let mut cmd = talkforge();
        cmd.arg(command).arg(&file);
        if command != "stats" {
            cmd.arg("--databases").arg(&databases);
        }
        cmd.assert()
            .code(2)
            .stderr(predicate::str::contains(&place));
    }
    // A line of the wrong shape is an error too, for lint as well (exit 2,
    // its schema finding kept).
    fs::write(
        &file,
        format!("{ASK}\n{{\"role\": \"Bot\", \"text\": \"hi\"}}\n"),
    )
    .unwrap();
    talkforge()
        .arg("verify")
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:2:10: unknown role \"Bot\"",
            file.display()
        )));
    talkforge()
        .arg("lint")
        .arg(&file)
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[schema] unknown role \"Bot\"",
        ));
}

#[test]
fn a_databases_folder_without_accounts_is_refused_by_name() {
    let (tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    fs::write(&file, dentist()).unwrap();
    fs::remove_file(databases.join("Account.json")).unwrap();
    for command in ["verify", "fill"] {
        talkforge()
            .arg(command)
            .arg(&file)
            .arg("--databases")
            .arg(&databases)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{}: no Account.json in this folder",
                databases.display()
            )));
    }
    // `--databases` defaults to the suite's folder, relative to the
    // working directory.
    talkforge()
        .current_dir(tmp.path())
        .arg("verify")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "databases/apibank: no Account.json in this folder",
        ));
}

/// The upstream dialogues through fill: `--check` reports and writes
/// nothing; a fill rewrites only the lines it reports (each line's other
/// fields byte for byte), keeps the recordings it cannot check, leaves the
/// files it reports nothing for byte for byte; and a second fill finds
/// nothing to do.
#[test]
fn upstream_dialogues_fill_only_what_they_report() {
    let Some(upstream) = talkforge::test_support::upstream("apibank") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let samples = tmp.path().join("samples");
    let mut originals = Vec::new();
    for entry in walk(&upstream.join("lv1-lv2-samples")) {
        let relative = entry
            .strip_prefix(upstream.join("lv1-lv2-samples"))
            .unwrap();
        let copy = samples.join(relative);
        fs::create_dir_all(copy.parent().unwrap()).unwrap();
        fs::copy(&entry, &copy).unwrap();
        originals.push((copy, fs::read(&entry).unwrap()));
    }
    let databases = upstream.join("init_database");
    let fill = |check: bool| {
        let mut command = talkforge();
        command
            .arg("fill")
            .arg(&samples)
            .arg("--databases")
            .arg(&databases);
        if check {
            command.arg("--check");
        }
        run_json(
            command.args(["--format", "json"]),
            if check { 1 } else { 0 },
        )
    };
    let checked = fill(true);
    assert_eq!(checked["calls"], 508);
    for (path, bytes) in &originals {
        assert_eq!(&fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    let filled = fill(false);
    assert_eq!(filled["filled"], checked["filled"]);
    let reported: Vec<(String, u64)> = filled["filled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["turn"].as_u64().unwrap(),
            )
        })
        .collect();
    for (path, bytes) in &originals {
        let before = String::from_utf8(bytes.clone()).unwrap();
        let after = fs::read_to_string(path).unwrap();
        let (before, after): (Vec<&str>, Vec<&str>) =
            (before.split('\n').collect(), after.split('\n').collect());
        assert_eq!(before.len(), after.len(), "{}", path.display());
        for (line, (old, new)) in before.iter().zip(&after).enumerate() {
            let listed = reported.contains(&(path.display().to_string(), line as u64));
            if !listed {
                assert_eq!(old, new, "{} line {line}", path.display());
                continue;
            }
            let mut old: Value = serde_json::from_str(old).unwrap();
            let mut new: Value = serde_json::from_str(new).unwrap();
            old.as_object_mut().unwrap().remove("result");
            new.as_object_mut().unwrap().remove("result");
            assert_eq!(old, new, "{} line {line}", path.display());
        }
    }
    let again = run_json(
        talkforge()
            .args(["fill", "--check", "--format", "json"])
            .arg(&samples)
            .arg("--databases")
            .arg(&databases),
        0,
    );
    assert_eq!(again["filled"], json!([]));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            files.push(path);
        }
    }
    files
}

/// `../shared/upstream/apibank` when it is there (under CI it must be).
fn upstream_apibank() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/upstream/apibank");
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} not found under CI",
        dir.display()
    );
    eprintln!("skipped: {} not found", dir.display());
    None
}

/// The upstream level-1/2 dialogues verify as the README says: 439
/// reproduce, 40 differ, 29 not checked; the QueryRegistration that lists
/// an earlier draw agrees and is not checked; after `fill --seed` over a
/// copy of the databases the 5 CancelTimedSwitch lines reproduce too.
#[test]
fn upstream_dialogues_verify_as_documented_before_and_after_seeding() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let samples = upstream.join("lv1-lv2-samples");
    let report = verify(&[&samples], &upstream.join("init_database"), 1);
    let count = |key: &str| report[key].as_array().map(Vec::len);
    assert_eq!(
        (
            report["reproduced"].as_u64(),
            count("differs"),
            count("not_checked")
        ),
        (Some(439), Some(40), Some(29))
    );
    let cascade = report["not_checked"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["api_name"] == "QueryRegistration")
        .expect("the QueryRegistration listing a drawn id is not checked");
    assert_eq!(cascade["reason"], "random");
    let cancels = |report: &Value| {
        report["differs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["api_name"] == "CancelTimedSwitch")
            .count()
    };
    assert_eq!(cancels(&report), 5);

    let tmp = tempfile::tempdir().unwrap();
    let databases = tmp.path().join("init_database");
    fs::create_dir(&databases).unwrap();
    for entry in fs::read_dir(upstream.join("init_database")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
    }
    // --check seeds in memory only: the copy of the dialogues is not needed.
    talkforge()
        .args(["fill", "--seed"])
        .arg(&samples)
        .arg("--databases")
        .arg(&databases)
        .args(["--check"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            r#"would seed TimeSwitch["10000025"]"#,
        ));
    let dialogues = tmp.path().join("samples");
    let copy = |from: &Path, to: &Path| {
        for entry in walkdir::WalkDir::new(from) {
            let entry = entry.unwrap();
            let target = to.join(entry.path().strip_prefix(from).unwrap());
            if entry.file_type().is_dir() {
                fs::create_dir_all(&target).unwrap();
            } else {
                fs::copy(entry.path(), &target).unwrap();
            }
        }
    };
    copy(&samples, &dialogues);
    talkforge()
        .args(["fill", "--seed"])
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("1 record seeded into"));
    // Only TimeSwitch.json changed.
    for entry in fs::read_dir(&databases).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let same = fs::read(&path).unwrap()
            == fs::read(upstream.join("init_database").join(&name)).unwrap();
        assert_eq!(same, name != "TimeSwitch.json", "{name:?}");
    }
    let seeded = verify(&[&samples], &databases, 1);
    assert_eq!(cancels(&seeded), 0);
    assert_eq!(seeded["reproduced"].as_u64(), Some(444));
}

#[test]
fn a_database_a_call_needs_or_an_unknown_file_is_named() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    fs::write(
        &file,
        format!(
            "{ASK}\n{}\n{}\n{DONE}\n",
            recorded(LOGIN, LOGIN_RESULT),
            recorded(ADD, ADD_RESULT)
        ),
    )
    .unwrap();
    let verify = || {
        talkforge()
            .arg("verify")
            .arg(&file)
            .arg("--databases")
            .arg(&databases)
            .assert()
    };
    verify().code(0);
    // A misspelt database: named, before anything runs.
    fs::write(databases.join("Agendas.json"), "{}").unwrap();
    verify().code(2).stderr(predicates::str::contains(
        "Agendas.json: not one of API-Bank's databases",
    ));
    fs::remove_file(databases.join("Agendas.json")).unwrap();
    // The database AddAgenda writes is missing: that dialogue is refused.
    fs::remove_file(databases.join("Agenda.json")).unwrap();
    verify().code(2).stderr(predicates::str::contains(
        "the databases folder has no Agenda.json, which AddAgenda needs",
    ));
}

/// An embeddings server that cannot be reached: verify says so once per
/// cause, naming the option that sets its address, and exits 2 (the run
/// could not do what it was asked); fill refuses to record the failure.
#[test]
fn an_embeddings_server_that_cannot_be_reached_is_one_error_naming_its_option() {
    let (_tmp, databases, dialogues) = dataset();
    let search =
        r#"{"role": "API", "api_name": "ToolSearcher", "param_dict": {"keywords": "agenda"}}"#;
    for name in ["one.jsonl", "two.jsonl"] {
        fs::write(dialogues.join(name), format!("{ASK}\n{search}\n")).unwrap();
    }
    talkforge()
        .arg("fill")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .success();
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let run = |command: &str| {
        let output = talkforge()
            .arg(command)
            .arg(&dialogues)
            .arg("--databases")
            .arg(&databases)
            .args(["--retriever", "embeddings", "--embeddings-url", &url])
            .env_remove("OPENAI_BASE_URL")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, stderr) = run("verify");
    assert_eq!(code, Some(2), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0]
            .starts_with("error: the embeddings retriever failed 2 tool searches: cannot reach"),
        "{stderr}"
    );
    assert!(errors[0].contains("--embeddings-url"), "{stderr}");
    assert!(!stderr.contains("--base-url"), "{stderr}");
    let before = fs::read_to_string(dialogues.join("one.jsonl")).unwrap();
    let (code, stderr) = run("fill");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the tool search at line 2 could not run"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(dialogues.join("one.jsonl")).unwrap(),
        before
    );
}

/// A line edited after `fill` (its arguments changed, its old result
/// still there) is not its recording any more: verify shows the stale
/// result and fill records what the edited call gives, once.
#[test]
fn a_line_edited_after_fill_is_verified_and_filled_as_it_now_reads() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    let moved = dentist().replacen(
        r#""param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00""#,
        r#""param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-03 15:30:00""#,
        1,
    );
    assert_ne!(moved, dentist());
    fs::write(&file, &moved).unwrap();
    let report = verify(&[&file], &databases, 1);
    assert_eq!(report["differs"][0]["api_name"], "AddAgenda");
    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 filled in 1 file"));
    let filled = fs::read_to_string(&file).unwrap();
    assert!(
        filled.contains(r#""input": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-03 15:30:00""#),
        "{filled}"
    );
    verify(&[&file], &databases, 0);
    talkforge()
        .args(["fill", "--check"])
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .success();
}

/// ToolSearcher answers in the reference's words by default (what
/// upstream recordings hold) and in the project catalog's with
/// `--tool-descriptions project`; a search filled one way differs the
/// other way, and check takes the setting too.
#[test]
fn tool_searches_answer_in_the_words_the_setting_names() {
    let (tmp, databases, dialogues) = dataset();
    let file = dialogues.join("search.jsonl");
    let lines = [
        r#"{"role": "User", "text": "Put a dentist visit on my agenda."}"#,
        r#"{"role": "API", "api_name": "ToolSearcher", "param_dict": {"keywords": "add agenda item"}}"#,
        r#"{"role": "AI", "text": "I found a tool for that."}"#,
    ];
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let fill = |setting: &str| {
        // fill says what the search found.
        talkforge()
            .arg("fill")
            .arg(&file)
            .arg("--databases")
            .arg(&databases)
            .args(["--tool-descriptions", setting])
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "line 2 (ToolSearcher): found GetUserToken, AddAgenda\n",
            ));
        let line = fs::read_to_string(&file).unwrap();
        let line: Value = serde_json::from_str(line.lines().nth(1).unwrap()).unwrap();
        line["result"]["output"].clone()
    };
    let project = fill("project");
    let found = &project[1];
    assert_eq!(project[0]["name"], "GetUserToken");
    assert_eq!(found["name"], "AddAgenda");
    assert_eq!(found["description"], "Puts an item on the user's agenda.");
    assert_eq!(
        found["input_parameters"]["time"],
        json!({"type": "str", "description": "Time (YYYY-MM-DD HH:MM:SS)."})
    );
    let text = project.to_string();
    assert!(!text.contains("User's token."), "{text}");
    verify(&[&file], &databases, 1);
    let with = |setting: &str, code: i32| {
        run_json(
            talkforge()
                .arg("verify")
                .arg(&file)
                .arg("--databases")
                .arg(&databases)
                .args(["--tool-descriptions", setting, "--format", "json"]),
            code,
        )
    };
    assert_eq!(with("project", 0)["reproduced"], 1);
    assert_eq!(
        with("reference", 1)["differs"][0]["api_name"],
        "ToolSearcher"
    );
    talkforge()
        .args(["check", "--tool-descriptions", "project", "--root"])
        .arg(tmp.path())
        .assert()
        .success();
    talkforge()
        .args(["check", "--root"])
        .arg(tmp.path())
        .assert()
        .code(1);

    // Filled in the reference's words, the answer is the reference's.
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let reference = fill("reference");
    assert_eq!(reference[1]["name"], "AddAgenda");
    assert_ne!(reference[1]["description"], found["description"]);
    assert_eq!(
        reference[1]["input_parameters"]["token"]["description"],
        "User's token."
    );
    assert_eq!(with("reference", 0)["reproduced"], 1);
}
