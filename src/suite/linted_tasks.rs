//! What a suite whose files hold tasks for a simulated user (tau2) tells
//! `lint` about them: each task's gold actions replayed on a fresh state,
//! with what only the suite can judge worked out by it (an id that names
//! no record, a value the agent could not have found). The rules under
//! `lint/rules/` decide what to report from these facts and where.

use std::path::Path;

use crate::Result;

/// How a format's tasks file is read for lint: its path, its text and the
/// databases folder given on the command line (None: the suite's own
/// place for it, e.g. beside the file).
pub type ReadTasks = fn(&Path, &str, Option<&Path>) -> Result<LintedTasks>;

/// The tasks of one file, in file order.
#[derive(Debug, Clone, Default)]
pub struct LintedTasks {
    pub tasks: Vec<LintedTask>,
}

/// One task.
#[derive(Debug, Clone)]
pub struct LintedTask {
    pub id: String,
    /// Its 0-based position in the file's array.
    pub position: usize,
    /// What the simulated user is told, written canonically (equal texts
    /// for equal scenarios).
    pub scenario: String,
    /// The gold actions (names and arguments), written canonically; empty
    /// for a task without actions.
    pub gold: String,
    pub actions: Vec<LintedAction>,
    /// The task's reward includes the final database state.
    pub db_reward: bool,
    /// The final state of its gold differs from the initial state.
    pub changes_state: bool,
    /// What the agent must say (`communicate_info`), each with whether a
    /// gold action's output holds it.
    pub communicate: Vec<Communicated>,
}

/// One item the agent must say.
#[derive(Debug, Clone)]
pub struct Communicated {
    pub text: String,
    /// Some gold output holds it (as the grader compares: lowercased,
    /// commas aside).
    pub in_output: bool,
}

/// One gold action, as it ran.
#[derive(Debug, Clone)]
pub struct LintedAction {
    pub name: String,
    /// It changes the database (only writes count for the state reward).
    pub write: bool,
    /// What it raised.
    pub exception: Option<String>,
    /// A raise the task scripts (a lookup of a value the user is told to
    /// give first), not a defect.
    pub scripted: bool,
    /// For a write: the state's hash before and after it.
    pub states: Option<(String, String)>,
    /// Id arguments that name no record and that the user is not told.
    pub unknown_ids: Vec<ArgumentValue>,
    /// How many argument values were looked for where the agent could
    /// have learnt them.
    pub checked: usize,
    /// Argument values found nowhere the agent could have learnt them.
    pub unexplained: Vec<ArgumentValue>,
}

/// One argument value (a leaf of the arguments) a fact is about.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentValue {
    /// The argument as messages name it (`item_ids[1]`, `flights[0].date`).
    pub argument: String,
    /// The top-level argument it is under.
    pub top: String,
    /// JSON pointer tokens from the top-level argument's value down to it
    /// (`/1`, `/0/date`; "" for the value itself).
    pub below: String,
    /// The value as text.
    pub value: String,
    /// What the value should name (`product`, `order`), for ids.
    pub kind: &'static str,
}
