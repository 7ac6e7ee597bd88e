//! What every kind of run is given.

use std::path::PathBuf;
use std::sync::Arc;

use super::{answer, provenance};

/// What every kind of run is given besides its files and its own options:
/// the databases, who answers, how many trials, where outputs go and how
/// many units at once. It owns what it holds (shared, as each trial
/// clones it), so a command builds it in one step.
#[derive(Debug, Clone)]
pub struct Setup {
    pub databases: Arc<crate::sim::Databases>,
    /// What the summary's provenance records of the databases and errata.
    pub provenance: provenance::Inputs,
    /// Errata files' entries (a dialogue's own come with it): a failure on
    /// a gold call they name is shown as known; scores are unchanged.
    pub errata: Arc<crate::errata::Errata>,
    /// Who answers.
    pub answerer: answer::Choice,
    /// Trials (`--trials`, at least 1): with more than one, each trial's
    /// outputs go to `out/trial-T` and the summary adds pass^k; each
    /// trial's models cache their replies apart.
    pub trials: usize,
    /// Where output files go; `None` writes nothing. A folder that holds
    /// outputs made with the same settings from the same input is resumed.
    pub out: Option<PathBuf>,
    /// Evaluate again what `out` already holds.
    pub reset: bool,
    /// Units evaluated at once; `None` uses every core.
    pub threads: Option<usize>,
    /// Show a progress bar.
    pub progress: bool,
    /// Where the models asked count their tokens (`usage` in the summary).
    pub meter: crate::llm::usage::Meter,
}
