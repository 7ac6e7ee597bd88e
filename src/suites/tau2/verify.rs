//! Replaying each task's gold actions in order on a fresh copy of the
//! database, as tau2's gold environment does (an action that raises is
//! noted and the replay goes on), and the final state's hash.

use serde::Serialize;

use super::common::Output;
use super::domain::{Db, Initial};
use super::tasks::Task;
use super::ToolKind;

/// A gold action that raised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Raised {
    pub file: String,
    pub task_id: String,
    /// Its 0-based index in the task's `actions`.
    pub action: usize,
    pub api_name: String,
    pub exception: String,
    /// A read that failed on a value the user is told to give: the task
    /// scripts it; anything else is a defect of the gold.
    pub scripted: bool,
}

/// A task's database hash after its gold actions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalState {
    pub file: String,
    pub task_id: String,
    pub db_hash: String,
}

/// One gold action's outcome, as the agent would see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub name: String,
    /// The string tau2 hands the agent (`Error: ...` for a raise).
    pub agent_text: String,
    pub exception: Option<String>,
}

/// The replay of one task.
#[derive(Debug, Clone)]
pub struct TaskReplay {
    pub steps: Vec<Step>,
    pub raised: Vec<Raised>,
    pub final_state: FinalState,
}

/// The state `task`'s gold actions leave on a copy of `initial`, run as
/// [`replay`] runs them (what they answer is not kept).
pub fn gold_state(task: &Task, initial: &Initial) -> Db {
    let mut db = initial.db.clone();
    for action in task.actions() {
        // An action that raises is passed, as the gold environment passes it.
        let _ = db.call(&action.name, &action.arguments);
    }
    db
}

/// Replay `task`'s gold actions on a copy of `initial`.
pub fn replay(file: &str, task: &Task, initial: &Initial) -> TaskReplay {
    let mut db = initial.db.clone();
    let mut steps = Vec::new();
    let mut raised = Vec::new();
    for (index, action) in task.actions().iter().enumerate() {
        match db.call(&action.name, &action.arguments) {
            Ok(output) => steps.push(Step {
                name: action.name.clone(),
                agent_text: output.agent_text(),
                exception: None,
            }),
            Err(exception) => {
                let read = db.tool_kind(&action.name) == Some(ToolKind::Read);
                let scripted = read
                    && action
                        .arguments
                        .values()
                        .filter_map(|v| v.as_str())
                        .any(|v| task.scripted(v));
                steps.push(Step {
                    name: action.name.clone(),
                    agent_text: Output::Text(format!("Error: {exception}")).agent_text(),
                    exception: Some(exception.clone()),
                });
                raised.push(Raised {
                    file: file.to_string(),
                    task_id: task.id.clone(),
                    action: index,
                    api_name: action.name.clone(),
                    exception,
                    scripted,
                });
            }
        }
    }
    TaskReplay {
        steps,
        raised,
        final_state: FinalState {
            file: file.to_string(),
            task_id: task.id.clone(),
            db_hash: initial.hash(&db),
        },
    }
}
