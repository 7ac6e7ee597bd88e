//! API-Bank level 3: upstream's eight scenario sheets read, verified and
//! linted as they are; our own `.lv3.json` format; and `evaluate --level
//! 3` with a model as the assistant and a model or a person (stdin) as
//! the user, against a stub server on 127.0.0.1.

mod eval_support;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

use eval_support::{check_in_browser, text_answer, Stub};
use talkforge::suites::apibank::scenarios::read_scenario;

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

fn talkforge() -> Command {
    let mut command = Command::cargo_bin("talkforge").unwrap();
    command
        .env("OPENAI_API_KEY", "sk-level3-secret")
        .env_remove("OPENAI_BASE_URL");
    command
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The ground-truth calls of the sheets that raise when run as written,
/// in order from upstream's databases: (sheet, line, API, why).
const RAISING: &[(&str, usize, &str, &str)] = &[
    // A token that is no account's.
    (
        "Financial Management",
        22,
        "QueryBalance",
        "The token is incorrect.",
    ),
    // health_data written as a dict; the API takes a list of
    // {"name", "value"} records.
    (
        "Health Management",
        22,
        "RecordHealthData",
        "The health data has invalid format.",
    ),
    // Dates without their time of day.
    (
        "Health Management",
        23,
        "QueryHealthData",
        "time data '2023-03-01' does not match",
    ),
    // Every call after the login uses a token that is no account's.
    ("Shopping", 22, "AddAgenda", "The token is invalid."),
    ("Shopping", 23, "AddReminder", "The token is invalid."),
    ("Shopping", 24, "AddReminder", "The token is invalid."),
    ("Shopping", 25, "QueryBalance", "The token is incorrect."),
    ("Shopping", 26, "QueryAgenda", "The token is invalid."),
];

#[test]
fn upstream_sheets_are_read_as_they_are() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let files = talkforge::formats::discover(&[upstream.join("lv3-samples")], &["txt"]).unwrap();
    assert_eq!(files.len(), 8);
    let scenarios: Vec<_> = files.iter().map(|f| read_scenario(f).unwrap()).collect();
    let calls: usize = scenarios.iter().map(|s| s.ground_truth.len()).sum();
    assert_eq!(calls, 34);
    let mut apis: Vec<&str> = scenarios
        .iter()
        .flat_map(|s| s.ground_truth.iter().map(|c| c.api_name.as_str()))
        .collect();
    apis.sort_unstable();
    apis.dedup();
    assert_eq!(apis.len(), 14, "{apis:?}");
    let hotel = scenarios
        .iter()
        .find(|s| s.name == "Hotel Booking")
        .unwrap();
    assert_eq!(
        hotel.first_utterance,
        "Please help me plan my business trip next week."
    );
    assert!(hotel.key_info.contains("Beijing Hilton Hotel"));
    // An unquoted value and a bare number read as text, as the model wrote them.
    let booking = &hotel.ground_truth[0];
    assert_eq!(booking.param_dict["room_count"], "1");
    let hospital = scenarios.iter().find(|s| s.name == "Hospital").unwrap();
    assert_eq!(
        hospital.ground_truth[3].param_dict["token"],
        "a9s8d7f6g5h4j3k2l1"
    );
    // A note after the call is not part of it.
    let personal = scenarios
        .iter()
        .find(|s| s.name == "Personal Assistant")
        .unwrap();
    assert_eq!(personal.ground_truth[0].param_dict.len(), 2);
}

#[test]
fn verify_names_the_eight_upstream_ground_truth_calls_that_raise() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let output = talkforge()
        .args(["verify", "--format", "json", "--databases"])
        .arg(upstream.join("init_database"))
        .arg(upstream.join("lv3-samples"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["conversations"], 8);
    assert_eq!(report["calls"], 34);
    assert_eq!(report["reproduced"], 26);
    assert!(report.get("not_checked").is_none(), "{report}");
    let differs = report["differs"].as_array().unwrap();
    assert_eq!(differs.len(), RAISING.len());
    for (found, (sheet, line, api, why)) in differs.iter().zip(RAISING) {
        let file = found["file"].as_str().unwrap();
        assert!(file.ends_with(&format!("{sheet}.txt")), "{file}");
        // `turn` is the 0-based line of the file.
        assert_eq!(found["turn"], line - 1, "{sheet}");
        assert_eq!(found["api_name"], *api);
        let diff = found["diff"].as_str().unwrap();
        assert!(diff.contains(why), "{sheet} {api}: {diff}");
    }
}

