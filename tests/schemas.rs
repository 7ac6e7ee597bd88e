//! schemas/ holds the JSON Schemas generated from the serde types; the
//! committed files must be current (`cargo xtask schemas` rewrites them),
//! and the files talkforge reads and writes must satisfy them.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};
use talkforge::schema::{validate_databases, SchemaKind};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_schemas_match_the_types() {
    let mut stale = Vec::new();
    for kind in SchemaKind::all(&talkforge::suites::registry()) {
        let path = root().join("schemas").join(kind.file_name());
        if std::fs::read_to_string(&path).unwrap_or_default() != kind.text() {
            stale.push(kind.file_name());
        }
    }
    assert!(
        stale.is_empty(),
        "run `cargo xtask schemas`; stale: {stale:?}"
    );
    // And nothing else lies in schemas/ that no type produces.
    let mut committed: Vec<String> = walkdir::WalkDir::new(root().join("schemas"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(root().join("schemas"))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    committed.sort();
    let mut generated: Vec<String> = SchemaKind::all(&talkforge::suites::registry())
        .iter()
        .map(|k| k.file_name())
        .collect();
    generated.sort();
    assert_eq!(committed, generated);
}

#[test]
fn project_and_upstream_databases_match_their_schemas() {
    let mut dirs = vec![root().join("databases")];
    dirs.extend(talkforge::test_support::upstream("tooltalk").map(|up| up.join("databases")));
    for dir in dirs {
        let violations = validate_databases(&dir, &talkforge::suites::tooltalk::ToolTalk).unwrap();
        assert!(violations.is_empty(), "{}: {violations:#?}", dir.display());
    }
}

#[test]
fn a_database_violation_names_file_pointer_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("Reminder.json"),
        "{\n    \"ann\": {\n        \"r1\": {\n            \"reminder_id\": \"r1\",\n            \"task\": \"Call\",\n            \"due_date\": \"tomorrow\",\n            \"status\": \"done\"\n        }\n    }\n}",
    )
    .unwrap();
    let violations =
        validate_databases(tmp.path(), &talkforge::suites::tooltalk::ToolTalk).unwrap();
    let places: Vec<(String, usize, usize)> = violations
        .iter()
        .map(|v| (v.pointer.clone(), v.line, v.column))
        .collect();
    assert_eq!(
        places,
        [
            ("/ann/r1/due_date".to_string(), 6, 25),
            ("/ann/r1/status".to_string(), 7, 23)
        ]
    );
    assert!(violations[0].file.ends_with("Reminder.json"));
}

#[test]
fn check_reports_a_database_that_breaks_its_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let conversations = tmp.path().join("conversations/easy");
    std::fs::create_dir_all(&conversations).unwrap();
    std::fs::copy(
        root().join("conversations/easy/FindAlarms-easy.json"),
        conversations.join("FindAlarms-easy.json"),
    )
    .unwrap();
    let databases = tmp.path().join("databases");
    std::fs::create_dir_all(&databases).unwrap();
    for entry in std::fs::read_dir(root().join("databases")).unwrap() {
        let path: PathBuf = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    // An alarm time without seconds.
    let alarm = databases.join("Alarm.json");
    let text = std::fs::read_to_string(&alarm).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    let (user, alarms) = value.as_object_mut().unwrap().iter_mut().next().unwrap();
    let user = user.clone();
    let (id, record) = alarms.as_object_mut().unwrap().iter_mut().next().unwrap();
    let id = id.clone();
    record["time"] = json!("7:30");
    std::fs::write(&alarm, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--root"])
        .arg(tmp.path())
        .assert()
        .code(1)
        .stdout(predicates::str::contains("databases  FAILED"))
        .stdout(predicates::str::contains(format!(
            "Alarm.json:5:15: /{user}/{id}/time"
        )));
}

#[test]
fn the_json_catalog_matches_its_schema() {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["tools", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let catalog: Value = serde_json::from_slice(&out).unwrap();
    let errors: Vec<String> = SchemaKind::Catalog
        .validator()
        .iter_errors(&catalog)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn a_scenario_pool_as_generate_writes_it_matches_its_schema() {
    let pool = json!({
        "name": "A-B-C-AddAlarm", "plugins": ["Alarm"], "required_tool": "AddAlarm",
        "model": "m", "prompt_sha256": "00", "raw_reply": "r",
        "scenarios": [{"text": "t", "tools": ["AddAlarm"], "accepted": false, "reasons": ["x"]}]
    });
    let validator = SchemaKind::ScenarioPool.validator();
    assert!(validator.is_valid(&pool));
    assert!(!validator.is_valid(&json!({"name": "only"})));
}
