//! What a conversation with a simulated user came to, and a run's
//! totals: whether the scenario was completed (every ground-truth call
//! made) and in how many turns, the calls made and missed, the state
//! check, the transcript.

use serde::{Deserialize, Serialize};

pub use crate::run::conversation::{Message, Speaker, Stop};
use crate::suite::interactive::{Rule, Scenario};
use crate::suite::state::StateCheck;

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
    /// Ground-truth calls made (the suite matches them).
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

impl ScenarioOutcome {
    /// `scenario`'s outcome (in `file`) when its conversation could not
    /// start, and why; the conversation fills in the rest as it goes.
    pub fn failed(file: &str, scenario: &Scenario, error: String) -> Self {
        ScenarioOutcome {
            file: file.to_string(),
            scenario: scenario.name.clone(),
            scene: scenario.scene.clone(),
            completed: false,
            turns: None,
            turns_taken: 0,
            stopped: Stop::Error,
            ground_truth: scenario.dialogue.gold_calls().count(),
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
}
