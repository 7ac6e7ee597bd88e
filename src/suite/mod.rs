//! The seam between the commands and the benchmark families: what a suite
//! provides (its catalog, its world, its comparators, the files it reads)
//! and the one way every command reaches it. verify, fill, stats, check,
//! lint and evaluate are written against this module and never name a
//! suite; each family lives in its own folder under `suites/`.

use std::path::Path;

use serde_json::{Map, Value};

use serde::Serialize;

use crate::dialogue::{Conversation, Request};
use crate::formats::LoadedConversation;
use crate::sim::{Databases, Reply};
use crate::Result;

pub mod catalog;
pub mod docs;
pub mod predict;
pub mod protocol;
pub mod similarity;

pub use catalog::{
    ArgumentEncoding, CallRef, Catalog, FieldSpec, Group, MatchFn, ParamSpec, ParamType,
    SessionEffect, ToolSpec, ValueFormat,
};
pub use similarity::TextSimilarity;

/// A call as executed: the request as the world ran it (a suite may add to
/// the arguments, as ToolTalk puts in the session token) and its outcome.
/// The response may share database items with the world ([`Reply`]); it
/// reads, compares and serialises as the JSON it stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub request: Request,
    pub response: Reply,
    pub exception: Option<String>,
}

/// The simulated world of one dialogue: it runs calls as the suite's
/// reference does, one after another.
pub trait World: Send {
    /// Run one call and return its result or exception exactly as the
    /// reference does.
    fn execute(&mut self, api_name: &str, parameters: Map<String, Value>) -> Execution;

    /// An independent copy of the world as it stands.
    fn boxed_clone(&self) -> Box<dyn World>;
}

/// One record added to a database by [`Suite::seed_databases`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeededRecord {
    /// The database (file stem), e.g. `Email`.
    pub database: String,
    /// The user whose entry received the record.
    pub user: String,
    pub id: String,
    /// The gold call whose recorded result lists it.
    pub file: String,
    pub turn: usize,
    pub call: usize,
    pub api_name: String,
}

/// The databases with the seeded records, and what was added (see
/// [`Suite::seed_databases`]).
#[derive(Debug, Clone)]
pub struct Seeded {
    pub databases: Databases,
    pub records: Vec<SeededRecord>,
}

impl Seeded {
    /// Databases that received at least one record, in first-seen order.
    pub fn changed_tables(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for r in &self.records {
            if !names.contains(&r.database) {
                names.push(r.database.clone());
            }
        }
        names
    }
}

/// A database file's stem and the function that makes its JSON Schema.
pub type DatabaseSchema = (&'static str, fn() -> Value);

/// Help lines `lint` words in a suite's own terms.
#[derive(Debug, Clone, Copy)]
pub struct LintHelp {
    /// For a call to a tool the catalog lacks, when no name is close.
    pub unknown_tool: &'static str,
    /// Why a call that needs a session has none.
    pub no_session: &'static str,
    /// How to open a session before such a call.
    pub open_session: &'static str,
    /// The calls a credential must come from, for one none of them handed out.
    pub credential_source: &'static str,
}

/// A benchmark family.
pub trait Suite: Sync {
    /// The name `--suite` takes.
    fn name(&self) -> &'static str;

    /// The suite's tools.
    fn catalog(&self) -> &'static Catalog;

    /// The extension of the dialogue files it reads (without the dot).
    fn extension(&self) -> &'static str;

    /// The databases folder used when `--databases` is not given, relative
    /// to the working directory.
    fn default_databases(&self) -> &'static str;

    /// One dialogue file's text (read from `path`) in the model.
    fn parse_dialogue(&self, path: &Path, text: &str) -> Result<Conversation> {
        crate::formats::read::parse_conversation(path, text)
    }

    /// Read one dialogue file into the model.
    fn read_dialogue(&self, path: &Path) -> Result<Conversation> {
        self.parse_dialogue(path, &crate::formats::read::read_text(path)?)
    }

    /// Load the databases in `dir`, refusing a folder that lacks one the
    /// suite needs.
    fn load_databases(&self, dir: &Path) -> Result<Databases>;

    /// How `evaluate` runs a predictor through a dialogue and scores it
    /// (ToolTalk: Algorithms 1 and 2).
    fn protocol(&self) -> &'static dyn protocol::Protocol;

    /// The JSON Schemas of the suite's database files, by file stem
    /// (`schemas/databases/<stem>.schema.json`).
    fn database_schemas(&self) -> &'static [DatabaseSchema] {
        &[]
    }

    /// `fill --seed`: add to `initial` the records that the dialogues'
    /// recorded results list and the databases lack, so that those
    /// recordings reproduce; never change an existing record.
    fn seed_databases(
        &self,
        dialogues: &[LoadedConversation],
        initial: &Databases,
    ) -> Result<Seeded> {
        let _ = (dialogues, initial);
        Err(crate::Error::Usage(format!(
            "the {} suite cannot seed databases from recordings",
            self.name()
        )))
    }

    /// How the dialogues write argument values (JSON values of the
    /// declared type unless the suite says otherwise).
    fn argument_encoding(&self) -> ArgumentEncoding {
        ArgumentEncoding::Json
    }

    /// The argument the world itself gives to tools that require a
    /// logged-in user; the model never writes it. None: the model writes
    /// every argument.
    fn injected_argument(&self) -> Option<&'static str> {
        None
    }

    /// What `lint` tells the author of one of the suite's dialogues.
    fn lint_help(&self) -> &'static LintHelp;

    /// The world a dialogue starts in, or why it cannot be set up.
    fn world(
        &self,
        databases: &Databases,
        dialogue: &Conversation,
    ) -> std::result::Result<Box<dyn World>, String>;
}
