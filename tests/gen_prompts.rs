//! Prompt rendering: counts, order and names over the catalog, the dry run,
//! and a snapshot of a rendered prompt.

use assert_cmd::Command;
use talkforge::gen::prompts::subsets;
use talkforge::gen::{render_all, Ask, DEFAULT_TEMPLATE};
use talkforge::suites::tooltalk::catalog;

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn one_prompt_per_tool_of_every_subset() {
    assert_eq!(subsets(catalog().groups(), 3).len(), 35);
    for k in 1..=3 {
        let prompts = render_all(catalog(), DEFAULT_TEMPLATE, "t", k, Ask::default()).unwrap();
        // Every tool sits in C(6, k-1) of the k-subsets.
        assert_eq!(prompts.len(), catalog().tools().len() * binomial(6, k - 1));
        let mut names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), prompts.len(), "names are unique");
        for p in &prompts {
            let plugins: Vec<&str> = p.plugins.iter().map(|p| p.name).collect();
            assert_eq!(p.name, format!("{}-{}", plugins.join("-"), p.required_tool));
            assert!(p
                .text
                .contains(&format!("Required tool: {}", p.required_tool)));
            for tool in p.tools() {
                assert!(p.text.contains(&format!("### {}\n", tool.name)));
            }
        }
    }
    let full: usize = [10, 3, 4, 2, 2, 4, 3].iter().sum::<usize>() * binomial(6, 2);
    assert_eq!(full, 420, "the ToolTalk catalog gives 420 prompts");
    if catalog().tools().len() == 28 {
        let prompts = render_all(catalog(), DEFAULT_TEMPLATE, "t", 3, Ask::default()).unwrap();
        assert_eq!(prompts.len(), 420);
    }
}

#[test]
fn alarm_prompt_snapshot() {
    let prompts = render_all(catalog(), DEFAULT_TEMPLATE, "t", 1, Ask::default()).unwrap();
    let prompt = prompts.iter().find(|p| p.name == "Alarm-AddAlarm").unwrap();
    insta::assert_snapshot!("alarm_add_alarm_prompt", prompt.text);
}

/// A prompt as `generate` sends it by default: three plugins (K = 3),
/// three scenarios, at least 5 calls and 3 distinct tools.
#[test]
fn default_three_plugin_prompt_snapshot() {
    let prompts = render_all(catalog(), DEFAULT_TEMPLATE, "t", 3, Ask::default()).unwrap();
    let prompt = prompts
        .iter()
        .find(|p| p.name == "Alarm-Calendar-Email-CreateEvent")
        .unwrap();
    assert_eq!(prompt.plugins.len(), 3);
    insta::assert_snapshot!("alarm_calendar_email_create_event_prompt", prompt.text);
}

#[test]
fn dry_run_counts_and_sends_nothing() {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .env("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
        .args(["generate", "--dry-run", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["prompts"], catalog().tools().len() * 15);
    assert_eq!(summary["scenarios"], 0);
    assert_eq!(summary["files"].as_array().unwrap().len(), 0);
    let human = Command::cargo_bin("talkforge")
        .unwrap()
        .env("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
        .args(["generate", "--dry-run", "--limit", "2"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&human.stdout),
        "2 prompts rendered, nothing sent; 0 files written\n"
    );
}

#[test]
fn bad_template_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.j2");
    std::fs::write(&path, "{% for x in %}").unwrap();
    Command::cargo_bin("talkforge")
        .unwrap()
        .args(["generate", "--dry-run", "--template"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad.j2"));
}

#[test]
fn committed_dry_run_manifest_matches_the_catalog_and_template() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("scenarios/dry-run-manifest.json")).unwrap(),
    )
    .unwrap();
    let listed: Vec<(String, String)> = manifest["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["prompt_sha256"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let rendered: Vec<(String, String)> =
        render_all(catalog(), DEFAULT_TEMPLATE, "t", 3, Ask::default())
            .unwrap()
            .iter()
            .map(|p| (p.name.clone(), p.sha256()))
            .collect();
    assert_eq!(listed.len(), 420);
    assert_eq!(
        listed, rendered,
        "scenarios/dry-run-manifest.json is stale: regenerate it (scenarios/README.md)"
    );
}
