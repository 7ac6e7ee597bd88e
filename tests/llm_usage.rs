//! Token usage and the one cache format, against a stub OpenAI-compatible
//! server on 127.0.0.1: usage summed per model over an evaluation run, a
//! rerun from the cache that spends nothing and says what the cached
//! replies had cost, a server that sends no usage, runs that ask no model,
//! and cache entries written by earlier versions read without a request.

mod eval_support;

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use eval_support::{conversation, text_answer, write_conversation, write_databases, Stub};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use talkforge::llm::client::{Client, Prompter, Settings};
use talkforge::llm::embed::Embedder;
use talkforge::llm::http::HttpSettings;
use talkforge::llm::usage::{Meter, Role};

/// Two conversations, one assistant turn each.
fn dataset(root: &Path) {
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
    write_conversation(&root.join("data/wake.json"), &wake, &root.join("db"));
    write_conversation(&root.join("data/list.json"), &list, &root.join("db"));
}

/// A model that answers every step with text, reporting 10 prompt and 3
/// completion tokens (or no usage at all).
fn stub(with_usage: bool) -> Stub {
    Stub::start(Box::new(move |_: &str, _: &Value, _| {
        let mut answer = text_answer("Done.");
        if with_usage {
            answer["usage"] =
                json!({"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13});
        } else {
            answer.as_object_mut().unwrap().remove("usage");
        }
        (200, answer)
    }))
}

fn evaluate(root: &Path, args: &[&str]) -> std::process::Output {
    let output = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
        .env("OPENAI_API_KEY", "sk-usage-secret")
        .env_remove("OPENAI_BASE_URL")
        .args(["evaluate", "data", "--databases", "db"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn openai<'a>(url: &'a str, out: &'a str, format: &'a str) -> Vec<&'a str> {
    vec![
        "--predictor",
        "openai",
        "--model",
        "stub-model",
        "--base-url",
        url,
        "--cache",
        "cache",
        "--out",
        out,
        "--format",
        format,
    ]
}

fn summary_of(root: &Path, out: &str) -> Value {
    serde_json::from_slice(&std::fs::read(root.join(out).join("summary.json")).unwrap()).unwrap()
}

#[test]
fn usage_is_summed_per_model_and_a_rerun_from_the_cache_spends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    dataset(root);
    let stub = stub(true);
    let first = evaluate(root, &openai(&stub.url, "first", "human"));
    let sent = stub.requests().len() as u64;
    assert!(sent >= 2, "one request a conversation at least: {sent}");
    let summary = summary_of(root, "first");
    assert_eq!(
        summary["usage"],
        json!([{"model": "stub-model", "role": "assistant", "requests": sent, "cached": 0,
                "prompt_tokens": 10 * sent, "completion_tokens": 3 * sent, "total_tokens": 13 * sent,
                "cached_prompt_tokens": 0, "cached_completion_tokens": 0, "cached_total_tokens": 0,
                "without_usage": 0}])
    );
    let human = String::from_utf8_lossy(&first.stdout);
    assert!(
        human.contains(&format!(
            "tokens stub-model: {} spent ({} prompt, {} completion) over {sent} requests sent",
            13 * sent,
            10 * sent,
            3 * sent
        )),
        "{human}"
    );
    let report = std::fs::read_to_string(root.join("first/report.md")).unwrap();
    assert!(report.contains("Tokens used"), "{report}");
    assert!(!human.contains("sk-usage-secret") && !report.contains("sk-usage-secret"));

    // The same run again, from the cache: no request, no token spent, and
    // what the cached replies had cost.
    let again = evaluate(root, &openai(&stub.url, "again", "json"));
    assert_eq!(stub.requests().len() as u64, sent);
    let printed: Value = serde_json::from_slice(&again.stdout).unwrap();
    let usage = &summary_of(root, "again")["usage"];
    assert_eq!(&printed["usage"], usage);
    assert_eq!(
        usage,
        &json!([{"model": "stub-model", "role": "assistant", "requests": sent, "cached": sent,
                 "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
                 "cached_prompt_tokens": 10 * sent, "cached_completion_tokens": 3 * sent,
                 "cached_total_tokens": 13 * sent, "without_usage": 0}])
    );
    // `report` over both runs shows the section, a row per run.
    let compared = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(root)
        .args(["report", "first", "again", "--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&compared.stdout);
    assert!(compared.status.success(), "{text}");
    let report: Value = serde_json::from_slice(&compared.stdout).unwrap();
    let sections = report["sections"].as_array().unwrap();
    let tokens = sections.iter().find(|s| s["id"] == "usage").expect(&text);
    let rows = tokens["blocks"][1]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
}

#[test]
fn a_server_that_sends_no_usage_is_counted_without_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    dataset(root);
    let stub = stub(false);
    evaluate(root, &openai(&stub.url, "out", "json"));
    let sent = stub.requests().len() as u64;
    let usage = &summary_of(root, "out")["usage"][0];
    assert_eq!(usage["requests"], sent);
    assert_eq!(usage["without_usage"], sent);
    assert_eq!(usage["total_tokens"], 0);
}

#[test]
fn a_run_that_asks_no_model_counts_no_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    dataset(root);
    let output = evaluate(root, &["--predictor", "oracle", "--out", "out"]);
    let summary = summary_of(root, "out");
    assert!(summary.get("usage").is_none(), "{summary}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("tokens"));
    let report = std::fs::read_to_string(root.join("out/report.md")).unwrap();
    assert!(
        report.contains("## Tokens used\n\nNot applicable: no run asked a model"),
        "{report}"
    );
}

/// A server nobody answers on: a request would fail.
fn nowhere() -> HttpSettings {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    HttpSettings {
        base_url: url,
        timeout: Duration::from_secs(2),
        retries: 0,
        retry_base: Duration::from_millis(1),
        retry_for: Duration::from_millis(1),
    }
}

fn sha256_hex(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

/// Entries as the versions before the one client wrote them, under the
/// keys they computed, are answered from the cache without a request.
#[test]
fn cache_entries_written_by_earlier_versions_are_read_without_a_request() {
    let cache = tempfile::tempdir().unwrap();
    let http = nowhere();
    let url = http.base_url.clone();

    // `generate`, drafting and level 3 kept `{request, reply, model}`,
    // keyed by the endpoint, trial and tag lines and the typed request.
    let settings = Settings {
        http: http.clone(),
        model: "old-model".into(),
        temperature: 0.7,
        max_tokens: 512,
        cache: Some(cache.path().to_path_buf()),
        trial: Some(2),
    };
    let request = json!({"messages": [{"content": "Write scenarios.", "role": "user"}],
                         "model": "old-model", "max_tokens": 512, "temperature": 0.7});
    // The request as async-openai's type serialises it (its field order).
    let typed: async_openai::types::CreateChatCompletionRequest =
        serde_json::from_value(request).unwrap();
    let body = serde_json::to_string(&typed).unwrap();
    let key = sha256_hex(&format!("{url}\ntrial 2\ndraft 1\n{body}"));
    std::fs::write(
        cache.path().join(format!("{key}.json")),
        json!({"request": typed, "reply": "A cached pool.", "model": "old-model-0613"}).to_string(),
    )
    .unwrap();
    let meter = Meter::new();
    let prompter = Prompter::new(settings, "sk-unused")
        .unwrap()
        .metered(&meter, Role::Generator);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reply = runtime
        .block_on(prompter.complete_tagged("Write scenarios.", Some("draft 1")))
        .unwrap();
    assert_eq!(
        (reply.text.as_str(), reply.model.as_deref(), reply.cached),
        ("A cached pool.", Some("old-model-0613"), true)
    );
    assert_eq!(reply.usage, None);

    // `evaluate`'s predictors kept `{request, response}`, keyed by the
    // endpoint, the trial and the JSON body as built.
    let body = json!({"model": "eval-model", "messages": [{"role": "user", "content": "hi"}],
                      "tools": [{"type": "function", "function": {"name": "AddAlarm", "parameters": {}}}],
                      "temperature": 0.5});
    let key = sha256_hex(&format!("{url}\ntrial 3\n{body}"));
    let mut response = text_answer("Cached answer.");
    response["usage"] = json!({"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9});
    std::fs::write(
        cache.path().join(format!("{key}.json")),
        json!({"request": body, "response": response}).to_string(),
    )
    .unwrap();
    let client = Client::new(http.clone(), "")
        .unwrap()
        .cached_in(Some(cache.path().to_path_buf()))
        .metered(&meter, Role::Assistant);
    let completion = client
        .for_trial(Some(3))
        .chat_blocking("eval-model", &body, None)
        .unwrap();
    assert!(completion.cached);
    assert_eq!(completion.text(), "Cached answer.");
    // Another trial is another key: a request, which fails here.
    assert!(client
        .for_trial(Some(4))
        .chat_blocking("eval-model", &body, None)
        .is_err());

    // Embeddings kept one file per endpoint, model and text.
    let key = sha256_hex(&format!("{url}\nembed-model\nan alarm"));
    std::fs::write(
        cache.path().join(format!("{key}.json")),
        json!({"base_url": url, "model": "embed-model", "text": "an alarm", "embedding": [0.5, 0.25]})
            .to_string(),
    )
    .unwrap();
    let embedder = Embedder::new(client.metered(&meter, Role::Embeddings), "embed-model");
    let vectors = embedder.embed(&["an alarm"]).unwrap();
    assert_eq!(*vectors[0], vec![0.5, 0.25]);

    // Each was counted as a cached reply: the old generation entry and the
    // embedding without usage, the evaluator's with what it had cost.
    let usage = meter.usage();
    let row = |role: Role| usage.iter().find(|u| u.role == role).unwrap();
    let generator = row(Role::Generator);
    assert_eq!(
        (
            generator.requests,
            generator.cached,
            generator.without_usage
        ),
        (1, 1, 1)
    );
    let assistant = row(Role::Assistant);
    assert_eq!((assistant.requests, assistant.cached), (1, 1));
    assert_eq!(
        (assistant.total_tokens, assistant.cached_total_tokens),
        (0, 9)
    );
    let embeddings = row(Role::Embeddings);
    assert_eq!((embeddings.cached, embeddings.without_usage), (1, 1));
}

/// A reply the new client caches is read back with its usage.
#[test]
fn a_new_entry_keeps_the_usage_of_its_reply() {
    let cache = tempfile::tempdir().unwrap();
    let stub = stub(true);
    let http = HttpSettings {
        base_url: stub.url.clone(),
        ..nowhere()
    };
    let meter = Meter::new();
    let client = Client::new(http, "")
        .unwrap()
        .cached_in(Some(cache.path().to_path_buf()))
        .metered(&meter, Role::Assistant);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let sent = client.chat_blocking("m", &body, None).unwrap();
    assert!(!sent.cached);
    let again = client.chat_blocking("m", &body, None).unwrap();
    assert!(again.cached);
    assert_eq!(again.usage(), sent.usage());
    assert_eq!(stub.requests().len(), 1);
    let usage = &meter.usage()[0];
    assert_eq!((usage.total_tokens, usage.cached_total_tokens), (13, 13));
}
