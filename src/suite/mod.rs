//! The seam between the commands and the benchmark families: what a suite
//! provides (its catalog, its world, its comparators, the files it reads)
//! and the one way every command reaches it. verify, fill, stats, check,
//! lint and evaluate are written against this module and never name a
//! suite; each family lives in its own folder under `suites/`.

use std::path::Path;

use serde_json::{Map, Value};

use serde::Serialize;

use crate::dialogue::{Conversation, GoldCall, Request};
use crate::formats::LoadedConversation;
use crate::sim::{Databases, Reply};
use crate::Result;

pub mod catalog;
pub mod docs;
pub mod drafting;
pub mod format;
pub mod interactive;
pub mod levels;
pub mod linted_tasks;
pub mod mentions;
pub mod pools;
pub mod predict;
pub mod protocol;
pub mod registry;
pub mod similarity;
pub mod state;
pub mod tasks;

pub use catalog::{
    ArgumentEncoding, CallRef, Catalog, FieldSpec, Group, MatchFn, ParamSpec, ParamType,
    SessionEffect, ToolSpec, ValueFormat,
};
pub use format::{DatabaseFormat, DatabaseSchema, FileFormat, FormatKind};
pub use registry::Registry;
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
    /// Why this result cannot be compared with a recording, when it cannot
    /// (verify lists the call under `not_checked`, never as a difference).
    pub not_checked: Option<NotChecked>,
    /// Something to report beside the comparison (verify lists it apart).
    pub note: Option<Note>,
}

impl Execution {
    /// A result that can be compared with a recording, with nothing to note.
    pub fn new(request: Request, response: Reply, exception: Option<String>) -> Self {
        Execution {
            request,
            response,
            exception,
            not_checked: None,
            note: None,
        }
    }
}

/// Why a call cannot be reproduced offline, by design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NotChecked {
    /// It drew from unseeded randomness (an id, a token).
    Random,
    /// It asks a live web service.
    External,
}

/// What a world notes about a call beside its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A tool search answered for the tool the recording retrieved, while
    /// the configured retriever ranks another first.
    Retrieval { recorded: String, retriever: String },
    /// The configured retriever could not rank the tools (its server
    /// cannot be reached, say): the run cannot do what it was asked.
    RetrieverFailed { error: String },
    /// A tool search with nothing recorded found these tools: what fill
    /// records, for the person writing the dialogue to read (a search
    /// that found the wrong tool is a dialogue to reword).
    Found { tools: Vec<String> },
}

/// How tool searches pick a tool, for suites whose dialogues search for
/// their tools (API-Bank's ToolSearcher).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetrieverKind {
    /// Word overlap (BM25) between the keywords and each tool's
    /// description: offline and deterministic.
    #[default]
    Lexical,
    /// Sentence embeddings of the keywords and the descriptions, as the
    /// reference searches.
    Embeddings,
}

impl RetrieverKind {
    pub fn name(self) -> &'static str {
        match self {
            RetrieverKind::Lexical => "lexical",
            RetrieverKind::Embeddings => "embeddings",
        }
    }
}

/// Whose words a tool search answers with, for suites whose dialogues
/// search for their tools (API-Bank's ToolSearcher answers with the found
/// API's documentation, and dialogues record that answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolDescriptions {
    /// The reference's own descriptions: what the upstream recordings
    /// hold, so that they reproduce.
    #[default]
    Reference,
    /// The project's catalog, in its own words: for dialogues written
    /// here, which must not carry the reference's sentences.
    Project,
}

impl ToolDescriptions {
    pub fn name(self) -> &'static str {
        match self {
            ToolDescriptions::Reference => "reference",
            ToolDescriptions::Project => "project",
        }
    }
}

/// How a run sets up every world it makes, beyond the databases (from the
/// command line; the same for every dialogue).
#[derive(Debug, Clone, Default)]
pub struct WorldOptions {
    pub retriever: RetrieverKind,
    /// The documentation a tool search answers with.
    pub tool_descriptions: ToolDescriptions,
    /// The embeddings service `RetrieverKind::Embeddings` asks, shared by
    /// every world of the run.
    pub embedder: Option<std::sync::Arc<crate::llm::embed::Embedder>>,
    /// Seeds what the reference draws from unseeded randomness (API-Bank's
    /// new tokens and appointment ids), so that running a dialogue twice
    /// records the same values (drafting sets it); None draws afresh.
    pub draw_seed: Option<u64>,
}

