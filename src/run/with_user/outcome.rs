//! What a conversation with a simulated user came to, and a run's
//! totals: whether the scenario was completed (every ground-truth call
//! made) and in how many turns, the calls made and missed, the state
//! check, the transcript.

use serde::{Deserialize, Serialize};

use crate::run::conversation::Talk;
pub use crate::run::conversation::{Message, Speaker, Stop};
use crate::suite::interactive::Scenario;
use crate::suite::state::StateCheck;

/// The run's totals of the state check (one per scenario that has one).
pub use crate::eval::summary::StateTotals;

/// Which rule found a call to be a ground-truth call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    EqualArguments,
    ReferenceCheck,
}

/// A ground-truth call not made, or one that raises as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallAt {
    /// The 1-based line of the scenario file it is written on.
    pub line: usize,
    pub api_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioOutcome {
    pub file: String,
    pub scenario: String,
    pub scene: String,
    pub completed: bool,
    /// Turns to completion (None when not complete).
    pub turns: Option<usize>,
    /// Turns held, complete or not.
    pub turns_taken: usize,
    pub stopped: Stop,
    pub ground_truth: usize,
    /// Ground-truth calls made ([`super::matching`]).
    pub ground_truth_made: usize,
    /// Each ground-truth call made, in the order of the scenario.
    pub made: Vec<MadeAt>,
    /// Calls the assistant made (ToolSearcher included).
    pub calls: usize,
    pub missing: Vec<CallAt>,
    /// Ground-truth calls that raise when run as written, in order from
    /// fresh databases (a scenario can still be completed by making them).
    pub ground_truth_raising: Vec<CallAt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The databases the conversation left against those the ground-truth
    /// calls leave (absent for a conversation that could not run, or one
    /// kept by a version without the check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_check: Option<StateCheck>,
    /// The models the server said played the assistant and the user
    /// (absent for the oracle and a person).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assistant_models: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_models: Vec<String>,
    /// Whether the user was asked for a turn (not when the assistant
    /// finished on the first utterance): a run names a user model only
    /// if one was asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user_asked: bool,
    /// Taken from `--out` as an earlier run with the same settings left
    /// it (never kept in the transcript file itself).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resumed: bool,
    pub transcript: Vec<Message>,
}

/// A ground-truth call the assistant made: when, and by which rule it
/// matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MadeAt {
    /// The 1-based line of the scenario file it is written on.
    pub line: usize,
    pub api_name: String,
    /// The turn it was made in.
    pub turn: usize,
    pub by: Rule,
}

/// Where a scenario writes one of its ground-truth calls.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldAt {
    /// The 1-based line of the scenario file.
    pub line: usize,
    pub api_name: String,
}

impl ScenarioOutcome {
    /// What `talk` came to for `scenario`, whose ground-truth calls are
    /// `gold`: `made[i]` is the turn in which the assistant made `gold[i]`
    /// and the rule that matched it; `raising` the ground-truth calls that
    /// raise as written.
    pub fn of(
        file: &str,
        scenario: &dyn Scenario,
        talk: Talk,
        gold: &[GoldAt],
        made: &[Option<(usize, Rule)>],
        raising: Vec<CallAt>,
    ) -> Self {
        let completed = talk.stop == Stop::Completed;
        let call_at = |g: &GoldAt| CallAt {
            line: g.line,
            api_name: g.api_name.clone(),
            exception: None,
        };
        ScenarioOutcome {
            file: file.to_string(),
            scenario: scenario.name(),
            scene: scenario.scene(),
            completed,
            turns: completed.then_some(talk.turns),
            turns_taken: talk.turns,
            stopped: talk.stop,
            ground_truth: gold.len(),
            ground_truth_made: made.iter().flatten().count(),
            made: gold
                .iter()
                .zip(made)
                .filter_map(|(g, made)| {
                    let (turn, by) = (*made)?;
                    Some(MadeAt {
                        line: g.line,
                        api_name: g.api_name.clone(),
                        turn,
                        by,
                    })
                })
                .collect(),
            calls: talk.calls,
            missing: gold
                .iter()
                .zip(made)
                .filter(|(_, made)| made.is_none())
                .map(|(g, _)| call_at(g))
                .collect(),
            ground_truth_raising: raising,
            error: talk.error,
            state_check: talk.state_check,
            assistant_models: Vec::new(),
            user_models: Vec::new(),
            user_asked: talk.user_asked,
            resumed: false,
            transcript: talk.transcript,
        }
    }
}

/// The outcome of a conversation that could not start.
pub fn failed(file: &str, scenario: &dyn Scenario, error: String) -> ScenarioOutcome {
    ScenarioOutcome {
        file: file.to_string(),
        scenario: scenario.name(),
        scene: scenario.scene(),
        completed: false,
        turns: None,
        turns_taken: 0,
        stopped: Stop::Error,
        ground_truth: scenario.ground_truth(),
        ground_truth_made: 0,
        made: Vec::new(),
        calls: 0,
        missing: Vec::new(),
        ground_truth_raising: Vec::new(),
        error: Some(error),
        state_check: None,
        assistant_models: Vec::new(),
        user_models: Vec::new(),
        user_asked: false,
        resumed: false,
        transcript: Vec::new(),
    }
}
