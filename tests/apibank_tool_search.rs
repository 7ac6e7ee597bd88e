//! ToolSearcher's embeddings retriever against a stub `/v1/embeddings`
//! server: the best cosine wins, texts are sent once, and a failing
//! endpoint is an error rather than a pick.

mod eval_support;

use std::sync::Arc;
use std::time::Duration;

use eval_support::{embeddings_answer, error_answer, Stub};
use serde_json::Value;
use talkforge::llm::client::Client;
use talkforge::llm::embed::Embedder;
use talkforge::llm::http::HttpSettings;
use talkforge::suites::apibank::apis::tool_search::{library, Embeddings, Retriever};

/// "hotel" texts point one way, "arithmetic" ones another, the rest
/// between them.
fn vector(text: &str) -> Vec<f32> {
    if text.contains("hotel") {
        vec![1.0, 0.0]
    } else if text.contains("arithmetic") {
        vec![0.0, 1.0]
    } else {
        vec![0.2, 0.1]
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

fn name(best: Option<usize>) -> Option<&'static str> {
    best.map(|i| library()[i].name)
}

#[test]
fn the_best_cosine_wins_and_each_text_is_sent_once() {
    let stub = Stub::start(Box::new(embed));
    let retriever = Embeddings::new(Arc::new(Embedder::new(endpoint(&stub.url), "stub-embed")));
    assert_eq!(retriever.name(), "embeddings:stub-embed");
    let best = retriever.best("a hotel for two nights", library()).unwrap();
    assert_eq!(name(best), Some("BookHotel"));
    let best = retriever.best("some arithmetic", library()).unwrap();
    assert_eq!(name(best), Some("Calculator"));
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["model"], "stub-embed");
    assert_eq!(
        requests[0].body["input"].as_array().unwrap().len(),
        library().len() + 1,
        "the keywords and every API's summary"
    );
    assert_eq!(
        requests[1].body["input"],
        serde_json::json!(["some arithmetic"]),
        "only the new keywords"
    );
}

#[test]
fn a_failing_endpoint_is_an_error_not_a_pick() {
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (400, error_answer("no such model"))
    }));
    let retriever = Embeddings::new(Arc::new(Embedder::new(endpoint(&stub.url), "missing")));
    let error = retriever.best("hotel", library()).unwrap_err();
    assert!(
        error.contains("no such model") || error.contains("400"),
        "{error}"
    );
}
