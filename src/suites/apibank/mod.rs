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
pub mod call_text;
pub mod catalog;
pub mod drafting;
pub mod eval;
pub mod seed;
pub mod state;
pub mod word_tokenize;
pub mod world;

pub use crate::formats::apibank::{ApiCall, Dialogue, DialogueLine, LineKind};
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

    fn parse_dialogue(&self, path: &Path, text: &str) -> Result<Conversation> {
        crate::formats::apibank::read_conversation(path, text)
    }

    fn canonical_layout(&self, path: &Path, text: &str) -> Result<String> {
        crate::formats::canonical::apibank(path, text)
    }

    fn load_dialogue(&self, path: &Path) -> Result<LoadedConversation> {
        crate::formats::apibank::load(path)
    }

    /// Each API line's whole `result` object is replaced by the one the
    /// world returned.
    fn record_results(
        &self,
        loaded: &LoadedConversation,
        results: &[(usize, usize, &Execution)],
    ) -> Result<String> {
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
    /// Python's `==` (as the reference's own comparisons go).
    fn reproduces(&self, recorded: &GoldCall, executed: &Execution) -> bool {
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
