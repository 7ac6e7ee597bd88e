//! One repository, both families (issue 35, item 4): ToolTalk
//! conversations under `conversations/easy/`, an API-Bank dialogue under
//! `conversations/apibank-level-1/` that talkforge.toml declares with its
//! suite and databases folder. `check`, `card`, `stats` and the policy run
//! each suite over its own files with its own databases, in one report;
//! commands given a file of a declared subset use its suite and
//! databases. The API-Bank dialogue and its databases are written here.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{json, Value};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn talkforge(cwd: &Path) -> Command {
    let mut command = Command::cargo_bin("talkforge").unwrap();
    command.current_dir(cwd);
    command
}

const ASK: &str = r#"{"role": "User", "text": "Put a dentist visit on my agenda for May 2nd at 3:30 pm at Pearl Dental. I am lwong, password tulip-88."}"#;
const LOGIN: &str = r#"{"role": "API", "api_name": "GetUserToken", "param_dict": {"username": "lwong", "password": "tulip-88"}, "result": {"api_name": "GetUserToken", "input": {"username": "lwong", "password": "tulip-88"}, "output": {"token": "q1w2e3r4t5y6"}, "exception": null}}"#;
const ADD: &str = r#"{"role": "API", "api_name": "AddAgenda", "param_dict": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}, "result": {"api_name": "AddAgenda", "input": {"token": "q1w2e3r4t5y6", "content": "Dentist visit", "time": "2024-05-02 15:30:00", "location": "Pearl Dental"}, "output": "success", "exception": null}}"#;
const DONE: &str = r#"{"role": "AI", "text": "Your dentist visit is on the agenda."}"#;

const CARD: &str = "# Card\n\n<!-- talkforge card: subsets -->\n<!-- talkforge card: end -->\n\n<!-- talkforge card: coverage -->\n<!-- talkforge card: end -->\n";

/// A repository with two ToolTalk conversations (and the project's
/// databases in `databases/`) and one API-Bank dialogue whose databases
/// are in `apibank_databases` (relative to the root), which
/// talkforge.toml declares.
fn both_families(apibank_databases: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let easy = root.join("conversations/easy");
    fs::create_dir_all(&easy).unwrap();
    for name in ["AddAlarm-easy.json", "QueryCalendar-easy.json"] {
        fs::copy(
            repo().join("conversations/easy").join(name),
            easy.join(name),
        )
        .unwrap();
    }
    let databases = root.join("databases");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo().join("databases")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    let apibank = root.join(apibank_databases);
    fs::create_dir_all(&apibank).unwrap();
    let accounts = json!({"lwong": {"password": "tulip-88", "token": "q1w2e3r4t5y6", "email": "lwong@example.com"}});
    fs::write(apibank.join("Account.json"), accounts.to_string()).unwrap();
    let agenda = json!({"1": {"content": "Gym", "time": "2023-03-16", "location": "24 Hour Fitness", "username": "lwong"}});
    fs::write(apibank.join("Agenda.json"), agenda.to_string()).unwrap();
    let level1 = root.join("conversations/apibank-level-1");
    fs::create_dir_all(&level1).unwrap();
    fs::write(
        level1.join("dentist.jsonl"),
        [ASK, LOGIN, ADD, DONE].join("\n") + "\n",
    )
    .unwrap();
    fs::write(root.join("conversations/README.md"), CARD).unwrap();
    fs::write(
        root.join("talkforge.toml"),
        format!(
            r#"[dataset]
card = "conversations/README.md"

[[dataset.subset]]
folder = "easy"
min-calls = 1

[[dataset.subset]]
folder = "apibank-level-1"
suite = "apibank"
databases = "{apibank_databases}"
min-calls = 2
"#
        ),
    )
    .unwrap();
    tmp
}

