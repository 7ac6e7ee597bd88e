//! Evaluation by conversation with a user (API-Bank's level 3, or any
//! suite's scenarios for a simulated user): the assistant under test talks
//! to a user played by a model or a person until it has made a scenario's
//! ground-truth calls. A suite reads its scenario files and holds one
//! scenario's conversation ([`Scenario`]); the run around them (players,
//! trials, resume, transcripts, summary) is the run layer's
//! (`run::with_user`), the same for every suite.

use std::path::{Path, PathBuf};

use crate::run::conversation::user::Brief;
use crate::run::conversation::{Assistant, User};
use crate::run::with_user::outcome::ScenarioOutcome;

use crate::run::answer::Model;
use crate::run::Setup;
use crate::sim::Databases;
use crate::suite::WorldOptions;
use crate::Result;

/// Who plays the user.
#[derive(Debug, Clone)]
pub enum UserSettings {
    /// A model, given the scenario's first utterance and key information.
    Llm(Model),
    /// A person at the terminal: the conversation is written to stderr
    /// and their turns read from stdin, a line each.
    Human,
}

/// One run over a set of scenario files.
#[derive(Debug, Clone)]
pub struct InteractiveRun<'a> {
    pub files: &'a [PathBuf],
    /// Its answerer plays the assistant: a model, or the oracle (the
    /// scenario's own ground-truth calls, which checks the scenarios). A
    /// person's conversations are taken one at a time and never resumed.
    pub setup: Setup<'a>,
    pub world: &'a WorldOptions,
    pub user: UserSettings,
    /// A scenario still incomplete after this many turns is not complete.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before the user speaks.
    pub max_calls_per_turn: usize,
}

/// What a run found.
#[derive(Debug, Clone)]
pub struct InteractiveSummary {
    /// The JSON document `--format json` prints.
    pub json: serde_json::Value,
    /// The human-readable summary.
    pub human: String,
    /// Whether every scenario was completed.
    pub all_completed: bool,
    /// Scenarios that could not be run to the end (a request that kept
    /// failing), each message naming its file.
    pub errors: Vec<String>,
}

/// A suite's conversational evaluation.
pub trait Interactive: Sync {
    /// The `--level` that selects it.
    fn level(&self) -> u8;

    /// The benchmark family in words, as a report's title names it
    /// ("API-Bank").
    fn family(&self) -> &'static str;

    /// Whether a file is one of its scenarios.
    fn is_scenario(&self, path: &std::path::Path) -> bool;

    /// One scenario file's text (read from `path`), checked against the
    /// run's databases: an error names the file (exit 2).
    fn read(&self, path: &Path, text: &str, databases: &Databases) -> Result<Box<dyn Scenario>>;

    /// The prompt templates its players are told (name and text, for
    /// provenance): the assistant's and the simulated user's.
    fn prompts(&self) -> [(&'static str, &'static str); 2];
}

/// One scenario for a simulated user.
pub trait Scenario: Send + Sync {
    /// The name it goes by (the file's stem).
    fn name(&self) -> String;

    /// Its title (API-Bank: the scene).
    fn scene(&self) -> String;

    /// How many ground-truth calls it lists.
    fn ground_truth(&self) -> usize;

    /// What a person playing the user is shown.
    fn brief(&self) -> Brief;

    /// The simulated user's system prompt.
    fn user_prompt(&self) -> std::result::Result<String, String>;

    /// The assistant's system prompt.
    fn assistant_prompt(&self) -> String;

    /// The ground-truth calls as the oracle says them, one a message.
    fn oracle_calls(&self) -> Vec<String>;

    /// Hold the conversation (`file` as the outcome names it).
    fn converse(
        &self,
        file: &str,
        assistant: &mut Assistant<'_>,
        user: &mut dyn User,
        options: &ConversationOptions<'_>,
    ) -> ScenarioOutcome;
}

/// How a conversation goes, beyond its scenario and players.
#[derive(Debug, Clone)]
pub struct ConversationOptions<'a> {
    pub databases: &'a Databases,
    pub world: &'a WorldOptions,
    /// A scenario still incomplete after this many turns is not complete.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before it must answer
    /// the user (the turn ends there).
    pub max_calls_per_turn: usize,
}
