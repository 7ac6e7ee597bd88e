//! What evaluating a whole conversation produces: the simulation of a
//! dialogue with a predictor (ToolTalk's Algorithm 1) and the scoring of
//! its predictions against the gold calls (Algorithm 2); the algorithms
//! are the run layer's (`run::replayed`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::predict::PredictedCall;
use crate::dialogue::GoldCall;

/// The default bound on calls within one assistant turn.
pub const DEFAULT_MAX_CALLS_PER_TURN: usize = 10;

/// The turn's closing answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub metadata: Option<Value>,
}

/// What the predictor did in one assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRun {
    /// Position in the `conversation` array.
    pub turn: usize,
    pub calls: Vec<PredictedCall>,
    /// `None` when the call bound stopped the turn.
    pub answer: Option<Answer>,
    /// The predictor asked for more calls than the bound allows.
    pub stopped_by_bound: bool,
}

/// A gold call as scoring sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldRef<'c> {
    pub turn: usize,
    /// Borrowed from the conversation unless the protocol changed it.
    pub gold: Cow<'c, GoldCall>,
}

/// The simulation of one conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation<'c> {
    /// One entry per assistant turn, in order.
    pub turns: Vec<TurnRun>,
    /// Every gold call in order, as scoring compares them.
    pub gold: Vec<GoldRef<'c>>,
    /// The state check ([`crate::suite::state`]): after each assistant
    /// turn, where the predicted world differs from the gold one; `None`
    /// for a protocol or world that cannot compare worlds.
    pub state: Option<Vec<crate::suite::state::StateWrite>>,
}

/// Why a conversation could not be simulated.
#[derive(Debug, Clone, PartialEq)]
pub enum SimulateError {
    /// The conversation's world could not be set up (bad timestamp, unknown user).
    Setup(String),
    Predict(String),
}

/// What scoring says about one prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// Index of the gold call it matched.
    pub matched: Option<usize>,
    pub bad_action: bool,
}

/// The verdict on a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    /// Per prediction, in order.
    pub predictions: Vec<Flags>,
    /// Per gold call, in order: whether a prediction matched it.
    pub gold_matched: Vec<bool>,
    pub metrics: Metrics,
}

/// One conversation's metrics, with ToolTalk's names.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub predictions: usize,
    pub ground_truths: usize,
    pub matches: usize,
    pub actions: usize,
    pub valid_actions: usize,
    pub bad_actions: usize,
    /// matches / predictions; 0 without predictions.
    pub precision: f64,
    /// matches / ground_truths; 1 without gold calls (the reference divides
    /// by zero there: nothing to recall counts as all recalled).
    pub recall: f64,
    /// valid_actions / actions; 1 without actions.
    pub action_precision: f64,
    /// bad_actions / actions; 0 without actions: the paper's
    /// incorrect-action rate, under the reference's name because the
    /// per-conversation output files keep the reference's `metrics` (its
    /// analysis scripts read them); summaries and reports call it
    /// `incorrect_action_rate`.
    pub bad_action_rate: f64,
    /// recall == 1 and no bad action.
    pub success: bool,
    /// recall * (1 - bad_action_rate).
    pub soft_success: f64,
}

impl Metrics {
    pub fn from_counts(
        predictions: usize,
        ground_truths: usize,
        matches: usize,
        actions: usize,
        valid_actions: usize,
        bad_actions: usize,
    ) -> Self {
        let precision = ratio(matches, predictions, 0.0);
        let recall = ratio(matches, ground_truths, 1.0);
        let action_precision = ratio(valid_actions, actions, 1.0);
        let bad_action_rate = ratio(bad_actions, actions, 0.0);
        Metrics {
            predictions,
            ground_truths,
            matches,
            actions,
            valid_actions,
            bad_actions,
            precision,
            recall,
            action_precision,
            bad_action_rate,
            success: recall == 1.0 && bad_action_rate == 0.0,
            soft_success: recall * (1.0 - bad_action_rate),
        }
    }
}

/// `num / den`, or `empty` when there is nothing to divide.
pub fn ratio(num: usize, den: usize, empty: f64) -> f64 {
    if den == 0 {
        empty
    } else {
        num as f64 / den as f64
    }
}
