//! Aggregating conversations the way the reference (and the paper) does:
//! precision, recall, action precision and incorrect-action rate over the
//! pooled counts of all conversations; success rate (and soft success) as
//! the mean over conversations.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::outcome::{ConversationResult, ErrorTypes, ToolTally};
use super::output::RunInfo;
pub use crate::run::summary::StateTotals;
use crate::run::summary::{Figures, RunSummary};
use crate::suite::protocol::ratio;

/// Pooled counts of a set of conversations (a run's, a subset's; their
/// rates say how many conversations).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Totals {
    #[serde(skip)]
    pub conversations: usize,
    #[serde(skip)]
    pub soft_success_sum: f64,
    pub predictions: usize,
    pub ground_truths: usize,
    pub matches: usize,
    pub actions: usize,
    pub bad_actions: usize,
    pub valid_actions: usize,
    pub successes: usize,
    pub assistant_turns: usize,
    /// Assistant turns the per-turn call bound stopped.
    pub turns_stopped_by_bound: usize,
}

impl Totals {
    pub fn add(&mut self, r: &ConversationResult) {
        let m = &r.metrics;
        self.conversations += 1;
        self.successes += usize::from(m.success);
        self.soft_success_sum += m.soft_success;
        self.predictions += m.predictions;
        self.ground_truths += m.ground_truths;
        self.matches += m.matches;
        self.actions += m.actions;
        self.valid_actions += m.valid_actions;
        self.bad_actions += m.bad_actions;
        self.assistant_turns += r.assistant_turns;
        self.turns_stopped_by_bound += r.turns_stopped_by_bound;
    }

    /// The rates, none over no conversation.
    pub fn rates(&self) -> Rates {
        let rate = |x: f64| (self.conversations > 0).then_some(x);
        Rates {
            conversations: self.conversations,
            success_rate: rate(ratio(self.successes, self.conversations, 0.0)),
            soft_success_rate: rate(self.soft_success_sum / self.conversations.max(1) as f64),
            precision: rate(ratio(self.matches, self.predictions, 0.0)),
            recall: rate(ratio(self.matches, self.ground_truths, 1.0)),
            action_precision: rate(ratio(self.valid_actions, self.actions, 1.0)),
            incorrect_action_rate: rate(ratio(self.bad_actions, self.actions, 0.0)),
        }
    }
}

/// The headline figures of a set of conversations. Over no conversation
/// every rate is undefined: null, never a 0 that reads as a result.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rates {
    pub conversations: usize,
    pub success_rate: Option<f64>,
    pub soft_success_rate: Option<f64>,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub action_precision: Option<f64>,
    pub incorrect_action_rate: Option<f64>,
}

/// One subset's line of Table 1.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubsetSummary {
    #[serde(flatten)]
    pub rates: Rates,
    #[serde(flatten)]
    pub totals: Totals,
}

/// A run of whole conversations: ToolTalk's figures (the first keys are
/// the command-line contract), in the one envelope with its settings.
pub type Summary = RunSummary<Conversations, RunInfo>;

/// The figures of a run of whole conversations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Conversations {
    #[serde(flatten)]
    pub rates: Rates,
    #[serde(flatten)]
    pub totals: Totals,
    pub max_calls_per_turn: usize,
    pub predictor: String,
    pub similarity: String,
    /// Table 2, over the failed conversations.
    pub error_types: ErrorTypes,
    pub by_subset: IndexMap<String, SubsetSummary>,
    /// Per tool, sorted by name.
    pub tools: BTreeMap<String, ToolTally>,
    pub per_conversation: Vec<ConversationResult>,
}

impl Figures for Conversations {
    fn files_evaluated(&self, _failed: usize) -> usize {
        self.rates.conversations
    }
}

/// The summary's figures, gathered one conversation at a time (a run
/// need not hold its conversations' results); the rates come at the end.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    figures: Conversations,
    state: Option<StateTotals>,
}

impl Tally {
    /// A tally with room for `conversations` entries (no copying as they
    /// arrive).
    pub fn with_capacity(conversations: usize) -> Self {
        let mut tally = Tally::default();
        tally.figures.per_conversation.reserve(conversations);
        tally
    }

    pub fn add(&mut self, mut r: ConversationResult) {
        let figures = &mut self.figures;
        figures.totals.add(&r);
        let subset = figures.by_subset.entry(r.subset.clone()).or_default();
        subset.totals.add(&r);
        figures.error_types += r.error_types;
        if let Some(check) = &r.state_check {
            self.state.get_or_insert_with(Default::default).add(check);
        }
        // The summary's per-tool table has them now.
        for (name, tally) in std::mem::take(&mut r.tools) {
            *figures.tools.entry(name).or_default() += tally;
        }
        figures.per_conversation.push(r);
    }

    /// The summary of a pass over the files.
    pub fn summary(self, info: RunInfo, pass: crate::run::driver::Pass) -> Summary {
        let Tally { mut figures, state } = self;
        figures.rates = figures.totals.rates();
        figures.by_subset.sort_keys();
        for subset in figures.by_subset.values_mut() {
            subset.rates = subset.totals.rates();
        }
        figures.max_calls_per_turn = info.max_calls_per_turn;
        figures.predictor = info.predictor.clone();
        figures.similarity = info.similarity.clone();
        let mut summary = Summary::new(figures, info, pass);
        summary.state_check = state;
        summary
    }
}

/// The summary of results gathered outside a run (a test's).
#[cfg(test)]
pub fn summary_of(results: Vec<ConversationResult>, info: RunInfo) -> Summary {
    let pass = crate::run::driver::Pass {
        resumed: results.iter().filter(|r| r.resumed).count(),
        ..Default::default()
    };
    let mut tally = Tally::default();
    results.into_iter().for_each(|r| tally.add(r));
    tally.summary(info, pass)
}
