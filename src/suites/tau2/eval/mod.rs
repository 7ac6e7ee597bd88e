pub mod action;
pub mod communicate;
pub mod converse;
pub mod db;
pub mod env_assertion;
pub mod figures;
pub mod grade;
pub mod message;
pub mod nl_assertion;
pub mod output;
pub mod predictions;
pub mod py_eq;
pub mod report;
pub mod resume;
pub mod selection;
pub mod trajectory;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{json, Value};

use self::figures::{Row, Tau2Figures};
use self::grade::{AgentState, Gold, Grading};
use self::message::Message;
use self::output::{Graded, Kept};
use self::predictions::{Predicted, Predictions, Trajectory};
use super::domain::{Db, Initial};
use super::suite::DATABASE_FILE;
use super::tasks::{self, Task};
use crate::llm::sha256_hex;
use crate::run::driver::{Failure, Pass};
use crate::run::provenance::{DatabasesRecord, Dataset, Provenance};
use crate::run::summary::RunSummary;
use crate::suite::tasks::{TaskPredictor, TaskProtocol, TaskRun};
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
    /// SHA-256 of its text.
    sha256: String,
    tasks: Vec<Task>,
    /// The tasks as written, for the results file.
    raw: Vec<Value>,
    /// Its database, an index into the run's.
    db: usize,
    /// tau2's name of the database's domain.
    domain: &'static str,
    policy: String,
    /// The tools an agent model is offered (none for other predictors).
    tools: Vec<Value>,
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

/// A database of the run: its initial state, where it was read, and the
/// SHA-256 of its file.
struct Database {
    initial: Initial,
    path: PathBuf,
    sha256: String,
}

/// One trajectory to grade.
struct Unit {
    file: usize,
    task: Task,
    raw: Value,
    trial: usize,
    termination: String,
    making: Making,
}

/// How a unit's trajectory comes to be.
enum Making {
    /// Given: messages taken as they are, or actions run.
    Predicted(Trajectory),
    /// The task's gold actions run as the agent's calls.
    Oracle,
    /// The agent and the user make it in conversation.
    Conversation,
}

/// A trajectory made (or taken back) and graded.
struct Done {
    row: Row,
    messages: Vec<Message>,
    reward_info: Value,
    agent_models: Vec<String>,
    user_models: Vec<String>,
    resumed: bool,
}