fn json_of(command: &mut Command, code: i32) -> Value {
    let output = command.assert().code(code).get_output().clone();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn stdout_of(command: &mut Command, code: i32) -> String {
    let output = command.assert().code(code).get_output().clone();
    String::from_utf8(output.stdout).unwrap()
}

/// The ToolTalk gold calls of the two conversations copied.
fn tooltalk_calls() -> u64 {
    let (code, stats) = {
        let out = Command::cargo_bin("talkforge")
            .unwrap()
            .arg("stats")
            .arg(repo().join("conversations/easy/AddAlarm-easy.json"))
            .arg(repo().join("conversations/easy/QueryCalendar-easy.json"))
            .args(["--format", "json"])
            .output()
            .unwrap();
        (
            out.status.code(),
            serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        )
    };
    assert_eq!(code, Some(0));
    stats["gold_calls"].as_u64().unwrap()
}

#[test]
fn check_runs_each_suite_over_its_own_files_with_its_own_databases() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    talkforge(root).args(["card", "--write"]).assert().success();
    let report = json_of(talkforge(root).args(["check", "--format", "json"]), 0);
    assert_eq!(report["outcome"], "passed", "{report}");
    let by_suite = &report["stats_by_suite"];
    assert_eq!(by_suite["tooltalk"]["conversations"], 2, "{report}");
    assert_eq!(by_suite["apibank"]["conversations"], 1);
    assert_eq!(by_suite["apibank"]["gold_calls"], 2);
    assert_eq!(
        report["stats"]["gold_calls"].as_u64(),
        Some(tooltalk_calls() + 2)
    );
    let step = |name: &str| {
        report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} step: {report}"))
            .clone()
    };
    // The ToolTalk databases beside the API-Bank folder load as before.
    let databases = step("databases")["summary"].as_str().unwrap().to_string();
    assert!(
        databases.contains("tooltalk (") && databases.contains("8 databases load"),
        "{databases}"
    );
    assert!(
        databases.contains("apibank (") && databases.contains("2 databases load"),
        "{databases}"
    );
    let verify = step("verify")["summary"].as_str().unwrap().to_string();
    assert!(
        verify.contains("2 of 2 gold calls in 1 conversation reproduce"),
        "{verify}"
    );
    assert_eq!(step("policy")["outcome"], "passed");

    // The card counts what check counts, per subset.
    let card = fs::read_to_string(root.join("conversations/README.md")).unwrap();
    assert!(
        card.contains("| `apibank-level-1/` | 1 | 4 | 1 | 2 | 0 |"),
        "{card}"
    );
    let easy_calls = by_suite["tooltalk"]["gold_calls"].as_u64().unwrap();
    assert!(
        card.lines()
            .any(|l| l.starts_with("| `easy/` | 2 |")
                && l.contains(&format!("| {easy_calls} | 0 |"))),
        "{card}"
    );
    // One coverage table per suite, each over its own subsets.
    assert!(
        card.contains("**tooltalk**") && card.contains("**apibank**"),
        "{card}"
    );
    assert!(card.contains("| API-Bank | AddAgenda | 1 | 1 |"), "{card}");

    // A human summary names both.
    let out = stdout_of(talkforge(root).arg("check"), 0);
    assert!(
        out.contains("3 conversations (apibank-level-1 1, easy 2)"),
        "{out}"
    );
    assert!(out.contains("check passed"), "{out}");
    // Each suite's databases and verify summaries on a line of its own,
    // the step named on the first.
    for (name, first, second) in [
        ("databases", "8 databases load", "2 databases load"),
        (
            "verify",
            "gold calls in 2 conversations",
            "2 of 2 gold calls",
        ),
    ] {
        let lines: Vec<&str> = out.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} line: {out}"));
        let (tooltalk, apibank) = (lines[at], lines[at + 1]);
        assert!(
            tooltalk.contains("tooltalk (") && tooltalk.contains(first),
            "{out}"
        );
        assert!(!tooltalk.contains("apibank"), "{out}");
        assert!(
            apibank.trim_start().starts_with("ok") && apibank.contains("apibank ("),
            "{out}"
        );
        assert!(apibank.contains(second), "{out}");
        let parts = step(name)["parts"].as_array().unwrap().clone();
        let suites: Vec<&str> = parts.iter().map(|p| p["suite"].as_str().unwrap()).collect();
        assert_eq!(suites, ["tooltalk", "apibank"], "{report}");
        assert!(parts.iter().all(|p| p["outcome"] == "passed"), "{report}");
    }
}

