//! `talkforge scaffold`: a skeleton from a pool file, valid against the
//! conversation schema, placeholders marked, existing files left alone.

use std::path::Path;

use assert_cmd::Command;
use talkforge::dialogue::Conversation;
use talkforge::formats::scenario::{Scenario, ScenarioPool};
use talkforge::scaffold::{is_placeholder, PLACEHOLDER};

fn write_pool(dir: &Path) -> std::path::PathBuf {
    let pool = ScenarioPool {
        name: "Alarm-Calendar-Email-AddAlarm".into(),
        plugins: vec!["Alarm".into(), "Calendar".into(), "Email".into()],
        required_tool: "AddAlarm".into(),
        model: "stub".into(),
        prompt_sha256: "0".repeat(64),
        raw_reply: "irrelevant".into(),
        scenarios: vec![
            Scenario {
                text: "rejected one".into(),
                tools: vec!["AddAlarm".into()],
                accepted: false,
                reasons: vec!["only 1 distinct tool".into()],
            },
            Scenario {
                text: "The user sets an alarm (AddAlarm) and finds it (FindAlarms), then removes it (DeleteAlarm).".into(),
                tools: vec!["AddAlarm".into(), "FindAlarms".into(), "DeleteAlarm".into()],
                accepted: true,
                reasons: vec![],
            },
        ],
    };
    let path = dir.join("pool.json");
    std::fs::write(&path, serde_json::to_string_pretty(&pool).unwrap()).unwrap();
    path
}

fn talkforge() -> Command {
    Command::cargo_bin("talkforge").unwrap()
}

