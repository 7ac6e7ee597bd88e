//! The state one API-Bank dialogue runs in: its databases as the
//! reference's `ToolManager` holds them (loaded afresh for every dialogue,
//! one object per database shared by every API that names it), and what
//! API instances remember between calls.
//!
//! A database is converted from the loaded JSON once per run, the first
//! time an API touches it ([`InitialDicts`]), and shared by every
//! dialogue's state until the dialogue writes it: a dialogue copies only
//! the databases it changes. Read-only data of any shape (ImageCaptioning
//! is a list) is read in place through [`State::document`].

use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;
use serde_json::Value;

use super::apis::tool_search::{Lexical, Retriever};
use crate::sim::pyrandom::PyRandom;
use crate::sim::Databases;
use crate::suite::ToolDescriptions;

/// A key of a Python dict as API-Bank's databases hold them. The JSON files
/// give text keys; some APIs add integer keys (`len(database) + 1`), which
/// Python keeps apart from a text key of the same digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Text(String),
    Int(i64),
}

impl Key {
    pub fn text(key: impl Into<String>) -> Self {
        Key::Text(key.into())
    }

    /// The key as text, when it is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Key::Text(text) => Some(text),
            Key::Int(_) => None,
        }
    }
}

/// A Python dict: insertion-ordered, keys text or integers, values JSON.
/// Each value is shared until written, so a dialogue that changes one
/// record of a database copies that record, not the database.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dict {
    entries: IndexMap<Key, Arc<Value>>,
}

impl Dict {
    pub fn new() -> Self {
        Dict::default()
    }

    /// A JSON object as `json.load` gives it: every key is text.
    pub fn from_object(object: &serde_json::Map<String, Value>) -> Self {
        Dict {
            entries: object
                .iter()
                .map(|(k, v)| (Key::text(k.as_str()), Arc::new(v.clone())))
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `database[key]` for a text key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.get_key(&Key::text(key))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.get_key_mut(&Key::text(key))
    }

    pub fn get_key(&self, key: &Key) -> Option<&Value> {
        self.entries.get(key).map(|value| &**value)
    }

    /// The value under `key` to change (copied first if still shared).
    pub fn get_key_mut(&mut self, key: &Key) -> Option<&mut Value> {
        self.entries.get_mut(key).map(Arc::make_mut)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(&Key::text(key))
    }

    /// `database[key] = value`: a new key goes last, an existing one keeps
    /// its place.
    pub fn insert(&mut self, key: Key, value: Value) {
        self.entries.insert(key, Arc::new(value));
    }

    /// `del database[key]`, keeping the order of the others.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        self.entries.shift_remove(key).map(Arc::unwrap_or_clone)
    }

    /// Entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.entries.iter().map(|(key, value)| (key, &**value))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.entries.keys()
    }

    /// The dict as `json.dump` writes it: every key as text.
    pub fn to_object(&self) -> serde_json::Map<String, Value> {
        self.entries
            .iter()
            .map(|(key, value)| {
                let key = match key {
                    Key::Text(text) => text.clone(),
                    Key::Int(n) => n.to_string(),
                };
                (key, (**value).clone())
            })
            .collect()
    }
}

/// Where a database an API uses comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The loaded database of that name, shared with every API naming it
    /// (the reference's `database_name`).
    Shared(&'static str),
    /// A dict of the API's own that starts empty (an API without a
    /// `database_name`, as OpenBankAccount).
    Own(&'static str),
}

/// What `ForgotPassword` remembers between its two steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PasswordReset {
    pub username: Option<Key>,
    pub verification_code: Option<i64>,
}

/// Why a call's result cannot be reproduced offline (verify lists such
/// calls under `not_checked`, never as differences).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreproducible {
    /// It drew from unseeded randomness (an appointment id, a token).
    Random,
    /// It asks a live web service.
    External,
}

/// What ToolSearcher found while a recording was replayed: the API the
/// recording's answer names (picked by the reference's embedding model)
/// and the one the configured retriever picks, for verify to report where
/// they disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    /// The API the recorded answer names.
    pub recorded: String,
    /// The retriever's pick: `Ok(None)` when no API scored above zero,
    /// `Err` when the retriever failed (an endpoint error).
    pub retriever: Result<Option<String>, String>,
}

impl Retrieval {
    /// Whether the retriever picked the recorded API.
    pub fn agrees(&self) -> bool {
        self.retriever.as_ref().ok().and_then(Option::as_deref) == Some(self.recorded.as_str())
    }
}

