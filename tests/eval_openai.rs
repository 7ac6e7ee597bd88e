//! The openai predictor end to end against a stub OpenAI-compatible server
//! on 127.0.0.1: tool calls (several at once), text, unparseable arguments,
//! a retried 5xx, the tool documentation each API mode sends, the request
//! cache, and the API key staying out of every output.

mod eval_support;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use eval_support::{
    conversation, error_answer, text_answer, tool_answer, write_conversation, write_databases, Raw,
    Stub,
};
use serde_json::{json, Value};

const KEY: &str = "sk-test-secret-4242";

fn roles(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

fn first_user_text(body: &Value) -> String {
    body["messages"][1]["content"].as_str().unwrap().to_string()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The scripted model: "wake" asks for two alarms at once (the first one
/// wrong), "list" first sends unreadable arguments, then the right query.
/// The very first request of the run gets a 500, which must be retried.
fn model(path: &str, body: &Value, count: usize) -> (u16, Value) {
    assert!(
        path.ends_with("/chat/completions"),
        "unexpected path {path}"
    );
    if count == 0 {
        return (500, error_answer("try again"));
    }
    let tool_messages = roles(body).iter().filter(|r| *r == "tool").count();
    let request = first_user_text(body);
    let answer = if request.contains("wake") {
        match tool_messages {
            0 => tool_answer(&[
                ("AddAlarm", r#"{"time": "06:00:00"}"#),
                ("AddAlarm", r#"{"time": "07:00:00"}"#),
            ]),
            _ => text_answer("Your alarm is set."),
        }
    } else {
        match tool_messages {
            0 => tool_answer(&[("FindAlarms", "{oops")]),
            1 => tool_answer(&[("FindAlarms", "{}")]),
            _ => text_answer("You have one alarm."),
        }
    };
    (200, answer)
}

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write_databases(&root.join("db"));
    let wake = conversation(
        "wake",
        "Please wake me at seven.",
        &[("AddAlarm", json!({"time": "07:00:00"}))],
        "Set for 7.",
    );
    let list = conversation(
        "list",
        "Which alarms do I have?",
        &[("FindAlarms", json!({}))],
        "One at 8.",
    );
    write_conversation(&root.join("data/easy/wake.json"), &wake, &root.join("db"));
    write_conversation(&root.join("data/hard/list.json"), &list, &root.join("db"));
    Setup { _dir: dir, root }
}

fn evaluate(root: &Path, url: &str, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OPENAI_BASE_URL")
        .args([
            "evaluate",
            "data",
            "--databases",
            "db",
            "--predictor",
            "openai",
        ])
        .args([
            "--model",
            "stub-model",
            "--base-url",
            url,
            "--retry-base",
            "0.005",
        ])
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

#[test]
fn openai_predictor_end_to_end() {
    let setup = setup();
    let root = &setup.root;
    let stub = Stub::start(Box::new(model));
    let output = evaluate(root, &stub.url, &["--api-mode", "exact", "--out", "out"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // One conversation has a bad action: findings, exit 1.
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");

    // wake: AddAlarm 06:00 (bad action), AddAlarm 07:00 (match).
    // list: FindAlarms with unreadable arguments (failed, no action), FindAlarms (match).
    // 4 predictions, 2 gold, 2 matches; 2 actions, 1 bad.
    assert_eq!(summary["conversations"], 2);
    assert_eq!(summary["predictions"], 4);
    assert_eq!(summary["ground_truths"], 2);
    assert_eq!(summary["matches"], 2);
    assert_eq!(summary["actions"], 2);
    assert_eq!(summary["bad_actions"], 1);
    assert_eq!(summary["precision"], 0.5);
    assert_eq!(summary["recall"], 1.0);
    assert_eq!(summary["incorrect_action_rate"], 0.5);
    assert_eq!(summary["action_precision"], 0.5);
    assert_eq!(summary["success_rate"], 0.5);
    // Soft success: wake 1 * (1 - 1/2), list 1; mean 0.75.
    assert_eq!(summary["soft_success_rate"], 0.75);
    assert_eq!(summary["predictor"], "openai:stub-model");
    assert_eq!(summary["by_subset"]["easy"]["success_rate"], 0.0);
    assert_eq!(summary["by_subset"]["hard"]["success_rate"], 1.0);

    let requests = stub.requests();
    // 1 failed + wake 2 + list 3.
    assert_eq!(requests.len(), 6, "{requests:#?}");
    for r in &requests {
        assert_eq!(
            r.authorization.as_deref(),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert_eq!(r.body["model"], "stub-model");
        let system = r.body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("Springfield"), "{system}");
        assert!(system.contains("2024-05-13 09:00:00"), "{system}");
        assert!(system.contains("alice"), "{system}");
    }
    let wake: Vec<&Value> = requests
        .iter()
        .map(|r| &r.body)
        .filter(|b| first_user_text(b).contains("wake"))
        .collect();
    assert!(wake.iter().all(|b| tool_names(b) == ["AddAlarm"]));
    let last = wake.iter().max_by_key(|b| roles(b).len()).unwrap();
    assert_eq!(
        roles(last),
        ["system", "user", "assistant", "tool", "assistant", "tool"]
    );
    let messages = last["messages"].as_array().unwrap();
    let call = &messages[2]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "AddAlarm");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["time"], "06:00:00");
    assert_eq!(messages[3]["tool_call_id"], call["id"]);
    let result: Value = serde_json::from_str(messages[3]["content"].as_str().unwrap()).unwrap();
    assert!(result["response"]["alarm_id"].is_string(), "{result}");
    assert_eq!(result["exception"], Value::Null);

    // The per-conversation files carry flags and metrics.
    let out = root.join("out");
    let wake_out: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("conversations/easy/wake.json")).unwrap(),
    )
    .unwrap();
    let predictions = wake_out["conversation"][1]["predictions"]
        .as_array()
        .unwrap();
    assert_eq!(predictions.len(), 3);
    assert_eq!(
        (
            predictions[0]["match"].clone(),
            predictions[0]["bad_action"].clone()
        ),
        (json!(false), json!(true))
    );
    assert_eq!(predictions[1]["match"], true);
    assert_eq!(predictions[2]["role"], "assistant");
    assert_eq!(predictions[2]["text"], "Your alarm is set.");
    assert_eq!(wake_out["conversation"][1]["apis"][0]["match"], true);
    assert_eq!(wake_out["metrics"]["success"], false);
    let list_out: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("conversations/hard/list.json")).unwrap(),
    )
    .unwrap();
    let failed = &list_out["conversation"][1]["predictions"][0];
    assert_eq!(failed["request"]["parameters"], Value::Null);
    assert_eq!(failed["exception"], "Failed to parse API call");
    assert_eq!(failed["metadata"]["arguments"], "{oops");
    assert!(out.join("summary.json").is_file());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| easy | 1 | 0.0 | 50.0 | 50.0 | 100.0 | 50.0 | 50.0 |"),
        "{report}"
    );
    assert!(
        report.contains("| hard | 1 | 100.0 | 100.0 | 50.0 | 100.0 | 100.0 | 0.0 |"),
        "{report}"
    );

    // The key appears nowhere: not on stdout, stderr, nor in any file.
    assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
    assert!(!stderr.contains(KEY));
    for file in files_under(&out) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(KEY), "{} holds the key", file.display());
    }

    // A rerun resumes: nothing is asked again, the figures stay.
    let again = evaluate(root, &stub.url, &["--api-mode", "exact", "--out", "out"]);
    let resumed: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(resumed["resumed"], 2);
    // Provenance: the model asked for and the one the server reported
    // (also when every result is resumed), the template, the inputs' hashes.
    for run in [&summary, &resumed] {
        let p = &run["provenance"];
        assert_eq!(p["model_requested"], "stub-model");
        assert_eq!(p["models_reported"], json!(["stub-model-0613"]));
        assert_eq!(p["predictor"], "openai:stub-model");
        assert_eq!(p["suite"], "tooltalk");
        assert_eq!(p["talkforge_version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(p["dataset"]["files"], 2);
        assert_eq!(p["dataset"]["sha256"].as_str().unwrap().len(), 64);
        assert_eq!(
            p["databases"]["sha256"],
            run["settings"]["databases_sha256"]
        );
        assert!(
            p["databases"]["files"]["Alarm.json"]
                .as_str()
                .unwrap()
                .len()
                == 64
        );
        assert_eq!(
            p["prompt_templates"]["prompts/eval-system.j2"]
                .as_str()
                .unwrap()
                .len(),
            64
        );
        assert!(p["date"].as_str().unwrap().ends_with('Z'));
        assert_eq!(
            run["per_conversation"][0]["conversation_sha256"]
                .as_str()
                .unwrap()
                .len(),
            64
        );
    }
    assert_eq!(
        summary["provenance"]["dataset"],
        resumed["provenance"]["dataset"]
    );
    let report = std::fs::read_to_string(root.join("out/report.md")).unwrap();
    assert!(
        report.contains("| stub-model | stub-model-0613 |"),
        "{report}"
    );
    assert_eq!(resumed["precision"], 0.5);
    assert_eq!(resumed["success_rate"], 0.5);
    assert_eq!(stub.requests().len(), 6);

    // --reset evaluates again, with every answer from the request cache.
    let reset = evaluate(
        root,
        &stub.url,
        &["--api-mode", "exact", "--out", "out", "--reset"],
    );
    let fresh: Value = serde_json::from_slice(&reset.stdout).unwrap();
    assert_eq!(fresh["resumed"], 0);
    assert_eq!(fresh["precision"], 0.5);
    assert_eq!(stub.requests().len(), 6);
    let evaluation = &wake_out["evaluation"];
    assert_eq!(evaluation["model"], "stub-model");
    assert_eq!(evaluation["api_mode"], "exact");
    assert_eq!(evaluation["no_docs"], false);
    assert_eq!(evaluation["temperature"], Value::Null);

    // Other settings are not mixed in: another API mode and temperature
    // evaluate both conversations again (new requests), noted on stderr ...
    let other = [
        "--api-mode",
        "suite",
        "--temperature",
        "0.7",
        "--out",
        "out",
    ];
    let changed = evaluate(root, &stub.url, &other);
    let stderr = String::from_utf8_lossy(&changed.stderr);
    assert!(
        stderr.contains("api_mode was \"exact\"") && stderr.contains("temperature was null"),
        "{stderr}"
    );
    let changed: Value = serde_json::from_slice(&changed.stdout).unwrap();
    assert_eq!(changed["resumed"], 0);
    assert_eq!(changed["settings"]["api_mode"], "suite");
    assert_eq!(changed["settings"]["temperature"], 0.7);
    assert!(stub.requests().len() > 6);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| 1 | `openai:stub-model` | stub-model | suite | sent | 0.7 |"),
        "{report}"
    );
    // ... and the same settings again resume.
    let same = evaluate(root, &stub.url, &other);
    let same: Value = serde_json::from_slice(&same.stdout).unwrap();
    assert_eq!(same["resumed"], 2);
}

