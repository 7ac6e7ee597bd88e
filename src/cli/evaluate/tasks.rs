//! `evaluate` for a suite that grades the tasks of its files itself
//! (tau2-bench).

use std::io::Write;
use std::path::PathBuf;

use super::{finish, refuse, Args, PredictorKind};
use crate::cli::Status;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::Model;
use crate::suite::tasks::{TaskPredictor, TaskProtocol, TaskRun, TaskSelection};
use crate::Error;

/// `evaluate` for a suite that grades the tasks of its files itself.
pub(super) fn run(
    args: &Args,
    protocol: &dyn TaskProtocol,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    let given = [
        ("--level", args.level.is_some()),
        ("--state", args.state.is_some()),
        ("--scoring", args.scoring.is_some()),
        ("--template", args.template.is_some()),
        ("--errata", !args.errata.is_empty()),
        ("--reset", args.reset),
    ];
    refuse(&given, |flag| {
        format!("{flag} is not used by an evaluation by tasks (tau2)")
    })?;
    if files.is_empty() {
        return Err(Error::Usage("no tasks file among the paths given".into()));
    }
    if args.tasks.fresh_tasks && args.predictor != PredictorKind::Replay {
        return Err(Error::Usage(
            "--fresh-tasks regrades a results file: use it with --predictor replay".into(),
        ));
    }
    let meter = Meter::new();
    // A judge answers at temperature 0 unless told.
    let judge = match &args.tasks.judge_model {
        Some(name) => Some(Model {
            temperature: Some(args.temperature.unwrap_or(0.0)),
            ..args.model(name, &meter, Role::Judge)?
        }),
        None => None,
    };
    let predictor = match args.predictor {
        PredictorKind::Oracle => TaskPredictor::Oracle,
        PredictorKind::Replay => TaskPredictor::Replay {
            predictions: args.predictions()?,
            fresh_tasks: args.tasks.fresh_tasks,
        },
        PredictorKind::Openai => TaskPredictor::Llm {
            agent: args.model(&args.model, &meter, Role::Assistant)?,
            user: args.model(args.user_model(), &meter, Role::User)?,
        },
    };
    let outcome = protocol.evaluate(&TaskRun {
        files,
        databases: args.databases.as_deref(),
        predictor,
        judge,
        selection: TaskSelection {
            split: args.tasks.split.clone(),
            task_ids: args.tasks.task_ids.clone(),
        },
        trials: args.trials,
        out: args.out.clone(),
    })?;
    let document = (&outcome.document, || outcome.human.clone());
    finish(args, out, document, None, outcome.findings)
}
