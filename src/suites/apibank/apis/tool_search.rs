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
//! Whose words the answer carries is the dialogue's setting
//! ([`ToolDescriptions`], kept in the [`State`]): the reference's (the
//! default; what upstream recordings hold, so they reproduce) or the
//! project's catalog, for dialogues written here. The search reads the
//! same words it answers with.
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
use crate::suite::{ParamSpec, ParamType, ToolDescriptions, ValueFormat};

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
    /// The answer's `description`, `input_parameters` and
    /// `output_parameters`, in whichever words the library was built with.
    documentation: Map<String, Value>,
    takes_token: bool,
    /// What the search reads: the name split into lower-case words, then
    /// the description, with nothing between them.
    pub desc_for_search: String,
}

impl Entry {
    fn new(api: &'static Api, descriptions: ToolDescriptions) -> Entry {
        let reference = &api.reference;
        let (description, documentation) = match descriptions {
            ToolDescriptions::Reference => {
                (reference.description, reference_documentation(reference))
            }
            ToolDescriptions::Project => (api.spec.description, project_documentation(api)),
        };
        Entry {
            name: api.spec.name,
            documentation,
            takes_token: reference
                .input_parameters
                .iter()
                .any(|(name, _, _)| *name == "token"),
            desc_for_search: summary(api.spec.name, description),
        }
    }

    /// The entry as ToolSearcher answers with it.
    fn to_json(&self, with_search_text: bool) -> Value {
        let mut entry = Map::new();
        entry.insert("name".into(), self.name.into());
        entry.extend(self.documentation.clone());
        if with_search_text {
            entry.insert(
                "desc_for_search".into(),
                self.desc_for_search.clone().into(),
            );
        }
        Value::Object(entry)
    }
}

/// `{name: {"type", "description"}}` for each parameter.
fn parameters<'a>(list: impl Iterator<Item = (&'a str, &'a str, String)>) -> Value {
    Value::Object(
        list.map(|(name, ty, description)| {
            let mut parameter = Map::new();
            parameter.insert("type".into(), ty.into());
            parameter.insert("description".into(), description.into());
            (name.to_string(), Value::Object(parameter))
        })
        .collect(),
    )
}

/// The reference's class documentation, verbatim: recordings hold it.
fn reference_documentation(reference: &Reference) -> Map<String, Value> {
    let verbatim = |list: &'static [(&'static str, &'static str, &'static str)]| {
        parameters(
            list.iter()
                .map(|(name, ty, description)| (*name, *ty, description.to_string())),
        )
    };
    let mut documentation = Map::new();
    documentation.insert("description".into(), reference.description.into());
    documentation.insert(
        "input_parameters".into(),
        verbatim(reference.input_parameters),
    );
    documentation.insert(
        "output_parameters".into(),
        verbatim(reference.output_parameters),
    );
    documentation
}

/// The project's documentation of an API, from its catalog entry: the
/// catalog's description, its parameters (under the dialogues' names,
/// with the type the call converts them to) described by what the catalog
/// knows of them, and the result's fields by name and type. No sentence
/// of the reference's.
fn project_documentation(api: &'static Api) -> Map<String, Value> {
    let inputs = api.spec.parameters.iter().map(|p| {
        (
            p.name,
            super::super::world::declared_type(api, p.name),
            parameter_description(p),
        )
    });
    let outputs = api
        .reference
        .output_parameters
        .iter()
        .map(|(name, ty, _)| (*name, *ty, format!("{}, as returned.", spoken(name))));
    let mut documentation = Map::new();
    documentation.insert("description".into(), api.spec.description.into());
    documentation.insert("input_parameters".into(), parameters(inputs));
    documentation.insert("output_parameters".into(), parameters(outputs));
    documentation
}

/// A parameter as the catalog knows it: its own description when the
/// catalog has one, else its name in words and the shape of its value
/// (`Start time (YYYY-MM-DD HH:MM:SS).`).
fn parameter_description(p: &ParamSpec) -> String {
    if !p.description.is_empty() {
        return p.description.to_string();
    }
    let shape = match (p.format, p.ty) {
        (ValueFormat::Token, _) => "from GetUserToken",
        (ValueFormat::Timestamp, _) => "YYYY-MM-DD HH:MM:SS",
        (ValueFormat::Date, _) => "YYYY-MM-DD",
        (ValueFormat::Time, _) => "HH:MM:SS",
        (ValueFormat::MonthDay, _) => "MM-DD",
        (ValueFormat::Email, _) => "an email address",
        (ValueFormat::Phone, _) => "ddd-ddd-dddd",
        (ValueFormat::Id, _) => "an id an earlier call returned",
        (_, ParamType::Integer) => "a whole number",
        (_, ParamType::Number) => "a number",
        (_, ParamType::Boolean) => "True or False",
        (_, ParamType::Array(_)) => "a list",
        (_, ParamType::Object) => "an object",
        (_, ParamType::String) if p.free_text => "worded by the assistant",
        (_, ParamType::String) => "text",
    };
    let optional = if p.required { "" } else { ", optional" };
    format!("{} ({shape}{optional}).", spoken(p.name))
}