impl WorldOptions {
    /// The retriever as runs record it (`embeddings:MODEL` for embeddings).
    pub fn retriever_name(&self) -> String {
        match (&self.retriever, &self.embedder) {
            (RetrieverKind::Embeddings, Some(embedder)) => {
                format!("embeddings:{}", embedder.model())
            }
            (kind, _) => kind.name().to_string(),
        }
    }
}

/// The simulated world of one dialogue: it runs calls as the suite's
/// reference does, one after another.
pub trait World: Send {
    /// Run one call and return its result or exception exactly as the
    /// reference does. `recorded` is the gold call being replayed, when a
    /// recording is replayed (verify, fill), and None for a prediction: a
    /// suite whose results depend on what cannot be reproduced offline
    /// (unseeded randomness, a live service) may take such values from the
    /// recording and mark the execution [`NotChecked`].
    fn execute(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        recorded: Option<&GoldCall>,
    ) -> Execution;

    /// An independent copy of the world as it stands.
    fn boxed_clone(&self) -> Box<dyn World>;

    /// The world's databases as they stand, what its calls wrote included,
    /// in the shape its suite loads them (`generate database` writes them
    /// out as new initial data).
    fn databases(&self) -> Databases;

    /// The world's databases as they stand, for the state check
    /// ([`state`]); `None` for a world that cannot show them.
    fn tables(&self) -> Option<&crate::sim::Tables> {
        None
    }
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
    /// The 1-based line of the file, for a call that stands at a line
    /// (API-Bank); absent for a conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
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

/// The first and last dates a suite's databases hold, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    pub first: chrono::NaiveDate,
    pub last: chrono::NaiveDate,
}

impl DateRange {
    /// The range that holds every date given, None for none.
    pub fn of(dates: impl IntoIterator<Item = chrono::NaiveDate>) -> Option<DateRange> {
        dates.into_iter().fold(None, |range, date| {
            Some(match range {
                None => DateRange {
                    first: date,
                    last: date,
                },
                Some(r) => DateRange {
                    first: r.first.min(date),
                    last: r.last.max(date),
                },
            })
        })
    }

    pub fn contains(&self, date: chrono::NaiveDate) -> bool {
        self.first <= date && date <= self.last
    }
}

/// Why a dialogue cannot run on `databases`: a gold call whose tool reads
/// a database the folder does not hold (run on an empty one, it would
/// record or compare nonsense).
pub fn missing_database(
    catalog: &Catalog,
    databases: &Databases,
    dialogue: &Conversation,
) -> std::result::Result<(), String> {
    for (turn, call, gold) in dialogue.gold_calls() {
        let Some(spec) = catalog.tool(&gold.request.api_name) else {
            continue;
        };
        if let Some(database) = spec
            .database
            .filter(|d| !databases.names().any(|name| name == *d))
        {
            let place = gold.place(turn, call);
            return Err(format!(
                "the databases folder has no {database}.json, which {} needs ({})",
                spec.name,
                crate::dialogue::place_words(place.turn, place.call, gold.line())
            ));
        }
    }
    Ok(())
}

/// A file in a databases folder that is none of the suite's databases (a
/// misspelt name would otherwise load and never be read).
pub fn unknown_database(
    dir: &Path,
    databases: &Databases,
    known: &[&str],
    suite: &str,
) -> Result<()> {
    match databases.names().find(|name| !known.contains(name)) {
        Some(unknown) => Err(crate::Error::input(
            dir.join(format!("{unknown}.json")),
            format!(
                "not one of {suite}'s databases (they are {}.json)",
                known.join(".json, ")
            ),
        )),
        None => Ok(()),
    }
}

/// How a suite's dialogues are evaluated.
#[derive(Clone, Copy)]
pub enum Evaluation {
    /// Each conversation is replayed turn by turn with the predictor and
    /// scored as a whole (ToolTalk's Algorithms 1 and 2, `run::replayed`).
    Conversations,
    /// Each gold call is a sample of its own, at levels of difficulty
    /// (API-Bank's levels 1 and 2).
    Levels(&'static dyn levels::LevelProtocol),
    /// Each task of a file of tasks is graded by the suite's own reward
    /// (tau2-bench).
    Tasks(&'static dyn tasks::TaskProtocol),
}

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

    /// The formats of the files the suite reads as dialogues (its
    /// dialogues first, then any scenarios), each with its name endings
    /// and behaviour; a file named otherwise, read with `--suite`, is read
    /// in the first.
    fn formats(&self) -> &'static [&'static FileFormat];