/// The loaded databases as dicts, each converted on first use and shared
/// by every state of a run (attached to the run's [`Databases`] by the
/// suite's `load_databases`).
#[derive(Debug, Default)]
pub struct InitialDicts {
    converted: Vec<(Arc<str>, OnceLock<Arc<Dict>>)>,
}

impl InitialDicts {
    /// Slots for every database in `databases`, none converted yet.
    pub fn new(databases: &Databases) -> Self {
        InitialDicts {
            converted: databases
                .names()
                .map(|name| (Arc::from(name), OnceLock::new()))
                .collect(),
        }
    }

    /// Database `name` as converted so far, None when no state read it yet.
    fn converted(&self, name: &str) -> Option<Arc<Dict>> {
        self.converted
            .iter()
            .find(|(known, _)| &**known == name)
            .and_then(|(_, slot)| slot.get().cloned())
    }

    /// Database `name` of `databases` as a dict: empty when there is no
    /// such database or it is not a JSON object, as the reference's
    /// `init_database=None` gives.
    fn get(&self, databases: &Databases, name: &str) -> Arc<Dict> {
        let convert = || {
            Arc::new(
                databases
                    .document(name)
                    .and_then(|doc| doc.as_object())
                    .map(Dict::from_object)
                    .unwrap_or_default(),
            )
        };
        match self.converted.iter().find(|(known, _)| &**known == name) {
            Some((_, slot)) => Arc::clone(slot.get_or_init(convert)),
            None => convert(),
        }
    }
}

/// One dialogue's state.
#[derive(Debug, Clone)]
pub struct State {
    initial: Databases,
    /// The run's converted databases (or this state's own, when the
    /// databases came without them).
    shared: Arc<InitialDicts>,
    /// Databases used so far, shared and own, by source; a shared one is
    /// copied when first written.
    dicts: Vec<(Source, Arc<Dict>)>,
    /// `ForgotPassword`'s instance state.
    pub password_reset: PasswordReset,
    /// The recorded result object of the line being replayed, when the
    /// world replays a recording (verify, fill --check).
    recorded: Option<Value>,
    /// Set by the API that ran last when its result cannot be reproduced.
    unreproducible: Option<Unreproducible>,
    /// How ToolSearcher picks an API ([`Lexical`] unless set).
    retriever: Arc<dyn Retriever>,
    /// Whose descriptions ToolSearcher answers with.
    tool_descriptions: ToolDescriptions,
    /// Set by ToolSearcher when it ran last on a replayed recording.
    retrieval: Option<Retrieval>,
    /// Set by ToolSearcher when it ran last and its retriever failed
    /// (an embeddings server that cannot be reached).
    retriever_failure: Option<String>,
    /// Every value drawn from unseeded randomness so far (or taken from
    /// the recording in its place), in draw order.
    drawn: Vec<String>,
    /// Where those draws come from instead, when set (see
    /// [`State::seed_draws`]).
    seeded: Option<PyRandom>,
}

/// The database CheckToken (and every API that takes a token) reads.
pub const ACCOUNT: &str = "Account";

impl State {
    /// The state a dialogue starts in: the initial databases, untouched.
    pub fn new(initial: &Databases) -> Self {
        let shared = initial
            .prepared::<InitialDicts>()
            .unwrap_or_else(|| Arc::new(InitialDicts::new(initial)));
        State {
            initial: initial.clone(),
            shared,
            dicts: Vec::new(),
            password_reset: PasswordReset::default(),
            recorded: None,
            unreproducible: None,
            retriever: Arc::new(Lexical),
            tool_descriptions: ToolDescriptions::Reference,
            retrieval: None,
            retriever_failure: None,
            drawn: Vec::new(),
            seeded: None,
        }
    }

    /// Draw what the reference draws from unseeded randomness (a new
    /// token, an appointment id) from a generator seeded with `seed`: a
    /// drafted dialogue run twice then records the same values.
    pub fn seed_draws(&mut self, seed: u64) {
        self.seeded = Some(PyRandom::new(seed));
    }

    /// Use `retriever` for ToolSearcher from now on.
    pub fn set_retriever(&mut self, retriever: Arc<dyn Retriever>) {
        self.retriever = retriever;
    }

    /// Answer ToolSearcher with `descriptions` from now on.
    pub fn set_tool_descriptions(&mut self, descriptions: ToolDescriptions) {
        self.tool_descriptions = descriptions;
    }

