//! API-Bank (Li et al., 2023): the catalog of its 53 APIs, as the
//! dialogues call them. Its dialogues (.jsonl) are read by
//! `formats::apibank`; they cannot be simulated yet.

use std::path::Path;

use crate::dialogue::Conversation;
use crate::sim::Databases;
use crate::suite::predict::Predictor;
use crate::suite::protocol::{Metrics, Protocol};
use crate::suite::protocol::{Scoring, SimulateError, Simulation};
use crate::suite::{ArgumentEncoding, Catalog, LintHelp, Suite, TextSimilarity};
use crate::{Error, Result};

pub mod apis;
pub mod bm25;
pub mod catalog;
pub mod state;
pub mod word_tokenize;

pub use crate::formats::apibank::{ApiCall, Dialogue, DialogueLine, LineKind};
pub use catalog::catalog;

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

    fn load_databases(&self, _dir: &Path) -> Result<Databases> {
        Err(Error::Usage(NOT_SIMULATED.to_owned()))
    }

    fn parse_dialogue(&self, path: &Path, _text: &str) -> Result<Conversation> {
        Err(Error::input(path, NOT_SIMULATED))
    }

    fn protocol(&self) -> &'static dyn Protocol {
        &NotSimulated
    }

    fn argument_encoding(&self) -> ArgumentEncoding {
        ArgumentEncoding::PythonText
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
        _databases: &Databases,
        _dialogue: &Conversation,
    ) -> std::result::Result<Box<dyn crate::suite::World>, String> {
        Err(NOT_SIMULATED.to_owned())
    }
}

/// Why every command but `lint` refuses API-Bank dialogues for now.
const NOT_SIMULATED: &str =
    "API-Bank dialogues can only be linted for now: the other commands read them once API-Bank's APIs are simulated";

/// Evaluation refuses every dialogue until API-Bank's world exists.
struct NotSimulated;

impl Protocol for NotSimulated {
    fn simulate<'c>(
        &self,
        _suite: &dyn Suite,
        _databases: &Databases,
        _conversation: &'c Conversation,
        _predictor: &dyn Predictor,
        _max_calls_per_turn: usize,
    ) -> std::result::Result<Simulation<'c>, SimulateError> {
        Err(SimulateError::Setup(NOT_SIMULATED.to_owned()))
    }

    /// Nothing was simulated, so nothing was predicted or matched.
    fn score(
        &self,
        _suite: &dyn Suite,
        _simulation: &Simulation<'_>,
        _text: &dyn TextSimilarity,
    ) -> Scoring {
        Scoring {
            predictions: Vec::new(),
            gold_matched: Vec::new(),
            metrics: Metrics::from_counts(0, 0, 0, 0, 0, 0),
        }
    }
}
