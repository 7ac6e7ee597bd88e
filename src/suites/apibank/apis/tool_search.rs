//! ToolSearcher: finds the API that fits a few keywords and answers with
//! its documentation, as the reference's class documents it (see
//! [`Reference`]).
//!
//! The library is every API but ToolSearcher itself, in [`APIS`] order.
//! Each is searched by its `desc_for_search`: the class name split before
//! its capitals and lower-cased, followed directly by its description
//! (`"query health dataThis API queries ..."`). The answer is the best
//! API's entry `{"name", "description", "input_parameters",
//! "output_parameters"}`, or, for an API that takes a `token`, the list
//! `[GetUserToken's entry, best]`, where GetUserToken's entry also keeps
//! its `desc_for_search` (the reference hands out its stored dict there,
//! and a copy without it for the best API). When no API scores above zero
//! the reference fails with `'NoneType' object has no attribute 'pop'`.
//!
//! Which API is best is the [`Retriever`]'s choice, kept in the dialogue's
//! [`State`] (see [`State::set_retriever`]):
//! - [`Lexical`] (the default, offline): BM25 over the words of each
//!   `desc_for_search` (see [`words`]);
//! - [`Embeddings`]: the cosine of embeddings from an OpenAI-compatible
//!   `/embeddings` endpoint, as the reference does with its
//!   sentence-embedding model (paraphrase-MiniLM-L3-v2).
//!
//! Either way the first API in library order with the highest score wins,
//! and only a score above zero counts, as in the reference.
//!
//! When a recording is replayed, the recorded answer names the API the
//! reference's own model picked; the call answers for that API (so the
//! rest of the dialogue sees what the recording saw) and also records what
//! the configured retriever picks, in [`State::retrieval`], for verify to
//! report where the two disagree.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::super::bm25::Bm25;
use super::super::catalog::{composed, spec};
use super::super::state::{Retrieval, State};
use super::{input_of, result, Api, Reference, APIS};
use crate::llm::embed::{cosine, Embedder};
use crate::sim::pyargs::{display, Args};

pub static API: Api = Api {
    spec: spec(
        "ToolSearcher",
        "Finds the APIs that fit a few keywords.",
        &[composed("keywords")],
        false,
    ),
    reference: Reference {
        description: "Searches for relevant tools in library based on the keywords.",
        input_parameters: &[("keywords", "str", "The keyword to search for.")],
        output_parameters: &[(
            "best_matchs",
            "Union[List[dict], dict]",
            "The best match tool(s).",
        )],
    },
    call,
    correct,
    check_removes: &[],
};

/// The reference's failure when nothing scores above zero.
const NO_MATCH: &str = "'NoneType' object has no attribute 'pop'";

/// One API of the library.
#[derive(Debug)]
pub struct Entry {
    pub name: &'static str,
    pub reference: &'static Reference,
    /// What the search reads: the name split into lower-case words, then
    /// the description, with nothing between them.
    pub desc_for_search: String,
}

impl Entry {
    fn new(api: &'static Api) -> Entry {
        Entry {
            name: api.spec.name,
            reference: &api.reference,
            desc_for_search: summary(api.spec.name, api.reference.description),
        }
    }

    /// The entry as ToolSearcher answers with it.
    fn to_json(&self, with_search_text: bool) -> Value {
        let parameters = |list: &[(&str, &str, &str)]| -> Value {
            Value::Object(
                list.iter()
                    .map(|(name, ty, description)| {
                        let mut parameter = Map::new();
                        parameter.insert("type".into(), (*ty).into());
                        parameter.insert("description".into(), (*description).into());
                        (name.to_string(), Value::Object(parameter))
                    })
                    .collect(),
            )
        };
        let mut entry = Map::new();
        entry.insert("name".into(), self.name.into());
        entry.insert("description".into(), self.reference.description.into());
        entry.insert(
            "input_parameters".into(),
            parameters(self.reference.input_parameters),
        );
        entry.insert(
            "output_parameters".into(),
            parameters(self.reference.output_parameters),
        );
        if with_search_text {
            entry.insert(
                "desc_for_search".into(),
                self.desc_for_search.clone().into(),
            );
        }
        Value::Object(entry)
    }

    fn takes_token(&self) -> bool {
        self.reference
            .input_parameters
            .iter()
            .any(|(name, _, _)| *name == "token")
    }
}

/// The reference's `api_summery`: `"QueryHealthData"` and its description
/// give `"query health data" + description`.
fn summary(name: &str, description: &str) -> String {
    let mut words = String::new();
    for c in name.chars() {
        if c.is_uppercase() {
            words.push(' ');
            words.extend(c.to_lowercase());
        } else {
            words.push(c);
        }
    }
    format!("{}{description}", words.trim())
}

/// Every API but ToolSearcher, in [`APIS`] order.
pub fn library() -> &'static [Entry] {
    shared_library()
}

fn shared_library() -> &'static [Entry] {
    static LIBRARY: OnceLock<Vec<Entry>> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        APIS.iter()
            .filter(|api| api.spec.name != API.spec.name)
            .map(|api| Entry::new(api))
            .collect()
    })
}

