//! `talkforge generate` against a stub OpenAI-compatible server on
//! 127.0.0.1 started here: filtering, retries of 429 and 500, the cache,
//! the concurrency bound, and the API key never leaking.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use talkforge::formats::scenario::ScenarioPool;

const KEY: &str = "sk-stub-SECRET-7f3a91";
/// The model the stub says answered (the run asks for "stub-model").
const SERVED_MODEL: &str = "stub-model-2024-06-01";

#[derive(Default)]
struct Stub {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// Statuses to answer with before answering normally, in order.
    failures: Mutex<Vec<u16>>,
    authorizations: Mutex<Vec<String>>,
    /// When each request arrived.
    arrivals: Mutex<Vec<Instant>>,
    delay: Duration,
}

impl Stub {
    fn start(failures: Vec<u16>, delay: Duration) -> (Arc<Stub>, String) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let stub = Arc::new(Stub {
            failures: Mutex::new(failures),
            delay,
            ..Stub::default()
        });
        let shared = Arc::clone(&stub);
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let stub = Arc::clone(&shared);
                std::thread::spawn(move || stub.serve(conn));
            }
        });
        (stub, url)
    }

    fn serve(&self, mut conn: TcpStream) {
        let mut reader = BufReader::new(conn.try_clone().unwrap());
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if lower.starts_with("authorization:") {
                self.authorizations
                    .lock()
                    .unwrap()
                    .push(line.trim().to_owned());
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        self.arrivals.lock().unwrap().push(Instant::now());
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.requests.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(self.delay);
        let failure = {
            let mut failures = self.failures.lock().unwrap();
            (!failures.is_empty()).then(|| failures.remove(0))
        };
        let mut extra_headers = "";
        let (status, text) = match failure {
            // Hang up without a word.
            Some(0) => {
                self.in_flight.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            // A server that echoes the key it was sent.
            Some(4011) => (
                "401 Unauthorized",
                format!(r#"{{"error": {{"message": "Incorrect API key provided: {KEY}. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}}}"#),
            ),
            // A reply with no choices at all.
            Some(2000) => (
                "200 OK",
                serde_json::json!({"id": "stub", "object": "chat.completion", "created": 0,
                                   "model": SERVED_MODEL, "choices": []})
                .to_string(),
            ),
            Some(429) => (
                "429 Too Many Requests",
                r#"{"error": {"message": "slow down", "type": "rate_limit_exceeded", "param": null, "code": null}}"#.to_owned(),
            ),
            // A plain-text 429 asking for a one-second wait (nginx, proxies).
            Some(4291) => {
                extra_headers = "Retry-After: 1\r\n";
                ("429 Too Many Requests", "Too Many Requests".to_owned())
            }
            // vLLM's error shape.
            Some(5001) => (
                "500 Internal Server Error",
                r#"{"object": "error", "message": "engine overloaded", "type": "InternalServerError", "param": null, "code": 500}"#.to_owned(),
            ),
            Some(400) => (
                "400 Bad Request",
                r#"{"error": {"message": "bad request", "type": "invalid_request_error", "param": null, "code": null}}"#.to_owned(),
            ),
            Some(code) => (
                if code == 500 { "500 Internal Server Error" } else { "503 Service Unavailable" },
                "upstream exploded".to_owned(),
            ),
            None => {
                let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
                let prompt = request["messages"][0]["content"].as_str().unwrap();
                let reply = serde_json::json!({
                    "id": "stub", "object": "chat.completion", "created": 0, "model": SERVED_MODEL,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer(prompt)}}]
                });
                ("200 OK", reply.to_string())
            }
        };
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        let _ = write!(
            conn,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra_headers}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        );
    }
}

