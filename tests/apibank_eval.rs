//! `evaluate --suite apibank --level 1|2`: the oracle, replayed answers
//! (every error cause), resume, the openai predictor against a stub
//! server on 127.0.0.1 (text and functions modes, what each level shows),
//! usage errors, and the oracle's counts on the upstream dialogues.

mod eval_support;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use eval_support::{text_answer, tool_answer, Stub};
use serde_json::{json, Value};

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

/// Databases (Account, Agenda) and one dialogue, `dentist.jsonl`: the user
/// asks, the AI logs in and adds the visit (two API lines in a row, so the
/// second is a target twice), then replies.
fn dataset() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let databases = tmp.path().join("databases");
    fs::create_dir_all(&databases).unwrap();
    let accounts = json!({
        "lwong": {"password": "tulip-88", "token": "q1w2e3r4t5y6", "email": "lwong@example.com"}
    });
    fs::write(databases.join("Account.json"), accounts.to_string()).unwrap();
    fs::write(databases.join("Agenda.json"), "{}").unwrap();
    let dialogues = tmp.path().join("dialogues");
    fs::create_dir_all(&dialogues).unwrap();
    let lines = [
        json!({"role": "User", "text": "Please put a dentist visit on my agenda for May 2nd at 3:30 pm at Pearl Dental. Username lwong, password tulip-88."}),
        json!({"role": "API", "api_name": "GetUserToken", "param_dict": {"username": "lwong", "password": "tulip-88"},
               "result": {"api_name": "GetUserToken", "input": {"username": "lwong", "password": "tulip-88"}, "output": {"token": "q1w2e3r4t5y6"}, "exception": null}}),
        json!({"role": "API", "api_name": "AddAgenda", "param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"},
               "result": {"api_name": "AddAgenda", "input": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}, "output": "success", "exception": null}}),
        json!({"role": "AI", "text": "Your dentist visit is on the agenda."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dialogues.join("dentist.jsonl"), text).unwrap();
    (tmp, databases, dialogues)
}

