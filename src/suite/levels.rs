//! Evaluation by samples, at levels (API-Bank's levels 1 and 2): each gold
//! call of a dialogue is a sample of its own, predicted from the dialogue
//! before it and scored apart, and the reply after a call's result is
//! scored against the gold reply. `evaluate` hands such a suite the files
//! and the run's settings; the suite builds its samples, asks the
//! predictor, scores, writes its outputs and gives back the summary.

use std::path::PathBuf;

use crate::run::Setup;
use crate::suite::WorldOptions;
use crate::Result;

/// The subfolder of `--out` holding one output file per dialogue
/// (`<path relative to the folder evaluated>.json`, with its `samples`).
pub const SAMPLES_DIR: &str = "samples";

/// One level a suite evaluates at.
#[derive(Debug, Clone, Copy)]
pub struct Level {
    pub number: u8,
    /// What the level asks of the assistant, in a line.
    pub summary: &'static str,
}

/// A suite's evaluation by samples.
pub trait LevelProtocol: Sync {
    /// The levels `--level` takes.
    fn levels(&self) -> &'static [Level];

    /// Evaluate `run.files` at `run.level` (one of [`Self::levels`]).
    fn evaluate(&self, run: &LevelRun<'_>) -> Result<crate::run::summary::Outcome>;

    /// How `report` reads and compares the runs it makes.
    fn report_kind(&self) -> &'static dyn crate::report::runs::RunKind;
}

/// What each sample's world holds before the predicted call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StartState {
    /// The initial databases, as the reference's evaluator starts every
    /// sample.
    #[default]
    Fresh,
    /// The initial databases after the dialogue's earlier gold calls have
    /// run, as the paper describes a sample.
    Replayed,
}

/// Which scoring decides a sample's verdict (both are computed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// The reference's own scoring, verdict for verdict (API-Bank: its
    /// evaluator's text patterns, argument conversion and per-API checks,
    /// quirks included).
    #[default]
    Reference,
    /// The reference's scoring with its known defects corrected, reading
    /// calls as models write them.
    Lenient,
}

/// One evaluation run by samples.
pub struct LevelRun<'a> {
    pub level: u8,
    pub files: &'a [PathBuf],
    pub setup: Setup,
    pub world: WorldOptions,
    pub state: StartState,
    /// Which scoring `correct` and the figures follow.
    pub scoring: Scoring,
    /// A prompt template for a model instead of the suite's own.
    pub template: Option<PathBuf>,
    /// Offer a model the APIs as the endpoint's tools (function calling)
    /// instead of asking for the call in text.
    pub functions: bool,
    /// Blank the APIs' descriptions (documentation ablation).
    pub no_docs: bool,
}
