//! The summary of a run of conversations with a user (`summary.json`,
//! `--format json`): completion and turns to completion over the
//! scenarios, with every scenario's outcome.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::ScenarioOutcome;
use crate::run::driver::Pass;
use crate::run::summary::{Figures, RunSummary, StateTotals};

/// The run's summary (DESIGN.md: API-Bank's level 3 of `evaluate`), its settings
/// what decides whether a transcript in `--out` is reused: the players,
/// temperature, turn and call bounds, retriever, databases, talkforge
/// version.
pub type Summary = RunSummary<ScenarioFigures>;

/// Completion and turns over the scenarios (the first keys are the
/// command-line contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioFigures {
    pub suite: String,
    pub level: u8,
    pub scenarios: usize,
    pub completed: usize,
    /// Completed over scenarios; null when no scenario was run.
    pub completion_rate: Option<f64>,
    /// Mean turns to completion over completed scenarios (None: none).
    pub mean_turns: Option<f64>,
    pub max_turns: usize,
    pub assistant: String,
    pub user: String,
    pub per_scenario: Vec<ScenarioOutcome>,
}

impl Figures for ScenarioFigures {
    fn files_evaluated(&self, _failed: usize) -> usize {
        self.scenarios
    }
}

/// The run's totals over its scenarios' outcomes (the players are
/// named apart, once their outcomes say what they were).
pub fn summarise(
    suite: &str,
    level: u8,
    per_scenario: Vec<ScenarioOutcome>,
    max_turns: usize,
    settings: Value,
    pass: Pass,
) -> Summary {
    let turns: Vec<usize> = per_scenario.iter().filter_map(|o| o.turns).collect();
    let scenarios = per_scenario.len();
    let state_check = StateTotals::of(per_scenario.iter().filter_map(|o| o.state_check.as_ref()));
    let figures = ScenarioFigures {
        suite: suite.into(),
        level,
        scenarios,
        completed: turns.len(),
        completion_rate: (scenarios > 0).then(|| turns.len() as f64 / scenarios as f64),
        mean_turns: (!turns.is_empty())
            .then(|| turns.iter().sum::<usize>() as f64 / turns.len() as f64),
        max_turns,
        assistant: String::new(),
        user: String::new(),
        per_scenario,
    };
    let mut summary = Summary::new(figures, settings, pass);
    summary.state_check = state_check;
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario's outcome as a transcript records it (any suite's).
    fn outcome(turns: Option<usize>) -> ScenarioOutcome {
        serde_json::from_value(serde_json::json!({
            "file": "A.txt", "scenario": "A", "scene": "Alarm",
            "completed": turns.is_some(), "turns": turns, "turns_taken": turns.unwrap_or(20),
            "stopped": if turns.is_some() {"completed"} else {"max_turns"},
            "ground_truth": 2, "ground_truth_made": 0, "made": [], "calls": 0,
            "ground_truth_raising": [], "missing": [],
            "assistant_models": [], "user_models": [], "transcript": []}))
        .unwrap()
    }

    #[test]
    fn the_summary_counts_completed_scenarios_and_their_mean_turns() {
        let s = summarise(
            "apibank",
            3,
            vec![outcome(Some(2)), outcome(None), outcome(Some(5))],
            20,
            Value::Null,
            Pass::default(),
        );
        assert_eq!((s.scenarios, s.completed), (3, 2));
        assert_eq!(s.mean_turns, Some(3.5));
        assert!((s.completion_rate.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        let nothing = summarise("apibank", 3, vec![], 20, Value::Null, Pass::default());
        assert_eq!(
            serde_json::to_value(&nothing).unwrap()["completion_rate"],
            Value::Null
        );
        let none = summarise(
            "apibank",
            3,
            vec![outcome(None)],
            20,
            Value::Null,
            Pass::default(),
        );
        assert_eq!(none.mean_turns, None);
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "suite",
            "level",
            "scenarios",
            "completed",
            "mean_turns",
            "per_scenario",
        ] {
            assert!(json.get(key).is_some(), "{key}");
        }
        assert_eq!(json["level"], 3);
    }
}
