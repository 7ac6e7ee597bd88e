//! The one `summary.json` envelope: a kind's own figures (its contract
//! keys first) and what every run records alike (settings, provenance,
//! trials, resumed files, files that could not be evaluated, the state
//! check where the kind has one, tokens used, the format version). The
//! same type is written by `evaluate` and read back by `report`.

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::driver::{Failure, Pass};
use super::provenance::Provenance;
use super::trials::Trials;
use crate::llm::usage::ModelUsage;

/// The format of every `summary.json` talkforge writes, of every kind
/// of run. 2: the first with `format_version` (before it, rates over no
/// unit were written as 0).
pub const FORMAT_VERSION: u32 = 2;

fn format_version() -> u32 {
    FORMAT_VERSION
}

/// What the envelope asks of a kind's own figures.
pub trait Figures {
    /// Files of the run evaluated (conversations, dialogues of call
    /// samples, scenarios), `failed` others having failed.
    fn files_evaluated(&self, failed: usize) -> usize;
}

/// A run's `summary.json`: the kind's figures `F` (flattened, first), and
/// the run-level fields every kind shares. `S` is the kind's settings
/// (any JSON object where the kind has no type for them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary<F, S = Value> {
    #[serde(flatten)]
    pub figures: F,
    /// Everything the run was made with: an output file made with other
    /// settings is evaluated again.
    pub settings: S,
    /// Where the numbers came from: versions, date, hashes of the dataset
    /// and databases, the models asked for and reported, the prompt
    /// templates (absent only in summaries built outside a run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// With `--trials N`: pass^1 .. pass^N over the trials (the figures
    /// are the first trial's; each trial's are in `trial-T/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<Trials>,
    /// Files whose results were taken from an earlier run in the output
    /// folder.
    pub resumed: usize,
    /// Files evaluated, and files that could not be (read back from the
    /// figures and `failures`, never trusted from the file).
    #[serde(skip_deserializing)]
    pub evaluated: usize,
    #[serde(skip_deserializing)]
    pub not_evaluated: usize,
    /// The state check's totals (absent where the kind or the suite
    /// cannot compare worlds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_check: Option<StateTotals>,
    /// Files that could not be evaluated, and why (none: the key is left
    /// out); the figures are over the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// The tokens each model asked used, per model and role (absent when
    /// no model was asked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<ModelUsage>,
    /// [`FORMAT_VERSION`] when written.
    #[serde(default = "format_version")]
    pub format_version: u32,
}

impl<F: Figures, S> RunSummary<F, S> {
    /// The summary of a pass over the files.
    pub fn new(figures: F, settings: S, pass: Pass) -> Self {
        RunSummary {
            figures,
            settings,
            provenance: None,
            trials: None,
            resumed: pass.resumed,
            evaluated: 0,
            not_evaluated: 0,
            state_check: None,
            failures: pass.failures,
            usage: Vec::new(),
            format_version: FORMAT_VERSION,
        }
        .counted()
    }

    /// With `evaluated` and `not_evaluated` counted from the figures and
    /// the failures.
    pub fn counted(mut self) -> Self {
        self.not_evaluated = self.failures.len();
        self.evaluated = self.figures.files_evaluated(self.not_evaluated);
        self
    }

    /// The text of `summary.json`.
    /// The lines every kind's words on stdout end with: pass^k over the
    /// trials (`of` says of what, when not plain success), the `unit`s
    /// resumed, the tokens used.
    pub fn human_footer(&self, unit: &str, of: &str) -> String {
        let mut out = String::new();
        if let Some(t) = &self.trials {
            out += &format!(
                "over {} trials{of}: {} (the figures above are trial 1's)\n",
                t.trials,
                super::trials::pass_hat_words(&t.all.pass_hat)
            );
        }
        if self.resumed > 0 {
            out += &format!(
                "{} resumed from --out\n",
                crate::words::count(self.resumed, unit)
            );
        }
        out + &crate::llm::usage::human(&self.usage)
    }

    pub fn json(&self) -> String
    where
        F: Serialize,
        S: Serialize,
    {
        serde_json::to_string_pretty(self).expect("a summary serialises") + "\n"
    }
}

/// The figures are read as the summary's own (`summary.rates`).
impl<F, S> Deref for RunSummary<F, S> {
    type Target = F;
    fn deref(&self) -> &F {
        &self.figures
    }
}

impl<F, S> DerefMut for RunSummary<F, S> {
    fn deref_mut(&mut self) -> &mut F {
        &mut self.figures
    }
}

/// The state check over a run: how many units the worlds were compared
/// for, how many left collateral damage, and the places of each kind (see
/// [`crate::suite::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StateTotals {
    pub conversations_checked: usize,
    /// Conversations whose predictions wrote where the gold calls did not.
    pub conversations_with_collateral: usize,
    /// Conversations whose predicted worlds ended as the gold ones.
    pub conversations_clean: usize,
    pub collateral: usize,
    pub missing: usize,
    pub different: usize,
}

impl StateTotals {
    pub fn add(&mut self, check: &crate::suite::state::StateCheck) {
        self.conversations_checked += 1;
        self.conversations_with_collateral += usize::from(check.collateral > 0);
        self.conversations_clean += usize::from(check.clean());
        self.collateral += check.collateral;
        self.missing += check.missing;
        self.different += check.different;
    }

    /// The totals of the checks given (None: no unit had one).
    pub fn of<'a>(
        checks: impl Iterator<Item = &'a crate::suite::state::StateCheck>,
    ) -> Option<Self> {
        checks.fold(None, |totals, check| {
            let mut totals: StateTotals = totals.unwrap_or_default();
            totals.add(check);
            Some(totals)
        })
    }
}

/// What a run found, as `evaluate` prints it (for a kind whose summary
/// its suite builds: levels, tasks).
#[derive(Debug)]
pub struct Outcome {
    /// The summary `--format json` prints.
    pub document: Value,
    /// The summary in words.
    pub human: String,
    /// Whether some unit was not a success (exit status 1).
    pub findings: bool,
    /// The error naming the units that could not be evaluated (exit
    /// status 2, after the summary of the others, which lists them).
    pub failure: Option<crate::Error>,
}
