//! Evaluation by conversation with a user (API-Bank's level 3): the
//! assistant under test talks to a user played by a model or a person
//! until it has made a scenario's ground-truth calls. What `evaluate`
//! hands a suite that has such scenarios, and what it gets back.

use std::path::PathBuf;

use crate::llm::client::Settings;
use crate::sim::Databases;
use crate::suite::WorldOptions;
use crate::Result;

/// Who answers the user.
#[derive(Debug, Clone)]
pub enum AssistantSettings {
    /// The model under test.
    Llm(Settings),
    /// The scenario's own ground-truth calls (checks the scenarios).
    Oracle,
}

/// Who plays the user.
#[derive(Debug, Clone)]
pub enum UserSettings {
    /// A model, given the scenario's first utterance and key information.
    Llm(Settings),
    /// A person at the terminal: the conversation is written to stderr
    /// and their turns read from stdin, a line each.
    Human,
}

/// One run over a set of scenario files.
#[derive(Debug, Clone)]
pub struct InteractiveRun<'a> {
    pub files: &'a [PathBuf],
    pub databases: &'a Databases,
    pub world: &'a WorldOptions,
    /// The assistant under test.
    pub assistant: AssistantSettings,
    pub user: UserSettings,
    /// A scenario still incomplete after this many turns is not complete.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before the user speaks.
    pub max_calls_per_turn: usize,
    /// Scenarios run at once (a person takes them one at a time).
    pub parallel: usize,
    /// Where summary.json, report.md and a transcript a scenario go; a
    /// folder that holds transcripts made with the same settings from the
    /// same scenario text is resumed (a person's conversations never are).
    pub out: Option<PathBuf>,
    /// Run again scenarios that `out` already holds.
    pub reset: bool,
    /// Run every scenario this many times (pass^k over completion); each
    /// trial's models cache their replies apart.
    pub trials: usize,
    /// Where the models asked count their tokens (`usage` in the
    /// summary; the user model's apart).
    pub meter: crate::llm::usage::Meter,
    /// The databases folder's digest (decides resuming).
    pub databases_sha256: String,
    /// What provenance records of the inputs.
    pub provenance: crate::eval::provenance::Inputs,
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

    /// Whether a file is one of its scenarios.
    fn is_scenario(&self, path: &std::path::Path) -> bool;

    /// Run every scenario of `run.files`; a file that cannot be read is an
    /// error naming it (exit 2), before any conversation starts.
    fn run(&self, run: &InteractiveRun<'_>) -> Result<InteractiveSummary>;
}
