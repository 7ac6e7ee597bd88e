//! The figures of a tau2 run, as `summary.json` and `--format json` hold
//! them inside the run layer's envelope ([`crate::run::summary`]): the
//! keys of issue 34 first (`suite`, `tasks`, `scored`, `reward`,
//! `per_task`), each trajectory's grade, and the summary in words.

use serde::{Deserialize, Serialize};

use super::grade::Grade;
use crate::run::summary::{Figures, RunSummary};
use crate::run::trials::UnitOutcome;

/// One line of `per_task`: a trajectory and its grade.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub file: String,
    pub task_id: String,
    pub trial: usize,
    /// tau2's name of the task's domain (`airline`, `retail`).
    #[serde(default)]
    pub domain: String,
    /// Why the conversation ended (`agent_stop`, `user_stop`,
    /// `max_steps`, `too_many_errors`, ...).
    #[serde(default)]
    pub termination: String,
    #[serde(flatten)]
    pub grade: Grade,
}

impl Row {
    /// Full reward: the success pass^k counts.
    pub fn succeeded(&self) -> bool {
        self.grade.reward == Some(1.0)
    }

    /// The task as trials name it.
    pub fn unit(&self) -> UnitOutcome {
        let mut unit = UnitOutcome::file(&self.file, Some(self.domain.clone()), self.succeeded());
        unit.key
            .insert("task_id".into(), self.task_id.clone().into());
        unit
    }

    /// Why it fell short of the full reward, in words.
    pub fn why(&self) -> String {
        if self.grade.reward.is_none() {
            return self
                .grade
                .errors
                .first()
                .cloned()
                .unwrap_or_else(|| "not scored".into());
        }
        self.grade
            .errors
            .first()
            .cloned()
            .unwrap_or_else(|| components_words(&self.grade))
    }
}

/// A tau2 run's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tau2Figures {
    pub suite: String,
    /// Tasks files evaluated.
    pub files: usize,
    /// Tasks with a trajectory graded.
    pub tasks: usize,
    pub trajectories: usize,
    /// Trajectories with a reward (the others lack a judge or could not
    /// be graded).
    pub scored: usize,
    /// The mean reward over scored trajectories (null: none scored).
    pub reward: Option<f64>,
    /// Scored trajectories with the full reward.
    pub full_reward: usize,
    pub db_matches: usize,
    /// Who played the agent (`oracle`, `replay`, `openai:MODEL`).
    pub predictor: String,
    /// Who played the user (absent where no one did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Selected tasks no prediction names, as `FILE#ID`.
    #[serde(default)]
    pub not_predicted: Vec<String>,
    pub per_task: Vec<Row>,
}

impl Figures for Tau2Figures {
    fn files_evaluated(&self, _failed: usize) -> usize {
        self.trajectories
    }
}

impl Tau2Figures {
    /// The figures over `rows`, of `files` tasks files.
    pub fn new(
        files: usize,
        predictor: String,
        user: Option<String>,
        rows: Vec<Row>,
        not_predicted: Vec<String>,
    ) -> Self {
        let mut tasks: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.file.as_str(), r.task_id.as_str()))
            .collect();
        tasks.sort_unstable();
        tasks.dedup();
        let scored: Vec<f64> = rows.iter().filter_map(|r| r.grade.reward).collect();
        Tau2Figures {
            suite: "tau2".into(),
            files,
            tasks: tasks.len(),
            trajectories: rows.len(),
            scored: scored.len(),
            reward: mean(&scored),
            full_reward: scored.iter().filter(|r| **r == 1.0).count(),
            db_matches: rows.iter().filter(|r| r.grade.db_match).count(),
            predictor,
            user,
            not_predicted,
            per_task: rows,
        }
    }

    /// Whether some scored trajectory got less than the full reward.
    pub fn findings(&self) -> bool {
        self.full_reward < self.scored
    }
}

/// The mean (None over nothing).
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Trajectories below the full reward the words name, at most.
const SHOWN: usize = 10;

/// The summary in words.
pub fn human(summary: &RunSummary<Tau2Figures>) -> String {
    let f = &summary.figures;
    let mut human = format!(
        "{} over {}: {} scored, reward {}; full reward {}/{}; DB match {}/{}\n",
        crate::words::count(f.trajectories, "trajectory"),
        crate::words::count(f.tasks, "task"),
        f.scored,
        f.reward.map_or("-".to_string(), |r| format!("{r:.4}")),
        f.full_reward,
        f.scored,
        f.db_matches,
        f.trajectories,
    );
    let unscored = f.trajectories - f.scored;
    if unscored > 0 {
        human += &format!(
            "{} not scored (each names why under errors in --format json)\n",
            crate::words::count(unscored, "trajectory")
        );
    }
    if !f.not_predicted.is_empty() {
        human += &format!(
            "{} selected but not predicted\n",
            crate::words::count(f.not_predicted.len(), "task")
        );
    }
    let short: Vec<&Row> = f
        .per_task
        .iter()
        .filter(|r| r.grade.reward.is_some_and(|x| x < 1.0))
        .collect();
    for row in short.iter().take(SHOWN) {
        human += &format!(
            "  reward {} for {} task {}: {}\n",
            row.grade.reward.unwrap_or_default(),
            row.file,
            row.task_id,
            row.why()
        );
    }
    if short.len() > SHOWN {
        human += &format!("  and {} more below full reward\n", short.len() - SHOWN);
    }
    for failure in &summary.failures {
        human += &format!("  not evaluated: {}: {}\n", failure.file, failure.error);
    }
    // The figures above are over every trial, as tau2's are.
    if let Some(t) = &summary.trials {
        human += &format!(
            "over {} trials (full reward counts as success): {}\n",
            t.trials,
            crate::run::trials::pass_hat_words(&t.all.pass_hat)
        );
    }
    if summary.resumed > 0 {
        human += &format!(
            "{} resumed from --out\n",
            crate::words::count(summary.resumed, "trajectory")
        );
    }
    human + &crate::llm::usage::human(&summary.usage)
}

/// Which components fell short, in words.
pub fn components_words(grade: &Grade) -> String {
    let mut short = Vec::new();
    if !grade.db_match {
        short.push("the database differs from the gold's");
    }
    if grade.communicate == Some(0.0) {
        short.push("an item to communicate was not said");
    }
    if grade.action == Some(0.0) {
        short.push("a gold action was not matched");
    }
    if grade.env_assertions == Some(0.0) {
        short.push("an environment assertion failed");
    }
    if grade.nl_assertions == Some(0.0) {
        short.push("the judge found an NL assertion not met");
    }
    short.join("; ")
}
