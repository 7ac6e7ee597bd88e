//! `evaluate --suite tau2`: each task's trajectory (the gold actions for
//! the oracle, or one read from a file) graded with tau2's reward
//! ([`grade`]), a component a file: DB ([`db`]), COMMUNICATE
//! ([`communicate`]), ACTION ([`action`]), ENV_ASSERTION
//! ([`env_assertion`]) and NL_ASSERTION ([`nl_assertion`], by a judge).

pub mod action;
pub mod communicate;
pub mod db;
pub mod env_assertion;
pub mod grade;
pub mod message;
pub mod nl_assertion;
pub mod output;
pub mod predictions;
pub mod py_eq;
pub mod selection;
pub mod trajectory;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use self::grade::{Grade, Grading};
use self::message::Message;
use self::output::Graded;
use self::predictions::{Predicted, Predictions, Trajectory};
use super::domain::{Db, Initial};
use super::suite::DATABASE_FILE;
use super::tasks::{self, Task};
use crate::suite::tasks::{TaskOutcome, TaskPredictor, TaskProtocol, TaskRun};
use crate::{Error, Result};

/// tau2's evaluation by tasks.
pub struct Tau2Tasks;

/// One tasks file as evaluated.
struct TasksFile {
    path: PathBuf,
    /// The path as given, which outputs name it by.
    name: String,
    /// The name of the folder holding it (`retail`).
    folder: String,
    tasks: Vec<Task>,
    /// The tasks as written, for the results file.
    raw: Vec<Value>,
    /// Its database, an index into the run's.
    db: usize,
    /// tau2's name of the database's domain.
    domain: &'static str,
    policy: String,
    /// The ids selected (None: all).
    allowed: Option<Vec<String>>,
}

impl TasksFile {
    fn selected(&self, id: &str) -> bool {
        self.allowed
            .as_ref()
            .is_none_or(|ids| ids.iter().any(|i| i == id))
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.id == id)
    }

    /// Whether a prediction's `file` names this file.
    fn named_by(&self, file: &str) -> bool {
        self.name == file || self.path.ends_with(file)
    }
}

/// One trajectory to grade.
struct Unit {
    file: usize,
    task: Task,
    raw: Value,
    trial: usize,
    termination: String,
    trajectory: Trajectory,
}

/// One line of `per_task`.
#[derive(Debug, Serialize)]
struct Row {
    file: String,
    task_id: String,
    trial: usize,
    #[serde(flatten)]
    grade: Grade,
}

impl TaskProtocol for Tau2Tasks {
    fn evaluate(&self, run: &TaskRun<'_>) -> Result<TaskOutcome> {
        let mut initials: Vec<Initial> = Vec::new();
        let mut by_db_path: HashMap<PathBuf, usize> = HashMap::new();
        let mut files = Vec::with_capacity(run.files.len());
        for path in run.files {
            files.push(load_file(path, run, &mut initials, &mut by_db_path)?);
        }
        for id in &run.selection.task_ids {
            if !files.iter().any(|f| f.position(id).is_some()) {
                return Err(Error::Usage(format!(
                    "--task-ids {id}: no task of the files given has this id"
                )));
            }
        }
        let (units, results_info, not_predicted) = units(run, &files, &initials)?;

        // Units are graded apart, on every core; a judge's requests go
        // out as the units come.
        let graded: Vec<(Row, Vec<Message>)> = units
            .par_iter()
            .map(|unit| grade_unit(unit, &files[unit.file], &initials, run))
            .collect();
        let (rows, trajectories): (Vec<Row>, Vec<Vec<Message>>) = graded.into_iter().unzip();

        if let Some(out) = &run.out {
            write_out(
                out,
                run,
                &files,
                &units,
                &rows,
                &trajectories,
                results_info.as_ref(),
            )?;
        }
        Ok(outcome(&files, &units, rows, not_predicted))
    }
}