impl TaskProtocol for Tau2Tasks {
    fn evaluate(&self, run: &TaskRun<'_>) -> Result<crate::run::summary::Outcome> {
        let started = run.meter.reading();
        let mut databases: Vec<Database> = Vec::new();
        let mut by_db_path: HashMap<PathBuf, usize> = HashMap::new();
        let mut files = Vec::with_capacity(run.files.len());
        for path in run.files {
            files.push(load_file(path, run, &mut databases, &mut by_db_path)?);
        }
        for id in &run.selection.task_ids {
            if !files.iter().any(|f| f.position(id).is_some()) {
                return Err(Error::Usage(format!(
                    "--task-ids {id}: no task of the files given has this id"
                )));
            }
        }
        let initials: Vec<&Initial> = databases.iter().map(|d| &d.initial).collect();
        let (units, results_info, not_predicted) = units(run, &files, &initials)?;
        let settings = settings(run)?;

        // Units are made and graded apart, `run.threads` at a time; a
        // model's requests go out as the units come.
        let one = |unit: &Unit| {
            one_unit(
                unit,
                &files[unit.file],
                &databases[files[unit.file].db],
                &settings,
                run,
            )
        };
        let done: Vec<std::result::Result<Done, Failure>> = match run.threads {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build()
                .map_err(|e| Error::Other(format!("cannot start {n} worker threads: {e}")))?
                .install(|| units.par_iter().map(one).collect()),
            None => units.par_iter().map(one).collect(),
        };

        if let Some(out) = &run.out {
            write_results(out, run, &files, &units, &done, results_info.as_ref())?;
        }
        let mut pass = Pass {
            dataset: files
                .iter()
                .map(|f| (f.name.clone(), Some(f.sha256.clone())))
                .collect(),
            ..Pass::default()
        };
        let mut rows = Vec::with_capacity(done.len());
        let (mut agent_models, mut user_models) = (Vec::new(), Vec::new());
        for d in done {
            match d {
                Ok(d) => {
                    pass.resumed += usize::from(d.resumed);
                    agent_models.extend(d.agent_models);
                    user_models.extend(d.user_models);
                    rows.push(d.row);
                }
                Err(failure) => pass.failures.push(failure),
            }
        }
        let trials = trials(&rows);
        let figures = Tau2Figures::new(
            files.len(),
            predictor_name(&run.predictor),
            user_name(&run.predictor),
            rows,
            not_predicted,
        );
        let findings = figures.findings() || trials.as_ref().is_some_and(|t| !t.all_succeeded());
        let mut summary = RunSummary::new(figures, settings, pass);
        summary.trials = trials;
        summary.provenance = Some(provenance(
            run,
            &files,
            &databases,
            &agent_models,
            &user_models,
        ));
        summary.usage = run.meter.since(&started);
        if let Some(out) = &run.out {
            crate::report::runs::write_run(out, &summary, report::title(&summary))?;
        }
        let failure = crate::run::driver::failures_error(
            &summary.failures,
            summary.figures.trajectories + summary.failures.len(),
            "trajectory",
            run.out.as_deref(),
        );
        Ok(crate::run::summary::Outcome {
            human: figures::human(&summary),
            document: serde_json::to_value(&summary).expect("a summary serialises"),
            findings,
            failure,
        })
    }

    fn report_kind(&self) -> &'static dyn crate::report::runs::RunKind {
        crate::report::runs::kind::<Tau2Figures>()
    }
}

/// Who played the agent, in words.
fn predictor_name(predictor: &TaskPredictor) -> String {
    match predictor {
        TaskPredictor::Oracle => "oracle".into(),
        TaskPredictor::Replay { .. } => "replay".into(),
        TaskPredictor::Llm(players) => format!("openai:{}", players.agent.model),
    }
}

/// Who played the user, in words (None where no one did).
fn user_name(predictor: &TaskPredictor) -> Option<String> {
    match predictor {
        TaskPredictor::Llm(players) => Some(format!("llm:{}", players.user.model)),
        _ => None,
    }
}

/// Everything a trajectory is made and graded with: a trajectory in
/// `--out` made with other settings is made again.
fn settings(run: &TaskRun<'_>) -> Result<Value> {
    let model =
        |m: &crate::run::answer::Model| json!({"model": m.model, "temperature": m.temperature});
    let mut settings = json!({
        "suite": "tau2",
        "predictor": predictor_name(&run.predictor),
        "judge": run.judge.as_ref().map(model),
        "talkforge_version": env!("CARGO_PKG_VERSION"),
    });
    let map = settings.as_object_mut().expect("an object");
    match &run.predictor {
        TaskPredictor::Oracle => {}
        TaskPredictor::Replay {
            predictions,
            fresh_tasks,
        } => {
            map.insert(
                "predictions".into(),
                json!(predictions.display().to_string()),
            );
            map.insert(
                "predictions_sha256".into(),
                json!(crate::run::provenance::FileHash::of(predictions)?.sha256),
            );
            map.insert("fresh_tasks".into(), json!(fresh_tasks));
        }
        TaskPredictor::Llm(players) => {
            map.insert("agent".into(), model(&players.agent));
            map.insert("user".into(), model(&players.user));
            map.insert("max_steps".into(), json!(players.max_steps));
            map.insert("max_errors".into(), json!(players.max_errors));
            let docs = match &players.tool_docs {
                Some(path) => Some(crate::run::provenance::FileHash::of(path)?.sha256),
                None => None,
            };
            map.insert("tool_docs_sha256".into(), json!(docs));
            map.insert("prompts".into(), json!(converse::templates()));
        }
    }
    Ok(settings)
}