#[test]
fn lint_reads_sheets_and_points_at_their_own_lines() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let output = talkforge()
        .args(["lint", "--format", "json"])
        .arg(upstream.join("lv3-samples"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["files"], 8);
    let findings = report["findings"].as_array().unwrap();
    let has = |sheet: &str, line: u64, rule: &str| {
        findings.iter().any(|f| {
            f["file"]
                .as_str()
                .unwrap()
                .ends_with(&format!("{sheet}.txt"))
                && f["line"] == line
                && f["rule"] == rule
        })
    };
    // Dates without a time, a time of one digit, a login that never happens.
    assert!(has("Health Management", 23, "argument-type"));
    assert!(has("Personal Assistant", 24, "argument-type"));
    assert!(has("Health Management", 24, "auth-order"));
    // A value the user's key information holds is reachable.
    assert!(!has("Meeting Schedule", 19, "unreachable-argument"));
    // A sheet records no results: no complaint about missing ones.
    assert!(
        findings.iter().all(|f| f["rule"] != "schema"),
        "{findings:?}"
    );
    // The human report shows the sheet's own line.
    let output = talkforge()
        .arg("lint")
        .arg(upstream.join("lv3-samples/Health Management.txt"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("23 | QueryHealthData(user_id=\"JohnDoe\", start_time=\"2023-03-01\""),
        "{text}"
    );
}

/// A databases folder and one scenario in our format, GetUserToken then
/// AddAlarm.
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("db")).unwrap();
    std::fs::write(
        root.join("db/Account.json"),
        json!({"JohnDoe": {"password": "pass123", "token": "t-john", "email": "john@example.com"}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(root.join("db/Alarm.json"), "{}").unwrap();
    std::fs::create_dir_all(root.join("scenarios")).unwrap();
    let scenario = json!({
        "scene": "Alarm",
        "first_utterance": "Please set an alarm for me.",
        "key_info": ["username: JohnDoe", "password: pass123", "alarm: 2023-04-01 07:00:00"],
        "ground_truth": [
            {"api_name": "GetUserToken", "param_dict": {"username": "JohnDoe", "password": "pass123"}},
            {"api_name": "AddAlarm", "param_dict": {"token": "t-john", "time": "2023-04-01 07:00:00"}}
        ]
    });
    std::fs::write(
        root.join("scenarios/alarm.lv3.json"),
        serde_json::to_string_pretty(&scenario).unwrap(),
    )
    .unwrap();
    Setup { _dir: dir, root }
}

/// The assistant's side of the stub: search, ask, log in, add the alarm,
/// say it is done; each step chosen by what the conversation holds.
fn assistant_step(messages: &[Value]) -> &'static str {
    let said = |prefix: &str| {
        messages
            .iter()
            .filter(|m| m["role"] == "user" && m["content"].as_str().unwrap().starts_with(prefix))
            .count()
    };
    match (said("(User)"), said("(API)")) {
        (1, 0) => "[ToolSearcher(keywords='alarm')]",
        (1, _) => "What are your username and password, and when should it ring?",
        (_, 1) => "[GetUserToken(username='JohnDoe', password='pass123')]",
        (_, 2) => "[AddAlarm(token='t-john', time='2023-04-01 07:00:00')]",
        _ => "Your alarm is set.",
    }
}

fn is_assistant(body: &Value) -> bool {
    body["messages"][0]["content"]
        .as_str()
        .is_some_and(|s| s.starts_with("You are an assistant"))
}

#[test]
fn a_model_talks_to_a_simulated_user_until_every_ground_truth_call_is_made() {
    let setup = setup();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let messages = body["messages"].as_array().unwrap();
        let answer = if is_assistant(body) {
            assistant_step(messages)
        } else {
            "I am JohnDoe, password pass123; at 2023-04-01 07:00:00."
        };
        (200, text_answer(answer))
    }));
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "openai",
            "--model",
            "stub-assistant",
            "--user-model",
            "stub-user",
            "--databases",
            "db",
            "--no-cache",
            "--format",
            "json",
            "--base-url",
            &stub.url,
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = json_of(&output);
    assert_eq!(summary["suite"], "apibank");
    assert_eq!(summary["level"], 3);
    assert_eq!(
        (summary["scenarios"].clone(), summary["completed"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(summary["mean_turns"], 2.0);
    assert_eq!(summary["assistant"], "llm:stub-assistant");
    assert_eq!(summary["user"], "llm:stub-user");
    let scenario = &summary["per_scenario"][0];
    assert_eq!(scenario["turns"], 2);
    assert_eq!(scenario["calls"], 3);
    assert_eq!(scenario["ground_truth_made"], 2);
    // The user model was asked once, by its own prompt, hearing only the
    // assistant's question.
    let requests = stub.requests();
    let user_requests: Vec<&Value> = requests
        .iter()
        .map(|r| &r.body)
        .filter(|b| !is_assistant(b))
        .collect();
    assert_eq!(user_requests.len(), 1);
    let heard = user_requests[0]["messages"].as_array().unwrap();
    assert_eq!(heard.len(), 3);
    assert_eq!(heard[0]["role"], "system");
    assert!(heard[0]["content"]
        .as_str()
        .unwrap()
        .contains("alarm: 2023-04-01 07:00:00"));
    assert_eq!(heard[1]["content"], "Please set an alarm for me.");
    assert_eq!(heard[1]["role"], "assistant");
    assert_eq!(heard[2]["role"], "user");
    assert!(user_requests[0]["model"] == "stub-user");
    // Each model's tokens, the user's apart (the stub reports 1 + 1 a reply).
    let assistant_requests = requests.len() - user_requests.len();
    let usage = summary["usage"].as_array().unwrap();
    assert_eq!(usage.len(), 2, "{usage:?}");
    assert_eq!(
        (
            &usage[0]["model"],
            &usage[0]["role"],
            &usage[0]["requests"],
            &usage[0]["total_tokens"]
        ),
        (
            &json!("stub-assistant"),
            &json!("assistant"),
            &json!(assistant_requests),
            &json!(2 * assistant_requests)
        )
    );
    assert_eq!(
        (
            &usage[1]["model"],
            &usage[1]["role"],
            &usage[1]["requests"],
            &usage[1]["total_tokens"]
        ),
        (&json!("stub-user"), &json!("user"), &json!(1), &json!(2))
    );
    // The key goes in the header only.
    assert!(requests
        .iter()
        .all(|r| r.authorization.as_deref() == Some("Bearer sk-level3-secret")));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("sk-level3-secret"));
}

#[test]
fn a_person_plays_the_user_from_stdin() {
    let setup = setup();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        assert!(is_assistant(body), "only the assistant is a model here");
        (
            200,
            text_answer(assistant_step(body["messages"].as_array().unwrap())),
        )
    }));
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "openai",
            "--model",
            "stub-assistant",
            "--user",
            "human",
            "--databases",
            "db",
            "--no-cache",
            "--format",
            "json",
            "--base-url",
            &stub.url,
        ])
        .write_stdin("JohnDoe / pass123, at 7 on 2023-04-01\n")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = json_of(&output);
    assert_eq!(summary["user"], "human");
    assert_eq!(summary["completed"], 1);
    assert_eq!(summary["per_scenario"][0]["turns"], 2);
    let user_turn = &summary["per_scenario"][0]["transcript"][4];
    assert_eq!(
        user_turn,
        &json!({"from": "user", "text": "JohnDoe / pass123, at 7 on 2023-04-01"})
    );
    // The conversation is on stderr, the summary alone on stdout.
    let terminal = String::from_utf8_lossy(&output.stderr);
    assert!(
        terminal.contains("you> Please set an alarm for me."),
        "{terminal}"
    );
    // Piped input is written after its prompt, so the conversation reads whole.
    assert!(
        terminal.contains("you> JohnDoe / pass123, at 7 on 2023-04-01\n"),
        "{terminal}"
    );
    assert!(
        terminal
            .contains("assistant> What are your username and password, and when should it ring?"),
        "{terminal}"
    );
    // A person who leaves at once: not completed, exit 1.
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "openai",
            "--model",
            "stub-assistant",
            "--user",
            "human",
            "--databases",
            "db",
            "--no-cache",
            "--base-url",
            &stub.url,
        ])
        .write_stdin("/quit\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("alarm: not completed: the user left after 1 turn"),
        "{text}"
    );
    assert!(
        text.contains("completed 0/1 (0.0%), mean turns to completion none completed"),
        "{text}"
    );
}

