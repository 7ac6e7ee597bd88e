//! `talkforge scenarios sample`: even across tools, deterministic per seed.

use assert_cmd::Command;
use talkforge::formats::scenario::{Scenario, ScenarioPool};

fn pool(name: &str, tool: &str, n: usize) -> ScenarioPool {
    ScenarioPool {
        name: name.into(),
        plugins: vec!["Alarm".into()],
        required_tool: tool.into(),
        model: "stub".into(),
        prompt_sha256: "0".repeat(64),
        raw_reply: String::new(),
        scenarios: (0..n)
            .map(|i| Scenario {
                text: format!("{name} scenario {i}"),
                tools: vec![tool.into()],
                accepted: i != 1,
                reasons: vec![],
            })
            .collect(),
    }
}

fn sample(dir: &std::path::Path, seed: &str) -> serde_json::Value {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args([
            "scenarios",
            "sample",
            "--per-tool",
            "2",
            "--format",
            "json",
            "--seed",
            seed,
        ])
        .arg("--pools")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn samples_evenly_and_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    for (name, tool, n) in [
        ("A-AddAlarm", "AddAlarm", 6),
        ("B-AddAlarm", "AddAlarm", 6),
        ("A-FindAlarms", "FindAlarms", 1),
    ] {
        let text = serde_json::to_string(&pool(name, tool, n)).unwrap();
        std::fs::write(dir.path().join(format!("{name}.json")), text).unwrap();
    }
    let first = sample(dir.path(), "7");
    assert_eq!(first["pools"], 3);
    let picked = first["sampled"].as_array().unwrap();
    let count = |tool: &str| picked.iter().filter(|s| s["required_tool"] == tool).count();
    assert_eq!(count("AddAlarm"), 2);
    assert_eq!(count("FindAlarms"), 1);
    assert!(
        picked
            .iter()
            .all(|s| !s["reference"].as_str().unwrap().ends_with("#1")),
        "rejected ones are never picked"
    );
    assert_eq!(sample(dir.path(), "7"), first);
    let seeds: Vec<_> = (0..8).map(|s| sample(dir.path(), &s.to_string())).collect();
    assert!(
        seeds.iter().any(|s| *s != first),
        "the seed changes the pick"
    );
}

#[test]
fn no_pools_is_an_error_and_human_output_has_a_header() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["scenarios", "sample", "--pools"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no scenario pool"));
    assert!(out.stdout.is_empty());

    let dir = tempfile::tempdir().unwrap();
    let text = serde_json::to_string(&pool("A-AddAlarm", "AddAlarm", 2)).unwrap();
    std::fs::write(dir.path().join("A-AddAlarm.json"), text).unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .args(["scenarios", "sample", "--pools"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "required tool\tscenario\ttext");
    assert!(lines[1].starts_with("AddAlarm\t"), "{stdout}");
}