fn evaluate(dialogues: &Path, databases: &Path, extra: &[&str], code: i32) -> Value {
    let out = talkforge()
        .arg("evaluate")
        .arg(dialogues)
        .arg("--databases")
        .arg(databases)
        .args(["--format", "json"])
        .args(extra)
        .assert()
        .code(code)
        .get_output()
        .clone();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn sample(summary: &Value, turn: u64, occurrence: u64) -> &Value {
    summary["per_sample"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["turn"] == turn && s["occurrence"] == occurrence)
        .unwrap_or_else(|| panic!("no sample at turn {turn} occurrence {occurrence}"))
}

#[test]
fn the_oracle_answers_every_sample_of_a_clean_dialogue() {
    let (_tmp, databases, dialogues) = dataset();
    let summary = evaluate(
        &dialogues,
        &databases,
        &["--level", "1", "--predictor", "oracle"],
        0,
    );
    assert_eq!(summary["suite"], "apibank");
    assert_eq!(summary["level"], 1);
    assert_eq!(summary["samples"], 3);
    assert_eq!(summary["correct"], 3);
    assert_eq!(summary["accuracy"], 1.0);
    assert_eq!(summary["rouge_l"], 1.0);
    let keys: Vec<&str> = sample(&summary, 2, 1)
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in [
        "file",
        "turn",
        "occurrence",
        "api_name",
        "correct",
        "reason",
        "rouge_l",
    ] {
        assert!(keys.contains(&key), "per_sample lacks {key}");
    }
    assert_eq!(sample(&summary, 1, 0)["api_name"], "GetUserToken");
    assert_eq!(sample(&summary, 2, 0)["rouge_l"], 1.0);
    assert_eq!(sample(&summary, 2, 1)["rouge_l"], Value::Null);
    assert_eq!(sample(&summary, 2, 1)["file"], "dentist.jsonl");
}

/// Replayed answers: what models write well and badly, and the cause each
/// wrong one is given.
#[test]
fn replayed_answers_are_scored_with_their_causes_and_resumed() {
    let (tmp, databases, dialogues) = dataset();
    let predictions = tmp.path().join("predictions.jsonl");
    let lines = [
        json!({"file": "dentist.jsonl", "turn": 1, "occurrence": 0,
               "output": "Sure, logging in first.\nAPI-Request: [GetUserToken(username=\"lwong\", password='tulip-88')]"}),
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 0,
               "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='2024-05-02 15:30:00', location='Pearl Dental')]",
               "reply": "Your dentist visit is now on the agenda."}),
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 1,
               "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='May 2nd', location='Pearl Dental')]"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&predictions, text).unwrap();
    let out = tmp.path().join("out");
    let args = [
        "--level",
        "1",
        "--predictor",
        "replay",
        "--predictions",
        predictions.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let summary = evaluate(&dialogues, &databases, &args, 1);
    assert_eq!(
        (summary["samples"].clone(), summary["correct"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(sample(&summary, 1, 0)["correct"], true);
    let wrong = sample(&summary, 2, 1);
    assert_eq!(wrong["correct"], false);
    assert_eq!(wrong["cause"], "exception");
    assert!(
        wrong["reason"].as_str().unwrap().contains("May 2nd"),
        "{wrong}"
    );
    let expected = talkforge::suites::apibank::eval::rouge::rouge_l(
        "Your dentist visit is now on the agenda.",
        "Your dentist visit is on the agenda.",
    );
    assert!(expected > 0.5 && expected < 1.0);
    assert_eq!(sample(&summary, 2, 0)["rouge_l"], expected);
    assert_eq!(summary["rouge_l"], expected);
    assert_eq!(summary["causes"]["exception"], 1);
    assert_eq!(summary["by_api"]["AddAgenda"]["error_rate"], 0.5);
    for file in ["summary.json", "report.md", "samples/dentist.jsonl.json"] {
        assert!(out.join(file).is_file(), "{file} was not written");
    }
    let detail: Value =
        serde_json::from_str(&fs::read_to_string(out.join("samples/dentist.jsonl.json")).unwrap())
            .unwrap();
    assert_eq!(
        detail["samples"][1]["reply"],
        "Your dentist visit is now on the agenda."
    );
    assert_eq!(
        detail["samples"][0]["predicted"]["param_dict"]["username"],
        "lwong"
    );
    // The provenance (a date, the temporary folders) is checked apart.
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    let (tables, provenance) = report.split_once("\n## Provenance\n").unwrap();
    insta::assert_snapshot!("apibank_replay_report", tables);
    assert!(provenance.contains("| `replay` | - | - |"), "{provenance}");
    // A second run takes the dialogue from --out.
    let again = evaluate(&dialogues, &databases, &args, 1);
    assert_eq!(again["resumed"], 1);
    assert_eq!(again["per_sample"], summary["per_sample"]);
    // Other settings evaluate it again.
    let mut other = args.to_vec();
    other.extend(["--state", "replayed"]);
    let replayed = evaluate(&dialogues, &databases, &other, 1);
    assert_eq!(replayed["resumed"], 0);
    // The human output names the wrong sample at its 1-based line (turn
    // 2 of the JSON is the file's third line), as report.md does.
    let human = talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args(args)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let human = String::from_utf8(human).unwrap();
    assert!(
        human.contains("  dentist.jsonl line 3 (second sample) AddAgenda: "),
        "{human}"
    );
}

/// Both scorings judge every sample; `--scoring` picks the one the
/// figures follow, and the samples they judge differently are listed with
/// the correction that made the difference.
#[test]
fn both_scorings_are_reported_and_the_chosen_one_decides() {
    let (tmp, databases, dialogues) = dataset();
    let predictions = tmp.path().join("predictions.jsonl");
    let lines = [
        // Spaces inside the brackets: the reference's pattern finds no call.
        json!({"file": "dentist.jsonl", "turn": 1, "occurrence": 0,
               "output": "[ GetUserToken(username='lwong', password='tulip-88') ]"}),
        // Mismatched quotes: the reference reads them as if they matched,
        // and the lenient scoring, whose reading refuses them, falls back
        // on the reference's.
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 0,
               "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit\", time='2024-05-02 15:30:00', location='Pearl Dental')]"}),
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 1,
               "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='2024-05-02 15:30:00', location='Pearl Dental')]"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&predictions, text).unwrap();
    let out = tmp.path().join("out");
    let args = |scoring: &'static str| {
        vec![
            "--level".to_string(),
            "1".into(),
            "--predictor".into(),
            "replay".into(),
            "--predictions".into(),
            predictions.to_str().unwrap().into(),
            "--out".into(),
            out.to_str().unwrap().into(),
            "--scoring".into(),
            scoring.into(),
        ]
    };
    // Exit 1 while a sample is wrong under the chosen scoring.
    let run = |scoring, code| {
        let args = args(scoring);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        evaluate(&dialogues, &databases, &args, code)
    };
    let reference = run("reference", 1);
    assert_eq!(reference["scoring"], "reference");
    assert_eq!(reference["settings"]["scoring"], "reference");
    for (key, value) in [
        ("correct", json!(2)),
        ("correct_reference", json!(2)),
        ("correct_lenient", json!(3)),
        ("accuracy_reference", json!(2.0 / 3.0)),
        ("accuracy_lenient", json!(1.0)),
    ] {
        assert_eq!(reference[key], value, "{key}");
    }
    let layout = sample(&reference, 1, 0);
    assert_eq!(
        (
            &layout["correct"],
            &layout["correct_reference"],
            &layout["correct_lenient"]
        ),
        (&json!(false), &json!(false), &json!(true))
    );
    assert_eq!(layout["cause"], "parse_failure");
    assert_eq!(
        layout["scoring_difference"]["corrections"],
        json!(["call_layout"])
    );
    assert_eq!(layout["scoring_difference"]["lenient"], Value::Null);
    let quotes = sample(&reference, 2, 0);
    assert_eq!(
        (&quotes["correct_reference"], &quotes["correct_lenient"]),
        (&json!(true), &json!(true))
    );
    assert!(quotes.get("scoring_difference").is_none());
    assert!(sample(&reference, 2, 1).get("scoring_difference").is_none());
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| 1 | reference | 66.7 (2/3) | 100.0 (3/3) |"),
        "{report}"
    );
    assert!(
        report.contains("The samples the two scorings judge differently"),
        "{report}"
    );
    assert!(
        report.contains(
            "| 1 | `dentist.jsonl line 2` | GetUserToken | wrong | right | `call_layout` |"
        ),
        "{report}"
    );
    assert!(!report.contains("right | wrong"), "{report}");

    // The other scoring evaluates again (the verdicts' reasons are its own).
    let lenient = run("lenient", 0);
    assert_eq!(lenient["resumed"], 0);
    assert_eq!(lenient["scoring"], "lenient");
    assert_eq!(sample(&lenient, 1, 0)["correct"], true);
    assert_eq!(sample(&lenient, 2, 0)["correct"], true);
    assert_eq!(
        (&lenient["correct_reference"], &lenient["correct_lenient"]),
        (&json!(2), &json!(3))
    );
    let human = talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args(args("lenient"))
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let human = String::from_utf8(human).unwrap();
    assert!(
        human.contains("API-call accuracy 100.0% (3/3; lenient scoring; reference 66.7% (2/3))"),
        "{human}"
    );
}

