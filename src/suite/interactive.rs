//! Evaluation by conversation with a user (API-Bank's level 3, or any
//! suite's scenarios for a simulated user): the assistant under test talks
//! to a user played by a model or a person until it has made a scenario's
//! ground-truth calls. A suite reads its scenario files ([`Scenario`]) and
//! says how its assistant's messages read and when a call is a
//! ground-truth call ([`Interactive`]); the conversation and the run
//! around it (players, trials, resume, transcripts, summary) are the run
//! layer's (`run::conversation`, `run::with_user`), the same for every
//! suite.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::dialogue::{Conversation, Request};
use crate::sim::Databases;
use crate::suite::Execution;
use crate::Result;

/// A suite's conversational evaluation.
pub trait Interactive: Sync {
    /// The `--level` that selects it.
    fn level(&self) -> u8;

    /// The benchmark family in words, as a report's title names it
    /// ("API-Bank").
    fn family(&self) -> &'static str;

    /// One scenario file's text (read from `path`, a file of one of the
    /// suite's scenario formats), checked against the run's databases: an
    /// error names the file (exit 2).
    fn read(&self, path: &Path, text: &str, databases: &Databases) -> Result<Scenario>;

    /// The prompt templates its players are told (name and text, for
    /// provenance): the assistant's, which is its system prompt as it
    /// stands, and the simulated user's.
    fn prompts(&self) -> [(&'static str, &'static str); 2];

    /// The simulated user's system prompt for `scenario`.
    fn user_prompt(&self, scenario: &Scenario) -> std::result::Result<String, String>;

    /// A call as the assistant writes it (the oracle says the ground
    /// truth so, one call a message).
    fn call_text(&self, call: &Request) -> String;

    /// Read one of the assistant's messages.
    fn read_message(&self, text: &str) -> Reading;

    /// What the assistant is told a call returned.
    fn result_text(&self, executed: &Execution) -> String;

    /// Whether the call `made` is the ground-truth call `gold` (as the
    /// world ran it, in order from fresh databases), and by which rule.
    fn matches(&self, made: &Execution, gold: &Execution) -> Option<Rule>;
}

/// One scenario for a simulated user, as its suite reads it.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name it goes by (the file's stem).
    pub name: String,
    /// Its title (API-Bank: the scene).
    pub scene: String,
    /// What the user says first.
    pub first_utterance: String,
    /// What the user knows and tells when asked, a line each.
    pub knows: String,
    /// The scenario as a dialogue: its world is made from it, and its gold
    /// calls, each placed at its line of the file, are the ground truth.
    pub dialogue: Conversation,
}

/// What an assistant's message is, as the suite reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// Words for the user: the assistant's turn ends.
    Speech,
    /// A call to run.
    Call {
        api_name: String,
        arguments: Map<String, Value>,
    },
    /// A call that does not read: the assistant is told why, as a failed
    /// call's result.
    Unreadable(String),
}

/// Which rule found a call to be a ground-truth call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    EqualArguments,
    ReferenceCheck,
}