/// Make (or take back) and grade one trajectory, writing its file to
/// `--out`; a trajectory that cannot be made is a failure named by its
/// file and task.
fn one_unit(
    unit: &Unit,
    file: &TasksFile,
    database: &Database,
    settings: &Value,
    run: &TaskRun<'_>,
) -> std::result::Result<Done, Failure> {
    let initial = &database.initial;
    let task_text = serde_json::to_string(&unit.raw).expect("JSON serialises");
    let stamp = resume::stamp(
        settings,
        &sha256_hex(task_text.as_bytes()),
        &database.sha256,
        &sha256_hex(file.policy.as_bytes()),
    );
    let row = |termination: &str, grade: grade::Grade| Row {
        file: file.name.clone(),
        task_id: unit.task.id.clone(),
        trial: unit.trial,
        domain: file.domain.to_string(),
        termination: termination.to_string(),
        grade,
    };
    if let (Some(out), false) = (&run.out, run.reset) {
        if let Some(stored) =
            resume::take_back(out, &file.folder, &unit.task.id, unit.trial, &stamp)
        {
            return Ok(Done {
                row: row(&stored.termination_reason, stored.grade),
                messages: stored.messages,
                reward_info: stored.reward_info,
                agent_models: stored.agent_models,
                user_models: stored.user_models,
                resumed: true,
            });
        }
    }
    let (messages, termination, agent, agent_models, user_models) = match &unit.making {
        Making::Predicted(Trajectory::Messages(messages)) => (
            messages.clone(),
            unit.termination.clone(),
            AgentState::Replayed,
            Vec::new(),
            Vec::new(),
        ),
        Making::Predicted(Trajectory::Actions(calls)) => {
            let mut db = initial.db.clone();
            let calls = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| trajectory::call(i, name, args, "assistant"))
                .collect();
            (
                trajectory::run_calls(&mut db, calls),
                unit.termination.clone(),
                AgentState::Ran(db),
                Vec::new(),
                Vec::new(),
            )
        }
        Making::Oracle => {
            let mut db = initial.db.clone();
            let messages = trajectory::oracle(&mut db, &unit.task);
            // The gold replay runs a call a user requests, which the
            // agent's environment refuses: only without one is this run
            // the gold's.
            let by_user = unit
                .task
                .actions()
                .iter()
                .any(|a| a.requestor.as_deref() == Some("user"));
            let agent = if by_user {
                AgentState::Ran(db)
            } else {
                AgentState::Gold(db)
            };
            (
                messages,
                unit.termination.clone(),
                agent,
                Vec::new(),
                Vec::new(),
            )
        }
        Making::Conversation => {
            let TaskPredictor::Llm(players) = &run.predictor else {
                unreachable!("only a model's units are made in conversation")
            };
            let name = format!("{}#{}", file.name, unit.task.id);
            let trial = (run.trials > 1).then_some(unit.trial + 1);
            let held = converse::hold(
                players,
                &unit.task,
                &name,
                &file.policy,
                &file.tools,
                &initial.db,
                trial,
            )
            .map_err(|error| Failure {
                file: name.clone(),
                error: format!("{name}: {error}"),
            })?;
            (
                held.messages,
                held.termination,
                AgentState::Replayed,
                held.agent_models,
                held.user_models,
            )
        }
    };
    let gold = || {
        let db = super::verify::gold_state(&unit.task, initial);
        Gold {
            hash: initial.hash(&db),
            db,
        }
    };
    let grade = grade::grade(
        &unit.task,
        &messages,
        &termination,
        Grading {
            initial,
            agent,
            gold: &gold,
            judge: run.judge.as_ref(),
        },
    );
    let reward_info = output::reward_info(&grade);
    if let Some(out) = &run.out {
        let graded = Graded {
            folder: &file.folder,
            task_id: &unit.task.id,
            trial: unit.trial,
            termination: &termination,
            messages: &messages,
            grade: &grade,
        };
        let kept = Kept {
            evaluation: &stamp,
            reward_info: &reward_info,
            agent_models: &agent_models,
            user_models: &user_models,
        };
        output::write_task(out, &file.name, &graded, &kept).map_err(|e| Failure {
            file: format!("{}#{}", file.name, unit.task.id),
            error: e.to_string(),
        })?;
    }
    Ok(Done {
        row: row(&termination, grade),
        messages,
        reward_info,
        agent_models,
        user_models,
        resumed: false,
    })
}

