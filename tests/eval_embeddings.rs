//! The `embeddings` text similarity against a stub /v1/embeddings server:
//! cosine against the reference threshold, the on-disk cache, and a failing
//! endpoint reported rather than taken as an answer.

mod eval_support;

use std::time::Duration;

use eval_support::{embeddings_answer, error_answer, Raw, Stub};
use serde_json::Value;
use talkforge::eval::embeddings::Embeddings;
use talkforge::eval::Similarity;
use talkforge::llm::client::Client;
use talkforge::llm::http::HttpSettings;
use talkforge::suite::TextSimilarity;

/// A 2-d embedding by keyword: "cat" (1, 0), "dog" (0, 1), "pet" (1, 1).
fn vector(text: &str) -> Vec<f32> {
    if text.contains("pet") {
        vec![1.0, 1.0]
    } else if text.contains("cat") {
        vec![1.0, 0.0]
    } else {
        vec![0.0, 1.0]
    }
}

fn embed(path: &str, body: &Value, _: usize) -> (u16, Value) {
    assert!(path.ends_with("/embeddings"), "{path}");
    let inputs: Vec<Vec<f32>> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| vector(t.as_str().unwrap()))
        .collect();
    (200, embeddings_answer(&inputs))
}

fn endpoint(url: &str) -> Client {
    Client::from_env(HttpSettings {
        base_url: url.to_string(),
        timeout: Duration::from_secs(5),
        retries: 1,
        retry_base: Duration::from_millis(5),
        retry_for: Duration::from_millis(50),
    })
    .unwrap()
}

#[test]
fn cosine_against_the_reference_threshold_with_a_disk_cache() {
    let stub = Stub::start(Box::new(embed));
    let cache = tempfile::tempdir().unwrap();
    let sim = Embeddings::new(
        endpoint(&stub.url),
        "stub-embed".into(),
        Some(cache.path().into()),
    );
    // cos((1,0),(1,0)) = 1; cos((1,0),(0,1)) = 0; cos((1,0),(1,1)) = 0.7071.
    assert!(sim.similar(Some("a cat"), "the cat", 0.9));
    assert!(!sim.similar(Some("a cat"), "a dog", 0.8));
    assert!(!sim.similar(Some("a cat"), "a pet", 0.8));
    assert!(sim.similar(Some("a cat"), "a pet", 0.7));
    assert!(!sim.similar(None, "a cat", 0.0));
    // Equal texts need no request.
    let before = stub.requests().len();
    assert!(sim.similar(Some("same"), "same", 0.99));
    assert_eq!(stub.requests().len(), before);
    assert!(sim.failure().is_none());
    // Each request sent the model and only texts not seen before.
    let requests = stub.requests();
    assert_eq!(requests[0].body["model"], "stub-embed");
    let sent: usize = requests
        .iter()
        .map(|r| r.body["input"].as_array().unwrap().len())
        .sum();
    assert_eq!(sent, 4, "a cat, the cat, a dog, a pet");

    // A second instance answers from the disk cache alone.
    let again = Embeddings::new(
        endpoint(&stub.url),
        "stub-embed".into(),
        Some(cache.path().into()),
    );
    assert!(!again.similar(Some("a dog"), "a cat", 0.5));
    assert!(again.similar(Some("a pet"), "a cat", 0.7));
    assert_eq!(stub.requests().len(), requests.len());
    // A different model does not reuse another model's vectors.
    let other = Embeddings::new(
        endpoint(&stub.url),
        "other".into(),
        Some(cache.path().into()),
    );
    assert!(other.similar(Some("a cat"), "the cat", 0.9));
    assert!(stub.requests().len() > requests.len());
}

#[test]
fn a_failing_endpoint_is_reported() {
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (500, error_answer("down"))
    }));
    let sim = Embeddings::new(endpoint(&stub.url), "stub-embed".into(), None);
    assert!(!sim.similar(Some("a cat"), "a dog", 0.1));
    let failure = sim.failure().expect("the failure is kept");
    assert!(failure.contains(&stub.url), "{failure}");
    // 5xx answers were retried before giving up.
    assert!(stub.requests().len() > 1);
}

#[test]
fn a_timed_out_request_is_retried() {
    let stub = Stub::start(Box::new(|path: &str, body: &Value, count| {
        if count == 0 {
            std::thread::sleep(Duration::from_millis(600));
        }
        embed(path, body, count)
    }));
    let mut settings = HttpSettings {
        base_url: stub.url.clone(),
        timeout: Duration::from_millis(150),
        retries: 2,
        retry_base: Duration::from_millis(5),
        retry_for: Duration::from_millis(50),
    };
    let sim = Embeddings::new(
        Client::from_env(settings.clone()).unwrap(),
        "m".into(),
        None,
    );
    assert!(sim.similar(Some("a cat"), "the cat", 0.9));
    assert!(sim.failure().is_none());
    assert_eq!(stub.requests().len(), 2);

    // Without retries the timeout is the answer.
    settings.retries = 0;
    let slow = Stub::start(Box::new(|path: &str, body: &Value, count| {
        std::thread::sleep(Duration::from_millis(400));
        embed(path, body, count)
    }));
    settings.base_url = slow.url.clone();
    let sim = Embeddings::new(Client::from_env(settings).unwrap(), "m".into(), None);
    assert!(!sim.similar(Some("a cat"), "the cat", 0.9));
    assert!(sim.failure().unwrap().contains("no answer"));
}

#[test]
fn a_plain_text_429_is_retried_and_the_cache_is_per_endpoint() {
    let stub = Stub::start_raw(Box::new(|path: &str, body: &Value, count| {
        if count == 0 {
            Raw::text(429, "rate limited, try later")
        } else {
            let (status, answer) = embed(path, body, count);
            Raw::json(status, &answer)
        }
    }));
    let cache = tempfile::tempdir().unwrap();
    let sim = Embeddings::new(
        endpoint(&stub.url),
        "stub-embed".into(),
        Some(cache.path().into()),
    );
    assert!(sim.similar(Some("a cat"), "the cat", 0.9));
    assert!(sim.failure().is_none(), "{:?}", sim.failure());
    assert_eq!(stub.requests().len(), 2);

    // Another server with the same model name is asked again: the cache
    // key holds the endpoint's URL.
    let other = Stub::start(Box::new(embed));
    let sim = Embeddings::new(
        endpoint(&other.url),
        "stub-embed".into(),
        Some(cache.path().into()),
    );
    assert!(sim.similar(Some("a cat"), "the cat", 0.9));
    assert_eq!(other.requests().len(), 1);
    let entry = walkdir::WalkDir::new(cache.path())
        .into_iter()
        .flatten()
        .find(|e| e.file_type().is_file())
        .unwrap();
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
    assert!(entry["base_url"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
}
