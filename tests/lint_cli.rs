//! `talkforge lint` from the outside: exit codes, the four output formats,
//! `--explain`, `--select`/`--ignore` and talkforge.toml.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};

const BROKEN: &str = "tests/lint-corpus/broken";

fn lint(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn timestamps_are_compared_with_the_dates_of_the_databases_given() {
    let file = format!("{BROKEN}/timestamp-out-of-range/next-winter.json");
    // From the repository root the suite's own databases/ are used.
    let (code, stdout, _) = lint(&[&file]);
    assert_eq!(code, 0, "a warning is not an error: {stdout}");
    assert!(
        stdout.contains("warning[timestamp-out-of-range]"),
        "{stdout}"
    );
    assert!(stdout.contains("2019-06-01 to 2024-05-27"), "{stdout}");
    // Databases whose dates take it in: nothing to say.
    let tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("databases")).unwrap()
    {
        let path = entry.unwrap().path();
        // ToolTalk's files; other suites' databases are in subfolders.
        if path.is_file() {
            std::fs::copy(&path, tmp.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let email = tmp.path().join("Email.json");
    let text = std::fs::read_to_string(&email).unwrap();
    let first_date = text.find("\"2024-05-").unwrap();
    let later = format!(
        "{}\"2025-02{}",
        &text[..first_date],
        &text[first_date + 8..]
    );
    std::fs::write(&email, later).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, stdout, _) = lint(&[&file, "--databases", dir]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("timestamp-out-of-range"), "{stdout}");
    // Databases that cannot be read: the command cannot run.
    let (code, _, stderr) = lint(&[&file, "--databases", "tests/no-such-folder"]);
    assert_eq!(code, 2, "{stderr}");
}

/// `--databases` is read as the databases of the suite the files are
/// (by their names, as every command picks it): an API-Bank folder, whose
/// databases may be lists, serves API-Bank dialogues without `--suite`.
#[test]
fn an_api_bank_databases_folder_serves_api_bank_dialogues_without_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let databases = tmp.path().join("databases");
    std::fs::create_dir_all(&databases).unwrap();
    std::fs::write(
        databases.join("Account.json"),
        r#"{"lwong": {"password": "tulip-88", "token": "q1w2e3r4t5y6", "email": "l@example.com"}}"#,
    )
    .unwrap();
    // A database that is a list, as some of API-Bank's are.
    std::fs::write(databases.join("ImageCaptioning.json"), r#"[{"url": "a"}]"#).unwrap();
    let dialogue = "tests/lint-corpus/clean/agenda-dentist.jsonl";
    let dir = databases.to_str().unwrap();
    let (code, stdout, stderr) = lint(&[dialogue, "--databases", dir]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // Forced, under either name, the same.
    for flag in ["--suite", "--input-format"] {
        let (code, forced, stderr) = lint(&[dialogue, "--databases", dir, flag, "apibank"]);
        assert_eq!((code, forced.as_str()), (0, stdout.as_str()), "{stderr}");
    }
}

#[test]
fn clean_input_exits_zero() {
    let (code, stdout, _) = lint(&["tests/lint-corpus/clean"]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(stdout, "All checks passed (8 files).\n");
}

#[test]
fn human_format_shows_place_source_line_and_help() {
    let (code, stdout, _) = lint(&[
        &format!("{BROKEN}/unreachable-argument/alarm-time-from-nowhere.json"),
        &format!("{BROKEN}/unreachable-argument/apibank-credentials-never-given.jsonl"),
        &format!("{BROKEN}/unknown-tool/create-alarm.json"),
        &format!("{BROKEN}/turn-order/wrong-index.json"),
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("lint_human", stdout);
}

#[test]
fn explain_prints_the_rule_doc() {
    let (code, stdout, _) = lint(&["--explain", "unreachable-argument"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("lint_explain_unreachable_argument", stdout);
    let (code, _, stderr) = lint(&["--explain", "no-such-rule"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown lint rule `no-such-rule`"),
        "{stderr}"
    );
}

#[test]
fn list_rules_names_every_rule_once_with_its_severity() {
    let (code, stdout, _) = lint(&["--list-rules"]);
    assert_eq!(code, 0);
    let lines: Vec<Vec<&str>> = stdout
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    let names: Vec<&str> = lines.iter().map(|words| words[0]).collect();
    for rule in talkforge::lint::all_rules() {
        let line = lines
            .iter()
            .find(|words| words[0] == rule.name)
            .unwrap_or_else(|| panic!("{} is not listed:\n{stdout}", rule.name));
        assert_eq!(line[1], rule.severity.name(), "{stdout}");
        assert!(line.len() > 2, "{} has no summary", rule.name);
    }
    assert_eq!(names.len(), talkforge::lint::all_rules().len(), "{stdout}");
    let (code, _, stderr) = lint(&["--list-rules", "--explain", "schema"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn json_follows_the_contract() {
    let (code, stdout, _) = lint(&["--format", "json", &format!("{BROKEN}/unknown-tool")]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    // Two conversations and a tau2 tasks file (its db.json is its data).
    assert_eq!(doc["files"], 3);
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 3);
    for f in findings {
        for key in [
            "file", "rule", "severity", "message", "turn", "call", "argument", "line", "column",
        ] {
            assert!(f.get(key).is_some(), "{key} missing in {f}");
        }
        assert_eq!(f["rule"], "unknown-tool");
        assert_eq!(f["severity"], "error");
        assert!(f["argument"].is_null());
    }
    // API-Bank: the line's position and the index among API lines.
    let apibank = &findings[0];
    assert!(apibank["file"].as_str().unwrap().ends_with(".jsonl"));
    assert_eq!(
        (apibank["turn"].as_u64(), apibank["call"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(apibank["line"], 6);
}

#[test]
fn sarif_has_rules_with_help_and_results_with_locations() {
    let (code, stdout, _) = lint(&["--format", "sarif", &format!("{BROKEN}/argument-type")]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "talkforge");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), talkforge::lint::all_rules().len());
    for rule in rules {
        assert!(rule["id"].is_string());
        assert!(!rule["shortDescription"]["text"]
            .as_str()
            .unwrap()
            .is_empty());
        assert!(rule["help"]["text"].as_str().unwrap().contains("## Why"));
        assert!(matches!(
            rule["defaultConfiguration"]["level"].as_str(),
            Some("error" | "warning")
        ));
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["level"], "error");
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("tests/lint-corpus/broken/argument-type/"),
            "{uri}"
        );
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(location["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn github_annotations() {
    let (code, stdout, _) = lint(&["--format", "github", &format!("{BROKEN}/missing-argument")]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = stdout.lines().collect();
    // Two conversations and a tau2 tasks file.
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with(
        "::error file=tests/lint-corpus/broken/missing-argument/alarm-without-time.json,line=81,col=39,title=missing-argument::"
    ), "{}", lines[0]);
}

#[test]
fn select_and_ignore() {
    let folder = format!("{BROKEN}/unreachable-argument");
    let (code, stdout, _) = lint(&[
        "--format",
        "json",
        "--ignore",
        "unreachable-argument",
        &folder,
    ]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = lint(&[
        "--format",
        "json",
        "--select",
        "unknown-tool,schema",
        &folder,
    ]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = lint(&[
        "--format",
        "json",
        "--select",
        "unreachable-argument",
        &folder,
    ]);
    assert_eq!(code, 1, "{stdout}");
    let (code, _, stderr) = lint(&["--select", "unreachable", &folder]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown lint rule `unreachable`"));
}

#[test]
fn unreadable_input_exits_two_naming_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"name\": \"x\",\n  oops\n}\n").unwrap();
    let (code, _, stderr) = lint(&[bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.json:3:3"), "{stderr}");
    let bad_line = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad_line,
        "{\"role\": \"User\", \"text\": \"hi\"}\n{\"role\": \n",
    )
    .unwrap();
    let (code, _, stderr) = lint(&[bad_line.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bad.jsonl:2:"), "{stderr}");
    let (code, _, stderr) = lint(&[dir.path().join("missing").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no such file or folder"), "{stderr}");
}

#[test]
fn talkforge_toml_overrides_severity_and_ignores_paths() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("legacy")).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(BROKEN);
    std::fs::copy(
        source.join("unreachable-argument/alarm-time-from-nowhere.json"),
        data.join("a.json"),
    )
    .unwrap();
    std::fs::copy(
        source.join("turn-order/wrong-index.json"),
        data.join("legacy/b.json"),
    )
    .unwrap();
    let run = |toml: &str| {
        std::fs::write(dir.path().join("talkforge.toml"), toml).unwrap();
        let out = Command::cargo_bin("talkforge")
            .unwrap()
            .current_dir(dir.path())
            .args(["lint", "--format", "json", "data"])
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code().unwrap(), doc)
    };
    let (code, doc) = run("");
    assert_eq!(code, 1);
    assert_eq!(doc["findings"].as_array().unwrap().len(), 2);
    let (code, doc) = run(
        "[lint.severity]\nunreachable-argument = \"warning\"\n[lint.per-file-ignores]\n\"data/legacy/**\" = [\"turn-order\"]\n",
    );
    assert_eq!(code, 0, "{doc}");
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["severity"], "warning");
    assert_eq!(findings[0]["rule"], "unreachable-argument");
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(dir.path())
        .args(["lint", "data"])
        .env("X", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(
        dir.path().join("talkforge.toml"),
        "[lint]\nignore = [\"nope\"]\n",
    )
    .unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(dir.path())
        .args(["lint", "data"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown lint rule `nope`"));
}

#[test]
fn a_bare_config_file_name_keeps_its_per_path_ignores() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = dir.path().join("data/legacy");
    std::fs::create_dir_all(&legacy).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(BROKEN);
    std::fs::copy(
        source.join("turn-order/wrong-index.json"),
        legacy.join("b.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("talkforge.toml"),
        "[lint.per-file-ignores]\n\"data/legacy/**\" = [\"turn-order\"]\n",
    )
    .unwrap();
    let run = |config: &str| {
        let out = Command::cargo_bin("talkforge")
            .unwrap()
            .current_dir(dir.path())
            .args(["lint", "--format", "json", "--config", config, "data"])
            .output()
            .unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            out.status.code().unwrap(),
            doc["findings"].as_array().unwrap().len(),
        )
    };
    assert_eq!(run("talkforge.toml"), (0, 0));
    assert_eq!(run("./talkforge.toml"), (0, 0));
    let absolute = dir.path().join("talkforge.toml");
    assert_eq!(run(absolute.to_str().unwrap()), (0, 0));
    // Without the settings the finding is there.
    std::fs::write(dir.path().join("empty.toml"), "").unwrap();
    assert_eq!(run("empty.toml"), (1, 1));
}

#[test]
fn apibank_lines_saved_as_json_are_read_or_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint-corpus/clean/agenda-dentist.jsonl");
    let saved = dir.path().join("agenda.json");
    std::fs::copy(&source, &saved).unwrap();
    let saved = saved.to_str().unwrap();
    let (code, stdout, stderr) = lint(&[saved]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout, "All checks passed (1 file).\n");
    let (code, _, stderr) = lint(&["--suite", "tooltalk", saved]);
    assert_eq!(code, 2);
    assert!(stderr.contains("agenda.json:2:1"), "{stderr}");
    assert!(stderr.contains("--suite apibank"), "{stderr}");
    // `--input-format`, lint's older name for `--suite`, still works.
    let (code, _, old) = lint(&["--input-format", "tooltalk", saved]);
    assert_eq!((code, old.as_str()), (2, stderr.as_str()));
    let lines = dir.path().join("lines.json");
    std::fs::write(&lines, "{\"a\": 1}\n{\"b\": 2}\n").unwrap();
    let (code, _, stderr) = lint(&[lines.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("JSON Lines"), "{stderr}");
}

#[test]
fn unreadable_files_show_in_the_summary_and_an_empty_folder_warns() {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint-corpus/clean");
    std::fs::copy(
        source.join("alarm-before-review.json"),
        dir.path().join("good.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.json"),
        "{\n  \"name\": \"x\",\n  oops\n}\n",
    )
    .unwrap();
    let (code, stdout, stderr) = lint(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!stdout.contains("All checks passed"), "{stdout}");
    assert!(stdout.contains("No findings in 1 file."), "{stdout}");
    assert!(
        stdout.contains("1 file could not be read (named on stderr)."),
        "{stdout}"
    );
    // Named once, on stderr.
    assert_eq!(stderr.matches("bad.json:3:3").count(), 1, "{stderr}");
    assert!(!stdout.contains("bad.json"), "{stdout}");
    let (code, stdout, _) = lint(&["--format", "json", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert!(doc["unreadable"][0]["file"]
        .as_str()
        .unwrap()
        .ends_with("bad.json"));
    let empty = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = lint(&[empty.path().to_str().unwrap()]);
    assert_eq!(code, 2, "a folder with nothing to lint is no pass");
    assert_eq!(stdout, "");
    assert!(stderr.contains("holds no dialogue file"), "{stderr}");
}

/// Lint reads a group of files and then runs each rule over the group;
/// how many files go in a group depends on the number of workers. The
/// report must not: one worker (groups of several files, unreadable ones
/// among them) and eight (a file at a time) give the same bytes.
#[test]
fn the_report_does_not_depend_on_how_files_are_grouped() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint-corpus");
    let mut sources: Vec<std::path::PathBuf> = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    sources.sort();
    let (mut n, mut broken) = (0, Vec::new());
    for source in &sources {
        std::fs::copy(source, dir.path().join(format!("f{n:02}.json"))).unwrap();
        n += 1;
        if n % 11 == 5 {
            let name = format!("f{n:02}.json");
            std::fs::write(dir.path().join(&name), "{\n  oops\n}\n").unwrap();
            broken.push(name);
            n += 1;
        }
    }
    let run = |threads: &str| {
        let out = Command::cargo_bin("talkforge")
            .unwrap()
            .env("RAYON_NUM_THREADS", threads)
            .args(["lint", "--format", "json", dir.path().to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "unreadable files: exit 2");
        String::from_utf8(out.stdout).unwrap()
    };
    let grouped = run("1");
    let doc: Value = serde_json::from_str(&grouped).unwrap();
    assert!(n > 24, "{n} files: several groups");
    let unreadable: Vec<&str> = doc["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["file"].as_str())
        .collect();
    for name in &broken {
        assert!(
            unreadable.iter().any(|f| f.ends_with(name.as_str())),
            "{name} not among {unreadable:?}"
        );
    }
    assert!(doc["findings"].as_array().unwrap().len() > 10);
    assert_eq!(grouped, run("8"));
}

#[test]
fn a_key_written_twice_is_refused_as_the_other_commands_refuse_it() {
    let tmp = tempfile::tempdir().unwrap();
    let conversation = json!({
        "name": "n", "conversation_id": "c", "suites_used": [], "apis_used": [],
        "user": {"username": "ann"}, "metadata": {"timestamp": "2023-09-11 09:00:00"},
        "conversation": [{"index": 0, "role": "user", "text": "hi"}]
    });
    let text = serde_json::to_string_pretty(&conversation)
        .unwrap()
        .replacen(
            "\"username\": \"ann\"",
            "\"username\": \"ann\", \"username\": \"bo\"",
            1,
        );
    let path = tmp.path().join("twice.json");
    std::fs::write(&path, &text).unwrap();
    let verify = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("stats")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(2));
    let lint = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("lint")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&lint.stderr);
    assert_eq!(lint.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("twice.json:7:33:"), "{stderr}");
    assert!(stderr.contains("duplicate key `username`"), "{stderr}");
}

#[test]
fn a_huge_tool_name_is_not_repeated_in_full() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "X".repeat(1_000_000);
    let conversation = json!({
        "name": "n", "conversation_id": "c", "suites_used": ["Alarm"], "apis_used": ["AddAlarm"],
        "user": {"username": "ann"}, "metadata": {"timestamp": "2023-09-11 09:00:00"},
        "conversation": [
            {"index": 0, "role": "user", "text": "wake me at 7"},
            {"index": 1, "role": "assistant", "text": "done", "apis": [
                {"request": {"api_name": name, "parameters": {}}, "response": null, "exception": null}
            ]}
        ]
    });
    let path = tmp.path().join("huge.json");
    std::fs::write(&path, serde_json::to_string_pretty(&conversation).unwrap()).unwrap();
    let started = std::time::Instant::now();
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("lint")
        .arg(&path)
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("unknown-tool"), "{stdout}");
    assert!(stdout.contains("(1000000 characters)"), "{stdout}");
    assert!(stdout.len() < 5_000, "{} bytes of output", stdout.len());
}