    /// Whose descriptions ToolSearcher answers with.
    pub fn tool_descriptions(&self) -> ToolDescriptions {
        self.tool_descriptions
    }

    /// The retriever ToolSearcher asks.
    pub fn retriever(&self) -> Arc<dyn Retriever> {
        self.retriever.clone()
    }

    /// What ToolSearcher found on the recording being replayed; `None`
    /// when the call that ran since [`State::replaying`] was not a
    /// ToolSearcher answering a recording.
    pub fn retrieval(&self) -> Option<&Retrieval> {
        self.retrieval.as_ref()
    }

    /// ToolSearcher notes what it found (see [`Retrieval`]).
    pub fn set_retrieval(&mut self, retrieval: Retrieval) {
        self.retrieval = Some(retrieval);
    }

    /// Why the retriever could not rank the APIs, when ToolSearcher ran
    /// last and it failed.
    pub fn retriever_failure(&self) -> Option<&str> {
        self.retriever_failure.as_deref()
    }

    /// ToolSearcher notes that its retriever failed.
    pub fn set_retriever_failure(&mut self, error: String) {
        self.retriever_failure = Some(error);
    }

    /// Before a call: the recording of the line about to run (`None` when
    /// nothing is recorded, as for a prediction). Clears what the last call
    /// marked and what ToolSearcher found.
    pub fn replaying(&mut self, recorded: Option<Value>) {
        self.recorded = recorded;
        self.unreproducible = None;
        self.retrieval = None;
        self.retriever_failure = None;
    }

    /// The recorded result object of the line being replayed.
    pub fn recorded(&self) -> Option<&Value> {
        self.recorded.as_ref()
    }

    /// A value drawn from unseeded randomness: when a recording is being
    /// replayed, the value it recorded (`from_recording` finds it in the
    /// recorded result), so that later calls that list it reproduce;
    /// otherwise a fresh draw (`draw` gets the seeded generator when
    /// [`State::seed_draws`] set one, else draws from the system's
    /// randomness). Either way the call is marked
    /// [`Unreproducible::Random`].
    pub fn unseeded(
        &mut self,
        from_recording: impl FnOnce(&Value) -> Option<String>,
        draw: impl FnOnce(Option<&mut PyRandom>) -> String,
    ) -> String {
        self.unreproducible = Some(Unreproducible::Random);
        let recorded = self.recorded.as_ref().and_then(from_recording);
        let value = recorded.unwrap_or_else(|| draw(self.seeded.as_mut()));
        self.drawn.push(value.clone());
        value
    }

    /// The values drawn from unseeded randomness so far (see
    /// [`State::unseeded`]).
    pub fn drawn(&self) -> &[String] {
        &self.drawn
    }

    /// Mark the running call as not reproducible offline.
    pub fn mark(&mut self, why: Unreproducible) {
        self.unreproducible = Some(why);
    }

    /// Why the last call cannot be reproduced, if it cannot.
    pub fn unreproducible(&self) -> Option<Unreproducible> {
        self.unreproducible
    }

    /// A database as a dict to read. A shared database that was not
    /// loaded, or is not a JSON object, reads as an empty dict, as the
    /// reference's `init_database=None` gives.
    pub fn dict(&mut self, source: Source) -> &Dict {
        let index = self.slot(source);
        &self.dicts[index].1
    }

    /// A database as a dict to change (this dialogue's own copy from now
    /// on).
    pub fn dict_mut(&mut self, source: Source) -> &mut Dict {
        let index = self.slot(source);
        Arc::make_mut(&mut self.dicts[index].1)
    }

    fn slot(&mut self, source: Source) -> usize {
        if let Some(index) = self.dicts.iter().position(|(s, _)| *s == source) {
            return index;
        }
        let dict = match source {
            Source::Shared(name) => self.shared.get(&self.initial, name),
            Source::Own(_) => Arc::default(),
        };
        self.dicts.push((source, dict));
        self.dicts.len() - 1
    }

    /// The databases as they stand: the loaded documents with every
    /// database an API wrote replaced by its dict (an API's own dict, as
    /// OpenBankAccount's, is no database and is left out).
    pub fn databases(&self) -> Databases {
        let mut databases = self.initial.clone();
        for (source, dict) in &self.dicts {
            if let Source::Shared(name) = source {
                let unchanged = self
                    .shared
                    .converted(name)
                    .is_some_and(|d| Arc::ptr_eq(&d, dict));
                if !unchanged {
                    *databases.document_mut(name) = Value::Object(dict.to_object());
                }
            }
        }
        databases
    }

