//! API-Bank (Li et al., 2023): the catalog of its 53 APIs as the
//! dialogues call them, the APIs themselves (`apis/`, run over one
//! dialogue's [`state::State`]) and the world that runs calls as the
//! reference's `ToolManager` does (`world`). Its dialogues (.jsonl) are
//! read and written by `formats::apibank`.

use std::path::Path;

use crate::dialogue::{Conversation, GoldCall};
use crate::formats::LoadedConversation;
use crate::sim::Databases;
use crate::suite::format::{
    load_unrecorded, DatabaseFormat, FileFormat, FormatKind, LintReading, Results,
};
use crate::suite::{ArgumentEncoding, Catalog, Execution, LintHelp, Suite, WorldOptions};
use crate::{Error, Result};

pub mod apis;
pub mod bm25;
pub mod catalog;
pub mod drafting;
pub mod eval;
pub mod level3;
pub mod scenarios;
pub mod seed;
pub mod state;
pub mod word_tokenize;
pub mod world;

pub use crate::formats::apibank::{ApiCall, Dialogue, DialogueLine, LineKind};
pub use crate::formats::call_text;
pub use catalog::catalog;
pub use world::ApiBankWorld;

/// The database every API that takes a token checks it against; a folder
/// without it is no API-Bank databases folder.
const ACCOUNT_FILE: &str = "Account.json";

/// API-Bank's dialogues: one JSON object a line.
pub static DIALOGUES: FileFormat = FileFormat {
    name: "apibank-dialogue",
    kind: FormatKind::Dialogues,
    endings: &["jsonl"],
    names: &[],
    schema: None,
    parse: crate::formats::apibank::read_conversation,
    many: None,
    canonical: crate::formats::canonical::apibank,
    load: crate::formats::apibank::load,
    results: Results::Recorded(crate::formats::apibank::record_results),
    lint: LintReading::Lines,
};

/// Why a level-3 scenario takes no results.
const SCENARIO_RECORDS_NONE: &str = "a level-3 scenario records no results: its ground-truth calls are expected to run without raising (see `talkforge verify`)";

/// Level-3 scenarios as upstream writes them: prose sheets, read as the
/// dialogue of their ground-truth calls ([`scenarios::dialogue`]) and kept
/// as they are written.
pub static SCENARIO_SHEETS: FileFormat = FileFormat {
    name: "apibank-level3-sheet",
    kind: FormatKind::Scenarios,
    endings: &[scenarios::SHEET_EXTENSION],
    names: &[],
    schema: None,
    parse: parse_scenario,
    many: None,
    canonical: keep_scenario,
    load: load_scenario,
    results: Results::NotRecorded(SCENARIO_RECORDS_NONE),
    lint: LintReading::LinesFrom(scenario_lines),
};

/// Level-3 scenarios in our JSON format (`.lv3.json`).
pub static SCENARIOS: FileFormat = FileFormat {
    name: "apibank-level3-scenario",
    kind: FormatKind::Scenarios,
    endings: &[scenarios::JSON_EXTENSION],
    names: &[],
    schema: Some(scenarios::format::SCHEMA),
    parse: parse_scenario,
    many: None,
    canonical: keep_scenario,
    load: load_scenario,
    results: Results::NotRecorded(SCENARIO_RECORDS_NONE),
    lint: LintReading::LinesFrom(scenario_lines),
};

/// A level-3 scenario as the dialogue of its ground-truth calls.
fn parse_scenario(path: &Path, text: &str) -> Result<Conversation> {
    let scenario = scenarios::parse_scenario(path, text)?;
    Ok(scenarios::dialogue::conversation(&scenario))
}

/// A scenario is kept as it is written (a sheet is prose).
fn keep_scenario(path: &Path, text: &str) -> Result<String> {
    scenarios::parse_scenario(path, text)?;
    Ok(text.to_string())
}

fn load_scenario(path: &Path) -> Result<LoadedConversation> {
    load_unrecorded(path, parse_scenario)
}

/// The dialogue lines `lint` reads for a scenario, each where the file
/// has its source.
fn scenario_lines(path: &Path, text: &str) -> Result<String> {
    scenarios::parse_scenario(path, text).map(|s| scenarios::dialogue::dialogue_text(&s))
}

/// API-Bank's databases: JSON documents as upstream writes its files.
static DATABASES: DatabaseFormat = DatabaseFormat {
    schemas: &[],
    text: database_text,
};

/// The database as upstream writes its files (`json.dumps` with an indent
/// of 4), in the old file's own separators and escaping.
fn database_text(databases: &Databases, name: &str, old: Option<&str>) -> String {
    let document = databases
        .document(name)
        .map(|d| (**d).clone())
        .unwrap_or_default();
    crate::formats::write::to_python_json_like(&document, old)
}