#[test]
fn writes_a_schema_valid_skeleton_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(dir.path());
    let dbs = dir.path().join("dbs");
    std::fs::create_dir(&dbs).unwrap();
    std::fs::write(
        dbs.join("Account.json"),
        r#"{"alice": {"username": "alice", "email": "a@example.com", "phone": "123-456-7890", "name": "Alice A", "password": "pw", "session_token": null}}"#,
    )
    .unwrap();
    let out = dir.path().join("my-convo.json");
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(&pool)
        .arg("--out")
        .arg(&out)
        .arg("--databases")
        .arg(&dbs)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schema = serde_json::to_value(schemars::schema_for!(Conversation)).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let convo: Conversation = serde_json::from_value(value).unwrap();
    assert_eq!(convo.name, "my-convo");
    assert_eq!(convo.suites_used, ["Alarm"]);
    assert_eq!(convo.apis_used, ["AddAlarm", "FindAlarms", "DeleteAlarm"]);
    assert!(convo.scenario.unwrap().contains("(FindAlarms)"));
    assert_eq!(convo.user.username.as_deref(), Some("alice"));
    assert!(uuid::Uuid::parse_str(&convo.conversation_id).is_ok());
    assert_eq!(convo.conversation.len(), 2);
    assert!(convo.conversation.iter().all(|t| is_placeholder(&t.text)));
    assert!(convo.conversation[0].text.starts_with(PLACEHOLDER));

    // A second run refuses and leaves the file as it was.
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(format!("{}#1", pool.display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already exists"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn bad_index_and_missing_database_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(dir.path());
    let out = dir.path().join("x.json");
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(format!("{}#7", pool.display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no scenario #7"));
    assert!(!out.exists());
    // No Account database: placeholders for the user.
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(format!("{}#1", pool.display()))
        .arg("--out")
        .arg(&out)
        .arg("--databases")
        .arg(dir.path().join("none"))
        .assert()
        .success();
    let convo: Conversation =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(is_placeholder(convo.user.username.as_deref().unwrap()));
}

fn pool_with(dir: &Path, scenarios: Vec<Scenario>) -> std::path::PathBuf {
    let pool = ScenarioPool {
        name: "Test".into(),
        plugins: vec!["Alarm".into(), "Weather".into(), "AccountTools".into()],
        required_tool: "AddAlarm".into(),
        model: "stub".into(),
        prompt_sha256: "0".repeat(64),
        raw_reply: "irrelevant".into(),
        scenarios,
    };
    let path = dir.join("pool2.json");
    std::fs::write(&path, serde_json::to_string_pretty(&pool).unwrap()).unwrap();
    path
}

fn accepted(text: &str, tools: &[&str]) -> Scenario {
    Scenario {
        text: text.into(),
        tools: tools.iter().map(|t| t.to_string()).collect(),
        accepted: true,
        reasons: vec![],
    }
}

fn databases(dir: &Path) -> std::path::PathBuf {
    let dbs = dir.join("dbs");
    std::fs::create_dir_all(&dbs).unwrap();
    std::fs::write(
        dbs.join("Account.json"),
        r#"{"alice": {"username": "alice", "email": "a@example.com", "phone": "123-456-7890", "name": "Alice A", "password": "pw", "session_token": null}}"#,
    )
    .unwrap();
    std::fs::write(dbs.join("Alarm.json"), r#"{"alice": {}}"#).unwrap();
    dbs
}

fn scaffold(pool: &Path, index: usize, out: &Path, dbs: &Path) -> serde_json::Value {
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(format!("{}#{index}", pool.display()))
        .arg("--out")
        .arg(out)
        .arg("--databases")
        .arg(dbs)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// Lint a skeleton against the databases it was scaffolded from (these
/// hold no dates, so its timestamp is not compared with any).
fn lint_json(path: &Path) -> Vec<serde_json::Value> {
    let dbs = path.parent().unwrap().join("dbs");
    let output = talkforge()
        .args(["lint", "--format", "json"])
        .arg(path)
        .arg("--databases")
        .arg(dbs)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    doc["findings"].as_array().unwrap().clone()
}

/// A scenario that needs a session starts logged in, the upstream way:
/// the same token in `user` and `metadata`, the username in `metadata`.
/// `lint` finds nothing but placeholders and unused tools, and once the
/// dialogue is written `fill` runs its calls in that session.
#[test]
fn a_scenario_that_needs_a_session_starts_logged_in() {
    let dir = tempfile::tempdir().unwrap();
    let dbs = databases(dir.path());
    let pool = pool_with(
        dir.path(),
        vec![
            accepted(
                "Sets (AddAlarm), lists (FindAlarms), drops (DeleteAlarm).",
                &["AddAlarm", "FindAlarms", "DeleteAlarm"],
            ),
            accepted(
                "Weather now (CurrentWeather), later (ForecastWeather), then (HistoricWeather).",
                &["CurrentWeather", "ForecastWeather", "HistoricWeather"],
            ),
            accepted(
                "Logs in (UserLogin), sets (AddAlarm), lists (FindAlarms).",
                &["UserLogin", "AddAlarm", "FindAlarms"],
            ),
        ],
    );
    let out = dir.path().join("alarm.json");
    let skeleton = scaffold(&pool, 0, &out, &dbs);
    let token = skeleton["user"]["session_token"].as_str().unwrap();
    assert_eq!(skeleton["metadata"]["session_token"], token);
    assert_eq!(skeleton["metadata"]["username"], "alice");
    assert_eq!(skeleton["user"]["username"], "alice");
    // No "apis": [] on a turn without calls.
    assert!(skeleton["conversation"][1].get("apis").is_none());
    for finding in lint_json(&out) {
        let rule = finding["rule"].as_str().unwrap();
        assert!(
            rule == "placeholder-text" || rule == "metadata-mismatch",
            "{finding}"
        );
        if rule == "metadata-mismatch" {
            assert_eq!(finding["severity"], "warning", "{finding}");
        }
    }

    // Write the dialogue, fill it: the calls run logged in.
    let mut written = skeleton.clone();
    written["metadata"]["location"] = "Springfield".into();
    written["conversation"][0]["text"] =
        "Set an alarm for 7am, show me my alarms, then delete the 7am one.".into();
    written["conversation"][1]["text"] = "Your 7am alarm is set; it is your only one.".into();
    written["conversation"][1]["apis"] = serde_json::json!([
        {"request": {"api_name": "AddAlarm", "parameters": {"session_token": token, "time": "07:00:00"}}},
        {"request": {"api_name": "FindAlarms", "parameters": {"session_token": token}}}
    ]);
    std::fs::write(&out, serde_json::to_string_pretty(&written).unwrap()).unwrap();
    talkforge()
        .arg("fill")
        .arg(&out)
        .arg("--databases")
        .arg(&dbs)
        .assert()
        .success();
    let filled: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let calls = filled["conversation"][1]["apis"].as_array().unwrap();
    for call in calls {
        assert_eq!(call["exception"], serde_json::Value::Null, "{call}");
    }
    assert!(calls[0]["response"]["alarm_id"].is_string());
    let errors: Vec<_> = lint_json(&out)
        .into_iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // No tool needs a session: logged out, no username in metadata.
    let weather = scaffold(&pool, 1, &dir.path().join("weather.json"), &dbs);
    assert!(weather["user"].get("session_token").is_none());
    assert!(weather["metadata"].get("session_token").is_none());
    assert!(weather["metadata"].get("username").is_none());
    // The scenario logs in itself: it starts logged out.
    let login = scaffold(&pool, 2, &dir.path().join("login.json"), &dbs);
    assert!(login["user"].get("session_token").is_none());
    assert!(login["metadata"].get("username").is_none());
    for file in ["weather.json", "login.json"] {
        for finding in lint_json(&dir.path().join(file)) {
            assert_ne!(finding["rule"], "auth-order", "{file}: {finding}");
        }
    }
}

#[test]
fn a_rejected_scenario_needs_allow_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(dir.path());
    let out = dir.path().join("rejected.json");
    talkforge()
        .args(["scaffold", "--scenario"])
        .arg(format!("{}#0", pool.display()))
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "scenario #0 was rejected by the generation filter (only 1 distinct tool)",
        ))
        .stderr(predicates::str::contains("--allow-rejected"));
    assert!(!out.exists());
    talkforge()
        .args(["scaffold", "--allow-rejected", "--scenario"])
        .arg(format!("{}#0", pool.display()))
        .arg("--out")
        .arg(&out)
        .arg("--databases")
        .arg(dir.path().join("none"))
        .assert()
        .success();
    let convo: Conversation =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(convo.scenario.as_deref(), Some("rejected one"));
}

/// A skeleton for a new subset creates its folder.
#[test]
fn the_output_folder_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let pool = pool_with(
        dir.path(),
        vec![accepted("Set an alarm (AddAlarm).", &["AddAlarm"])],
    );
    let out = dir.path().join("conversations/new-subset/alarm.json");
    let skeleton = scaffold(&pool, 0, &out, &databases(dir.path()));
    assert_eq!(skeleton["name"], "alarm");
}

/// A pool whose accepted scenario has `text`, required tool FindAlarms,
/// its tools listed with the required one last.
fn fitting_pool(dir: &Path, text: &str) -> std::path::PathBuf {
    let pool = ScenarioPool {
        name: "Alarm-Email-Weather-FindAlarms".into(),
        plugins: vec!["Alarm".into(), "Email".into(), "Weather".into()],
        required_tool: "FindAlarms".into(),
        model: "stub".into(),
        prompt_sha256: "0".repeat(64),
        raw_reply: "irrelevant".into(),
        scenarios: vec![Scenario {
            text: text.into(),
            tools: vec![
                "CurrentWeather".into(),
                "SendEmail".into(),
                "FindAlarms".into(),
            ],
            accepted: true,
            reasons: vec![],
        }],
    };
    let path = dir.join("pool.json");
    std::fs::write(&path, serde_json::to_string_pretty(&pool).unwrap()).unwrap();
    path
}

/// Scaffold with the repository's databases; (exit code, stderr, skeleton).
fn scaffold_here(dir: &Path, pool: &Path, extra: &[&str]) -> (i32, String, Option<Conversation>) {
    let out = dir.join(format!("c{}.json", extra.len()));
    let output = talkforge()
        .args(["scaffold", "--scenario"])
        .arg(pool)
        .arg("--out")
        .arg(&out)
        .arg("--databases")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("databases"))
        .args(extra)
        .output()
        .unwrap();
    let written = std::fs::read_to_string(&out)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        written,
    )
}

