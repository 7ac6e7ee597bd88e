//! The README's maintainer workflow, followed step by step as a
//! maintainer would, in a copy of this repository: generate scenario pools
//! (against a stub OpenAI-compatible server on 127.0.0.1), sample one,
//! scaffold a conversation from it, write the turns (requests only: no
//! results, no session tokens), fill, fmt, lint, verify, update the card,
//! and check. The end is a dataset that passes `check`, as CI requires.

mod eval_support;

mod repo_support;

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use eval_support::{text_answer, Stub};
use repo_support::copy_of_the_repository;
use serde_json::{json, Value};

/// Run talkforge in `root`; (exit code, stdout, stderr).
fn talkforge(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
        .env("OPENAI_API_KEY", "local")
        .env_remove("OPENAI_BASE_URL")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// What the model answers to every prompt: one scenario that names a
/// person of the databases and three tools of the first prompt's triplet.
const REPLY: &str = "- Scenario 1: Priya checks which email address her account has \
(GetAccountInformation), sets an alarm for the morning (AddAlarm) and then lists her \
alarms to be sure (FindAlarms).";

/// The turns the maintainer writes: requests only.
fn written_turns() -> Value {
    json!([
        {"index": 0, "role": "user", "text": "Hi, which email address is on my account?"},
        {"index": 1, "role": "assistant", "text": "It is the one shown below.",
         "apis": [{"request": {"api_name": "GetAccountInformation", "parameters": {}}}]},
        {"index": 2, "role": "user", "text": "Thanks. Please set an alarm for 6:45 am."},
        {"index": 3, "role": "assistant", "text": "Your alarm is set for 6:45 am.",
         "apis": [{"request": {"api_name": "AddAlarm", "parameters": {"time": "06:45:00"}}}]},
        {"index": 4, "role": "user", "text": "Which alarms do I have now?"},
        {"index": 5, "role": "assistant", "text": "Here are all your alarms.",
         "apis": [{"request": {"api_name": "FindAlarms", "parameters": {}}}]}
    ])
}

#[test]
fn the_readme_workflow_ends_with_a_dataset_that_passes_check() {
    let tmp = copy_of_the_repository();
    let root = tmp.path();
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| (200, text_answer(REPLY))));

    // 1. Generate: one prompt, against the local server.
    let (code, out, err) = talkforge(
        root,
        &[
            "generate",
            "--base-url",
            &stub.url,
            "--model",
            "local",
            "--limit",
            "1",
            "--out",
            "scenarios",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 prompt, 1 scenario (1 accepted, 0 rejected)"),
        "{out}"
    );

    // 2. Sample: the accepted scenario, with its reference.
    let (code, out, err) = talkforge(
        root,
        &[
            "scenarios",
            "sample",
            "--pools",
            "scenarios",
            "--per-tool",
            "1",
            "--seed",
            "1",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let sample: Value = serde_json::from_str(&out).unwrap();
    let reference = sample["sampled"][0]["reference"]
        .as_str()
        .unwrap()
        .to_string();

    // 3. Scaffold, under the hard subset's naming convention.
    let file = "conversations/hard/AccountTools-Alarm-Calendar-GetAccountInformation-9.json";
    let (code, _, err) = talkforge(root, &["scaffold", "--scenario", &reference, "--out", file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("for priya_n, whom the scenario names"),
        "{err}"
    );
    // Until it is written, lint flags the placeholders.
    let (code, out, _) = talkforge(root, &["lint", file]);
    assert_eq!(code, 1);
    assert!(out.contains("placeholder-text"), "{out}");

    // 4. Write the turns and where the user is.
    let path = root.join(file);
    let mut conversation: Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    conversation["metadata"]["location"] = json!("Austin");
    conversation["conversation"] = written_turns();
    fs::write(&path, serde_json::to_string(&conversation).unwrap()).unwrap();

    // 5. Fill: results recorded, session tokens written.
    let (code, out, err) = talkforge(root, &["fill", file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 filled in 1 file"), "{out}");
    let filled: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let token = filled["user"]["session_token"].clone();
    assert!(token.is_string(), "the skeleton starts logged in");
    assert_eq!(
        filled["conversation"][3]["apis"][0]["request"]["parameters"]["session_token"],
        token
    );

    // 6. fmt: the canonical layout; a second --check finds nothing.
    let (code, _, err) = talkforge(root, &["fmt", file]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(talkforge(root, &["fmt", "--check"]).0, 0);

    // 7. Lint and verify.
    let (code, out, _) = talkforge(root, &["lint", file]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = talkforge(root, &["verify", file]);
    assert_eq!(code, 0, "{out}");

    // 8. The card is out of date until written again; then check passes.
    let (code, out, _) = talkforge(root, &["check"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the card's tables are out of date"), "{out}");
    assert_eq!(talkforge(root, &["card", "--write"]).0, 0);
    let (code, out, err) = talkforge(root, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("116 conversations (apibank-level-1 26, apibank-level-2 7, apibank-level-3 4, easy 28, hard 51)"), "{out}");
    assert!(out.ends_with("check passed\n"), "{out}");
}
