//! Algorithm 2 of ToolTalk: match predictions with gold calls and compute
//! a conversation's metrics.
//!
//! Predictions are taken in order; each one is matched with the first gold
//! call (in conversation order) that no earlier prediction has matched and
//! that the gold tool's own comparator accepts. This is the reference's
//! deque rotation: the order of the unmatched gold calls never changes.
//! A bad action is a prediction of an action tool that matched nothing and
//! ran without an exception.

use serde::{Deserialize, Serialize};

use crate::dialogue::GoldCall;
use crate::suite::catalog::CallRef;
use crate::suite::TextSimilarity;
use crate::suites::tooltalk::tool;

/// One conversation's metrics, with the reference's names.
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
    /// bad_actions / actions; 0 without actions (the paper's incorrect-action rate).
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

/// What Algorithm 2 says about one prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// Index of the gold call it matched.
    pub matched: Option<usize>,
    pub is_action: bool,
    pub bad_action: bool,
}

/// Algorithm 2's verdict on a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    /// Per prediction, in order.
    pub predictions: Vec<Flags>,
    /// Per gold call, in order: whether a prediction matched it.
    pub gold_matched: Vec<bool>,
    pub metrics: Metrics,
}

/// Match `predictions` (in order) against `gold` (in order).
pub fn score<'a>(
    predictions: impl IntoIterator<Item = CallRef<'a>>,
    gold: &[&GoldCall],
    text: &dyn TextSimilarity,
) -> Scoring {
    let mut gold_matched = vec![false; gold.len()];
    let mut flags = Vec::new();
    let (mut matches, mut actions, mut valid_actions, mut bad_actions) = (0, 0, 0, 0);
    for prediction in predictions {
        // A prediction satisfies a gold call of the same tool that the
        // tool's comparator accepts (the default one for a tool outside
        // the catalog); one catalog lookup serves that and `is_action`.
        let spec = tool(prediction.api_name);
        let comparator = spec.map_or(
            crate::suites::tooltalk::compare::default_matches as crate::suite::MatchFn,
            |t| t.matches,
        );
        let matched = (0..gold.len()).find(|&g| {
            !gold_matched[g]
                && gold[g].request.api_name == prediction.api_name
                && comparator(prediction, gold[g], text)
        });
        if let Some(g) = matched {
            gold_matched[g] = true;
        }
        let action = spec.is_some_and(|t| t.is_action);
        let bad_action = matched.is_none() && action && prediction.exception.is_none();
        matches += usize::from(matched.is_some());
        actions += usize::from(action);
        valid_actions += usize::from(action && matched.is_some());
        bad_actions += usize::from(bad_action);
        flags.push(Flags {
            matched,
            is_action: action,
            bad_action,
        });
    }
    let metrics = Metrics::from_counts(
        flags.len(),
        gold.len(),
        matches,
        actions,
        valid_actions,
        bad_actions,
    );
    Scoring {
        predictions: flags,
        gold_matched,
        metrics,
    }
}