/// pass^1 .. pass^n over the trials of the rows (full reward a success),
/// per domain; None for a run of one trial.
fn trials(rows: &[Row]) -> Option<crate::run::trials::Trials> {
    let mut by_trial: BTreeMap<usize, Vec<crate::run::trials::UnitOutcome>> = BTreeMap::new();
    for row in rows {
        by_trial.entry(row.trial).or_default().push(row.unit());
    }
    if by_trial.len() < 2 {
        return None;
    }
    let trials: Vec<_> = by_trial.into_values().collect();
    Some(crate::run::trials::Trials::new(&trials, Some("domain")))
}

/// Where the run's numbers came from.
fn provenance(
    run: &TaskRun<'_>,
    files: &[TasksFile],
    databases: &[Database],
    agent_models: &[String],
    user_models: &[String],
) -> Provenance {
    let dataset: Vec<(&str, Option<&str>)> = files
        .iter()
        .map(|f| (f.name.as_str(), Some(f.sha256.as_str())))
        .collect();
    let db_files: BTreeMap<String, String> = databases
        .iter()
        .map(|d| (d.path.display().to_string(), d.sha256.clone()))
        .collect();
    let all: String = databases.iter().map(|d| d.sha256.as_str()).collect();
    let (model, user) = match &run.predictor {
        TaskPredictor::Llm(p) => (Some(p.agent.model.clone()), Some(p.user.model.clone())),
        _ => (None, None),
    };
    Provenance {
        talkforge_version: env!("CARGO_PKG_VERSION").to_string(),
        date: crate::run::provenance::now(),
        suite: "tau2".into(),
        dataset: Dataset::of(dataset),
        databases: DatabasesRecord {
            folder: run
                .databases
                .map(|d| d.display().to_string())
                .unwrap_or_else(|| "beside each tasks file".into()),
            sha256: sha256_hex(all.as_bytes()),
            files: db_files,
        },
        errata: Vec::new(),
        predictor: predictor_name(&run.predictor),
        model_requested: model,
        models_reported: crate::run::answer::Reported::all(agent_models),
        user_model_requested: user,
        user_models_reported: crate::run::answer::Reported::all(user_models),
        prompt_templates: match run.predictor {
            TaskPredictor::Llm(_) => converse::templates(),
            _ => BTreeMap::new(),
        },
    }
}