#[test]
fn the_skeleton_fits_the_dataset_user_moment_and_tools() {
    let dir = tempfile::tempdir().unwrap();
    let named = fitting_pool(
        dir.path(),
        "Priya checks the weather (CurrentWeather), her alarms (FindAlarms) and emails Ravi (SendEmail).",
    );
    let (code, stderr, skeleton) = scaffold_here(dir.path(), &named, &[]);
    assert_eq!(code, 0, "{stderr}");
    let skeleton = skeleton.unwrap();
    assert_eq!(
        skeleton.user.username.as_deref(),
        Some("priya_n"),
        "{stderr}"
    );
    assert!(stderr.contains("whom the scenario names"), "{stderr}");
    // The required tool first; the moment inside the databases' dates.
    assert_eq!(
        skeleton.apis_used,
        ["FindAlarms", "CurrentWeather", "SendEmail"]
    );
    assert!(
        skeleton.metadata.timestamp.starts_with("2024-05-"),
        "{}",
        skeleton.metadata.timestamp
    );
    let indices: Vec<Option<u64>> = skeleton.conversation.iter().map(|t| t.index).collect();
    assert_eq!(indices, [Some(0), Some(1)]);

    // --user picks the account; an unknown one lists the usernames.
    let (code, _, skeleton) = scaffold_here(dir.path(), &named, &["--user", "yukit"]);
    assert_eq!(code, 0);
    assert_eq!(skeleton.unwrap().user.username.as_deref(), Some("yukit"));
    let (code, stderr, skeleton) = scaffold_here(
        dir.path(),
        &named,
        &["--user", "nobody", "--allow-rejected"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--user nobody: no such account") && stderr.contains("priya_n"),
        "{stderr}"
    );
    assert!(skeleton.is_none(), "nothing written");

    // Nobody the scenario names is known: the first account, said plainly.
    let anonymous = dir.path().join("anonymous");
    std::fs::create_dir(&anonymous).unwrap();
    let pool = fitting_pool(
        &anonymous,
        "Someone checks the weather, their alarms and sends an email.",
    );
    let (code, stderr, skeleton) = scaffold_here(&anonymous, &pool, &[]);
    assert_eq!(code, 0);
    assert_eq!(skeleton.unwrap().user.username.as_deref(), Some("mariel"));
    assert!(
        stderr.contains(
            "nobody the scenario names is in Account.json (--user USERNAME picks another)"
        ),
        "{stderr}"
    );
}
