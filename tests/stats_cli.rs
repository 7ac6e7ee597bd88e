//! `talkforge stats`: the contract's counts.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn stats(paths: &[PathBuf]) -> Value {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["stats", "--format", "json"])
        .args(paths)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn upstream_tooltalk_counts() {
    let Some(up) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let doc = stats(&[up.join("easy"), up.join("tooltalk")]);
    assert_eq!(doc["conversations"], 78);
    assert_eq!(doc["gold_calls"], 266);
    assert_eq!(doc["by_subset"]["easy"], 28);
    assert_eq!(doc["by_subset"]["tooltalk"], 50);
    let by_tool = doc["by_tool"].as_object().unwrap();
    assert_eq!(by_tool.len(), 28, "upstream uses only catalog tools");
    assert_eq!(
        by_tool.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
        266
    );
}

#[test]
fn the_project_dataset_covers_every_tool() {
    // The ToolTalk part of the dataset.
    let conversations = Path::new(env!("CARGO_MANIFEST_DIR")).join("conversations");
    let doc = stats(&[conversations.join("easy"), conversations.join("hard")]);
    assert_eq!(doc["by_subset"]["easy"], 28);
    assert!(doc["by_subset"]["hard"].as_u64().unwrap() >= 50);
    for (tool, n) in doc["by_tool"].as_object().unwrap() {
        assert!(n.as_u64().unwrap() >= 3, "{tool} is used only {n} times");
    }
}

#[test]
fn a_malformed_file_names_its_place_and_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{\"name\": \"x\",\n  \"conversation\": [}\n").unwrap();
    Command::cargo_bin("talkforge")
        .unwrap()
        .arg("stats")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad.json:2:"));
}

#[test]
fn every_malformed_file_is_reported_not_only_the_first() {
    let tmp = tempfile::tempdir().unwrap();
    let upstream = Path::new("../shared/upstream/tooltalk/easy");
    let good = tmp.path().join("good.json");
    let source = std::fs::read_dir(upstream)
        .ok()
        .and_then(|mut d| d.next())
        .map(|e| e.unwrap().path());
    // Any readable conversation will do; the project's own when upstream is absent.
    let source = source.unwrap_or_else(|| {
        walkdir::WalkDir::new("conversations")
            .into_iter()
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "json"))
            .unwrap()
            .into_path()
    });
    std::fs::copy(source, &good).unwrap();
    std::fs::write(
        tmp.path().join("a-bad.json"),
        "{\"name\": \"x\",\n  \"conversation\": [}\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("z-bad.json"), "[1,\n2,\n").unwrap();
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .arg("stats")
        .arg(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("2 files cannot be read"), "{stderr}");
    let a = stderr.find("a-bad.json:2:").expect(&stderr);
    let z = stderr.find("z-bad.json:").expect(&stderr);
    assert!(a < z, "in file order: {stderr}");
    assert!(!stderr.contains("good.json"), "{stderr}");
}

#[test]
fn one_bad_file_among_many_is_listed_beside_the_counts_of_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let easy = tmp.path().join("easy");
    std::fs::create_dir_all(&easy).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("conversations/easy");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&source)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in &files {
        std::fs::copy(file, easy.join(file.file_name().unwrap())).unwrap();
    }
    std::fs::write(
        easy.join("bad.json"),
        "{\"name\": \"x\",\n  \"conversation\": [}\n",
    )
    .unwrap();
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["stats", "--format", "json"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["conversations"], files.len());
    let errors = doc["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{doc}");
    assert!(errors[0].as_str().unwrap().contains("bad.json:2:"), "{doc}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("bad.json:2:"));
}

/// The human table lists the tools the gold calls use; `--all-tools`
/// lists the catalog's others too, and JSON always has them all.
#[test]
fn the_human_table_lists_the_tools_used_unless_asked_for_all() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("today.jsonl");
    std::fs::write(
        &file,
        "{\"role\": \"User\", \"text\": \"What day is it?\"}\n{\"role\": \"API\", \"api_name\": \"GetToday\", \"param_dict\": {}, \"result\": {\"api_name\": \"GetToday\", \"input\": null, \"output\": \"2023-03-31\", \"exception\": null}}\n",
    )
    .unwrap();
    let human = |all: bool| {
        let mut command = Command::cargo_bin("talkforge").unwrap();
        command.arg("stats").arg(&file);
        if all {
            command.arg("--all-tools");
        }
        String::from_utf8(command.assert().success().get_output().stdout.clone()).unwrap()
    };
    let used = human(false);
    let rows = |text: &str| {
        text.lines()
            .skip_while(|l| !l.starts_with("tool "))
            .skip(1)
            .filter(|l| !l.starts_with('('))
            .count()
    };
    assert_eq!(rows(&used), 1, "{used}");
    assert!(used.contains("GetToday "), "{used}");
    assert!(
        used.contains("no gold call uses; --all-tools lists them"),
        "{used}"
    );
    let all = human(true);
    let catalog = stats(std::slice::from_ref(&file))["by_tool"]
        .as_object()
        .unwrap()
        .len();
    assert!(catalog > 1);
    assert_eq!(rows(&all), catalog, "{all}");
}