#[test]
fn api_modes_and_the_documentation_ablation() {
    let setup = setup();
    let root = &setup.root;
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| (200, text_answer("ok"))));
    let tools = |extra: &[&str]| -> Vec<Value> {
        let before = stub.requests().len();
        let output = evaluate(root, &stub.url, extra);
        assert!(
            output.status.code() == Some(1),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stub.requests()[before..]
            .iter()
            .map(|r| r.body.clone())
            .collect()
    };
    let suite = tools(&["--api-mode", "suite"]);
    for body in &suite {
        assert_eq!(tool_names(body), ["AddAlarm", "DeleteAlarm", "FindAlarms"]);
        assert!(
            body["tools"][0]["function"]["description"]
                .as_str()
                .unwrap()
                .len()
                > 10
        );
    }
    let all = tools(&["--api-mode", "all"]);
    assert_eq!(
        tool_names(&all[0]).len(),
        talkforge::suites::tooltalk::catalog().tools().len()
    );
    let bare = tools(&["--api-mode", "suite", "--no-docs"]);
    for tool in bare[0]["tools"].as_array().unwrap() {
        assert_eq!(tool["function"]["description"], "");
        for (_, p) in tool["function"]["parameters"]["properties"]
            .as_object()
            .unwrap()
        {
            assert_eq!(p["description"], "");
        }
    }
    // The parameters themselves are still described by type.
    let add = &bare[0]["tools"][0]["function"]["parameters"];
    assert_eq!(add["properties"]["time"]["type"], "string");
    assert_eq!(add["required"], json!(["time"]));
}