/// `meeting_topic` as `Meeting topic`.
fn spoken(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
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

/// Every API but ToolSearcher, in [`APIS`] order, documented in the
/// reference's words.
pub fn library() -> &'static [Entry] {
    shared_library(ToolDescriptions::Reference)
}

/// Every API but ToolSearcher, in [`APIS`] order, documented in
/// `descriptions`' words.
pub fn library_in(descriptions: ToolDescriptions) -> &'static [Entry] {
    shared_library(descriptions)
}

fn shared_library(descriptions: ToolDescriptions) -> &'static [Entry] {
    static REFERENCE: OnceLock<Vec<Entry>> = OnceLock::new();
    static PROJECT: OnceLock<Vec<Entry>> = OnceLock::new();
    let cell = match descriptions {
        ToolDescriptions::Reference => &REFERENCE,
        ToolDescriptions::Project => &PROJECT,
    };
    cell.get_or_init(|| {
        APIS.iter()
            .filter(|api| api.spec.name != API.spec.name)
            .map(|api| Entry::new(api, descriptions))
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
        // A shared library's index is built once; another library (in
        // tests) is indexed on the spot.
        static REFERENCE: OnceLock<Result<Bm25, String>> = OnceLock::new();
        static PROJECT: OnceLock<Result<Bm25, String>> = OnceLock::new();
        let shared = if std::ptr::eq(library, shared_library(ToolDescriptions::Reference)) {
            Some(&REFERENCE)
        } else if std::ptr::eq(library, shared_library(ToolDescriptions::Project)) {
            Some(&PROJECT)
        } else {
            None
        };
        let own;
        let index = if let Some(cell) = shared {
            cell.get_or_init(|| Lexical::index(library)).as_ref()
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
    let library = library_in(state.tool_descriptions());
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
    if !entry.takes_token {
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
    fn the_project_setting_answers_with_the_catalogs_words() {
        let mut state = state(&[]);
        state.set_tool_descriptions(ToolDescriptions::Project);
        let out = call(&API, &mut state, json!({"keywords": "book hotel"}));
        assert_eq!(
            out["output"],
            json!({
                "name": "BookHotel",
                "description": super::super::api("BookHotel").unwrap().spec.description,
                "input_parameters": {
                    "hotel_name": {"type": "str", "description": "Hotel name (text)."},
                    "check_in_time": {"type": "str", "description": "Check in time (YYYY-MM-DD)."},
                    "check_out_time": {"type": "str", "description": "Check out time (YYYY-MM-DD)."},
                    "room_count": {"type": "int", "description": "Room count (a whole number)."},
                    "adult_count": {"type": "int", "description": "Adult count (a whole number)."},
                    "child_count": {"type": "int", "description": "Child count (a whole number)."}
                },
                "output_parameters": {
                    "order_id": {"type": "str", "description": "Order id, as returned."}
                }
            })
        );
        // A token API comes after GetUserToken's entry, in the same words.
        let out = call(&API, &mut state, json!({"keywords": "bank balance"}));
        let entries = out["output"].as_array().unwrap();
        assert_eq!(entries[1]["name"], "QueryBalance");
        assert_eq!(
            entries[0]["desc_for_search"],
            summary(
                "GetUserToken",
                super::super::api("GetUserToken").unwrap().spec.description
            )
        );
        assert_eq!(
            entries[1]["input_parameters"]["token"]["description"],
            "Token (from GetUserToken)."
        );
    }

    /// Every sentence the project's library answers with is its own: none
    /// is one of the reference's descriptions.
    #[test]
    fn the_project_library_carries_no_reference_sentence() {
        let mut theirs = std::collections::HashSet::new();
        for api in APIS {
            theirs.insert(api.reference.description);
            for (_, _, text) in api
                .reference
                .input_parameters
                .iter()
                .chain(api.reference.output_parameters)
            {
                theirs.insert(*text);
            }
        }
        fn texts(value: &Value, out: &mut Vec<String>) {
            match value {
                Value::String(text) => out.push(text.clone()),
                Value::Array(items) => items.iter().for_each(|item| texts(item, out)),
                Value::Object(map) => map.values().for_each(|item| texts(item, out)),
                _ => {}
            }
        }
        let project = library_in(ToolDescriptions::Project);
        assert_eq!(project.len(), library().len());
        for entry in project {
            let mut found = Vec::new();
            texts(&entry.to_json(true), &mut found);
            for text in found {
                assert!(
                    !theirs.contains(text.as_str()) || text.split(' ').count() < 2,
                    "{}: {text:?} is the reference's",
                    entry.name
                );
                for sentence in &theirs {
                    assert!(
                        sentence.len() < 12 || !text.contains(sentence),
                        "{}: {text:?} holds the reference's {sentence:?}",
                        entry.name
                    );
                }
            }
        }
        // The reference's library is the reference's, as recordings hold it.
        let reference = &library()[0];
        assert_eq!(
            reference.to_json(false)["description"],
            super::super::api(reference.name)
                .unwrap()
                .reference
                .description
        );
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
