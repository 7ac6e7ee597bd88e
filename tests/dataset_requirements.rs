//! The project's own benchmark keeps the shape its card promises, and the
//! promise lives in talkforge.toml's `[dataset]` policy, so that
//! `talkforge check` (what a maintainer runs) fails exactly when these
//! tests do: one easy conversation per tool, hard conversations with
//! several calls over several plugins led by several user turns, every
//! tool called at least 3 times in hard/, file names that follow the
//! conventions, and the card's generated tables current.
//!
//! Each test breaks a copy of the repository's dataset in one way and
//! expects check to name it.

mod repo_support;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use repo_support::{copy_of_the_repository, repo};

/// `check`'s exit code and its output.
fn check(root: &Path) -> (i32, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--root"])
        .arg(root)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn the_repository_follows_its_policy_and_its_card_is_current() {
    let (code, out) = check(&repo());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("policy     ok      5 subsets and the card follow"),
        "{out}"
    );
}

#[test]
fn a_missing_easy_conversation_and_a_stale_card_are_named() {
    let root = copy_of_the_repository();
    fs::remove_file(root.path().join("conversations/easy/AddAlarm-easy.json")).unwrap();
    let (code, out) = check(root.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("no conversation is named for AddAlarm, the policy asks for one per tool"),
        "{out}"
    );
    assert!(out.contains("the card's tables are out of date"), "{out}");
    // The card written again: only the policy's own breach is left.
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["card", "--write", "--root"])
        .arg(root.path())
        .assert()
        .success();
    let (_, out) = check(root.path());
    assert!(!out.contains("out of date"), "{out}");
    assert!(out.contains("1 breach of talkforge.toml"), "{out}");
}

#[test]
fn names_calls_plugins_and_turns_of_hard_conversations_are_held_to_the_policy() {
    let root = copy_of_the_repository();
    let hard = root.path().join("conversations/hard");
    let mut files: Vec<PathBuf> = fs::read_dir(&hard)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // A name whose plugins are out of order.
    let first = files[0].file_name().unwrap().to_string_lossy().to_string();
    let mut parts: Vec<&str> = first.split('-').collect();
    parts.swap(0, 1);
    fs::rename(&files[0], hard.join(parts.join("-"))).unwrap();
    // A conversation cut down to its first gold call.
    let text = fs::read_to_string(&files[1]).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let turns = value["conversation"].as_array_mut().unwrap();
    let first_call = turns
        .iter()
        .position(|t| {
            t.get("apis")
                .is_some_and(|a| !a.as_array().unwrap().is_empty())
        })
        .unwrap();
    turns.truncate(first_call + 1);
    fs::write(&files[1], serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let (code, out) = check(root.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the name does not follow `{plugins}-{tool}-{n}.json`: its plugins are not distinct and in alphabetical order"),
        "{out}"
    );
    let cut = files[1].file_name().unwrap().to_string_lossy();
    assert!(
        out.contains(&format!(
            "{cut}: 1 gold calls, the policy asks for at least 3"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{cut}: 1 user turns lead to calls, the policy asks for at least 2"
        )),
        "{out}"
    );
}

#[test]
fn too_few_hard_conversations_or_calls_of_a_tool_are_named() {
    let root = copy_of_the_repository();
    let hard = root.path().join("conversations/hard");
    for entry in fs::read_dir(&hard).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains("-HistoricWeather-")
        {
            fs::remove_file(path).unwrap();
        }
    }
    let (code, out) = check(root.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("conversations, the policy asks for at least 50"),
        "{out}"
    );
}

#[test]
fn a_stale_prompt_manifest_is_named() {
    let root = copy_of_the_repository();
    fs::create_dir_all(root.path().join("scenarios")).unwrap();
    let manifest = root.path().join("scenarios/dry-run-manifest.json");
    fs::copy(repo().join("scenarios/dry-run-manifest.json"), &manifest).unwrap();
    let (code, out) = check(root.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("scenarios  ok"), "{out}");
    let text = fs::read_to_string(&manifest).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["prompts"][0]["prompt_sha256"] = "0".repeat(64).into();
    fs::write(&manifest, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let (code, out) = check(root.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dry-run-manifest.json: stale"), "{out}");
}

#[test]
fn a_policy_that_cannot_be_read_names_talkforge_toml() {
    let root = copy_of_the_repository();
    let toml = root.path().join("talkforge.toml");
    let text = fs::read_to_string(&toml).unwrap();
    fs::write(&toml, text.replace("{tool}-easy.json", "{what}-easy.json")).unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["check", "--root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("talkforge.toml") && stderr.contains("unknown placeholder `{what}`"),
        "{stderr}"
    );
}