#[test]
fn an_unreachable_endpoint_stops_the_run_with_exit_2() {
    let setup = setup();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let output = evaluate(&setup.root, &url, &["--out", "out"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(!stderr.contains(KEY));
    // The summary printed lists every conversation as not evaluated.
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["conversations"], 0);
    assert_eq!(
        summary["failures"].as_array().unwrap().len(),
        2,
        "{summary}"
    );
}

#[test]
fn error_answers_of_any_shape_are_retried_and_retry_after_is_honoured() {
    let setup = setup();
    // A plain-text 429 asking for one second, then vLLM's JSON 500, then
    // answers. async-openai alone gave up on the 429 (its body is not
    // OpenAI's error object) and the run stopped with exit 2.
    let stub = Stub::start_raw(Box::new(|_: &str, _: &Value, count| match count {
        0 => Raw::text(429, "Too Many Requests").header("Retry-After", "1"),
        1 => Raw::json(
            500,
            &json!({"object": "error", "message": "engine overloaded",
                    "type": "InternalServerError", "param": null, "code": 500}),
        ),
        _ => Raw::json(200, &text_answer("Done.")),
    }));
    let output = evaluate(&setup.root, &stub.url, &["--concurrency", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The model only talks: both conversations fail (exit 1), but the run ran.
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["conversations"], 2);
    let requests = stub.requests();
    assert_eq!(
        requests.len(),
        4,
        "2 failures, then one answer per conversation"
    );
    let first_wait = requests[1].at - requests[0].at;
    assert!(
        first_wait >= std::time::Duration::from_millis(950),
        "Retry-After: 1 not honoured: {first_wait:?}"
    );
    let second_wait = requests[2].at - requests[1].at;
    assert!(
        second_wait < std::time::Duration::from_millis(700),
        "no Retry-After: the 5 ms backoff, got {second_wait:?}"
    );
}

#[test]
fn a_429_for_an_exhausted_quota_is_not_retried() {
    let setup = setup();
    let stub = Stub::start_raw(Box::new(|_: &str, _: &Value, _| {
        Raw::json(
            429,
            &json!({"error": {"message": "You exceeded your current quota",
                              "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
        )
    }));
    let output = evaluate(&setup.root, &stub.url, &["--concurrency", "1"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("429") && stderr.contains("quota"),
        "{stderr}"
    );
    // One request per conversation, none retried.
    assert_eq!(stub.requests().len(), 2);
}

#[test]
fn concurrency_bounds_the_requests_in_flight() {
    let setup = setup();
    let root = &setup.root;
    for i in 0..6 {
        let c = conversation(
            &format!("extra{i}"),
            "Which alarms do I have?",
            &[("FindAlarms", json!({}))],
            "One at 8.",
        );
        write_conversation(
            &root.join(format!("data/more/extra{i}.json")),
            &c,
            &root.join("db"),
        );
    }
    let in_flight = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (now, max) = (in_flight.clone(), most.clone());
    let stub = Stub::start(Box::new(move |_: &str, _: &Value, _| {
        use std::sync::atomic::Ordering::SeqCst;
        let n = now.fetch_add(1, SeqCst) + 1;
        max.fetch_max(n, SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(150));
        now.fetch_sub(1, SeqCst);
        (200, text_answer("ok"))
    }));
    let output = evaluate(root, &stub.url, &["--concurrency", "2", "--no-cache"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(stub.requests().len(), 8, "one request per conversation");
    let most = most.load(std::sync::atomic::Ordering::SeqCst);
    // Never above the bound, and really parallel.
    assert_eq!(most, 2, "at most {most} requests in flight");
}

#[test]
fn a_reply_with_nothing_in_it_is_asked_again_never_cached_and_named_when_it_persists() {
    let setup = setup();
    // The first two requests get a reply with no choices and a message
    // with neither text nor a tool call; later ones are answered.
    let healthy = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flag = healthy.clone();
    let stub = Stub::start_raw(Box::new(move |_: &str, _: &Value, count| {
        let empty_choices = json!({"id": "x", "object": "chat.completion", "created": 1,
                                   "model": "stub-model", "choices": []});
        let mut null_content = text_answer("x");
        null_content["choices"][0]["message"]["content"] = Value::Null;
        match count {
            _ if !flag.load(std::sync::atomic::Ordering::SeqCst) => Raw::json(200, &empty_choices),
            0 => Raw::json(200, &empty_choices),
            1 => Raw::json(200, &null_content),
            _ => Raw::json(200, &text_answer("Done.")),
        }
    }));
    let first = evaluate(&setup.root, &stub.url, &["--out", "out"]);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    let summary: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(summary["conversations"], 2, "{summary}");
    assert!(summary.get("failures").is_none(), "{summary}");
    let asked = stub.requests().len();
    // Neither empty reply was kept: a fresh run from the cache alone asks
    // nothing, and no cache entry holds a reply with nothing in it.
    let again = evaluate(&setup.root, &stub.url, &["--out", "again"]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(stub.requests().len(), asked, "the rerun asked again");
    let entries = files_under(&setup.root.join(".talkforge-cache"));
    assert!(!entries.is_empty());
    for entry in entries {
        let text = std::fs::read_to_string(&entry).unwrap();
        assert!(!text.contains("\"choices\":[]"), "{text}");
        assert!(!text.contains("\"content\":null"), "{text}");
    }
    // A server that keeps answering nothing: every conversation failed,
    // and the error says what the replies lacked.
    healthy.store(false, std::sync::atomic::Ordering::SeqCst);
    let failed = evaluate(
        &setup.root,
        &stub.url,
        &["--out", "failed", "--no-cache", "--retry-for", "0.2"],
    );
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("2 of 2 conversations"), "{stderr}");
    assert!(
        stderr.contains("wake.json") && stderr.contains("list.json"),
        "{stderr}"
    );
    assert!(stderr.contains("with no choices every time"), "{stderr}");
    assert!(!stderr.contains(KEY));
}

#[test]
fn a_key_the_server_copies_into_the_reply_is_redacted_in_outputs_and_cache() {
    let setup = setup();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        if roles(body).iter().any(|r| r == "tool") {
            // Once as written, once as JSON may escape it.
            let mut answer = text_answer(&format!("Your header said Bearer {KEY}."));
            answer["choices"][0]["message"]["name"] = json!("x");
            (200, answer)
        } else if first_user_text(body).contains("wake") {
            (200, tool_answer(&[("AddAlarm", r#"{"time": "07:00:00"}"#)]))
        } else {
            (200, tool_answer(&[("FindAlarms", "{}")]))
        }
    }));
    let raw = Stub::start_raw(Box::new(|_: &str, _: &Value, _| {
        let escaped: String = KEY
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        Raw::text(
            200,
            &format!(
                r#"{{"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{{"index": 0, "finish_reason": "stop",
                "message": {{"role": "assistant", "content": "key {escaped}"}}}}]}}"#
            ),
        )
        .header("content-type", "application/json")
    }));
    for (url, out) in [(&stub.url, "out"), (&raw.url, "out-raw")] {
        let output = evaluate(&setup.root, url, &["--out", out]);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut redacted = 0;
        for file in files_under(&setup.root.join(out))
            .into_iter()
            .chain(files_under(&setup.root.join(".talkforge-cache")))
        {
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(!text.contains(KEY), "{}: {text}", file.display());
            assert!(!text.contains("\\u0073\\u006b"), "{}", file.display());
            redacted += usize::from(text.contains("[redacted]"));
        }
        assert!(redacted > 0, "the reply was recorded somewhere");
    }
}

#[test]
fn a_reply_larger_than_the_limit_is_refused() {
    let setup = setup();
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (200, text_answer(&"x".repeat(20 << 20)))
    }));
    let output = evaluate(&setup.root, &stub.url, &["--no-cache"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("with more than 16 MiB"), "{stderr}");
}

/// `--trials 3`: the model gets "wake" right only the first time it is
/// asked, "list" every time. pass^k over the trials, per subset; each
/// trial's replies cached apart, so a rerun asks nothing.
#[test]
fn trials_report_pass_hat_k() {
    let setup = setup();
    let root = &setup.root;
    let asked = std::sync::Arc::new(std::sync::Mutex::new(0usize));
    let seen = asked.clone();
    let stub = Stub::start(Box::new(move |_path: &str, body: &Value, _count: usize| {
        let first_step = !roles(body).iter().any(|r| r == "tool");
        let answer = if first_user_text(body).contains("wake") {
            let mut n = seen.lock().unwrap();
            if first_step {
                *n += 1;
            }
            match (first_step, *n) {
                (true, 1) => tool_answer(&[("AddAlarm", r#"{"time": "07:00:00"}"#)]),
                _ => text_answer("Done."),
            }
        } else if first_step {
            tool_answer(&[("FindAlarms", "{}")])
        } else {
            text_answer("One.")
        };
        (200, answer)
    }));
    let no_temperature = evaluate(root, &stub.url, &["--trials", "3"]);
    assert_eq!(no_temperature.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_temperature.stderr).contains("--temperature above 0"));

    let args = [
        "--trials",
        "3",
        "--temperature",
        "0.7",
        "--concurrency",
        "1",
        "--out",
        "out",
    ];
    let output = evaluate(root, &stub.url, &args);
    assert_eq!(output.status.code(), Some(1));
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let trials = &summary["trials"];
    assert_eq!(trials["trials"], 3);
    assert_eq!(trials["units"], 2);
    let close = |v: &Value, want: &[f64]| {
        let got: Vec<f64> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(got.len(), want.len(), "{got:?}");
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9),
            "{got:?} != {want:?}"
        );
    };
    close(&trials["pass_hat"], &[(1.0 / 3.0 + 1.0) / 2.0, 0.5, 0.5]);
    assert_eq!(trials["grouped_by"], "subset");
    close(
        &trials["groups"]["easy"]["pass_hat"],
        &[1.0 / 3.0, 0.0, 0.0],
    );
    close(&trials["groups"]["hard"]["pass_hat"], &[1.0, 1.0, 1.0]);
    assert_eq!(trials["per_unit"][0]["successes"], 1);
    let out = root.join("out");
    for t in 1..=3 {
        let trial: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join(format!("trial-{t}/summary.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(trial["settings"]["trial"], t);
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| 1 | easy | 1 | 33.3 | 0.0 | 0.0 |"),
        "{report}"
    );
    assert!(
        report.contains("| 1 | all | 2 | 66.7 | 50.0 | 50.0 |"),
        "{report}"
    );

    // Again: every trial resumes from its folder; nothing is asked.
    let asked_before = stub.requests().len();
    let again = evaluate(root, &stub.url, &args);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["trials"]["pass_hat"], trials["pass_hat"]);
    // --reset: every trial's replies come from its own cache entries.
    let mut reset = args.to_vec();
    reset.push("--reset");
    let reset = evaluate(root, &stub.url, &reset);
    let reset: Value = serde_json::from_slice(&reset.stdout).unwrap();
    assert_eq!(reset["trials"]["pass_hat"], trials["pass_hat"]);
    assert_eq!(stub.requests().len(), asked_before);
}

/// Issue 35, item 7: without a key and without a server named, the run
/// would send every request to OpenAI's public endpoint, each refused. It
/// stops before any request (a proxy on 127.0.0.1, where every request
/// would go, sees no connection), with one message naming what to set.
#[test]
fn without_a_key_or_a_server_nothing_is_sent_and_one_message_says_what_to_set() {
    let setup = setup();
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    proxy.set_nonblocking(true).unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(&setup.root)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env("HTTPS_PROXY", &proxy_url)
        .env("HTTP_PROXY", &proxy_url)
        .env("ALL_PROXY", &proxy_url)
        .args([
            "evaluate",
            "data",
            "--databases",
            "db",
            "--predictor",
            "openai",
        ])
        .args([
            "--model",
            "stub-model",
            "--retries",
            "0",
            "--retry-for",
            "0",
        ])
        .args(["--no-cache", "--timeout", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        proxy.accept().is_err(),
        "a request went out through the proxy: {stderr}"
    );
    assert_eq!(stderr.matches("error").count(), 1, "{stderr}");
    assert!(
        stderr.contains("OPENAI_API_KEY") && stderr.contains("--base-url"),
        "{stderr}"
    );
}
