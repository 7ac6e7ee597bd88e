//! The README's API-Bank loop ("Writing API-Bank dialogues: the
//! maintainer's loop"), followed step by step in a copy of the
//! repository's API-Bank part (its three dialogue folders and
//! databases/apibank): write a level-1 dialogue, a level-2 one that
//! searches and a level-3 scenario, fill with the project's tool
//! descriptions, fmt, lint, verify, and check. The end is a repository
//! that passes `check`.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run talkforge in `root`; (exit code, stdout, stderr).
fn talkforge(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
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

const FOLDERS: [&str; 4] = [
    "conversations/apibank-level-1",
    "conversations/apibank-level-2",
    "conversations/apibank-level-3",
    "databases/apibank",
];

/// The API-Bank part of the repository, with a policy for its folders.
fn copy_of_the_api_bank_part() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for folder in FOLDERS {
        let to = tmp.path().join(folder);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(repo().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
    let policy = "[dataset]\n\
        [[dataset.subset]]\nfolder = \"apibank-level-1\"\nmin-conversations = 20\n\
        [[dataset.subset]]\nfolder = \"apibank-level-2\"\nmin-conversations = 5\n\
        [[dataset.subset]]\nfolder = \"apibank-level-3\"\nmin-conversations = 3\n";
    fs::write(tmp.path().join("talkforge.toml"), policy).unwrap();
    tmp
}

fn lines(turns: &[&str]) -> String {
    turns.join("\n") + "\n"
}

fn api_lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["role"] == "API")
        .collect()
}

#[test]
fn the_readme_api_bank_loop_ends_with_a_repository_that_passes_check() {
    let tmp = copy_of_the_api_bank_part();
    let root = tmp.path();

    // 1. Write a level-1 dialogue: API lines without results.
    let file = "conversations/apibank-level-1/AddAlarm-night-shift.jsonl";
    let written = lines(&[
        r#"{"role": "User", "text": "I'm on the night shift on 2023-06-14. Set an alarm for 21:30 that evening, please."}"#,
        r#"{"role": "AI", "text": "Sure. What are your username and password?"}"#,
        r#"{"role": "User", "text": "tokafor, lagoon-1988"}"#,
        r#"{"role": "API", "api_name": "GetUserToken", "param_dict": {"username": "tokafor", "password": "lagoon-1988"}}"#,
        r#"{"role": "API", "api_name": "AddAlarm", "param_dict": {"token": "p6d2h8n4c1f7j3s5", "time": "2023-06-14 21:30:00"}}"#,
        r#"{"role": "AI", "text": "Your alarm is set for 21:30 on 14 June."}"#,
    ]);
    fs::write(root.join(file), &written).unwrap();
    // Until filled, lint says to fill.
    let (code, out, _) = talkforge(root, &["lint", file]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("talkforge fill"), "{out}");

    // 2. Fill, with the project's tool descriptions.
    let (code, out, err) = talkforge(root, &["fill", file, "--tool-descriptions", "project"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 filled in 1 file"), "{out}");
    let calls = api_lines(&root.join(file));
    assert_eq!(calls[1]["result"]["output"], "success");

    // A level-2 dialogue: the search answers in the catalog's words.
    let searching = "conversations/apibank-level-2/ToolSearcher-QueryStock-drinks.jsonl";
    fs::write(
        root.join(searching),
        lines(&[
            r#"{"role": "User", "text": "What was KO trading at on 2023-06-02?"}"#,
            r#"{"role": "AI", "text": "Let me find a tool for share prices."}"#,
            r#"{"role": "API", "api_name": "ToolSearcher", "param_dict": {"keywords": "stock price"}}"#,
            r#"{"role": "API", "api_name": "QueryStock", "param_dict": {"stock_code": "KO", "date": "2023-06-02"}}"#,
            r#"{"role": "AI", "text": "KO was at 60.87 on 2 June."}"#,
        ]),
    )
    .unwrap();
    let (code, _, err) = talkforge(root, &["fill", searching, "--tool-descriptions", "project"]);
    assert_eq!(code, 0, "{err}");
    let calls = api_lines(&root.join(searching));
    let found = &calls[0]["result"]["output"];
    assert_eq!(found["name"], "QueryStock");
    assert_eq!(found["description"], "Tells a stock's price on a day.");
    assert_eq!(calls[1]["result"]["output"], 60.87);

    // A level-3 scenario.
    let scenario = "conversations/apibank-level-3/night-shift.lv3.json";
    fs::write(
        root.join(scenario),
        r#"{"scene": "Night shift",
            "first_utterance": "Set an alarm before my night shift, please.",
            "key_info": ["username: tokafor", "password: lagoon-1988", "the alarm is for 2023-06-14 21:30:00"],
            "ground_truth": [
              {"api_name": "GetUserToken", "param_dict": {"username": "tokafor", "password": "lagoon-1988"}},
              {"api_name": "AddAlarm", "param_dict": {"token": "p6d2h8n4c1f7j3s5", "time": "2023-06-14 21:30:00"}}]}"#,
    )
    .unwrap();

    // 3. fmt (a second pass finds nothing), then lint every folder.
    let (code, _, err) = talkforge(root, &["fmt", "conversations/apibank-level-1"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = talkforge(root, &["fmt", "--check", "conversations"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = talkforge(
        root,
        &[
            "lint",
            "conversations/apibank-level-1",
            "conversations/apibank-level-2",
            "conversations/apibank-level-3",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");

    // 4. Verify every folder, then check the repository.
    let (code, out, err) = talkforge(
        root,
        &[
            "verify",
            "conversations/apibank-level-1",
            "conversations/apibank-level-2",
            "conversations/apibank-level-3",
            "--tool-descriptions",
            "project",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(", 0 differ"), "{out}");
    // The same dialogues in the reference's words: their searches differ.
    let (code, out, _) = talkforge(root, &["verify", "conversations/apibank-level-2"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("(ToolSearcher) differs"), "{out}");

    let (code, out, err) = talkforge(root, &["check", "--tool-descriptions", "project"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 subsets"), "{out}");

    // An edit after filling: verify shows it, fill records it, check passes.
    let edited = fs::read_to_string(root.join(file))
        .unwrap()
        .replace(
            r#""param_dict": {"token": "p6d2h8n4c1f7j3s5", "time": "2023-06-14 21:30:00"}"#,
            r#""param_dict": {"token": "p6d2h8n4c1f7j3s5", "time": "2023-06-14 21:15:00"}"#,
        )
        .replace("21:30 that evening", "21:15 that evening")
        .replace("set for 21:30", "set for 21:15");
    fs::write(root.join(file), edited).unwrap();
    let (code, out, _) = talkforge(root, &["verify", file, "--tool-descriptions", "project"]);
    assert_eq!(code, 1, "{out}");
    let (code, out, err) = talkforge(root, &["fill", file, "--tool-descriptions", "project"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 filled in 1 file"), "{out}");
    let (code, out, err) = talkforge(root, &["check", "--tool-descriptions", "project"]);
    assert_eq!(code, 0, "{out}{err}");
}