/// How ToolSearcher picks the best API.
pub trait Retriever: Send + Sync + fmt::Debug {
    /// What reports call it (`lexical`, `embeddings:<model>`).
    fn name(&self) -> String;

    /// One score per library entry, in library order.
    fn scores(&self, keywords: &str, library: &[Entry]) -> Result<Vec<f64>, String>;

    /// The best entry: the first with the highest score, if that score is
    /// above zero.
    fn best(&self, keywords: &str, library: &[Entry]) -> Result<Option<usize>, String> {
        Ok(first_best(&self.scores(keywords, library)?))
    }
}

/// The reference's loop: a score replaces the best only when strictly
/// greater, starting from zero.
fn first_best(scores: &[f64]) -> Option<usize> {
    let mut best = None;
    let mut top = 0.0;
    for (i, &score) in scores.iter().enumerate() {
        if score > top {
            best = Some(i);
            top = score;
        }
    }
    best
}

/// The words the lexical retriever compares: the text is split where a
/// lower-case letter or a digit is followed by a capital (so a class name
/// such as `QueryHealthData`, and the `dataThis` where a summary's name
/// meets its description, come apart), then at every character that is
/// not a letter or digit, and lower-cased. No stemming, no stop words
/// (BM25's idf already weighs common words down).
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else {
            let boundary =
                c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_numeric());
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.extend(c.to_lowercase());
        }
        previous = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// BM25 over the [`words`] of each API's `desc_for_search`; offline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lexical;

impl Lexical {
    fn index(library: &[Entry]) -> Result<Bm25, String> {
        let corpus: Vec<Vec<String>> = library
            .iter()
            .map(|entry| words(&entry.desc_for_search))
            .collect();
        Bm25::okapi(&corpus)
    }
}

impl Retriever for Lexical {
    fn name(&self) -> String {
        "lexical".into()
    }

    fn scores(&self, keywords: &str, library: &[Entry]) -> Result<Vec<f64>, String> {
        // The shared library's index is built once; another library (in
        // tests) is indexed on the spot.
        static SHARED: OnceLock<Result<Bm25, String>> = OnceLock::new();
        let own;
        let index = if std::ptr::eq(library, shared_library()) {
            SHARED.get_or_init(|| Lexical::index(library)).as_ref()
        } else {
            own = Lexical::index(library);
            own.as_ref()
        }
        .map_err(Clone::clone)?;
        Ok(index.scores(&words(keywords)))
    }
}

/// Cosine similarity of sentence embeddings from an OpenAI-compatible
/// endpoint (the run's [`Embedder`], which keeps each text's embedding, so
/// a description is sent once per run whatever the number of dialogues).
#[derive(Debug, Clone)]
pub struct Embeddings {
    embedder: Arc<Embedder>,
}

impl Embeddings {
    pub fn new(embedder: Arc<Embedder>) -> Self {
        Embeddings { embedder }
    }
}

impl Retriever for Embeddings {
    fn name(&self) -> String {
        format!("embeddings:{}", self.embedder.model())
    }

    fn scores(&self, keywords: &str, library: &[Entry]) -> Result<Vec<f64>, String> {
        let mut texts = vec![keywords];
        texts.extend(library.iter().map(|entry| entry.desc_for_search.as_str()));
        let vectors = self.embedder.embed(&texts)?;
        Ok(vectors[1..]
            .iter()
            .map(|v| cosine(&vectors[0], v))
            .collect())
    }
}

/// The API a recorded answer names: the entry's name, or the second
/// entry's for a `[GetUserToken, best]` list.
pub fn recorded_pick(recorded: &Value) -> Option<String> {
    let output = recorded.get("output")?;
    let best = match output {
        Value::Array(entries) => entries.get(1)?,
        entry => entry,
    };
    best.get("name")?.as_str().map(str::to_string)
}

fn call(state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["keywords"]);
    let keywords = match args.value("keywords") {
        Value::String(text) => text.clone(),
        other => display(other),
    };
    let library = library();
    let retriever = state.retriever();
    let picked = retriever.best(&keywords, library);
    if let Err(error) = &picked {
        state.set_retriever_failure(error.clone());
    }
    let named = |pick: &Result<Option<usize>, String>| -> Result<Option<String>, String> {
        pick.clone()
            .map(|best| best.map(|i| library[i].name.to_string()))
    };
    let recorded = state.recorded().and_then(recorded_pick);
    let chosen = match recorded {
        Some(name) => {
            state.set_retrieval(Retrieval {
                recorded: name.clone(),
                retriever: named(&picked),
            });
            match library.iter().position(|entry| entry.name == name) {
                Some(i) => Ok(Some(i)),
                None => picked,
            }
        }
        None => picked,
    };
    let outcome = chosen.and_then(|best| best.map(|i| answer(library, i)).ok_or(NO_MATCH.into()));
    result("ToolSearcher", input, outcome)
}

