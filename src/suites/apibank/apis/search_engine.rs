//! SearchEngine: searches the web, answering with the two best results
//! (title, URL, abstract).
//!
//! Database `SearchEngine` (read only): `{"raw_documents": [...],
//! "tokenized_documents": [[token, ...], ...], ...}`. The keyword is
//! lower-cased, stripped and split as NLTK's `word_tokenize` splits (see
//! [`word_tokenize`]), the documents are ranked by BM25 over their tokens
//! (see [`bm25`]), and the first two of numpy's `argsort` of the negated
//! scores are answered, ties in numpy's order. The index is built once per
//! loaded database and shared by every dialogue.
//!
//! [`word_tokenize`]: super::super::word_tokenize
//! [`bm25`]: super::super::bm25

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::super::bm25::{argsort, Bm25};
use super::super::catalog::{composed, spec};
use super::super::state::State;
use super::super::word_tokenize::word_tokenize;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{key_error, py_eq, py_strip, str_method, subscript, type_name, Args};

pub static API: Api = Api {
    spec: spec(
        "SearchEngine",
        "Searches the web.",
        &[composed("keyword")],
        false,
    )
    .reading("SearchEngine"),
    reference: Reference {
        description: "This API searches for a given keyword for search engine.",
        input_parameters: &[("keyword", "str", "The keyword to search.")],
        output_parameters: &[("results", "list", "The list of results.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["keyword"]);
    let outcome = match state.document("SearchEngine") {
        Some(document) => index(document).and_then(|bm25| search(document, &bm25, &args)),
        // `init_database=None`: the reference's constructor fails on `{}`.
        None => Err(key_error("tokenized_documents")),
    };
    result("SearchEngine", input, outcome)
}

/// The BM25 index of a loaded database, built on first use.
fn index(document: &Arc<Value>) -> Result<Arc<Bm25>, String> {
    type Cached = Option<(Arc<Value>, Arc<Bm25>)>;
    static CACHE: Mutex<Cached> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((source, bm25)) = cache.as_ref() {
        if Arc::ptr_eq(source, document) {
            return Ok(bm25.clone());
        }
    }
    let corpus = subscript(document, "tokenized_documents")?;
    let Value::Array(corpus) = corpus else {
        return Err(format!("'{}' object is not iterable", type_name(corpus)));
    };
    let corpus: Vec<Vec<String>> = corpus
        .iter()
        .map(|tokens| match tokens {
            Value::Array(tokens) => tokens
                .iter()
                .map(|t| {
                    t.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| t.to_string())
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let bm25 = Arc::new(Bm25::okapi(&corpus)?);
    *cache = Some((document.clone(), bm25.clone()));
    Ok(bm25)
}

fn search(document: &Value, bm25: &Bm25, args: &Args<'_>) -> Result<Value, String> {
    let keyword = str_method(args.value("keyword"), "lower")?.to_lowercase();
    let query = word_tokenize(py_strip(&keyword));
    let scores: Vec<f64> = bm25.scores(&query).into_iter().map(|s| -s).collect();
    let documents = subscript(document, "raw_documents")?;
    argsort(&scores)
        .into_iter()
        .take(2)
        .map(|i| match documents {
            Value::Array(items) => items
                .get(i)
                .cloned()
                .ok_or_else(|| "list index out of range".to_string()),
            _ => subscript(documents, &i.to_string()).cloned(),
        })
        .collect::<Result<Vec<Value>, String>>()
        .map(Value::Array)
}

/// Same API and exception, and the same results once each side is sorted
/// by title and abstract (descending). The reference sorts only outputs
/// that are not `None` and then compares both, so a result without
/// output (a failed call, even compared with itself) is never correct.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let sorted = |result: &Value| -> Option<Vec<(String, Value)>> {
        let Value::Array(items) = result.get("output")? else {
            return None;
        };
        let mut keyed = items
            .iter()
            .map(|item| {
                let text = |field: &str| item.get(field)?.as_str().map(str::to_string);
                Some((text("title")? + &text("abstract")?, item.clone()))
            })
            .collect::<Option<Vec<_>>>()?;
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
        Some(keyed)
    };
    if response.get("api_name") != groundtruth.get("api_name")
        || response.get("exception") != groundtruth.get("exception")
    {
        return false;
    }
    match (sorted(response), sorted(groundtruth)) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| py_eq(&x.1, &y.1))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn engine() -> (&'static str, Value) {
        let documents = [
            (
                "Rise of 5G Technology",
                "5G technology is set to revolutionize the way we communicate.",
            ),
            (
                "Importance of Vaccines",
                "Vaccines are a crucial tool for public health.",
            ),
            (
                "Mental Health Matters",
                "Mental health is an important aspect of overall wellbeing.",
            ),
            (
                "Blockchain Technology",
                "Blockchain technology may transform finance.",
            ),
        ];
        let raw: Vec<Value> = documents
            .iter()
            .map(|(title, abstract_)| json!({"title": title, "url": "u", "abstract": abstract_}))
            .collect();
        let tokenized: Vec<Vec<String>> = documents
            .iter()
            .map(|(title, abstract_)| {
                word_tokenize(&format!("{title} - {abstract_}").to_lowercase())
            })
            .collect();
        (
            "SearchEngine",
            json!({"raw_documents": raw, "tokenized_documents": tokenized}),
        )
    }

    fn titles(out: &Value) -> Vec<&str> {
        out["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["title"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn answers_the_two_best_documents() {
        let mut state = state(&[engine()]);
        let out = call(&API, &mut state, json!({"keyword": " Public HEALTH "}));
        // "health" is in half the documents: its idf is 0, so the other
        // documents tie at 0 and the first of them comes second.
        assert_eq!(
            titles(&out),
            ["Importance of Vaccines", "Rise of 5G Technology"]
        );
        let out = call(&API, &mut state, json!({"keyword": "mental wellbeing"}));
        assert_eq!(titles(&out)[0], "Mental Health Matters");
        let out = call(&API, &mut state, json!({"keyword": "blockchain, 5g!"}));
        assert_eq!(
            titles(&out),
            ["Blockchain Technology", "Rise of 5G Technology"]
        );
        // Nothing matches: all scores tie, and numpy keeps the first two.
        let out = call(&API, &mut state, json!({"keyword": "zebra"}));
        assert_eq!(
            titles(&out),
            ["Rise of 5G Technology", "Importance of Vaccines"]
        );
    }

    #[test]
    fn a_keyword_that_is_not_text_or_a_missing_database_fails() {
        let mut state = state(&[engine()]);
        let out = call(&API, &mut state, json!({"keyword": 5}));
        assert_eq!(out["exception"], "'int' object has no attribute 'lower'");
        let mut empty = super::super::testing::state(&[]);
        let out = call(&API, &mut empty, json!({"keyword": "x"}));
        assert_eq!(out["exception"], "'tokenized_documents'");
    }

    #[test]
    fn the_check_ignores_the_order_of_results_but_not_failures() {
        let a = json!({"title": "A", "abstract": "x"});
        let b = json!({"title": "B", "abstract": "y"});
        let gold = json!({"api_name": "SearchEngine", "output": [a, b], "exception": null});
        let swapped = json!({"api_name": "SearchEngine", "output": [b, a], "exception": null});
        assert!(correct(&swapped, &gold));
        let failed = json!({"api_name": "SearchEngine", "output": null, "exception": "e"});
        assert!(!correct(&failed, &failed));
    }

    #[test]
    fn the_databases_own_sample_queries_find_their_listed_documents() {
        let Some(upstream) = crate::test_support::upstream("apibank") else {
            return;
        };
        let text =
            std::fs::read_to_string(upstream.join("init_database/SearchEngine.json")).unwrap();
        let database: Value = serde_json::from_str(&text).unwrap();
        let samples = database["sample_queries"].as_object().unwrap().clone();
        let mut state = state(&[("SearchEngine", database)]);
        for (query, listed) in &samples {
            let out = call(&API, &mut state, json!({ "keyword": query }));
            assert_eq!(&out["output"], listed, "{query}");
        }
        assert!(samples.len() >= 5);
    }
}
