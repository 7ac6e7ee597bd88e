//! `evaluate` for a suite that grades the tasks of its files itself
//! (tau2-bench): the options read into a [`TaskRun`], the suite's
//! protocol run, its summary printed.

use std::io::Write;
use std::path::PathBuf;

use super::{finish, refuse, Args, PredictorKind, UserKind};
use crate::cli::Status;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::Model;
use crate::suite::tasks::{LlmPlayers, TaskPredictor, TaskProtocol, TaskRun, TaskSelection};
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
    if args.tasks.tool_docs.is_some() && args.predictor != PredictorKind::Openai {
        return Err(Error::Usage(
            "--tool-docs gives the openai agent its tool schemas: use it with --predictor openai"
                .into(),
        ));
    }
    if args.conversation.user == UserKind::Human {
        return Err(Error::Usage(
            "--user human is for API-Bank's level 3; a tau2 task's user is a model (--user-model)"
                .into(),
        ));
    }
    if args.reset && args.out.is_none() {
        return Err(Error::Usage(
            "--reset evaluates again what --out holds: give --out".into(),
        ));
    }
    if args.tasks.max_steps == 0 || args.tasks.max_errors == 0 {
        return Err(Error::Usage(
            "--max-steps and --max-errors must be at least 1".into(),
        ));
    }
    let meter = Meter::new();
    // The judge and the players answer at temperature 0 unless told.
    let at_zero = |name: &str, role: Role| -> Result<Model, Error> {
        Ok(Model {
            temperature: Some(args.temperature.unwrap_or(0.0)),
            ..args.model(name, &meter, role)?
        })
    };
    let judge = match &args.tasks.judge_model {
        Some(name) => Some(at_zero(name, Role::Judge)?),
        None => None,
    };
    let predictor = match args.predictor {
        PredictorKind::Oracle => TaskPredictor::Oracle,
        PredictorKind::Replay => TaskPredictor::Replay {
            predictions: args.predictions()?,
            fresh_tasks: args.tasks.fresh_tasks,
        },
        PredictorKind::Openai => TaskPredictor::Llm(Box::new(LlmPlayers {
            agent: at_zero(&args.model, Role::Assistant)?,
            user: at_zero(args.user_model(), Role::User)?,
            tool_docs: args.tasks.tool_docs.clone(),
            max_steps: args.tasks.max_steps,
            max_errors: args.tasks.max_errors,
        })),
    };
    let threads = if args.predictor == PredictorKind::Openai {
        Some(args.requests.concurrency.max(1))
    } else {
        args.jobs
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
        reset: args.reset,
        threads,
        meter,
    })?;
    // A task that could not be evaluated is an error (exit 2), after the
    // summary of the others.
    let document = (&outcome.document, || outcome.human.clone());
    finish(args, out, document, outcome.failure, outcome.findings)
}