/// The answer for library entry `best`.
fn answer(library: &[Entry], best: usize) -> Value {
    let entry = &library[best];
    if !entry.takes_token() {
        return entry.to_json(false);
    }
    let token = library
        .iter()
        .find(|entry| entry.name == "GetUserToken")
        .expect("GetUserToken is an API");
    Value::Array(vec![token.to_json(true), entry.to_json(false)])
}

/// Same output and exception (the keywords are not compared).
fn correct(response: &Value, groundtruth: &Value) -> bool {
    response.get("output") == groundtruth.get("output")
        && response.get("exception") == groundtruth.get("exception")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_split_the_class_name_as_the_reference_does() {
        assert_eq!(
            summary("QueryHealthData", "This API queries."),
            "query health dataThis API queries."
        );
        assert_eq!(summary("DocumentQA", "Answers."), "document q aAnswers.");
        assert_eq!(
            words("query health dataThis API queries, 2 QAs."),
            ["query", "health", "data", "this", "api", "queries", "2", "qas"]
        );
        assert_eq!(words("QueryHealthData"), ["query", "health", "data"]);
    }

    #[test]
    fn the_library_is_every_api_but_tool_searcher() {
        let names: Vec<&str> = library().iter().map(|e| e.name).collect();
        assert_eq!(names.len(), APIS.len() - 1);
        assert!(!names.contains(&"ToolSearcher"));
        assert!(names.contains(&"GetUserToken"));
    }

    #[test]
    fn answers_with_the_best_apis_reference_entry() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"keywords": "book hotel"}));
        assert_eq!(out["output"]["name"], "BookHotel");
        let keys: Vec<&String> = out["output"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "name",
                "description",
                "input_parameters",
                "output_parameters"
            ]
        );
        assert_eq!(
            out["output"]["input_parameters"]["room_count"],
            json!({"type": "int", "description": "The number of rooms to order."})
        );
        assert_eq!(out["exception"], Value::Null);
    }

    #[test]
    fn a_token_api_comes_after_get_user_tokens_entry() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"keywords": "bank balance"}));
        let entries = out["output"].as_array().unwrap();
        assert_eq!(entries[0]["name"], "GetUserToken");
        assert_eq!(
            entries[0]["desc_for_search"],
            "get user tokenGet the user token by username and password."
        );
        assert_eq!(entries[1]["name"], "QueryBalance");
        assert!(entries[1].get("desc_for_search").is_none());
    }

    #[test]
    fn no_matching_word_fails_as_the_reference_does() {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({"keywords": "zzzz"}));
        assert_eq!(out["exception"], NO_MATCH);
        assert_eq!(out["output"], Value::Null);
    }

    #[test]
    fn a_replay_answers_for_the_recorded_api_and_keeps_the_retrievers_pick() {
        let mut state = state(&[]);
        state.replaying(Some(json!({"output": {"name": "Calculator"}})));
        let out = call(&API, &mut state, json!({"keywords": "book hotel"}));
        assert_eq!(out["output"]["name"], "Calculator");
        assert_eq!(
            state.retrieval(),
            Some(&Retrieval {
                recorded: "Calculator".into(),
                retriever: Ok(Some("BookHotel".into())),
            })
        );
        state.replaying(Some(
            json!({"output": [{"name": "GetUserToken"}, {"name": "QueryBalance"}]}),
        ));
        assert_eq!(state.retrieval(), None);
        let out = call(&API, &mut state, json!({"keywords": "bank balance"}));
        assert_eq!(out["output"][1]["name"], "QueryBalance");
        assert!(state.retrieval().unwrap().agrees());
    }

    #[test]
    fn the_first_strictly_best_score_above_zero_wins() {
        assert_eq!(first_best(&[0.0, 0.5, 0.5, 0.2]), Some(1));
        assert_eq!(first_best(&[0.0, -1.0]), None);
        assert_eq!(first_best(&[]), None);
        assert!((cosine(&[1.0, 0.0], &[1.0, 1.0]) - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }

    /// A retriever that scores by a fixed table, to show the state's
    /// retriever is the one asked.
    #[derive(Debug)]
    struct Fixed(&'static str);

    impl Retriever for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn scores(&self, _: &str, library: &[Entry]) -> Result<Vec<f64>, String> {
            Ok(library
                .iter()
                .map(|e| f64::from(u8::from(e.name == self.0)))
                .collect())
        }
    }

    #[test]
    fn the_states_retriever_is_the_one_asked() {
        let mut state = state(&[]);
        state.set_retriever(std::sync::Arc::new(Fixed("Wiki")));
        let out = call(&API, &mut state, json!({"keywords": "book hotel"}));
        assert_eq!(out["output"]["name"], "Wiki");
        assert_eq!(state.retriever().name(), "fixed");
    }

    #[test]
    fn the_check_compares_only_the_answer() {
        let gold = json!({"api_name": "ToolSearcher", "input": {"keywords": "a"}, "output": {"name": "Wiki"}, "exception": null});
        let other = json!({"api_name": "ToolSearcher", "input": {"keywords": "b"}, "output": {"name": "Wiki"}, "exception": null});
        assert!(correct(&other, &gold));
    }
}
