//! API-Bank (Li et al., 2023): the catalog of its 53 APIs as the
//! dialogues call them, the APIs themselves (`apis/`, run over one
//! dialogue's [`state::State`]) and the world that runs calls as the
//! reference's `ToolManager` does (`world`). Its dialogues (.jsonl) are
//! read and written by `formats::apibank`.

use std::path::Path;

use crate::dialogue::{Conversation, GoldCall};
use crate::formats::LoadedConversation;
use crate::sim::Databases;
use crate::suite::{ArgumentEncoding, Catalog, Execution, LintHelp, Suite, WorldOptions};
use crate::{Error, Result};

pub mod apis;
pub mod bm25;
pub mod catalog;
pub mod drafting;
pub mod eval;
pub mod level3;
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

    fn extension(&self) -> &'static str {
        "jsonl"
    }

    fn default_databases(&self) -> &'static str {
        "databases/apibank"
    }

    /// Level-3 scenarios: upstream's sheets and our JSON format.
    fn scenario_extensions(&self) -> &'static [&'static str] {
        &[level3::SHEET_EXTENSION, level3::JSON_EXTENSION]
    }

    fn records_results(&self, path: &Path) -> bool {
        !level3::is_scenario_path(path)
    }

    fn scenario_dialogue_text(&self, path: &Path, text: &str) -> Option<Result<String>> {
        level3::is_scenario_path(path).then(|| {
            level3::parse_scenario(path, text).map(|s| level3::dialogue::dialogue_text(&s))
        })
    }

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

    /// A dialogue, or a level-3 scenario as the dialogue of its
    /// ground-truth calls ([`level3::dialogue`]).
    fn parse_dialogue(&self, path: &Path, text: &str) -> Result<Conversation> {
        if level3::is_scenario_path(path) {
            let scenario = level3::parse_scenario(path, text)?;
            return Ok(level3::dialogue::conversation(&scenario));
        }
        crate::formats::apibank::read_conversation(path, text)
    }

    /// A scenario is kept as it is written (a sheet is prose).
    fn canonical_layout(&self, path: &Path, text: &str) -> Result<String> {
        if level3::is_scenario_path(path) {
            level3::parse_scenario(path, text)?;
            return Ok(text.to_string());
        }
        crate::formats::canonical::apibank(path, text)
    }

    /// A scenario records no results: nothing in it is left to record.
    fn load_dialogue(&self, path: &Path) -> Result<LoadedConversation> {
        if level3::is_scenario_path(path) {
            let text = crate::formats::read::read_text(path)?;
            let conversation = self.parse_dialogue(path, &text)?;
            return Ok(LoadedConversation {
                path: path.to_path_buf(),
                text,
                conversation,
                unrecorded: Vec::new(),
            });
        }
        crate::formats::apibank::load(path)
    }

    /// Each API line's whole `result` object is replaced by the one the
    /// world returned.
    fn record_results(
        &self,
        loaded: &LoadedConversation,
        results: &[(usize, usize, &Execution)],
    ) -> Result<String> {
        if level3::is_scenario_path(&loaded.path) {
            return Err(Error::input(
                &loaded.path,
                "a level-3 scenario records no results: its ground-truth calls are expected to run without raising (see `talkforge verify`)",
            ));
        }
        let values: Vec<(usize, serde_json::Value)> = results
            .iter()
            .map(|&(turn, call, executed)| {
                let line = loaded.conversation.conversation[turn].calls()[call]
                    .place(turn, call)
                    .turn;
                (line, executed.response.clone().into_value())
            })
            .collect();
        let lines: Vec<(usize, &serde_json::Value)> =
            values.iter().map(|(line, value)| (*line, value)).collect();
        crate::formats::apibank::write_results(&loaded.path, &loaded.text, &lines)
    }

    /// The whole recorded `result` object against the simulated one, with
    /// Python's `==` (as the reference's own comparisons go); a recorded
    /// result that holds only an `exception` (a level-3 scenario's
    /// expectation) against the exception alone.
    fn reproduces(&self, recorded: &GoldCall, executed: &Execution) -> bool {
        if level3::dialogue::is_expectation(&recorded.response) {
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

    /// The database as upstream writes its files (`json.dumps` with an
    /// indent of 4), in the old file's own separators and escaping.
    fn database_text(&self, databases: &Databases, name: &str, old: Option<&str>) -> String {
        let document = databases
            .document(name)
            .map(|d| (**d).clone())
            .unwrap_or_default();
        crate::formats::write::to_python_json_like(&document, old)
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
