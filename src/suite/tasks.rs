//! Evaluation by tasks (tau2-bench): each file holds many tasks, and the
//! suite grades each task's trajectory itself with its own reward. The
//! command hands the suite the files, the selection and the predictor;
//! the suite builds or reads the trajectories, grades them, writes its
//! outputs and gives back the summary.

use std::path::{Path, PathBuf};

use crate::llm::usage::Meter;
use crate::run::answer::Model;
use crate::Result;

/// Who produced the trajectories graded.
#[derive(Debug, Clone)]
pub enum TaskPredictor {
    /// The task's own gold actions (checks the simulator and the grading).
    Oracle,
    /// Trajectories read from a file.
    Replay {
        predictions: PathBuf,
        /// Grade a results file against the tasks files given instead of
        /// the tasks it embeds.
        fresh_tasks: bool,
    },
    /// A model as the agent, talking to a model playing the user.
    Llm(Box<LlmPlayers>),
}

/// The models of a conversation between an agent and a simulated user,
/// and what bounds it.
#[derive(Debug, Clone)]
pub struct LlmPlayers {
    pub agent: Model,
    pub user: Model,
    /// An OpenAI tools JSON offered to the agent instead of the suite's
    /// own tool schemas (as a benchmark publishes them).
    pub tool_docs: Option<PathBuf>,
    /// A conversation still going after this many messages stops
    /// (reward 0).
    pub max_steps: usize,
    /// A conversation stops (reward 0) at this many tool calls that
    /// raised.
    pub max_errors: usize,
}

/// Which tasks of the files are evaluated.
#[derive(Debug, Clone, Default)]
pub struct TaskSelection {
    /// A split named in the file beside the tasks file (tau2's
    /// `split_tasks.json`).
    pub split: Option<String>,
    /// Only these task ids (empty: every task).
    pub task_ids: Vec<String>,
}

/// One evaluation run over files of tasks.
#[derive(Debug, Clone)]
pub struct TaskRun<'a> {
    pub files: &'a [PathBuf],
    /// One databases folder for every file; None: each file's own folder.
    pub databases: Option<&'a Path>,
    pub predictor: TaskPredictor,
    /// The model that judges what only a reader can (NL assertions); None:
    /// those tasks are not scored.
    pub judge: Option<Model>,
    pub selection: TaskSelection,
    pub trials: usize,
    pub out: Option<PathBuf>,
    /// Evaluate again what `out` already holds.
    pub reset: bool,
    /// Units graded (or conversations held) at once; None: every core.
    pub threads: Option<usize>,
    /// Where the models asked count their tokens.
    pub meter: Meter,
}

/// A suite's evaluation by tasks.
pub trait TaskProtocol: Sync {
    fn evaluate(&self, run: &TaskRun<'_>) -> Result<crate::run::summary::Outcome>;

    /// How `report` reads and compares the runs it makes.
    fn report_kind(&self) -> &'static dyn crate::report::runs::RunKind;
}