/// A reply in the requested shape: one good scenario, one that invents a
/// tool and misses the required one, one duplicate of the first.
fn answer(prompt: &str) -> String {
    let required = prompt
        .lines()
        .find_map(|l| l.strip_prefix("Required tool: "))
        .unwrap()
        .trim()
        .to_owned();
    let others: Vec<&str> = prompt
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(str::trim)
        .filter(|t| *t != required)
        .take(2)
        .collect();
    let good = format!(
        "The user first checks things ({}), then acts on them ({required}), and finally follows up twice ({} + {}).",
        others[0], others[1], others[0]
    );
    format!(
        "```\n- Scenario 1: {good}\n- **Scenario 2:** The user brews coffee (MakeCoffee) and then ({}).\n- Scenario 3: {good}\n```",
        others[1]
    )
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

fn generate(url: &str, dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("talkforge")
        .unwrap()
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OPENAI_BASE_URL")
        .args(["generate", "--format", "json", "--model", "stub-model"])
        .args([
            "--base-url",
            url,
            "--retry-base",
            "0.01",
            "--retry-for",
            "20",
        ])
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--cache")
        .arg(dir.join("cache"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn full_run_retries_filters_caches_and_never_leaks_the_key() {
    let (stub, url) = Stub::start(vec![429, 500, 503], Duration::from_millis(5));
    let dir = tempfile::tempdir().unwrap();
    let first = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(summary["prompts"], 3);
    assert_eq!(summary["scenarios"], 9);
    assert_eq!(summary["accepted"], 3);
    assert_eq!(summary["rejected"], 6);
    assert_eq!(summary["files"].as_array().unwrap().len(), 3);
    // 3 prompts + 3 failed attempts, all retried.
    assert_eq!(stub.requests.load(Ordering::SeqCst), 6);
    // The key was sent (so it was really used) ...
    assert!(stub
        .authorizations
        .lock()
        .unwrap()
        .iter()
        .all(|a| a.ends_with(KEY)));

    let pool_path = dir.path().join("out").join(
        summary["files"][0]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap(),
    );
    let pool_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&pool_path).unwrap()).unwrap();
    let schema = serde_json::to_value(schemars::schema_for!(ScenarioPool)).unwrap();
    assert!(jsonschema::validator_for(&schema)
        .unwrap()
        .is_valid(&pool_json));
    let pool: ScenarioPool = serde_json::from_value(pool_json).unwrap();
    // The pool names the model the server reports, not the alias asked for.
    assert_eq!(pool.model, SERVED_MODEL);
    assert_eq!(pool.plugins.len(), 3);
    assert_eq!(pool.prompt_sha256.len(), 64);
    assert!(pool.name.ends_with(&pool.required_tool));
    assert!(
        pool.scenarios[0].accepted,
        "{:?}",
        pool.scenarios[0].reasons
    );
    assert!(pool.scenarios[1]
        .reasons
        .iter()
        .any(|r| r.contains("MakeCoffee")));
    assert!(pool.scenarios[1]
        .reasons
        .iter()
        .any(|r| r.contains("not mentioned")));
    assert_eq!(pool.scenarios[2].reasons, ["duplicate of scenario 0"]);

    // A second run keeps the pools of the same prompts: zero requests,
    // the same pools, counted as kept.
    let pools_before: Vec<Vec<u8>> = files_under(&dir.path().join("out"))
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let second = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert!(second.status.success());
    assert_eq!(stub.requests.load(Ordering::SeqCst), 6);
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&first.stdout).unwrap(),
        serde_json::from_slice(&second.stdout).unwrap(),
    );
    assert_eq!((a["kept"].clone(), b["kept"].clone()), (0.into(), 3.into()));
    for key in ["prompts", "scenarios", "accepted", "rejected", "files"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    // --force asks again, and the cache answers: still zero requests.
    let forced = generate(&url, dir.path(), &["--limit", "3", "--force"]);
    assert!(forced.status.success());
    assert_eq!(stub.requests.load(Ordering::SeqCst), 6);
    // The same summary, but for what the replies cost: the first run
    // spent its tokens, the forced rerun took every reply from the cache.
    let mut f: serde_json::Value = serde_json::from_slice(&forced.stdout).unwrap();
    let mut a = a.clone();
    let (spent, cached) = (a["usage"][0].take(), f["usage"][0].take());
    assert_eq!(
        (
            &spent["requests"],
            &spent["cached"],
            &cached["requests"],
            &cached["cached"]
        ),
        (&3.into(), &0.into(), &3.into(), &3.into())
    );
    // This server reports no usage: counted, with no tokens.
    assert_eq!(
        (&spent["without_usage"], &cached["without_usage"]),
        (&3.into(), &3.into())
    );
    assert_eq!(spent["total_tokens"], 0);
    assert_eq!(f, a);
    let pools_after: Vec<Vec<u8>> = files_under(&dir.path().join("out"))
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert_eq!(pools_before, pools_after);

    // ... and appears nowhere we wrote.
    for output in [&first, &second] {
        assert!(!String::from_utf8_lossy(&output.stdout).contains(KEY));
        assert!(!String::from_utf8_lossy(&output.stderr).contains(KEY));
    }
    let written = files_under(dir.path());
    assert!(written.len() >= 6, "{written:?}");
    for file in written {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "{}",
            file.display()
        );
    }
}