/// Read a tasks file, its database (once a run) and what selects its tasks.
fn load_file(
    path: &Path,
    run: &TaskRun<'_>,
    databases: &mut Vec<Database>,
    by_db_path: &mut HashMap<PathBuf, usize>,
) -> Result<TasksFile> {
    let text = crate::formats::read::read_text(path)?;
    let sha256 = sha256_hex(text.as_bytes());
    let tasks = tasks::parse(path, &text)?;
    let raw: Vec<Value> =
        serde_json::from_str(&text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let db_path = run.databases.unwrap_or(&dir).join(DATABASE_FILE);
    let db = match by_db_path.get(&db_path) {
        Some(&i) => i,
        None => {
            databases.push(Database {
                initial: Initial::new(Db::load(&db_path)?),
                sha256: crate::run::provenance::FileHash::of(&db_path)?.sha256,
                path: db_path.clone(),
            });
            by_db_path.insert(db_path, databases.len() - 1);
            databases.len() - 1
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
        sha256,
        tasks,
        raw,
        db,
        domain: databases[db].initial.db.domain(),
        tools: match &run.predictor {
            TaskPredictor::Llm(players) => converse::tools(
                databases[db].initial.db.domain(),
                players.tool_docs.as_deref(),
            )?,
            _ => Vec::new(),
        },
        policy,
        allowed: selection::allowed(path, &run.selection)?,
    })
}

/// The trajectories to grade, the `info` of a results file replayed (with
/// the index of its tasks file), and the selected tasks no prediction
/// names.
type Units = (Vec<Unit>, Option<(usize, Value)>, Vec<String>);

/// The trajectories a run grades.
fn units(run: &TaskRun<'_>, files: &[TasksFile], initials: &[&Initial]) -> Result<Units> {
    let selected_unit =
        |file: usize, position: usize, trial: usize, termination: &str, making: Making| Unit {
            file,
            task: files[file].tasks[position].clone(),
            raw: files[file].raw[position].clone(),
            trial,
            termination: termination.to_string(),
            making,
        };
    // Every selected task, once per trial, in file order.
    let every_selected = |termination: &str, making: fn() -> Making| {
        let mut units = Vec::new();
        for (f, file) in files.iter().enumerate() {
            for (p, task) in file.tasks.iter().enumerate() {
                if file.selected(&task.id) {
                    for trial in 0..run.trials {
                        units.push(selected_unit(f, p, trial, termination, making()));
                    }
                }
            }
        }
        units
    };
    match &run.predictor {
        TaskPredictor::Oracle => Ok((
            every_selected("user_stop", || Making::Oracle),
            None,
            Vec::new(),
        )),
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
                        Making::Predicted(line.trajectory),
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
                        making: Making::Predicted(sim.trajectory),
                    });
                }
                Ok((
                    units,
                    Some((f, results.info)),
                    not_predicted(files, &predicted),
                ))
            }
        },
        TaskPredictor::Llm(_) => Ok((
            every_selected("", || Making::Conversation),
            None,
            Vec::new(),
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

/// Each tasks file's `Results` in `out` (`results.json`, or
/// `results-<folder>.json` each when there are several).
fn write_results(
    out: &Path,
    run: &TaskRun<'_>,
    files: &[TasksFile],
    units: &[Unit],
    done: &[std::result::Result<Done, Failure>],
    results_info: Option<&(usize, Value)>,
) -> Result<()> {
    crate::formats::write::create_folder(out)?;
    let now = chrono::Utc::now().to_rfc3339();
    let (agent, user, limits) = match &run.predictor {
        TaskPredictor::Oracle => ("talkforge_oracle", "talkforge_none", (0, 0)),
        TaskPredictor::Replay { .. } => ("talkforge_replay", "talkforge_none", (0, 0)),
        TaskPredictor::Llm(p) => (
            "talkforge_llm_agent",
            "talkforge_llm_user",
            (p.max_steps, p.max_errors),
        ),
    };
    for (f, file) in files.iter().enumerate() {
        let mut tasks: Vec<Value> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        let mut simulations = Vec::new();
        for (unit, done) in units.iter().zip(done) {
            let Ok(done) = done else { continue };
            if unit.file != f {
                continue;
            }
            let graded = Graded {
                folder: &file.folder,
                task_id: &unit.task.id,
                trial: unit.trial,
                termination: &done.row.termination,
                messages: &done.messages,
                grade: &done.row.grade,
            };
            simulations.push(output::simulation(&graded, &done.reward_info, &now));
            if !seen.contains(&unit.task.id.as_str()) {
                seen.push(&unit.task.id);
                tasks.push(unit.raw.clone());
            }
        }
        let info = match results_info {
            Some((i, info)) if *i == f => info.clone(),
            _ => output::info(file.domain, &file.policy, agent, user, run.trials, limits),
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