#[test]
fn a_problem_in_either_family_fails_the_one_check_naming_its_file() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    talkforge(root).args(["card", "--write"]).assert().success();
    let dialogue = root.join("conversations/apibank-level-1/dentist.jsonl");
    let good = fs::read_to_string(&dialogue).unwrap();
    fs::write(
        &dialogue,
        good.replace("\"output\": \"success\"", "\"output\": \"failed\""),
    )
    .unwrap();
    let out = stdout_of(talkforge(root).arg("check"), 1);
    assert!(
        out.contains("dentist.jsonl line 3 (AddAgenda): the recorded result differs"),
        "{out}"
    );
    fs::write(&dialogue, good).unwrap();

    // The policy holds each subset to its own suite's catalog.
    let toml = fs::read_to_string(root.join("talkforge.toml")).unwrap();
    fs::write(
        root.join("talkforge.toml"),
        toml.replace("min-calls = 2", "min-calls = 3"),
    )
    .unwrap();
    let out = stdout_of(talkforge(root).arg("check"), 1);
    assert!(
        out.contains("dentist.jsonl: 2 gold calls, the policy asks for at least 3"),
        "{out}"
    );
}

#[test]
fn check_with_suite_checks_that_suite_alone() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    let report = json_of(
        talkforge(root).args(["check", "--suite", "apibank", "--format", "json"]),
        // The card's tables count every suite; checked alone, one suite's
        // files make them differ.
        1,
    );
    assert_eq!(report["stats"]["conversations"], 1, "{report}");
    assert_eq!(report["stats_by_suite"].as_object().unwrap().len(), 1);
    let report = json_of(
        talkforge(root).args(["check", "--suite", "tooltalk", "--format", "json"]),
        1,
    );
    assert_eq!(report["stats"]["conversations"], 2, "{report}");
}

#[test]
fn a_declared_databases_folder_is_used_by_check_and_by_commands_given_its_files() {
    let tmp = both_families("fixtures/apibank-own");
    let root = tmp.path();
    talkforge(root).args(["card", "--write"]).assert().success();
    let report = json_of(talkforge(root).args(["check", "--format", "json"]), 0);
    assert_eq!(report["outcome"], "passed", "{report}");

    // verify and fill from another folder, given the file alone.
    let elsewhere = tempfile::tempdir().unwrap();
    let file = root.join("conversations/apibank-level-1/dentist.jsonl");
    let verify = json_of(
        talkforge(elsewhere.path())
            .arg("verify")
            .arg(&file)
            .args(["--format", "json"]),
        0,
    );
    assert_eq!(verify["reproduced"], 2, "{verify}");
    let fill = json_of(
        talkforge(elsewhere.path())
            .args(["fill", "--check", "--format", "json"])
            .arg(&file),
        0,
    );
    assert_eq!(fill["filled"], json!([]), "{fill}");
    // An explicit --databases wins over the declared one.
    let missing = root.join("no-such-folder");
    talkforge(elsewhere.path())
        .arg("verify")
        .arg(&file)
        .arg("--databases")
        .arg(&missing)
        .assert()
        .code(2);
}

#[test]
fn stats_over_both_families_counts_each_suite_with_its_own_catalog() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    let stats = json_of(
        talkforge(root).args(["stats", "conversations", "--format", "json"]),
        0,
    );
    assert_eq!(stats["conversations"], 3, "{stats}");
    assert_eq!(stats["by_suite"]["apibank"]["by_tool"]["AddAgenda"], 1);
    assert_eq!(stats["by_suite"]["apibank"]["conversations"], 1);
    assert_eq!(stats["by_suite"]["tooltalk"]["conversations"], 2);
    assert_eq!(stats["by_subset"], json!({"apibank-level-1": 1, "easy": 2}));
    let out = stdout_of(talkforge(root).args(["stats", "conversations"]), 0);
    assert!(
        out.contains("== tooltalk ==") && out.contains("== apibank =="),
        "{out}"
    );
    // One file of the subset: its suite's counts alone.
    let one = json_of(
        talkforge(root).args([
            "stats",
            "conversations/apibank-level-1/dentist.jsonl",
            "--format",
            "json",
        ]),
        0,
    );
    assert_eq!(one["gold_calls"], 2);
    assert!(one.get("by_suite").is_none());
}

#[test]
fn a_subset_naming_an_unknown_suite_is_refused_naming_talkforge_toml() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    let toml = fs::read_to_string(root.join("talkforge.toml")).unwrap();
    fs::write(
        root.join("talkforge.toml"),
        toml.replace("suite = \"apibank\"", "suite = \"api-bank\""),
    )
    .unwrap();
    let output = talkforge(root)
        .arg("check")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("talkforge.toml: subset `apibank-level-1`: unknown suite \"api-bank\""),
        "{stderr}"
    );
}