/// The oracle makes each sheet's ground-truth calls as written: every
/// call reads back with equal arguments (the dict, the lists, the bare
/// values), so every scenario completes in one turn, raising calls
/// included; no model is asked.
#[test]
fn the_oracle_completes_every_upstream_sheet_in_one_turn() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let output = talkforge()
        .args([
            "evaluate",
            "--level",
            "3",
            "--predictor",
            "oracle",
            "--user",
            "human",
        ])
        .args(["--format", "json", "--databases"])
        .arg(upstream.join("init_database"))
        .arg(upstream.join("lv3-samples"))
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = json_of(&output);
    assert_eq!(
        (summary["scenarios"].clone(), summary["completed"].clone()),
        (json!(8), json!(8))
    );
    assert_eq!(summary["mean_turns"], 1.0);
    let raising: usize = summary["per_scenario"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["ground_truth_raising"].as_array().unwrap().len())
        .sum();
    assert_eq!(raising, RAISING.len());
    // Making the ground-truth calls as written leaves the databases as
    // they do, the appointment drawn at random included.
    assert_eq!(summary["state_check"]["conversations_checked"], 8);
    assert_eq!(summary["state_check"]["conversations_clean"], 8);
}

/// What Shopping's raising ground truth implies: its calls after the login
/// carry a token that is no account's, so they write nothing. An assistant
/// that makes them with the user's own token is not completed (the
/// results differ) and its agenda entry and two reminders are collateral.
#[test]
fn shopping_made_with_the_user_s_own_token_leaves_three_collateral_writes() {
    let Some(upstream) = upstream_apibank() else {
        return;
    };
    let sheet = upstream.join("lv3-samples/Shopping.txt");
    let scenario = read_scenario(&sheet).unwrap();
    let calls: Vec<String> = scenario
        .ground_truth
        .iter()
        .map(|call| {
            let mut params = call.param_dict.clone();
            if params.contains_key("token") {
                params.insert("token".into(), json!("a9s8d7f6g5h4j3k2l1"));
            }
            format!(
                "[{}]",
                talkforge::formats::call_text::render_api_request(&call.api_name, &params)
            )
        })
        .collect();
    let stub = Stub::start(Box::new(move |_: &str, body: &Value, _| {
        let results = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user" && m["content"].as_str().unwrap().starts_with("(API)"))
            .count();
        let answer = calls.get(results).map_or("Done.", String::as_str);
        (200, text_answer(answer))
    }));
    let output = talkforge()
        .args(["evaluate", "--level", "3", "--predictor", "openai"])
        .args(["--model", "stub-assistant", "--user", "human", "--no-cache"])
        .args(["--base-url", &stub.url, "--format", "json", "--databases"])
        .arg(upstream.join("init_database"))
        .arg(&sheet)
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let summary = json_of(&output);
    let scenario = &summary["per_scenario"][0];
    assert_eq!(scenario["calls"], 6);
    assert_eq!(scenario["ground_truth_made"], 1);
    let writes: Vec<(&str, &str)> = scenario["state_check"]["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            assert_eq!(w["kind"], "collateral");
            (
                w["database"].as_str().unwrap(),
                w["record"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        writes,
        [("Agenda", "11"), ("Reminder", "11"), ("Reminder", "12")]
    );
}

#[test]
fn level_3_needs_scenarios_and_a_model() {
    let setup = setup();
    let run = |args: &[&str]| {
        talkforge()
            .current_dir(&setup.root)
            .args(["evaluate", "--databases", "db", "--level", "3"])
            .args(args)
            .output()
            .unwrap()
    };
    let output = run(&["scenarios", "--predictor", "replay"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--predictor openai"));
    for flag in [
        &["--trials", "2"][..],
        &["--state", "fresh"],
        &["--errata", "e.json"],
    ] {
        let output = run(&[&["scenarios", "--predictor", "oracle"][..], flag].concat());
        assert_eq!(output.status.code(), Some(2), "{flag:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(flag[0]), "{stderr}");
    }
    let output = run(&["scenarios", "--predictor", "oracle", "--reset"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("give --out"));
    let output = run(&["scenarios", "--predictor", "openai", "--max-turns", "0"]);
    assert_eq!(output.status.code(), Some(2));
    // A scenario that breaks the schema is named, nothing is asked.
    std::fs::write(setup.root.join("scenarios/bad.lv3.json"), "{\"scene\": 1}").unwrap();
    let output = run(&[
        "scenarios",
        "--predictor",
        "openai",
        "--base-url",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.lv3.json"), "{stderr}");
}

#[test]
fn our_format_verifies_and_lints_like_the_sheets() {
    let setup = setup();
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "verify",
            "scenarios",
            "--databases",
            "db",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json_of(&output);
    assert_eq!(
        (report["calls"].clone(), report["reproduced"].clone()),
        (json!(2), json!(2))
    );
    // A wrong token raises, and verify says where the call is written.
    let path = setup.root.join("scenarios/alarm.lv3.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"t-john\"", "\"t-nobody\"");
    std::fs::write(&path, text).unwrap();
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "verify",
            "scenarios",
            "--databases",
            "db",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = json_of(&output);
    assert_eq!(report["differs"][0]["api_name"], "AddAlarm");
    // The call's object opens on the line before its "api_name".
    let written = std::fs::read_to_string(&path).unwrap();
    let name_line = written
        .lines()
        .position(|l| l.contains("\"AddAlarm\""))
        .unwrap();
    assert_eq!(report["differs"][0]["turn"], name_line - 1);
    let output = talkforge()
        .current_dir(&setup.root)
        .args(["lint", "scenarios", "--format", "json"])
        .output()
        .unwrap();
    let report = json_of(&output);
    assert_eq!(report["files"], 1);
    // fill records nothing in a scenario and passes over it.
    let before = std::fs::read_to_string(&path).unwrap();
    let output = talkforge()
        .current_dir(&setup.root)
        .args(["fill", "scenarios", "--databases", "db"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn a_model_that_fails_is_an_error_naming_the_scenario_after_the_summary() {
    let setup = setup();
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (
            200,
            json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}),
        )
    }));
    let output = talkforge()
        .current_dir(&setup.root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "openai",
            "--databases",
            "db",
            "--no-cache",
            "--format",
            "json",
            "--base-url",
            &stub.url,
            // An empty reply is asked again, until --retry-for runs out.
            "--retry-base",
            "0.005",
            "--retry-for",
            "0.2",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let summary = json_of(&output);
    assert_eq!(summary["per_scenario"][0]["stopped"], "error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("alarm.lv3.json: ") && stderr.contains("no choices"),
        "{stderr}"
    );
}

/// A stub on 127.0.0.1 playing both sides (the assistant's steps, the
/// user's one answer), each reported under its own dated name.
fn both_sides() -> Stub {
    Stub::start(Box::new(|_: &str, body: &Value, _| {
        (200, both_sides_answer(body))
    }))
}

fn both_sides_answer(body: &Value) -> Value {
    let mut answer = if is_assistant(body) {
        let mut a = text_answer(assistant_step(body["messages"].as_array().unwrap()));
        a["model"] = json!("stub-assistant-0613");
        a
    } else {
        text_answer("I am JohnDoe, password pass123; at 2023-04-01 07:00:00.")
    };
    if !is_assistant(body) {
        answer["model"] = json!("stub-user-0613");
    }
    answer
}

/// `evaluate --level 3` with both sides played by the stub's models.
fn converse(root: &Path, url: &str, extra: &[&str]) -> std::process::Output {
    talkforge()
        .current_dir(root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "openai",
        ])
        .args(["--model", "stub-assistant", "--user-model", "stub-user"])
        .args(["--databases", "db", "--format", "json", "--base-url", url])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_reply_with_nothing_in_it_is_asked_again_and_never_cached() {
    let setup = setup();
    let root = &setup.root;
    // The assistant's first request gets a message with no content and no
    // tool call; every other request is answered as both_sides answers.
    let glitch = Stub::start(Box::new(|_: &str, body: &Value, count| {
        if count == 0 {
            let mut answer = text_answer("x");
            answer["choices"][0]["message"]["content"] = Value::Null;
            return (200, answer);
        }
        (200, both_sides_answer(body))
    }));
    let cache = root.join("cache");
    let args = ["--cache", cache.to_str().unwrap(), "--retry-base", "0.005"];
    let output = converse(root, &glitch.url, &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(json_of(&output)["completed"], 1);
    // Only answers were kept: a rerun from the cache asks nothing.
    let asked = glitch.requests().len();
    let again = converse(root, &glitch.url, &args);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(glitch.requests().len(), asked);
    for entry in walkdir::WalkDir::new(&cache).into_iter().flatten() {
        if entry.file_type().is_file() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert!(!text.contains("\"reply\":\"\""), "{text}");
        }
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn out_keeps_a_transcript_a_summary_with_provenance_and_a_report_and_a_rerun_resumes() {
    let setup = setup();
    let root = &setup.root;
    let stub = both_sides();
    let output = converse(root, &stub.url, &["--no-cache", "--out", "run"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let asked = stub.requests().len();
    assert_eq!(asked, 5, "four assistant replies and one of the user");
    let summary = read_json(&root.join("run/summary.json"));
    // What --format json prints is the summary written.
    assert_eq!(json_of(&output), summary);
    for key in [
        "suite",
        "level",
        "scenarios",
        "completed",
        "mean_turns",
        "per_scenario",
    ] {
        assert!(summary.get(key).is_some(), "{key}");
    }
    assert_eq!(
        (summary["level"].clone(), summary["mean_turns"].clone()),
        (json!(3), json!(2.0))
    );
    let p = &summary["provenance"];
    assert_eq!(p["suite"], "apibank");
    assert_eq!(p["dataset"]["files"], 1);
    assert_eq!(p["model_requested"], "stub-assistant");
    assert_eq!(p["models_reported"], json!(["stub-assistant-0613"]));
    assert_eq!(p["user_model_requested"], "stub-user");
    assert_eq!(p["user_models_reported"], json!(["stub-user-0613"]));
    let templates = p["prompt_templates"].as_object().unwrap();
    assert!(templates.contains_key("prompts/apibank-level3-assistant.j2"));
    assert!(templates.contains_key("prompts/apibank-level3-user.j2"));
    assert_eq!(p["databases"]["files"].as_object().unwrap().len(), 2);
    // One transcript a scenario, with the whole conversation.
    let transcript = read_json(&root.join("run/transcripts/alarm.lv3.json"));
    assert_eq!(transcript["outcome"]["turns"], 2);
    assert_eq!(
        transcript["outcome"]["transcript"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
    let report = std::fs::read_to_string(root.join("run/report.md")).unwrap();
    assert!(report.contains("| 1 | 1 | 1 | 100.0 | 2.00 |"), "{report}");
    assert!(
        report
            .contains("| 1 | alarm | `scenarios/alarm.lv3.json` | 2 | 2/2 | 3 | completed in 2 |"),
        "{report}"
    );
    assert!(
        report.contains(
            "| stub-assistant, stub-user (user) | stub-assistant-0613, stub-user-0613 (user) |"
        ),
        "{report}"
    );

    // The same settings: nothing is asked again, the models are kept.
    let again = converse(root, &stub.url, &["--no-cache", "--out", "run"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stub.requests().len(), asked);
    let resumed = json_of(&again);
    assert_eq!(resumed["resumed"], 1);
    assert_eq!(resumed["per_scenario"][0]["resumed"], true);
    assert_eq!(
        resumed["provenance"]["models_reported"],
        json!(["stub-assistant-0613"])
    );
    // Another turn limit, or --reset: the conversation is held again.
    let other = converse(
        root,
        &stub.url,
        &["--no-cache", "--out", "run", "--max-turns", "5"],
    );
    assert_eq!(other.status.code(), Some(0));
    assert_eq!(stub.requests().len(), 2 * asked);
    assert_eq!(json_of(&other)["resumed"], 0);
    let reset = converse(
        root,
        &stub.url,
        &["--no-cache", "--out", "run", "--max-turns", "5", "--reset"],
    );
    assert_eq!(reset.status.code(), Some(0));
    assert_eq!(stub.requests().len(), 3 * asked);
    // An edited scenario is run again.
    let path = root.join("scenarios/alarm.lv3.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Please set", "Kindly set")).unwrap();
    let edited = converse(
        root,
        &stub.url,
        &["--no-cache", "--out", "run", "--max-turns", "5"],
    );
    assert_eq!(edited.status.code(), Some(0));
    assert_eq!(json_of(&edited)["resumed"], 0);
}

/// The state check: an assistant that logs in, sets a reminder nobody
/// asked for (collateral) and never sets the alarm (missing) is told so
/// per scenario, in the totals, the transcript, report.md, the human
/// output and `report`; completion and turns are as without the check.
#[test]
fn the_state_check_reports_a_write_the_ground_truth_never_made_and_one_it_missed() {
    let setup = setup();
    let root = &setup.root;
    std::fs::write(root.join("db/Reminder.json"), "{}").unwrap();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let messages = body["messages"].as_array().unwrap();
        let results = messages
            .iter()
            .filter(|m| m["role"] == "user" && m["content"].as_str().unwrap().starts_with("(API)"))
            .count();
        let answer = match results {
            0 => "[GetUserToken(username='JohnDoe', password='pass123')]",
            1 => "[AddReminder(token='t-john', content='Wake up', time='2023-04-01 07:00:00')]",
            _ => "I set a reminder for you.",
        };
        (200, text_answer(answer))
    }));
    let run = |extra: &[&str]| {
        talkforge()
            .current_dir(root)
            .args(["evaluate", "scenarios", "--level", "3"])
            .args(["--predictor", "openai", "--model", "stub-assistant"])
            .args(["--user", "human", "--databases", "db", "--no-cache"])
            .args(["--max-turns", "1", "--base-url", &stub.url])
            .args(extra)
            .write_stdin("")
            .output()
            .unwrap()
    };
    let output = run(&["--format", "json", "--out", "run"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = json_of(&output);
    assert_eq!(summary, read_json(&root.join("run/summary.json")));
    // The score is as without the check.
    let scenario = &summary["per_scenario"][0];
    assert_eq!(
        (summary["completed"].clone(), summary["mean_turns"].clone()),
        (json!(0), Value::Null)
    );
    assert_eq!(
        (scenario["turns"].clone(), scenario["turns_taken"].clone()),
        (Value::Null, json!(1))
    );
    assert_eq!(scenario["ground_truth_made"], 1);
    assert_eq!(
        summary["state_check"],
        json!({"conversations_checked": 1, "conversations_with_collateral": 1,
               "conversations_clean": 0, "collateral": 1, "missing": 1, "different": 0})
    );
    // The alarm the ground truth adds (AddAlarm's id 1), the reminder it
    // never adds (AddReminder's id "0").
    let check = json!({"collateral": 1, "missing": 1, "different": 0, "writes": [
        {"turn": 1, "kind": "missing", "database": "Alarm", "record": "1"},
        {"turn": 1, "kind": "collateral", "database": "Reminder", "record": "0"}]});
    assert_eq!(scenario["state_check"], check);
    let transcript = read_json(&root.join("run/transcripts/alarm.lv3.json"));
    assert_eq!(transcript["outcome"]["state_check"], check);
    let report = std::fs::read_to_string(root.join("run/report.md")).unwrap();
    assert!(report.contains("| 1 | 1 | 0 | 1 | 1 | 1 | 0 |"), "{report}");
    assert!(
        report.contains("| 1 | `alarm` | turn 1 missing Alarm.1, turn 1 collateral Reminder.0 |"),
        "{report}"
    );
    // One line in the human output.
    let human = run(&[]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("\nstate check: 1 scenario checked: 0 ended as the gold worlds, 1 left collateral damage; 1 collateral write, 1 missing, 0 different\n"),
        "{text}"
    );
    // report over the run.
    let md = talkforge()
        .current_dir(root)
        .args(["report", "run"])
        .output()
        .unwrap();
    assert_eq!(
        md.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("| 1 | 1 | 0 | 1 | 1 | 1 | 0 |"), "{md}");
    assert!(
        md.contains("| 1 | `alarm` | turn 1 missing Alarm.1, turn 1 collateral Reminder.0 |"),
        "{md}"
    );
    let doc = talkforge()
        .current_dir(root)
        .args(["report", "run", "--format", "json"])
        .output()
        .unwrap();
    let doc = json_of(&doc);
    assert_eq!(doc["runs"][0]["state_check"], summary["state_check"]);
    assert_eq!(doc["per_scenario"][0]["state_clean"], json!([false]));
    let html = talkforge()
        .current_dir(root)
        .args(["report", "run", "--format", "html"])
        .output()
        .unwrap();
    assert_eq!(html.status.code(), Some(0));
    let page = String::from_utf8_lossy(&html.stdout);
    assert!(page.contains("<h2>State check</h2>"), "{page}");
    assert!(
        page.contains(
            "<td><code>alarm</code></td><td>turn 1 missing Alarm.1, turn 1 collateral Reminder.0</td>"
        ),
        "{page}"
    );
}

#[test]
fn trials_give_pass_hat_over_completion_with_each_trial_cached_apart() {
    let setup = setup();
    let root = &setup.root;
    let stub = both_sides();
    // A model on either side needs a temperature above 0 for trials.
    let refused = converse(root, &stub.url, &["--trials", "2", "--out", "t"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--temperature above 0"));
    let args = [
        "--trials",
        "2",
        "--temperature",
        "0.5",
        "--cache",
        "cache",
        "--out",
        "t",
    ];
    let output = converse(root, &stub.url, &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Each trial asked the same questions on its own: nothing shared.
    assert_eq!(stub.requests().len(), 10);
    let summary = json_of(&output);
    assert_eq!(summary, read_json(&root.join("t/summary.json")));
    let trials = &summary["trials"];
    assert_eq!(trials["trials"], 2);
    assert_eq!(trials["pass_hat"], json!([1.0, 1.0]));
    assert_eq!(trials["grouped_by"], "scenario");
    assert_eq!(trials["per_unit"][0]["successes"], 2);
    assert_eq!(trials["per_unit"][0]["trials"], 2);
    for t in [1, 2] {
        let trial = read_json(&root.join(format!("t/trial-{t}/summary.json")));
        assert_eq!(trial["settings"]["trial"], t);
        assert_eq!(trial["settings"]["assistant"]["temperature"], 0.5);
        assert!(root
            .join(format!("t/trial-{t}/transcripts/alarm.lv3.json"))
            .is_file());
        assert!(root.join(format!("t/trial-{t}/report.md")).is_file());
    }
    let report = std::fs::read_to_string(root.join("t/report.md")).unwrap();
    assert!(
        report.contains("| 1 | alarm | 1 | 100.0 | 100.0 |"),
        "{report}"
    );
    // Run again from scratch: every reply of both trials is in the cache.
    let again = converse(root, &stub.url, &[&args[..], &["--reset"]].concat());
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stub.requests().len(), 10);
    let cached = std::fs::read_dir(root.join("cache/chat")).unwrap().count();
    assert_eq!(cached, 10, "one entry a request, trials apart");
}

#[test]
fn a_person_is_never_resumed_into_another_run() {
    let setup = setup();
    let run = |extra: &[&str]| {
        talkforge()
            .current_dir(&setup.root)
            .args([
                "evaluate",
                "scenarios",
                "--level",
                "3",
                "--predictor",
                "oracle",
            ])
            .args(["--user", "human", "--databases", "db", "--out", "mine"])
            .args(extra)
            .write_stdin("")
            .output()
            .unwrap()
    };
    assert_eq!(run(&[]).status.code(), Some(0));
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("mine holds conversations") && stderr.contains("--reset"),
        "{stderr}"
    );
    let reset = run(&["--reset"]);
    assert_eq!(reset.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&reset.stdout).contains("completed 1/1"));
}

#[test]
fn report_compares_level_3_runs_in_three_formats_and_refuses_other_kinds() {
    let setup = setup();
    let root = &setup.root;
    let stub = both_sides();
    let oracle = talkforge()
        .current_dir(root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "oracle",
        ])
        .args(["--user", "human", "--databases", "db", "--out", "oracle"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(oracle.status.code(), Some(0));
    // One turn is not enough for the model: not completed.
    let model = converse(
        root,
        &stub.url,
        &["--no-cache", "--out", "model", "--max-turns", "1"],
    );
    assert_eq!(model.status.code(), Some(1));
    let report = |args: &[&str]| {
        talkforge()
            .current_dir(root)
            .arg("report")
            .args(args)
            .output()
            .unwrap()
    };
    let md = report(&["oracle", "model"]);
    assert_eq!(
        md.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("| 1 | 1 | 1 | 100.0 | 1.00 |"), "{md}");
    assert!(md.contains("| 2 | 1 | 0 | 0.0 | - |"), "{md}");
    assert!(md.contains("## Scenarios whose completion differs between runs"));
    assert!(
        md.contains("| alarm | 1 | not completed (stopped at the limit, 1 turns) |"),
        "{md}"
    );
    assert!(md.contains("never made: GetUserToken (line"), "{md}");
    let doc = report(&["oracle", "model", "--format", "json"]);
    assert_eq!(doc.status.code(), Some(0));
    let doc = json_of(&doc);
    assert_eq!(doc["kind"], "scenarios");
    assert_eq!(doc["same_dataset"], true);
    assert_eq!(doc["per_scenario"][0]["turns"], json!([1, null]));
    assert_eq!(
        doc["completion_differs"][0]["completed"],
        json!([true, false])
    );
    // The user was never asked within one turn: no user model is named.
    assert_eq!(
        doc["runs"][1]["models"],
        "assistant stub-assistant-0613, user -"
    );
    let html = report(&["oracle", "model", "--format", "html", "-o", "report.html"]);
    assert_eq!(
        html.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&html.stderr)
    );
    let page = std::fs::read_to_string(root.join("report.html")).unwrap();
    assert_eq!(page.matches("<svg class=\"chart\"").count(), 2);
    assert!(page.contains("Turns to completion per scenario"));
    for outside in ["src=", "https://", "<link"] {
        assert!(!page.contains(outside), "{outside} in the page");
    }
    // The oracle's one-turn bar and two completion-rate bars at least.
    check_in_browser(&root.join("report.html"), 2);

    // An edited scenario is another dataset.
    let path = root.join("scenarios/alarm.lv3.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Please set", "Kindly set")).unwrap();
    let edited = talkforge()
        .current_dir(root)
        .args([
            "evaluate",
            "scenarios",
            "--level",
            "3",
            "--predictor",
            "oracle",
        ])
        .args(["--user", "human", "--databases", "db", "--out", "edited"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(edited.status.code(), Some(0));
    let refused = report(&["oracle", "edited"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("different datasets"));
    assert_eq!(
        report(&["oracle", "edited", "--allow-different-datasets"])
            .status
            .code(),
        Some(0)
    );
    // A run of another kind never shares the table.
    std::fs::create_dir_all(root.join("l1")).unwrap();
    std::fs::write(
        root.join("l1/summary.json"),
        json!({"suite": "apibank", "level": 1, "samples": 0, "correct": 0, "accuracy": 0.0,
               "rouge_l": null, "per_sample": []})
        .to_string(),
    )
    .unwrap();
    let mixed = report(&["oracle", "l1"]);
    assert_eq!(mixed.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&mixed.stderr);
    assert!(
        stderr.contains("conversations with a user at level 3")
            && stderr.contains("scored by samples at level 1"),
        "{stderr}"
    );
}

/// The oracle finishes on the first utterance, so the model that would
/// play the user is never asked: the run names no user model, in its
/// summary, its provenance or its human output.
#[test]
fn an_oracle_run_names_no_user_model_it_never_asked() {
    let setup = setup();
    let root = &setup.root;
    let stub = both_sides();
    let run = |format: &str| {
        talkforge()
            .current_dir(root)
            .args([
                "evaluate",
                "scenarios",
                "--level",
                "3",
                "--predictor",
                "oracle",
            ])
            .args(["--user-model", "stub-user", "--databases", "db"])
            .args(["--format", format, "--base-url", &stub.url, "--no-cache"])
            .output()
            .unwrap()
    };
    let output = run("json");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stub.requests().is_empty(), "no model was asked");
    let summary = json_of(&output);
    assert_eq!(summary["completed"], 1);
    assert_eq!(summary["user"], "not asked");
    let p = &summary["provenance"];
    assert!(p.get("user_model_requested").is_none(), "{p}");
    assert!(p["prompt_templates"]
        .as_object()
        .unwrap()
        .keys()
        .all(|t| !t.contains("user")));
    let human = run("human");
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(!text.contains("stub-user"), "{text}");
    assert!(text.contains("user not asked"), "{text}");
}

/// A file of a dataset folder that a command passes over is named with
/// why, by every command that walks the folder: a sheet whose first line
/// is mistyped does not silently disappear.
#[test]
fn a_sheet_with_a_mistyped_heading_is_named_not_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scenarios");
    std::fs::create_dir_all(&dir).unwrap();
    let sheet = "Scene: Alarm\nFirst Utterance: Wake me up.\nKey Info:\nAnn, pw\nAPI Calls:\nGetUserToken(username=\"Ann\", password=\"pw\")\n";
    std::fs::write(dir.join("alarm.txt"), sheet).unwrap();
    let mistyped = dir.join("mistyped.txt");
    std::fs::write(&mistyped, sheet.replace("Scene:", "Scen:")).unwrap();
    let why = format!(
        "note: passed over {}: a .txt file is read as an API-Bank level-3 sheet only when its first line is its `Scene:` heading; this one starts \"Scen: Alarm\"",
        mistyped.display()
    );
    for command in [
        vec!["stats"],
        vec!["lint"],
        vec!["fmt", "--check"],
        vec!["verify"],
        vec!["fill", "--check"],
    ] {
        let output = talkforge().args(&command).arg(&dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&why), "{command:?}: {stderr}");
    }
    // A folder holding nothing else: the error says what was passed over.
    std::fs::remove_file(dir.join("alarm.txt")).unwrap();
    let output = talkforge().arg("stats").arg(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("holds no dialogue file"), "{stderr}");
    assert!(
        stderr.contains("this one starts \"Scen: Alarm\""),
        "{stderr}"
    );
}