#[test]
fn every_error_cause_is_told_apart() {
    let (tmp, databases, dialogues) = dataset();
    let predictions = tmp.path().join("predictions.jsonl");
    let lines = [
        json!({"file": "dentist.jsonl", "turn": 1, "occurrence": 0, "output": "[CheckToken(token='q1w2e3r4t5y6')]"}),
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 0, "output": "[AddAgendaItem(token='q1w2e3r4t5y6')]"}),
        json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 1, "output": "[AddAgenda(token='q1w2e3r4t5y6', content='x'"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&predictions, text).unwrap();
    let args = [
        "--level",
        "2",
        "--predictor",
        "replay",
        "--predictions",
        predictions.to_str().unwrap(),
    ];
    let summary = evaluate(&dialogues, &databases, &args, 1);
    assert_eq!(summary["correct"], 0);
    assert_eq!(sample(&summary, 1, 0)["cause"], "wrong_api");
    assert_eq!(sample(&summary, 2, 0)["cause"], "unknown_api");
    assert_eq!(sample(&summary, 2, 1)["cause"], "parse_failure");
    // No line for the reply: scored as an empty reply.
    assert_eq!(sample(&summary, 2, 0)["rouge_l"], 0.0);

    fs::write(
        &predictions,
        format!(
            "{}\n{}\n",
            json!({"file": "dentist.jsonl", "turn": 1, "occurrence": 0, "output": "I cannot help with that."}),
            json!({"file": "dentist.jsonl", "turn": 2, "occurrence": 0,
                   "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='2024-05-02 15:30:00', location='Pearl Dental', room='3')]"}),
        ),
    )
    .unwrap();
    let summary = evaluate(&dialogues, &databases, &args, 1);
    assert_eq!(sample(&summary, 1, 0)["cause"], "no_api_call");
    assert_eq!(sample(&summary, 2, 0)["cause"], "exception");
    assert_eq!(
        sample(&summary, 2, 0)["reason"],
        "the call raised before its API ran: invalid parameter name. parameter: room"
    );
    // The second sample has no line: an empty answer.
    assert_eq!(sample(&summary, 2, 1)["cause"], "no_api_call");
}

#[test]
fn a_bad_replay_line_is_named_with_its_line() {
    let (tmp, databases, dialogues) = dataset();
    let predictions = tmp.path().join("predictions.jsonl");
    fs::write(
        &predictions,
        "{\"file\": \"dentist.jsonl\", \"turn\": 1, \"occurrence\": 0, \"output\": \"x\"}\n{\"file\": \"other.jsonl\", \"turn\": 1, \"output\": \"x\"}\n",
    )
    .unwrap();
    talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args(["--level", "1", "--predictor", "replay", "--predictions"])
        .arg(&predictions)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("predictions.jsonl:2"))
        .stderr(predicates::str::contains("none of the evaluated dialogues"));
    let refused = |text: &str, message: &str| {
        fs::write(&predictions, text).unwrap();
        talkforge()
            .arg("evaluate")
            .arg(&dialogues)
            .arg("--databases")
            .arg(&databases)
            .args(["--level", "1", "--predictor", "replay", "--predictions"])
            .arg(&predictions)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("predictions.jsonl:1"))
            .stderr(predicates::str::contains(message.to_string()));
    };
    refused(
        "{\"file\": \"dentist.jsonl\", \"turn\": 3, \"output\": \"x\"}\n",
        // Issue 35, item 6: a person reads lines as an editor numbers them
        // and a line's second sample by that name, as in every report; the
        // file's own (0-based) fields are quoted as written.
        "dentist.jsonl has no call sample at line 4 (`\"turn\": 3, \"occurrence\": 0`); its call samples: \
         line 2 (`\"turn\": 1, \"occurrence\": 0`), line 3 (`\"turn\": 2, \"occurrence\": 0`), \
         line 3 (second sample) (`\"turn\": 2, \"occurrence\": 1`)",
    );
    refused(
        "{\"file\": \"dentist.jsonl\", \"turn\": 2, \"occurrence\": 1, \"output\": \"x\", \"reply\": \"Hi\"}\n",
        "no reply sample follows line 3 (second sample) (`\"turn\": 2, \"occurrence\": 1`;",
    );
    refused(
        "{\"file\": \"dentist.jsonl\", \"turn\": 1}\n",
        "missing field `output`",
    );
}