#[test]
fn lint_given_a_file_of_a_declared_subset_compares_dates_with_its_databases() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let databases = root.join("fixtures/tooltalk");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo().join("databases")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
        }
    }
    let easy = root.join("conversations/easy");
    fs::create_dir_all(&easy).unwrap();
    let file = easy.join("next-winter.json");
    fs::copy(
        repo().join("tests/lint-corpus/broken/timestamp-out-of-range/next-winter.json"),
        &file,
    )
    .unwrap();
    fs::write(
        root.join("talkforge.toml"),
        "[[dataset.subset]]\nfolder = \"easy\"\ndatabases = \"fixtures/tooltalk\"\n",
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = stdout_of(talkforge(elsewhere.path()).arg("lint").arg(&file), 0);
    assert!(out.contains("warning[timestamp-out-of-range]"), "{out}");
    assert!(out.contains("2019-06-01 to 2024-05-27"), "{out}");
}

/// A subset's `tool-descriptions` sets whose words ToolSearcher answers
/// with when its files run: the repository's own level-2 dialogues,
/// filled in the project's words, reproduce under their subset's setting
/// with no flag, and differ when the flag asks for the reference's.
#[test]
fn a_subset_says_whose_words_its_tool_searches_answer_with() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let level2 = root.join("conversations/apibank-level-2");
    fs::create_dir_all(&level2).unwrap();
    for entry in fs::read_dir(repo().join("conversations/apibank-level-2")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, level2.join(path.file_name().unwrap())).unwrap();
    }
    let databases = root.join("databases/apibank");
    fs::create_dir_all(&databases).unwrap();
    for entry in fs::read_dir(repo().join("databases/apibank")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, databases.join(path.file_name().unwrap())).unwrap();
    }
    let subset = "[[dataset.subset]]\nfolder = \"apibank-level-2\"\nsuite = \"apibank\"\ndatabases = \"databases/apibank\"\n";
    let verify = |toml: &str, extra: &[&str]| -> Value {
        fs::write(root.join("talkforge.toml"), toml).unwrap();
        let output = talkforge(root)
            .args([
                "verify",
                "conversations/apibank-level-2",
                "--format",
                "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let declared = format!("[dataset]\n{subset}tool-descriptions = \"project\"\n");
    let reproduced = verify(&declared, &[]);
    assert_eq!(
        reproduced["calls"], reproduced["reproduced"],
        "{reproduced}"
    );
    assert!(reproduced["differs"].as_array().unwrap().is_empty());

    let overridden = verify(&declared, &["--tool-descriptions", "reference"]);
    assert!(!overridden["differs"].as_array().unwrap().is_empty());

    let undeclared = verify(&format!("[dataset]\n{subset}"), &[]);
    assert!(!undeclared["differs"].as_array().unwrap().is_empty());

    // `check` reads the same key.
    fs::write(root.join("talkforge.toml"), &declared).unwrap();
    talkforge(root).args(["check"]).assert().success();
}

/// `fmt` lays each file out in its own suite's format: over a repository
/// of both families it neither refuses the mix nor reads one family's
/// files as the other's.
#[test]
fn fmt_lays_out_each_family_in_its_own_format() {
    let tmp = both_families("databases/apibank");
    let root = tmp.path();
    let dialogue = root.join("conversations/apibank-level-1/dentist.jsonl");
    let conversation = root.join("conversations/easy/AddAlarm-easy.json");
    let before = fs::read_to_string(&conversation).unwrap();
    // An API-Bank line laid out by hand, with extra spaces.
    let spaced = fs::read_to_string(&dialogue).unwrap().replacen(
        "{\"role\": \"User\"",
        "{ \"role\" :  \"User\"",
        1,
    );
    fs::write(&dialogue, &spaced).unwrap();

    let out = stdout_of(talkforge(root).args(["fmt", "--check"]), 1);
    assert!(out.contains("dentist.jsonl"), "{out}");
    assert!(!out.contains("AddAlarm-easy.json"), "{out}");
    stdout_of(talkforge(root).args(["fmt"]), 0);
    assert!(fs::read_to_string(&dialogue)
        .unwrap()
        .starts_with("{\"role\": \"User\""));
    assert_eq!(fs::read_to_string(&conversation).unwrap(), before);
    stdout_of(talkforge(root).args(["fmt", "--check"]), 0);
}