/// Make (for calls) and grade one trajectory.
fn grade_unit(
    unit: &Unit,
    file: &TasksFile,
    initials: &[Initial],
    run: &TaskRun<'_>,
) -> (Row, Vec<Message>) {
    let initial = &initials[file.db];
    let (gold_replay, gold) = super::verify::replay_to_state(&file.name, &unit.task, initial);
    let gold_hash = gold_replay.final_state.db_hash;
    let messages = match &unit.trajectory {
        Trajectory::Messages(messages) => messages.clone(),
        Trajectory::Actions(calls) => {
            let mut db = initial.db.clone();
            let calls = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| trajectory::call(i, name, args, "assistant"))
                .collect();
            trajectory::run_calls(&mut db, calls)
        }
    };
    let grade = grade::grade(
        &unit.task,
        &messages,
        &unit.termination,
        &Grading {
            initial,
            gold_hash: &gold_hash,
            gold: Some(&gold),
            judge: run.judge.as_ref(),
        },
    );
    let row = Row {
        file: file.name.clone(),
        task_id: unit.task.id.clone(),
        trial: unit.trial,
        grade,
    };
    (row, messages)
}

/// Read a tasks file, its database (once a run) and what selects its tasks.
fn load_file(
    path: &Path,
    run: &TaskRun<'_>,
    initials: &mut Vec<Initial>,
    by_db_path: &mut HashMap<PathBuf, usize>,
) -> Result<TasksFile> {
    let text = crate::formats::read::read_text(path)?;
    let tasks = tasks::parse(path, &text)?;
    let raw: Vec<Value> =
        serde_json::from_str(&text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let db_path = run.databases.unwrap_or(&dir).join(DATABASE_FILE);
    let db = match by_db_path.get(&db_path) {
        Some(&i) => i,
        None => {
            initials.push(Initial::new(Db::load(&db_path)?));
            by_db_path.insert(db_path, initials.len() - 1);
            initials.len() - 1
        }
    };
    let policy_path = dir.join("policy.md");
    let policy = if policy_path.is_file() {
        crate::formats::read::read_text(&policy_path)?
    } else {
        String::new()
    };
    let folder = dir
        .canonicalize()
        .unwrap_or(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tasks".to_string());
    Ok(TasksFile {
        path: path.to_path_buf(),
        name: path.display().to_string(),
        folder,
        tasks,
        raw,
        db,
        domain: initials[db].db.domain(),
        policy,
        allowed: selection::allowed(path, &run.selection)?,
    })
}

/// The trajectories to grade, the `info` of a results file replayed (with
/// the index of its tasks file), and the selected tasks no prediction
/// names.
type Units = (Vec<Unit>, Option<(usize, Value)>, Vec<String>);

/// The trajectories a run grades.
fn units(run: &TaskRun<'_>, files: &[TasksFile], initials: &[Initial]) -> Result<Units> {
    let selected_unit =
        |file: usize, position: usize, trial: usize, termination: &str, trajectory: Trajectory| {
            Unit {
                file,
                task: files[file].tasks[position].clone(),
                raw: files[file].raw[position].clone(),
                trial,
                termination: termination.to_string(),
                trajectory,
            }
        };
    match &run.predictor {
        TaskPredictor::Oracle => {
            let mut units = Vec::new();
            for (f, file) in files.iter().enumerate() {
                for (p, task) in file.tasks.iter().enumerate() {
                    if !file.selected(&task.id) {
                        continue;
                    }
                    for trial in 0..run.trials {
                        let mut db = initials[file.db].db.clone();
                        let messages = trajectory::oracle(&mut db, task);
                        units.push(selected_unit(
                            f,
                            p,
                            trial,
                            "user_stop",
                            Trajectory::Messages(messages),
                        ));
                    }
                }
            }
            Ok((units, None, Vec::new()))
        }
        TaskPredictor::Replay {
            predictions,
            fresh_tasks,
        } => match predictions::read(predictions)? {
            Predictions::Lines(lines) => {
                if *fresh_tasks {
                    return Err(Error::Usage("--fresh-tasks is for a tau2 results file; predictions in lines are always graded against the tasks files given".into()));
                }
                let mut units = Vec::with_capacity(lines.len());
                let mut predicted = vec![Vec::new(); files.len()];
                for line in lines {
                    let (f, p) = locate(files, &line)?;
                    if !files[f].selected(&line.task_id) {
                        continue;
                    }
                    predicted[f].push(p);
                    units.push(selected_unit(
                        f,
                        p,
                        line.trial,
                        &line.termination,
                        line.trajectory,
                    ));
                }
                Ok((units, None, not_predicted(files, &predicted)))
            }
            Predictions::Results(results) => {
                let matching: Vec<usize> = (0..files.len())
                    .filter(|&f| initials[files[f].db].db.domain() == results.domain)
                    .collect();
                let [f] = matching[..] else {
                    return Err(Error::input(
                        predictions,
                        format!(
                            "holds results of the {} domain: give exactly one tasks file of that domain ({} given)",
                            results.domain,
                            matching.len()
                        ),
                    ));
                };
                let file = &files[f];
                let mut embedded: HashMap<String, (Task, Value)> = HashMap::new();
                for raw in &results.tasks {
                    let task: Task = serde_json::from_value(raw.clone()).map_err(|e| {
                        Error::input(predictions, format!("an embedded task cannot be read: {e}"))
                    })?;
                    embedded.insert(task.id.clone(), (task, raw.clone()));
                }
                let mut units = Vec::with_capacity(results.simulations.len());
                let mut predicted = vec![Vec::new(); files.len()];
                for sim in results.simulations {
                    if !file.selected(&sim.task_id) {
                        continue;
                    }
                    let fresh = file.position(&sim.task_id).filter(|_| *fresh_tasks);
                    let (task, raw) = match (fresh, embedded.get(&sim.task_id)) {
                        (Some(p), _) => (file.tasks[p].clone(), file.raw[p].clone()),
                        (None, Some((task, raw))) => (task.clone(), raw.clone()),
                        (None, None) => {
                            return Err(Error::input(
                                predictions,
                                format!(
                                    "{}: task {} is not among the tasks the results embed",
                                    sim.place, sim.task_id
                                ),
                            ))
                        }
                    };
                    if let Some(p) = file.position(&sim.task_id) {
                        predicted[f].push(p);
                    }
                    units.push(Unit {
                        file: f,
                        task,
                        raw,
                        trial: sim.trial,
                        termination: sim.termination,
                        trajectory: sim.trajectory,
                    });
                }
                Ok((
                    units,
                    Some((f, results.info)),
                    not_predicted(files, &predicted),
                ))
            }
        },
        TaskPredictor::Llm { .. } => Err(Error::Usage(
            "--predictor openai is not available for tau2 yet: use oracle or replay".into(),
        )),
    }
}

/// The file and position of the task a prediction line names.
fn locate(files: &[TasksFile], line: &Predicted) -> Result<(usize, usize)> {
    let candidates: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| line.file.as_deref().is_none_or(|name| f.named_by(name)))
        .filter_map(|(i, f)| f.position(&line.task_id).map(|p| (i, p)))
        .collect();
    match candidates[..] {
        [one] => Ok(one),
        [] => Err(Error::Usage(format!(
            "{}: no task {}{} among the tasks files given",
            line.place,
            line.task_id,
            line.file
                .as_deref()
                .map(|f| format!(" in {f}"))
                .unwrap_or_default()
        ))),
        _ => Err(Error::Usage(format!(
            "{}: task {} is in several tasks files: name one with \"file\"",
            line.place, line.task_id
        ))),
    }
}

/// The selected tasks that no prediction names, as `FILE#ID`.
fn not_predicted(files: &[TasksFile], predicted: &[Vec<usize>]) -> Vec<String> {
    let mut missing = Vec::new();
    for (f, file) in files.iter().enumerate() {
        for (p, task) in file.tasks.iter().enumerate() {
            if file.selected(&task.id) && !predicted[f].contains(&p) {
                missing.push(format!("{}#{}", file.name, task.id));
            }
        }
    }
    missing
}

fn write_out(
    out: &Path,
    run: &TaskRun<'_>,
    files: &[TasksFile],
    units: &[Unit],
    rows: &[Row],
    trajectories: &[Vec<Message>],
    results_info: Option<&(usize, Value)>,
) -> Result<()> {
    crate::formats::write::create_folder(out)?;
    let now = chrono::Utc::now().to_rfc3339();
    let agent = match run.predictor {
        TaskPredictor::Oracle => "talkforge_oracle",
        _ => "talkforge_replay",
    };
    for (f, file) in files.iter().enumerate() {
        let mut tasks: Vec<Value> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut simulations = Vec::new();
        for ((unit, row), messages) in units.iter().zip(rows).zip(trajectories) {
            if unit.file != f {
                continue;
            }
            let graded = Graded {
                folder: &file.folder,
                task_id: &unit.task.id,
                trial: unit.trial,
                termination: &unit.termination,
                messages,
                grade: &row.grade,
            };
            output::write_task(out, &file.name, &graded)?;
            simulations.push(output::simulation(&graded, &now));
            if !seen.contains(&unit.task.id.as_str()) {
                seen.push(&unit.task.id);
                tasks.push(unit.raw.clone());
            }
        }
        let info = match results_info {
            Some((i, info)) if *i == f => info.clone(),
            _ => output::info(file.domain, &file.policy, agent, run.trials),
        };
        let name = if files.len() == 1 {
            "results.json".to_string()
        } else {
            format!("results-{}.json", file.folder)
        };
        output::write_results(&out.join(name), &info, tasks, simulations, &now)?;
    }
    Ok(())
}

/// The summary: the keys of issue 34, and the figures in words.
fn outcome(
    files: &[TasksFile],
    units: &[Unit],
    rows: Vec<Row>,
    not_predicted: Vec<String>,
) -> TaskOutcome {
    let mut tasks: Vec<(usize, &str)> =
        units.iter().map(|u| (u.file, u.task.id.as_str())).collect();
    tasks.sort_unstable();
    tasks.dedup();
    let scored: Vec<f64> = rows.iter().filter_map(|r| r.grade.reward).collect();
    let reward = (!scored.is_empty()).then(|| scored.iter().sum::<f64>() / scored.len() as f64);
    let db_matches = rows.iter().filter(|r| r.grade.db_match).count();
    let full = scored.iter().filter(|r| **r == 1.0).count();
    let findings = full < scored.len();
    let mut human = format!(
        "{} over {}: {} scored, reward {}; full reward {}/{}; DB match {}/{}\n",
        crate::words::count(rows.len(), "trajectory"),
        crate::words::count(tasks.len(), "task"),
        scored.len(),
        reward.map_or("-".to_string(), |r| format!("{r:.4}")),
        full,
        scored.len(),
        db_matches,
        rows.len(),
    );
    let unscored = rows.len() - scored.len();
    if unscored > 0 {
        human += &format!(
            "{} not scored (each names why under errors in --format json)\n",
            crate::words::count(unscored, "trajectory")
        );
    }
    if !not_predicted.is_empty() {
        human += &format!(
            "{} selected but not predicted\n",
            crate::words::count(not_predicted.len(), "task")
        );
    }
    const SHOWN: usize = 10;
    let short: Vec<&Row> = rows
        .iter()
        .filter(|r| r.grade.reward.is_some_and(|x| x < 1.0))
        .collect();
    for row in short.iter().take(SHOWN) {
        let why = row
            .grade
            .errors
            .first()
            .cloned()
            .unwrap_or_else(|| components_words(&row.grade));
        human += &format!(
            "  reward {} for {} task {}: {why}\n",
            row.grade.reward.unwrap_or_default(),
            row.file,
            row.task_id
        );
    }
    if short.len() > SHOWN {
        human += &format!("  and {} more below full reward\n", short.len() - SHOWN);
    }
    let document = serde_json::json!({
        "suite": "tau2",
        "files": files.len(),
        "tasks": tasks.len(),
        "trajectories": rows.len(),
        "scored": scored.len(),
        "reward": reward,
        "db_matches": db_matches,
        "not_predicted": not_predicted,
        "per_task": rows,
    });
    TaskOutcome {
        document,
        human,
        findings,
    }
}

/// Which components fell short, in words.
fn components_words(grade: &Grade) -> String {
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