    /// How the suite's database files are written after seeding and
    /// checked (their schemas).
    fn database_format(&self) -> &'static DatabaseFormat;

    /// The databases folder used when `--databases` is not given, relative
    /// to the working directory.
    fn default_databases(&self) -> &'static str;

    /// Whether an execution reproduces the recorded gold call. By default
    /// the response and the exception must be the same JSON.
    fn reproduces(&self, recorded: &GoldCall, executed: &Execution) -> bool {
        executed.response == recorded.response && recorded.exception == executed.exception
    }

    /// Load the databases in `dir`, refusing a folder that lacks one the
    /// suite needs.
    fn load_databases(&self, dir: &Path) -> Result<Databases>;

    /// How `evaluate` scores an assistant on the suite's dialogues.
    fn evaluation(&self) -> Evaluation;

    /// How `evaluate --level N` runs conversations with a user over the
    /// suite's scenarios (API-Bank's level 3); None where it has none.
    fn interactive(&self) -> Option<&'static dyn interactive::Interactive> {
        None
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

    /// How an LLM drafts the suite's dialogues and database records
    /// (`generate dialogues`, `generate database`); None when it cannot.
    fn drafting(&self) -> Option<&'static dyn drafting::Drafting> {
        None
    }

    /// How scenario pools are generated for the suite and conversations
    /// scaffolded from them (`generate scenarios`, `scenarios`,
    /// `scaffold`); None when it has none.
    fn scenario_pools(&self) -> Option<&'static dyn pools::ScenarioPools> {
        None
    }

    /// The first and last calendar dates the records of the databases in
    /// `dir` hold, for suites whose dialogues have a clock
    /// (`timestamp-out-of-range`); None where the suite's dialogues have
    /// none, or the records no date.
    fn database_dates(&self, dir: &Path) -> Result<Option<DateRange>> {
        let _ = dir;
        Ok(None)
    }

    /// Files that are the data of a file the suite reads by its whole
    /// name when they sit beside it, and so never dialogues of any suite
    /// (tau2's `db.json` beside `tasks.json`): (data file, the file it
    /// goes with).
    fn companions(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// `verify` for a suite whose files hold many tasks and that reports
    /// on them itself (tau2): its report over `files`, each file with the
    /// databases of `databases` or, without it, of its own folder. None:
    /// verify replays the dialogues through the seam.
    fn verify_own(
        &self,
        files: &[std::path::PathBuf],
        databases: Option<&Path>,
        errata: &crate::errata::Errata,
    ) -> Option<Result<OwnVerification>> {
        let _ = (files, databases, errata);
        None
    }

    /// The world a dialogue starts in, or why it cannot be set up.
    fn world(
        &self,
        databases: &Databases,
        dialogue: &Conversation,
        options: &WorldOptions,
    ) -> std::result::Result<Box<dyn World>, String>;
}

/// A suite's own verification report ([`Suite::verify_own`]).
#[derive(Debug, Clone)]
pub struct OwnVerification {
    /// The document `--format json` prints.
    pub json: Value,
    /// The text a person reads.
    pub human: String,
    /// Whether it found a defect (exit 1).
    pub fails: bool,
}

/// The records `fill` writes into a loaded file: each execution at its
/// place in the model, with the argument the world supplies
/// ([`Suite::injected_argument`]) written into the request as the call ran
/// with it (its value replaced where the request has it, put first where
/// it lacks it: the tools that take it take it first), in the file's
/// format. A format that records no results is an error naming the file.
pub fn record_results(
    suite: &dyn Suite,
    loaded: &LoadedConversation,
    results: &[(usize, usize, &Execution)],
) -> Result<String> {
    let format = suite.format_of(&loaded.path);
    let write = match format.results {
        format::Results::Recorded(write) => write,
        format::Results::NotRecorded(why) => {
            return Err(crate::Error::input(&loaded.path, why));
        }
    };
    let injected = suite.injected_argument();
    let results: Vec<crate::formats::write::Recorded> = results
        .iter()
        .map(|&(turn, call, executed)| crate::formats::write::Recorded {
            turn,
            call,
            response: executed.response.clone().into_value(),
            exception: executed.exception.clone(),
            argument: injected.and_then(|name| {
                let value = executed.request.parameters.get(name)?;
                Some((name, value.clone()))
            }),
        })
        .collect();
    write(loaded, &results)
}
