//! `talkforge scaffold`: a skeleton from a pool file, valid against the
//! conversation schema, placeholders marked, existing files left alone.

use std::path::Path;

use assert_cmd::Command;
use talkforge::model::{Conversation, Scenario, ScenarioPool};
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