    /// A loaded database as its JSON, for APIs that only read it; `None`
    /// when there is no such file. A database an API has written is read
    /// through [`State::dict`] instead.
    pub fn document(&self, name: &str) -> Option<&Arc<Value>> {
        self.initial.document(name)
    }

    /// `CheckToken.check_token`: the user a token belongs to, the first in
    /// Account's order.
    pub fn check_token(&mut self, token: &str) -> Result<String, String> {
        self.dict(Source::Shared(ACCOUNT))
            .iter()
            .find(|(_, account)| account.get("token").and_then(Value::as_str) == Some(token))
            .and_then(|(user, _)| user.as_text().map(str::to_string))
            .ok_or_else(|| "The token is invalid.".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn databases() -> Databases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Account.json"),
            r#"{"JohnDoe": {"password": "pw", "token": "t1"}, "JaneSmith": {"password": "x", "token": "t2"}}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("Photos.json"), r#"[{"url": "u"}]"#).unwrap();
        Databases::load_documents(dir.path()).unwrap()
    }

    #[test]
    fn integer_keys_live_beside_text_keys_of_the_same_digits() {
        let mut dict = Dict::new();
        dict.insert(Key::text("1"), json!("text"));
        dict.insert(Key::Int(1), json!("int"));
        assert_eq!(dict.len(), 2);
        assert_eq!(dict.get("1"), Some(&json!("text")));
        assert_eq!(dict.get_key(&Key::Int(1)), Some(&json!("int")));
        dict.remove(&Key::text("1"));
        assert_eq!(dict.keys().collect::<Vec<_>>(), [&Key::Int(1)]);
    }

    #[test]
    fn a_database_is_shared_by_name_and_an_own_one_starts_empty() {
        let mut state = State::new(&databases());
        state
            .dict_mut(Source::Shared(ACCOUNT))
            .remove(&Key::text("JohnDoe"));
        assert_eq!(state.dict(Source::Shared(ACCOUNT)).len(), 1);
        assert!(state.dict(Source::Own("OpenBankAccount")).is_empty());
        assert!(state.dict(Source::Shared("Missing")).is_empty());
        // A list is read in place, and is no dict.
        assert!(state.document("Photos").unwrap().is_array());
        assert!(state.dict(Source::Shared("Photos")).is_empty());
    }

    #[test]
    fn a_write_stays_in_its_own_dialogue() {
        let databases = databases();
        let shared = InitialDicts::new(&databases);
        let databases = databases.with_prepared(shared);
        let mut first = State::new(&databases);
        let mut second = State::new(&databases);
        // Both read the run's one converted Account.
        assert_eq!(first.check_token("t1").unwrap(), "JohnDoe");
        let record = first
            .dict_mut(Source::Shared(ACCOUNT))
            .get_mut("JohnDoe")
            .unwrap();
        record["token"] = json!("changed");
        first
            .dict_mut(Source::Shared(ACCOUNT))
            .remove(&Key::text("JaneSmith"));
        assert_eq!(first.check_token("changed").unwrap(), "JohnDoe");
        assert_eq!(first.dict(Source::Shared(ACCOUNT)).len(), 1);
        // The other dialogue, and one started afterwards, see the loaded data.
        for state in [&mut second, &mut State::new(&databases)] {
            assert_eq!(state.check_token("t1").unwrap(), "JohnDoe");
            assert_eq!(state.check_token("t2").unwrap(), "JaneSmith");
        }
    }

    #[test]
    fn unseeded_draws_take_the_recorded_value_when_replaying() {
        let mut state = State::new(&databases());
        let from_output = |r: &Value| r["output"].as_str().map(str::to_string);
        state.replaying(None);
        assert_eq!(state.unseeded(from_output, |_| "fresh".into()), "fresh");
        assert_eq!(state.unreproducible(), Some(Unreproducible::Random));
        state.replaying(Some(json!({"output": "12345678"})));
        assert_eq!(state.unreproducible(), None);
        assert_eq!(state.unseeded(from_output, |_| "fresh".into()), "12345678");
        state.mark(Unreproducible::External);
        assert_eq!(state.unreproducible(), Some(Unreproducible::External));
    }

    #[test]
    fn tokens_name_their_users() {
        let mut state = State::new(&databases());
        assert_eq!(state.check_token("t2").unwrap(), "JaneSmith");
        assert_eq!(
            state.check_token("nope").unwrap_err(),
            "The token is invalid."
        );
    }
}