#[test]
fn error_answers_of_any_shape_are_retried_and_retry_after_is_honoured() {
    // A plain-text 429 with Retry-After: 1, then vLLM's JSON 500, then the
    // answer. async-openai alone gave up on the first (its body is not
    // OpenAI's error object).
    let (stub, url) = Stub::start(vec![4291, 5001], Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let out = generate(&url, dir.path(), &["--limit", "1", "--no-cache"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["files"].as_array().unwrap().len(), 1);
    assert_eq!(stub.requests.load(Ordering::SeqCst), 3);
    let arrivals = stub.arrivals.lock().unwrap().clone();
    // The server asked for a second: waited although --retry-base is 10 ms.
    let first_wait = arrivals[1] - arrivals[0];
    assert!(first_wait >= Duration::from_millis(950), "{first_wait:?}");
    // No Retry-After on the 500: the short backoff (10-30 ms, some slack).
    let second_wait = arrivals[2] - arrivals[1];
    assert!(second_wait < Duration::from_millis(700), "{second_wait:?}");
}

#[test]
fn retrying_stops_at_retry_for_with_the_status_in_the_message() {
    let (stub, url) = Stub::start(vec![5001; 50], Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .env("OPENAI_API_KEY", KEY)
        .args([
            "generate",
            "--model",
            "stub-model",
            "--limit",
            "1",
            "--no-cache",
        ])
        .args([
            "--base-url",
            &url,
            "--retry-base",
            "0.02",
            "--retry-for",
            "0.3",
        ])
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("500") && stderr.contains("engine overloaded"),
        "{stderr}"
    );
    assert!(stderr.contains(&url), "{stderr}");
    assert!(!stderr.contains(KEY));
    let n = stub.requests.load(Ordering::SeqCst);
    assert!((2..50).contains(&n), "{n} attempts");
}

#[test]
fn concurrency_bound_is_respected() {
    let (stub, url) = Stub::start(vec![], Duration::from_millis(150));
    let dir = tempfile::tempdir().unwrap();
    let out = generate(
        &url,
        dir.path(),
        &["--limit", "8", "--concurrency", "3", "--no-cache"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stub.requests.load(Ordering::SeqCst), 8);
    // Never above the bound, and really parallel (3 unless the machine is
    // too loaded to overlap the 150 ms answers).
    let max = stub.max_in_flight.load(Ordering::SeqCst);
    assert!((2..=3).contains(&max), "max in flight {max}");
}

#[test]
fn unreachable_endpoint_names_the_url() {
    // Bind and drop to get a port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let dir = tempfile::tempdir().unwrap();
    let out = generate(&url, dir.path(), &["--limit", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&url), "{stderr}");
    assert!(stderr.contains("cannot reach"), "{stderr}");
    assert!(!stderr.contains(KEY));
}

#[test]
fn a_slow_endpoint_times_out_with_a_clear_error() {
    let (stub, url) = Stub::start(vec![], Duration::from_millis(1500));
    let dir = tempfile::tempdir().unwrap();
    let out = generate(
        &url,
        dir.path(),
        &[
            "--limit",
            "1",
            "--timeout",
            "0.2",
            "--retries",
            "1",
            "--no-cache",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no answer within") && stderr.contains(&url),
        "{stderr}"
    );
    // The timed-out attempt was retried once.
    assert_eq!(stub.requests.load(Ordering::SeqCst), 2);
}

#[test]
fn a_failed_run_resumes_without_resending_answered_prompts() {
    // The first request fails for good (400, not retried); the others are
    // answered, written and cached before the run reports the failure.
    let (stub, url) = Stub::start(vec![400], Duration::from_millis(5));
    let dir = tempfile::tempdir().unwrap();
    let first = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert_eq!(first.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&first.stderr).contains(&url));
    assert_eq!(stub.requests.load(Ordering::SeqCst), 3);
    let pools = std::fs::read_dir(dir.path().join("out")).unwrap().count();
    assert_eq!(pools, 2);
    // The rerun sends only the prompt that failed.
    let second = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(stub.requests.load(Ordering::SeqCst), 4);
    let summary: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(summary["files"].as_array().unwrap().len(), 3);
}

#[test]
fn a_connection_closed_without_an_answer_is_retried_like_a_5xx() {
    let (stub, url) = Stub::start(vec![0, 0], Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let out = generate(&url, dir.path(), &["--limit", "1", "--no-cache"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stub.requests.load(Ordering::SeqCst), 3);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["files"].as_array().unwrap().len(), 1);
}

#[test]
fn a_key_the_server_echoes_is_redacted() {
    let (_stub, url) = Stub::start(vec![4011], Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let out = generate(&url, dir.path(), &["--limit", "1", "--no-cache"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Incorrect API key provided: [redacted]"),
        "{stderr}"
    );
    assert!(!stderr.contains(KEY), "{stderr}");
    assert!(!stderr.contains("SECRET"), "{stderr}");
}

#[test]
fn a_reply_without_choices_is_asked_again_and_a_failed_prompt_is_named_and_not_cached() {
    // The first request gets a reply with no choices, the second (asking
    // the same prompt again) a 400.
    let (stub, url) = Stub::start(vec![2000, 400], Duration::from_millis(0));
    let dir = tempfile::tempdir().unwrap();
    let first = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert_eq!(first.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("1 of 3 prompts failed"), "{stderr}");
    let failed: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("prompt "))
        .collect();
    assert_eq!(failed.len(), 1, "{stderr}");
    assert!(failed[0].contains("bad request"), "{stderr}");
    // The empty reply was asked again at once: three prompts, four requests.
    assert_eq!(stub.requests.load(Ordering::SeqCst), 4);
    // Only the answered prompts have a pool.
    assert_eq!(
        std::fs::read_dir(dir.path().join("out")).unwrap().count(),
        2
    );
    // The failure was not cached: the rerun asks it again, and writes the
    // prompt the failure named.
    let second = generate(&url, dir.path(), &["--limit", "3", "--concurrency", "1"]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(stub.requests.load(Ordering::SeqCst), 5);
    let summary: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    let files = summary["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let name = failed[0].split(':').next().unwrap();
    assert!(
        files
            .iter()
            .any(|f| f.as_str().unwrap().ends_with(&format!("/{name}.json"))),
        "{name} in {files:?}"
    );
}

#[test]
fn a_pool_of_another_prompt_is_never_overwritten_without_force() {
    let (stub, url) = Stub::start(Vec::new(), Duration::ZERO);
    let dir = tempfile::tempdir().unwrap();
    let first = generate(&url, dir.path(), &["--limit", "1"]);
    assert!(first.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let pool = std::path::PathBuf::from(summary["files"][0].as_str().unwrap());
    // Hand-edited (or another prompt's): the run refuses before asking.
    std::fs::write(&pool, "{\"edited\": true}").unwrap();
    let refused = generate(&url, dir.path(), &["--limit", "1"]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("would be overwritten") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&pool).unwrap(),
        "{\"edited\": true}"
    );
    assert_eq!(stub.requests.load(Ordering::SeqCst), 1);
    let forced = generate(&url, dir.path(), &["--limit", "1", "--force"]);
    assert!(forced.status.success());
    assert!(std::fs::read_to_string(&pool)
        .unwrap()
        .contains("prompt_sha256"));
}
