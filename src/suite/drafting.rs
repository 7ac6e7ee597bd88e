//! What a suite provides so that an LLM can draft its dialogues
//! (`generate dialogues`) and new initial data for its databases
//! (`generate database`): the prompts' material, how a drafted call is
//! read, and how a draft becomes one of the suite's dialogue files. The
//! pipeline around it (asking, filtering, executing, writing) is
//! suite-neutral and lives in `gen::drafts`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::sim::Databases;
use crate::Result;

/// What the maintainer asked `generate dialogues` for.
#[derive(Debug, Clone)]
pub struct DraftRequest<'a> {
    pub databases: &'a Databases,
    pub databases_dir: &'a Path,
    /// Draft for these tools only (empty: every tool the suite drafts for).
    pub tools: &'a [String],
    /// One prompt for all the tools that read the same database, instead
    /// of one per tool.
    pub by_database: bool,
    /// Prompts per tool (or per database, or scenario), each another
    /// prompt: another item drawn where there are enough, another
    /// situation, the draft's number.
    pub per_group: usize,
    /// Seeds every draw, so that the same request renders the same prompts.
    pub seed: u64,
    /// Scenario pools to draft from (suites whose dialogues start from a
    /// scenario).
    pub scenarios: &'a [PathBuf],
}

/// One prompt to send: what it documents and the template's variables.
#[derive(Debug, Clone)]
pub struct DraftJob {
    /// The draft's file stem, unique in the run.
    pub name: String,
    /// Which of its group's drafts this is (1-based): the template gets
    /// it as `draft`, and it enters the cache key, so that two drafts
    /// never share a reply.
    pub draft: usize,
    /// The tools the draft is for: a draft that never calls one of them
    /// (with a result) is refused, whatever else it does.
    pub targets: Vec<String>,
    /// The tools the prompt documents, in order.
    pub tools: Vec<&'static str>,
    /// The template's variables besides `tools` (drawn database items,
    /// the user, the scenario, the date).
    pub context: Value,
    /// What the suite needs to write the dialogue file besides the turns
    /// (ToolTalk: the conversation's metadata and user).
    pub frame: Value,
}

/// One line of a drafted dialogue, its calls already read.
#[derive(Debug, Clone, PartialEq)]
pub enum DraftTurn {
    User(String),
    Assistant(String),
    Call {
        api_name: String,
        parameters: Map<String, Value>,
    },
}

/// One add-record prompt of `generate database`.
#[derive(Debug, Clone)]
pub struct SeedJob {
    pub name: String,
    /// The tool whose calls add records.
    pub tool: &'static str,
    /// The template's variables besides `tool` (example records, accounts).
    pub context: Value,
}

/// A suite's drafting material.
pub trait Drafting: Sync {
    /// The built-in template for dialogue prompts: its name and text.
    fn dialogue_template(&self) -> (&'static str, &'static str);

    /// The prompts `request` asks for.
    fn dialogue_jobs(&self, request: &DraftRequest) -> Result<Vec<DraftJob>>;

    /// A call as a draft writes it (the text after `API-Request:`): its
    /// tool and arguments as the suite's dialogues hold them, or why it
    /// cannot be read.
    fn read_call(&self, text: &str) -> std::result::Result<(String, Map<String, Value>), String>;

    /// The dialogue file (its text, in the suite's format) for a draft
    /// whose calls name known tools and arguments; the results are left
    /// for `fill` to record.
    fn dialogue_text(
        &self,
        job: &DraftJob,
        turns: &[DraftTurn],
    ) -> std::result::Result<String, String>;

    /// The built-in template for add-record prompts, None when the suite
    /// cannot seed its databases this way.
    fn seed_template(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The add-record prompts for `tools` (empty: every tool that adds
    /// records to a database).
    fn seed_jobs(
        &self,
        databases: &Databases,
        tools: &[String],
        seed: u64,
    ) -> Result<Vec<SeedJob>> {
        let _ = (databases, tools, seed);
        Ok(Vec::new())
    }
}

/// A seed of its own for `name` (a prompt's, a draft's): the same name,
/// the same seed, whatever else the run holds (adding a tool to a request
/// leaves the other prompts' draws as they were).
pub fn name_seed(name: &str) -> u64 {
    let digest = crate::llm::sha256_hex(name.as_bytes());
    u64::from_str_radix(&digest[..16], 16).expect("hex")
}