#[test]
fn levels_are_checked_and_refused_for_conversation_suites() {
    let (_tmp, databases, dialogues) = dataset();
    let run = |args: &[&str]| {
        talkforge()
            .arg("evaluate")
            .arg(&dialogues)
            .arg("--databases")
            .arg(&databases)
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone()
    };
    let stderr = String::from_utf8(run(&["--predictor", "oracle"])).unwrap();
    assert!(
        stderr.contains("evaluated at a level: give --level"),
        "{stderr}"
    );
    // Level 3 runs scenarios, and the folder holds dialogues only.
    let stderr = String::from_utf8(run(&["--predictor", "oracle", "--level", "3"])).unwrap();
    assert!(
        stderr.contains("no level-3 scenario among the files given"),
        "{stderr}"
    );
    // Level 3 reads and matches calls its own way.
    let stderr = String::from_utf8(run(&[
        "--predictor",
        "oracle",
        "--level",
        "3",
        "--scoring",
        "lenient",
    ]))
    .unwrap();
    assert!(
        stderr.contains(
            "--scoring is for levels 1 and 2: at --level 3 a call is read as it is written"
        ),
        "{stderr}"
    );
    let stderr = String::from_utf8(run(&["--predictor", "oracle", "--level", "4"])).unwrap();
    assert!(stderr.contains("has no level 4"), "{stderr}");
    assert!(stderr.contains("3 (conversations with a user"), "{stderr}");
    let stderr = String::from_utf8(run(&[
        "--predictor",
        "oracle",
        "--level",
        "1",
        "--api-mode",
        "exact",
    ]))
    .unwrap();
    assert!(
        stderr.contains("--api-mode exact is for conversation suites"),
        "{stderr}"
    );

    let tooltalk = Path::new(env!("CARGO_MANIFEST_DIR")).join("conversations/easy");
    let out = talkforge()
        .arg("evaluate")
        .arg(&tooltalk)
        .args(["--predictor", "oracle", "--level", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert!(
        stderr.contains("--level is for suites evaluated by samples at levels (API-Bank); the tooltalk suite is evaluated by whole conversations"),
        "{stderr}"
    );
    let out = talkforge()
        .arg("evaluate")
        .arg(&tooltalk)
        .args(["--predictor", "oracle", "--scoring", "lenient"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8(out).unwrap();
    assert!(
        stderr.contains("--scoring is for suites evaluated by samples at levels"),
        "{stderr}"
    );
}

fn system_prompt(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

/// The scripted model: a reply request gets a reply, a call request the
/// gold call of the line it is asked about (the last message tells).
fn model(_path: &str, body: &Value, _count: usize) -> (u16, Value) {
    let system = system_prompt(body);
    if system.contains("next message to the user") {
        return (
            200,
            text_answer("Done: your dentist visit is on the agenda."),
        );
    }
    let messages = body["messages"].as_array().unwrap();
    let after_login = messages.len() > 2;
    if body.get("tools").is_some() {
        return (
            200,
            if after_login {
                tool_answer(&[(
                    "AddAgenda",
                    r#"{"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}"#,
                )])
            } else {
                tool_answer(&[(
                    "GetUserToken",
                    r#"{"username": "lwong", "password": "tulip-88"}"#,
                )])
            },
        );
    }
    let text = if after_login {
        "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='2024-05-02 15:30:00', location='Pearl Dental')]"
    } else {
        "[GetUserToken(username='lwong', password='tulip-88')]"
    };
    (200, text_answer(text))
}

#[test]
fn a_reply_with_nothing_in_it_is_asked_again_and_never_cached() {
    let (tmp, databases, dialogues) = dataset();
    // The first request gets a message with no content and no tool call,
    // the second no choice at all; then the scripted model answers.
    let stub = Stub::start(Box::new(
        |path: &str, body: &Value, count: usize| match count {
            0 => {
                let mut answer = text_answer("x");
                answer["choices"][0]["message"]["content"] = Value::Null;
                (200, answer)
            }
            1 => (
                200,
                json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}),
            ),
            _ => model(path, body, count),
        },
    ));
    let cache = tmp.path().join("cache");
    let args = [
        "--level",
        "1",
        "--predictor",
        "openai",
        "--model",
        "stub-model",
        "--base-url",
        &stub.url,
        "--retry-base",
        "0.005",
        "--cache",
        cache.to_str().unwrap(),
    ];
    let summary = evaluate(&dialogues, &databases, &args, 0);
    assert_eq!(summary["correct"], 3, "{summary}");
    // Only answers were kept: a rerun asks nothing.
    let asked = stub.requests().len();
    let again = evaluate(&dialogues, &databases, &args, 0);
    assert_eq!(again["correct"], 3);
    assert_eq!(stub.requests().len(), asked);
    for entry in fs::read_dir(cache.join("chat")).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(
            !text.contains("\"content\":null") && !text.contains("\"choices\":[]"),
            "{text}"
        );
    }
}

#[test]
fn one_bad_dialogue_is_listed_beside_the_results_of_the_others() {
    let (_tmp, databases, dialogues) = dataset();
    fs::write(dialogues.join("broken.jsonl"), "{\"role\": \"User\",\n").unwrap();
    let output = talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args(["--format", "json", "--level", "1", "--predictor", "oracle"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["correct"], 3, "{summary}");
    let failures = summary["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{summary}");
    assert!(failures[0]["error"]
        .as_str()
        .unwrap()
        .contains("broken.jsonl:1:"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 of 2 dialogues"));
}

#[test]
fn a_chat_model_is_asked_what_each_level_shows() {
    let (tmp, databases, dialogues) = dataset();
    let stub = Stub::start(Box::new(model));
    let cache = tmp.path().join("cache");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--predictor",
            "openai",
            "--model",
            "stub-model",
            "--base-url",
            &stub.url,
            "--cache",
            cache.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        evaluate(&dialogues, &databases, &args, 0)
    };
    let summary = run(&["--level", "1"]);
    assert_eq!(summary["correct"], 3);
    let requests = stub.requests();
    // Three call samples and one reply; the line's second sample asks
    // exactly what its first asked, and is answered from the cache.
    assert_eq!(requests.len(), 3);
    // Their tokens: three replies sent, one from the cache (the stub
    // reports 1 + 1 a reply).
    assert_eq!(
        summary["usage"],
        json!([{"model": "stub-model", "role": "assistant", "requests": 4, "cached": 1,
                "prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6,
                "cached_prompt_tokens": 1, "cached_completion_tokens": 1,
                "cached_total_tokens": 2, "without_usage": 0}])
    );
    let call = requests
        .iter()
        .find(|r| !system_prompt(&r.body).contains("next message"))
        .unwrap();
    let system = system_prompt(&call.body);
    assert!(system.contains("\"name\":\"AddAgenda\""), "{system}");
    assert!(system.contains("\"name\":\"GetUserToken\""), "{system}");
    assert!(!system.contains("\"name\":\"ToolSearcher\""), "{system}");
    // The second call sample sees the login as an API line.
    let second = requests
        .iter()
        .find(|r| r.body["messages"].as_array().unwrap().len() == 3)
        .unwrap();
    insta::assert_snapshot!(
        "apibank_level1_call_messages",
        serde_json::to_string_pretty(&second.body["messages"]).unwrap()
    );
    let reply = requests
        .iter()
        .find(|r| system_prompt(&r.body).contains("next message"))
        .unwrap();
    insta::assert_snapshot!("apibank_reply_prompt", system_prompt(&reply.body));
    assert_eq!(second.body["messages"][2]["role"], "system");
    assert!(second.body["messages"][2]["content"]
        .as_str()
        .unwrap()
        .starts_with("[GetUserToken(username='lwong', password='tulip-88')] Response: "));

    // Level 2 shows ToolSearcher alone.
    let summary = run(&["--level", "2"]);
    assert_eq!(summary["samples"], 3);
    let level2 = &stub.requests()[3..];
    let call = level2
        .iter()
        .find(|r| !system_prompt(&r.body).contains("next message"))
        .unwrap();
    let system = system_prompt(&call.body);
    insta::assert_snapshot!("apibank_level2_call_prompt", system);
    assert!(system.contains("\"name\":\"ToolSearcher\""), "{system}");
    assert!(!system.contains("\"name\":\"AddAgenda\""), "{system}");

    // Functions mode: the APIs as tools, answered with tool calls.
    let summary = run(&["--level", "1", "--api-mode", "functions"]);
    assert_eq!(summary["correct"], 3);
    let functions = stub.requests();
    let with_tools: Vec<_> = functions
        .iter()
        .filter(|r| r.body.get("tools").is_some())
        .collect();
    // Two distinct requests (the line's second sample is the first's).
    assert_eq!(with_tools.len(), 2);
    assert_eq!(with_tools[1].body["messages"][2]["role"], "assistant");
    assert_eq!(
        with_tools[1].body["messages"][2]["tool_calls"][0]["function"]["name"],
        "GetUserToken"
    );

    // A template of one's own (here one line) replaces the system prompt;
    // one that does not compile is refused, naming the file.
    let template = tmp.path().join("mine.j2");
    fs::write(
        &template,
        "Task {{ task }} at level {{ level }}: {% for api in apis %}{{ api.name }} {% endfor %}",
    )
    .unwrap();
    let before = stub.requests().len();
    run(&["--level", "1", "--template", template.to_str().unwrap()]);
    let mine = &stub.requests()[before..];
    assert!(mine
        .iter()
        .any(|r| system_prompt(&r.body) == "Task call at level 1: AddAgenda GetUserToken"));
    fs::write(&template, "{% for api in apis %}").unwrap();
    talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args([
            "--level",
            "1",
            "--predictor",
            "openai",
            "--base-url",
            &stub.url,
            "--template",
        ])
        .arg(&template)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("mine.j2"))
        .stderr(predicates::str::contains("does not compile"));

    // A rerun is answered from the cache.
    let before = stub.requests().len();
    run(&["--level", "1"]);
    assert_eq!(stub.requests().len(), before);
}

/// The samples the reference's evaluator counts wrong when the gold calls
/// are scored as predictions: `(file, line of the gold API line,
/// occurrence)`. Found by running the reference's own `Evaluator.evaluate`
/// (api-bank/evaluator.py, DAMO-ConvAI 483554e) outside the repository on
/// the upstream dialogues, each gold call written as its prompts write a
/// call (`[Name(key='value', ...)]`), with ToolSearcher answering each
/// gold search for the API the dialogue recorded and the live services
/// offline.
const REFERENCE_WRONG_LEVEL_1: &[(&str, u64, u64)] = &[
    ("AddAgenda-AddMeeting-GetUserToken-level-2-3.jsonl", 4, 0),
    ("AddAgenda-AddMeeting-GetUserToken-level-2-3.jsonl", 4, 1),
    ("AddMeeting-level-1-1.jsonl", 13, 0),
    (
        "CancelRegistration-RecordHealthData-QueryRegistration-level-2-1.jsonl",
        7,
        0,
    ),
    (
        "CancelRegistration-RecordHealthData-QueryRegistration-level-2-2.jsonl",
        6,
        0,
    ),
    ("CancelRegistration-RecordHealthData-level-2-1.jsonl", 12, 0),
    ("CancelRegistration-RecordHealthData-level-2-2.jsonl", 10, 0),
    ("CancelRegistration-RecordHealthData-level-2-3.jsonl", 8, 0),
    ("CancelRegistration-RecordHealthData-level-2-4.jsonl", 8, 0),
    ("CancelTimedSwitch-level-1-1.jsonl", 2, 0),
    ("CancelTimedSwitch-level-1-2.jsonl", 6, 0),
    ("CancelTimedSwitch-level-1-3.jsonl", 3, 0),
    ("CancelTimedSwitch-level-1-4.jsonl", 6, 0),
    ("CancelTimedSwitch-level-1-5.jsonl", 2, 0),
    ("DeleteMeeting-level-1-1.jsonl", 8, 0),
    ("Dictionary-level-1-1.jsonl", 2, 0),
    ("Dictionary-level-1-2.jsonl", 2, 0),
    ("Dictionary-level-1-3.jsonl", 2, 0),
    ("Dictionary-level-1-4.jsonl", 2, 0),
    ("Dictionary-level-1-4.jsonl", 6, 0),
    (
        "EmergencyKnowledge-ModifyRegistration-RecordHealthData-level-2-2.jsonl",
        12,
        0,
    ),
    (
        "EmergencyKnowledge-ModifyRegistration-RecordHealthData-level-2-3.jsonl",
        18,
        0,
    ),
    (
        "ForgotPassword-ModifyPassword-GetUserToken-level-2-1.jsonl",
        10,
        0,
    ),
    (
        "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl",
        10,
        0,
    ),
    (
        "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl",
        17,
        0,
    ),
    (
        "ForgotPassword-RegisterUser-DeleteAccount-GetUserToken-level-2-1.jsonl",
        27,
        0,
    ),
    ("ForgotPassword-level-1-1.jsonl", 10, 0),
    ("GetMeeting-level-1-1.jsonl", 5, 0),
    ("GetMeeting-level-1-2.jsonl", 8, 0),
    (
        "GetToday-ModifyMeeting-ModifyAlarm-GetUserToken-level-2-1.jsonl",
        9,
        0,
    ),
    (
        "GetToday-ModifyMeeting-ModifyAlarm-GetUserToken-level-2-2.jsonl",
        13,
        0,
    ),
    ("ModifyMeeting-level-1-1.jsonl", 9, 0),
    ("ModifyMeeting-level-1-2.jsonl", 10, 0),
    ("ModifyMeeting-level-1-3.jsonl", 10, 0),
    (
        "ModifyPassword-ForgotPassword-DeleteAccount-GetUserToken-level-2-3.jsonl",
        8,
        0,
    ),
    (
        "ModifyPassword-ForgotPassword-DeleteAccount-GetUserToken-level-2-3.jsonl",
        13,
        0,
    ),
    ("QueryMeeting-level-1-1.jsonl", 7, 0),
    (
        "QueryRegistration-SymptomSearch-RecordHealthData-level-2-1.jsonl",
        14,
        0,
    ),
    (
        "QueryRegistration-SymptomSearch-RecordHealthData-level-2-2.jsonl",
        13,
        0,
    ),
    ("QueryScene-level-1-1.jsonl", 2, 0),
    ("QueryScene-level-1-2.jsonl", 2, 0),
    ("QueryScene-level-1-3.jsonl", 3, 0),
    ("QueryScene-level-1-4.jsonl", 2, 0),
    ("QueryScene-level-1-5.jsonl", 3, 0),
    (
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-1.jsonl",
        4,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-2.jsonl",
        8,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-3.jsonl",
        7,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-4.jsonl",
        8,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-5.jsonl",
        4,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-1.jsonl",
        6,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-2.jsonl",
        4,
        0,
    ),
    (
        "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-2.jsonl",
        16,
        0,
    ),
    ("RecordHealthData-level-1-1.jsonl", 3, 0),
    ("RecordHealthData-level-1-2.jsonl", 8, 0),
    ("TimedSwitch-level-1-1.jsonl", 10, 0),
    ("TimedSwitch-level-1-2.jsonl", 5, 0),
    ("TimedSwitch-level-1-3.jsonl", 6, 0),
    ("Translate-level-1-1.jsonl", 2, 0),
    ("Translate-level-1-2.jsonl", 2, 0),
    ("Translate-level-1-3.jsonl", 3, 0),
    ("Translate-level-1-4.jsonl", 2, 0),
];

/// As [`REFERENCE_WRONG_LEVEL_1`], for level 2.
const REFERENCE_WRONG_LEVEL_2: &[(&str, u64, u64)] = &[
    ("AddAgenda-level-3-1.jsonl", 2, 0),
    ("AddAgenda-level-3-2.jsonl", 2, 0),
    ("AddAlarm-level-3-1.jsonl", 2, 0),
    ("AddAlarm-level-3-2.jsonl", 2, 0),
    ("AddMeeting-level-3-1.jsonl", 10, 0),
    ("AddMeeting-level-3-2.jsonl", 2, 0),
    ("AddMeeting-level-3-2.jsonl", 8, 0),
    ("AddReminder-level-3-1.jsonl", 2, 0),
    ("DeleteAccount-level-3-1.jsonl", 1, 0),
    ("DeleteAccount-level-3-2.jsonl", 1, 0),
    ("DeleteAccount-level-3-3.jsonl", 1, 0),
    ("DeleteAgenda-level-3-1.jsonl", 1, 0),
    ("DeleteAgenda-level-3-2.jsonl", 2, 0),
    ("DeleteAlarm-level-3-1.jsonl", 2, 0),
    ("DeleteMeeting-level-3-1.jsonl", 2, 0),
    ("DeleteMeeting-level-3-1.jsonl", 10, 0),
    ("DeleteMeeting-level-3-2.jsonl", 2, 0),
    ("DeleteMeeting-level-3-2.jsonl", 9, 0),
    ("DeleteReminder-level-3-1.jsonl", 2, 0),
    ("EmergencyKnowledge-level-3-1.jsonl", 3, 0),
    ("ModifyAgenda-level-3-1.jsonl", 4, 0),
    ("ModifyMeeting-level-3-1.jsonl", 2, 0),
    ("ModifyMeeting-level-3-1.jsonl", 8, 0),
    ("ModifyReminder-level-3-1.jsonl", 4, 0),
    ("QueryAlarm-level-3-1.jsonl", 2, 0),
    ("QueryHistoryToday-level-3-2.jsonl", 2, 0),
    ("QueryHistoryToday-level-3-3.jsonl", 2, 0),
    ("QueryMeeting-level-3-1.jsonl", 2, 0),
    ("QueryMeeting-level-3-1.jsonl", 8, 0),
    ("QueryMeeting-level-3-2.jsonl", 2, 0),
    ("QueryMeeting-level-3-2.jsonl", 8, 0),
    ("QueryRegistration-level-3-1.jsonl", 1, 0),
    ("QueryRegistration-level-3-2.jsonl", 3, 0),
    ("QueryStock-level-3-1.jsonl", 2, 0),
    ("RecordHealthData-level-3-1.jsonl", 2, 0),
    ("RecordHealthData-level-3-1.jsonl", 8, 0),
    ("RecordHealthData-level-3-2.jsonl", 2, 0),
    ("RecordHealthData-level-3-2.jsonl", 8, 0),
    ("RecordHealthData-level-3-3.jsonl", 2, 0),
    ("RecordHealthData-level-3-3.jsonl", 10, 0),
];

/// The reference's evaluator, scoring the gold calls as predictions,
/// counts 338 of 399 level-1 and 95 of 135 level-2 samples correct; the
/// lenient scoring (the README's table of corrections) 372 and 105.
#[test]
fn the_oracle_reproduces_the_reference_counts_on_upstream() {
    let Some(upstream) = talkforge::test_support::upstream("apibank") else {
        eprintln!("skipped: ../shared/upstream/apibank is absent");
        return;
    };
    let databases = upstream.join("init_database");
    for (level, folder, samples, correct, lenient, reference_wrong) in [
        (
            "1",
            "level-1-given-desc",
            399,
            338,
            372,
            REFERENCE_WRONG_LEVEL_1,
        ),
        (
            "2",
            "level-2-toolsearcher",
            135,
            95,
            105,
            REFERENCE_WRONG_LEVEL_2,
        ),
    ] {
        let summary = evaluate(
            &upstream.join("lv1-lv2-samples").join(folder),
            &databases,
            &["--level", level, "--predictor", "oracle"],
            1,
        );
        assert_eq!(summary["samples"], samples, "level {level}");
        assert_eq!(summary["scoring"], "reference");
        assert_eq!(summary["correct"], correct, "level {level}");
        assert_eq!(summary["correct_reference"], correct, "level {level}");
        assert_eq!(summary["correct_lenient"], lenient, "level {level}");
        // The lenient scoring only corrects: every sample it judges
        // otherwise was wrong under the reference's, and names why.
        for s in summary["per_sample"].as_array().unwrap() {
            if s["correct_reference"] != s["correct_lenient"] {
                assert_eq!(s["correct_lenient"], true, "{s}");
                assert!(!s["scoring_difference"]["corrections"]
                    .as_array()
                    .unwrap()
                    .is_empty());
            } else {
                assert!(s.get("scoring_difference").is_none(), "{s}");
            }
        }
        let chosen = evaluate(
            &upstream.join("lv1-lv2-samples").join(folder),
            &databases,
            &[
                "--level",
                level,
                "--predictor",
                "oracle",
                "--scoring",
                "lenient",
            ],
            1,
        );
        assert_eq!(chosen["scoring"], "lenient");
        assert_eq!(chosen["correct"], lenient, "level {level}");
        assert_eq!(chosen["correct_reference"], correct, "level {level}");
        let mut wrong_here: Vec<(String, u64, u64)> = summary["per_sample"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["correct"] == false)
            .map(|s| {
                (
                    s["file"].as_str().unwrap().to_string(),
                    s["turn"].as_u64().unwrap(),
                    s["occurrence"].as_u64().unwrap(),
                )
            })
            .collect();
        let mut expected: Vec<(String, u64, u64)> = reference_wrong
            .iter()
            .map(|(f, t, o)| (f.to_string(), *t, *o))
            .collect();
        wrong_here.sort();
        expected.sort();
        assert_eq!(
            wrong_here, expected,
            "level {level}: not the reference's wrong samples"
        );
        let wrong = |file: &str, turn: u64, occurrence: u64| {
            summary["per_sample"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["file"] == file && s["turn"] == turn && s["occurrence"] == occurrence)
                .map(|s| (s["correct"].clone(), s["cause"].clone()))
        };
        if level == "1" {
            // A meeting line after another API line: the first sample's
            // check deletes meeting_topic from the shared gold result.
            let file = "AddAgenda-AddMeeting-GetUserToken-level-2-3.jsonl";
            assert_eq!(wrong(file, 4, 1).unwrap().0, false);
            // The dialogues' device_id is no parameter of the reference's TimedSwitch.
            assert_eq!(
                wrong("TimedSwitch-level-1-1.jsonl", 10, 0).unwrap(),
                (json!(false), json!("exception"))
            );
            let named = |file: &str, turn: u64, occurrence: u64| {
                summary["per_sample"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|s| {
                        s["file"] == file && s["turn"] == turn && s["occurrence"] == occurrence
                    })
                    .map(|s| s["scoring_difference"]["corrections"].clone())
                    .unwrap()
            };
            assert_eq!(
                named("TimedSwitch-level-1-1.jsonl", 10, 0),
                json!(["device_name"])
            );
            assert_eq!(named(file, 4, 1), json!(["gold_kept"]));
            assert_eq!(
                named("DeleteMeeting-level-1-1.jsonl", 8, 0),
                json!(["delete_meeting_time"])
            );
        }
    }
}

/// A deletion of what the dialogue added earlier: from the initial
/// databases (`--state fresh`, the reference's way) there is nothing to
/// delete; after the earlier gold calls (`--state replayed`) there is.
#[test]
fn the_start_state_decides_a_call_that_needs_what_the_dialogue_made() {
    let (_tmp, databases, dialogues) = dataset();
    let file = dialogues.join("dentist.jsonl");
    let mut text = fs::read_to_string(&file).unwrap();
    text += &format!(
        "{}\n{}\n{}\n",
        json!({"role": "User", "text": "Actually, remove that visit again."}),
        json!({"role": "API", "api_name": "DeleteAgenda", "param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}}),
        json!({"role": "AI", "text": "The dentist visit is off your agenda."}),
    );
    fs::write(&file, text).unwrap();
    talkforge()
        .arg("fill")
        .arg(&file)
        .arg("--databases")
        .arg(&databases)
        .assert()
        .success();
    let oracle = |state: &str, code: i32| {
        evaluate(
            &dialogues,
            &databases,
            &["--level", "1", "--predictor", "oracle", "--state", state],
            code,
        )
    };
    let fresh = oracle("fresh", 1);
    assert_eq!(sample(&fresh, 5, 0)["correct"], false);
    assert_eq!(sample(&fresh, 5, 0)["cause"], "exception");
    let replayed = oracle("replayed", 0);
    assert_eq!(replayed["correct"], 4);
    assert_eq!(replayed["settings"]["state"], "replayed");
}

#[test]
fn a_level_summary_records_its_provenance_and_a_resumed_run_keeps_it() {
    let (tmp, databases, dialogues) = dataset();
    let out = tmp.path().join("out");
    let oracle = evaluate(
        &dialogues,
        &databases,
        &[
            "--level",
            "1",
            "--predictor",
            "oracle",
            "--out",
            out.to_str().unwrap(),
        ],
        0,
    );
    // The keys DESIGN.md names stay as they are.
    for key in [
        "suite",
        "level",
        "samples",
        "correct",
        "accuracy",
        "rouge_l",
        "per_sample",
    ] {
        assert!(oracle.get(key).is_some(), "{key} missing");
    }
    let p = &oracle["provenance"];
    assert_eq!(p["suite"], "apibank");
    assert_eq!(p["talkforge_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["predictor"], "oracle");
    assert_eq!(p["model_requested"], Value::Null);
    assert_eq!(p["models_reported"], json!([]));
    assert_eq!(p["prompt_templates"], json!({}));
    assert_eq!(p["dataset"]["files"], 1);
    let text = fs::read(dialogues.join("dentist.jsonl")).unwrap();
    let digest = {
        use sha2::Digest;
        format!("{:x}", sha2::Sha256::digest(&text))
    };
    assert_eq!(
        oracle["dialogue_hashes"],
        json!([{"file": "dentist.jsonl", "sha256": digest}])
    );
    assert_eq!(p["databases"]["folder"], databases.display().to_string());
    assert_eq!(
        p["databases"]["files"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["Account.json", "Agenda.json"]
    );
    // The run's settings are named as a conversation run's summary names them.
    assert_eq!(oracle["settings"]["level"], 1);
    assert!(oracle.get("failures").is_none());
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Provenance"), "{report}");
    assert!(report.contains(&p["dataset"]["sha256"].as_str().unwrap()[..12]));

    // A chat model: the model asked for, the model the server named, the
    // template; a rerun resumed from --out reports the same.
    let stub = Stub::start(Box::new(model));
    let chat_out = tmp.path().join("chat");
    let cache = tmp.path().join("cache");
    let chat = |code| {
        evaluate(
            &dialogues,
            &databases,
            &[
                "--level",
                "1",
                "--predictor",
                "openai",
                "--model",
                "stub-model",
                "--base-url",
                &stub.url,
                "--cache",
                cache.to_str().unwrap(),
                "--out",
                chat_out.to_str().unwrap(),
            ],
            code,
        )
    };
    let first = chat(0);
    let p = &first["provenance"];
    assert_eq!(p["predictor"], "openai:stub-model");
    assert_eq!(p["model_requested"], "stub-model");
    assert_eq!(p["models_reported"], json!(["stub-model-0613"]));
    let templates = p["prompt_templates"].as_object().unwrap();
    assert_eq!(
        templates.keys().collect::<Vec<_>>(),
        ["prompts/apibank-eval.j2"]
    );
    assert_eq!(p["dataset"], oracle["provenance"]["dataset"]);
    let resumed = chat(0);
    assert_eq!(resumed["resumed"], 1);
    assert_eq!(
        resumed["provenance"]["models_reported"],
        json!(["stub-model-0613"])
    );
    let report = fs::read_to_string(chat_out.join("report.md")).unwrap();
    assert!(
        report.contains("| stub-model | stub-model-0613 |"),
        "{report}"
    );
}

/// The scripted model of [`model`], except that from the fourth request
/// on (the second trial: three requests a trial) it logs in with the
/// wrong password.
fn unreliable_model(path: &str, body: &Value, count: usize) -> (u16, Value) {
    let system = system_prompt(body);
    let login = body["messages"].as_array().unwrap().len() == 2;
    if count >= 3 && login && !system.contains("next message to the user") {
        return (
            200,
            text_answer("[GetUserToken(username='lwong', password='tulip-99')]"),
        );
    }
    model(path, body, count)
}

#[test]
fn trials_give_pass_hat_per_call_sample_with_each_trial_cached_apart() {
    let (tmp, databases, dialogues) = dataset();
    let stub = Stub::start(Box::new(unreliable_model));
    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let args = |temperature: Option<&str>| {
        let mut args = vec![
            "--level".to_string(),
            "1".into(),
            "--predictor".into(),
            "openai".into(),
            "--model".into(),
            "stub-model".into(),
            "--base-url".into(),
            stub.url.clone(),
            "--cache".into(),
            cache.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--trials".into(),
            "2".into(),
        ];
        if let Some(t) = temperature {
            args.extend(["--temperature".to_string(), t.to_string()]);
        }
        args
    };
    let refused = talkforge()
        .arg("evaluate")
        .arg(&dialogues)
        .arg("--databases")
        .arg(&databases)
        .args(args(Some("0")))
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--temperature above 0"));
    assert!(stub.requests().is_empty());

    let run = || {
        let args = args(Some("0.7"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        evaluate(&dialogues, &databases, &args, 1)
    };
    let summary = run();
    // Trial 2 asked again (its replies are cached apart from trial 1's).
    assert_eq!(stub.requests().len(), 6);
    let trials = &summary["trials"];
    assert_eq!(trials["trials"], 2);
    assert_eq!(trials["units"], 3);
    // The login sample: 1 of 2; the two AddAgenda samples: 2 of 2.
    let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-9;
    assert!(close(&trials["pass_hat"][0], 2.5 / 3.0), "{trials}");
    assert!(close(&trials["pass_hat"][1], 2.0 / 3.0), "{trials}");
    assert_eq!(
        trials["groups"]["GetUserToken"]["pass_hat"],
        json!([0.5, 0.0])
    );
    assert_eq!(trials["grouped_by"], "api");
    assert_eq!(trials["groups"]["AddAgenda"]["pass_hat"], json!([1.0, 1.0]));
    assert_eq!(trials["per_unit"][0]["successes"], 1);
    // The figures outside `trials` are trial 1's, where every sample was right.
    assert_eq!(summary["correct"], 3);
    for t in 1..=2 {
        let trial: Value = serde_json::from_str(
            &fs::read_to_string(out.join(format!("trial-{t}/summary.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(trial["correct"], if t == 1 { 3 } else { 2 });
        assert_eq!(trial["settings"]["settings"]["trial"], t);
        assert!(out
            .join(format!("trial-{t}/samples/dentist.jsonl.json"))
            .is_file());
    }
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Reliability (pass^k)"), "{report}");
    assert!(
        report.contains("| 1 | GetUserToken | 1 | 50.0 | 0.0 |"),
        "{report}"
    );
    assert!(report.contains("| 1 | all | 3 | 83.3 | 66.7 |"), "{report}");

    // A rerun into another folder is answered from each trial's cache.
    fs::remove_dir_all(&out).unwrap();
    let again = run();
    assert_eq!(stub.requests().len(), 6);
    assert_eq!(again["trials"], summary["trials"]);
}

#[test]
fn a_wrong_sample_on_a_gold_call_with_an_erratum_is_marked_known() {
    let (tmp, databases, dialogues) = dataset();
    // The oracle's second sample of the AddAgenda line is right; a replay
    // that omits the location gets it wrong.
    let predictions = tmp.path().join("p.jsonl");
    fs::write(
        &predictions,
        concat!(
            r#"{"file": "dentist.jsonl", "turn": 1, "output": "[GetUserToken(username='lwong', password='tulip-88')]"}"#,
            "\n",
            r#"{"file": "dentist.jsonl", "turn": 2, "output": "[AddAgenda(token='q1w2e3r4t5y6', content='Dentist visit', time='2024-05-02 15:30:00')]"}"#,
            "\n"
        ),
    )
    .unwrap();
    let errata = tmp.path().join("errata.json");
    fs::write(
        &errata,
        json!({"errata": [{"file": "dentist.jsonl", "turn": 2, "call": 1, "api_name": "AddAgenda",
                           "reason": "the location was added by hand", "since": "2026-11-26"}]})
        .to_string(),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let summary = evaluate(
        &dialogues,
        &databases,
        &[
            "--level",
            "1",
            "--predictor",
            "replay",
            "--predictions",
            predictions.to_str().unwrap(),
            "--errata",
            errata.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
    let wrong = sample(&summary, 2, 0);
    assert_eq!(wrong["correct"], false);
    assert_eq!(wrong["known"]["reason"], "the location was added by hand");
    assert_eq!(wrong["known"]["source"], errata.display().to_string());
    // The verdict is counted as the reference counts it.
    assert_eq!(summary["correct"], 1);
    assert!(sample(&summary, 1, 0).get("known").is_none());
    assert_eq!(
        summary["provenance"]["errata"][0]["file"],
        errata.display().to_string()
    );
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("(known erratum: the location was added by hand)"),
        "{report}"
    );
}