impl ApiBank {
    /// One dialogue or scenario file read into the model (in the format
    /// its name says).
    pub fn read_dialogue(&self, path: &Path) -> Result<Conversation> {
        (self as &dyn Suite).read_dialogue(path)
    }

    /// One dialogue or scenario file's text in the model.
    pub fn parse_dialogue(&self, path: &Path, text: &str) -> Result<Conversation> {
        (self as &dyn Suite).parse_dialogue(path, text)
    }
}

/// The API-Bank suite.
#[derive(Debug, Clone, Copy)]
pub struct ApiBank;

impl Suite for ApiBank {
    fn name(&self) -> &'static str {
        "apibank"
    }

    fn catalog(&self) -> &'static Catalog {
        catalog()
    }

    fn formats(&self) -> &'static [&'static FileFormat] {
        static FORMATS: [&FileFormat; 3] = [&DIALOGUES, &SCENARIO_SHEETS, &SCENARIOS];
        &FORMATS
    }

    fn database_format(&self) -> &'static DatabaseFormat {
        &DATABASES
    }

    fn default_databases(&self) -> &'static str {
        "databases/apibank"
    }

    /// Level-3 scenarios: upstream's sheets and our JSON format.
    /// Every file must be one of the databases API-Bank's APIs read (a
    /// misspelt name would otherwise load and never be read), and
    /// `Account.json` must be there; a dialogue whose gold calls need a
    /// database the folder lacks is refused when its world is set up. (The
    /// reference runs such an API on an empty dict and ignores other
    /// files: a silent wrong answer for a maintainer.)
    fn load_databases(&self, dir: &Path) -> Result<Databases> {
        let databases = Databases::load_documents(dir)?;
        let mut known: Vec<&str> = catalog()
            .tools()
            .iter()
            .filter_map(|t| t.database)
            .collect();
        known.push(state::ACCOUNT);
        known.sort_unstable();
        known.dedup();
        crate::suite::unknown_database(dir, &databases, &known, "API-Bank")?;
        let dicts = state::InitialDicts::new(&databases);
        let databases = databases.with_prepared(dicts);
        if databases.document(state::ACCOUNT).is_none() {
            return Err(Error::input(
                dir,
                format!("no {ACCOUNT_FILE} in this folder: API-Bank's databases folder holds the account database beside the others (upstream: init_database/)"),
            ));
        }
        Ok(databases)
    }

    /// The whole recorded `result` object against the simulated one, with
    /// Python's `==` (as the reference's own comparisons go); a recorded
    /// result that holds only an `exception` (a level-3 scenario's
    /// expectation) against the exception alone.
    fn reproduces(&self, recorded: &GoldCall, executed: &Execution) -> bool {
        if scenarios::dialogue::is_expectation(&recorded.response) {
            return recorded.response.get("exception").and_then(|e| e.as_str())
                == executed.exception.as_deref();
        }
        executed.response.as_response().py_eq(&recorded.response)
    }

    /// The records recorded successes presuppose (a cancelled switch's
    /// schedule entry, the record a query answered or a deletion removed,
    /// listed appointments): see [`seed`].
    fn seed_databases(
        &self,
        dialogues: &[LoadedConversation],
        initial: &Databases,
    ) -> Result<crate::suite::Seeded> {
        seed::seed_databases(dialogues, initial)
    }

    fn evaluation(&self) -> crate::suite::Evaluation {
        crate::suite::Evaluation::Levels(&eval::ApiBankLevels)
    }

    fn interactive(&self) -> Option<&'static dyn crate::suite::interactive::Interactive> {
        Some(&level3::Level3)
    }

    fn argument_encoding(&self) -> ArgumentEncoding {
        ArgumentEncoding::PythonText
    }

    fn drafting(&self) -> Option<&'static dyn crate::suite::drafting::Drafting> {
        Some(&drafting::ApiBankDrafting)
    }

    fn lint_help(&self) -> &'static LintHelp {
        &LintHelp {
            unknown_tool: "API-Bank has no API of that name",
            no_session: "no token has been obtained (no earlier GetUserToken)",
            open_session: "call GetUserToken with the user's username and password before it",
            credential_source: "an earlier GetUserToken",
        }
    }

    fn world(
        &self,
        databases: &Databases,
        dialogue: &Conversation,
        options: &WorldOptions,
    ) -> std::result::Result<Box<dyn crate::suite::World>, String> {
        crate::suite::missing_database(catalog(), databases, dialogue)?;
        Ok(Box::new(ApiBankWorld::new(databases, options)?))
    }
}
